"""Model instances from a plain-SQL row, and rows from model instances, for the few statements every
run makes, where compiling the ORM's query cost more than the query itself (the claim of a run read
its run, conversation and user through select_related: ~3 ms CPU of a run start on a small machine,
most of it quoting names; each create ~0.5 ms).

The columns and the fields' converters (JSON, encrypted or custom fields) are worked out once per
model and alias; the instance is built as the ORM builds it (Model.from_db), so it behaves as one the
ORM loaded: saved state, no deferred fields.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Model, signals

M = TypeVar("M", bound=Model)
Converter = Callable[[Any, Any, Any], Any]


def _wrapper() -> Any:
    """This thread's DatabaseWrapper, looked up once per row: `connection` is a proxy that finds it
    anew (through asgiref's thread-and-context local) at every attribute a field's converter or
    get_db_prep_save reads – a ledger row's preparation took 37 µs, most of it those lookups."""
    return connections[DEFAULT_DB_ALIAS]


class Columns(Generic[M]):
    """A model's concrete columns under a table alias: `sql` to select them, `instance` to build the
    model from the values in that order."""

    def __init__(self, model: type[M], alias: str) -> None:
        self.model = model
        fields = model._meta.concrete_fields
        self.count = len(fields)
        self.attnames = [field.attname for field in fields]
        quote = connection.ops.quote_name
        self.sql = ", ".join(f"{quote(alias)}.{quote(field.column)}" for field in fields)
        self._converters: list[tuple[int, Any, list[Converter]]] = []
        for i, field in enumerate(fields):
            column = field.get_col(alias)
            converters = connection.ops.get_db_converters(column) + field.get_db_converters(connection)
            if converters:
                self._converters.append((i, column, converters))

    def instance(self, values: Sequence[Any]) -> M:
        row = list(values)
        db = _wrapper()
        for i, column, converters in self._converters:
            for convert in converters:
                row[i] = convert(row[i], column, db)
        return self.model.from_db(db.alias, self.attnames, row)


class Insert(Generic[M]):
    """`create()` for a model every run writes, with the INSERT built once instead of compiled per
    row. Fields get their defaults and pre_save (auto_now_add) and are prepared for the database as
    the ORM does; a model with save signals connected is saved through the ORM, so no receiver is
    ever skipped."""

    def __init__(self, model: type[M]) -> None:
        self.model = model
        meta = model._meta
        assert not meta.parents, "one table only (no multi-table inheritance)"
        columns = meta.local_concrete_fields
        self.returning = [field for field in columns if field.primary_key and field.db_returning]
        self.fields = [field for field in columns if field not in self.returning and not field.generated]
        quote = connection.ops.quote_name
        self.head = f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(f.column) for f in self.fields)})"
        sql = f"{self.head} VALUES ({', '.join(['%s'] * len(self.fields))})"
        if self.returning:
            sql += f" RETURNING {', '.join(quote(f.column) for f in self.returning)}"
        self.sql = sql

    @property
    def plain(self) -> bool:
        """No save signals connected: the row may be written without the ORM."""
        return not (signals.pre_save.has_listeners(self.model) or signals.post_save.has_listeners(self.model))

    def select_into(self, source: str, *, taken: dict[str, str] | None = None,
                    **values: Any) -> tuple[M, str, list[Any]]:
        """The instance and `INSERT … SELECT <its values> FROM {source}`: a row written only where
        `source` (a CTE and condition) yields one, in a statement of the caller's (columns the database
        fills, such as an auto id, stay unset on the instance). `taken`: attname → SQL for a value
        that comes from `source` (e.g. {"conversation_id": "run.conversation_id"}). Only when `plain`."""
        assert self.plain, "a model with save signals is saved through the ORM"
        taken = taken or {}
        obj = self.model(**values)
        db = _wrapper()
        expressions, params = [], []
        for field in self.fields:
            if field.attname in taken:
                expressions.append(taken[field.attname])
            else:
                expressions.append("%s")
                params.append(field.get_db_prep_save(field.pre_save(obj, True), db))
        sql = f"{self.head} SELECT {', '.join(expressions)} FROM {source}"
        obj._state.adding = False
        obj._state.db = db.alias
        return obj, sql, params

    def statement(self, **values: Any) -> tuple[M, str, list[Any]]:
        """The instance and its INSERT with the parameters, for a caller that runs it on a connection
        of its own (a run's loop, helena/infra/loop_db.py). Only when `plain`."""
        assert self.plain, "a model with save signals is saved through the ORM"
        obj = self.model(**values)
        db = _wrapper()
        params = [field.get_db_prep_save(field.pre_save(obj, True), db) for field in self.fields]
        obj._state.adding = False
        obj._state.db = db.alias
        return obj, self.sql, params

    def create(self, **values: Any) -> M:
        if not self.plain:
            obj = self.model(**values)
            obj.save(force_insert=True)
            return obj
        obj, sql, params = self.statement(**values)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            if self.returning:
                for field, value in zip(self.returning, cursor.fetchone(), strict=True):
                    setattr(obj, field.attname, value)
        return obj
