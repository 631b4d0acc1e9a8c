"""Plain-SQL rows for the statements every run makes: what they write and read is what the ORM
writes and reads, and a model with save signals is still saved through the ORM."""

from __future__ import annotations

from typing import Any

import pytest
from django.db.models import signals

from akten.models import Role, User
from helena.infra.rows import Columns, Insert
from helena.models import AgentRun, Conversation, LLMCall, Message

pytestmark = pytest.mark.django_db


def _stored(obj: Any) -> dict[str, Any]:
    row = type(obj).objects.filter(pk=obj.pk).values().get()
    return {k: v for k, v in row.items() if k not in ("id", "created_at", "updated_at")}


def _conversation() -> Conversation:
    user = User.objects.create_user(username="anwalt", password="pw", role=Role.ANWALT)
    return Conversation.objects.create(user=user)


def test_insert_writes_what_the_orms_create_writes() -> None:
    conversation = _conversation()
    for model, values in (
        (Message, {"conversation": conversation, "role": Message.Role.USER, "text": "Wann endet die Frist?"}),
        (AgentRun, {"conversation": conversation, "user": conversation.user, "mode": "inline", "tier": 2,
                    "task_type": "frist", "classifier_reason": "Regel"}),
        (LLMCall, {"user_id": conversation.user_id, "provider": "ollama", "model": "qwen3", "tier": 1,
                   "operation": "agent", "prompt_tokens": 12, "completion_tokens": 3, "latency_ms": 40}),
    ):
        ours, theirs = Insert(model).create(**values), model.objects.create(**values)
        assert ours.pk is not None and not ours._state.adding
        assert _stored(ours) == _stored(theirs)
        assert ours.created_at is not None  # auto_now_add as the ORM sets it


def test_a_model_with_save_signals_is_saved_through_the_orm() -> None:
    conversation, heard = _conversation(), []

    def receiver(sender: Any, instance: Message, created: bool, **_: Any) -> None:
        heard.append((instance.text, created))

    signals.post_save.connect(receiver, sender=Message, dispatch_uid="test-rows")
    try:
        Insert(Message).create(conversation=conversation, role=Message.Role.USER, text="Hallo")
    finally:
        signals.post_save.disconnect(dispatch_uid="test-rows", sender=Message)
    assert heard == [("Hallo", True)]


def test_columns_read_instances_as_select_related_does() -> None:
    conversation = _conversation()
    run = AgentRun.objects.create(conversation=conversation, user=conversation.user, mode="inline")
    runs, users = Columns(AgentRun, "r"), Columns(User, "u")
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {runs.sql}, {users.sql} FROM {AgentRun._meta.db_table} r "
                       f"JOIN {User._meta.db_table} u ON u.id = r.user_id WHERE r.id = %s", [run.pk])
        row = cursor.fetchone()
    ours, user = runs.instance(row[:runs.count]), users.instance(row[runs.count:])
    theirs = AgentRun.objects.select_related("user").get(pk=run.pk)
    assert {f.attname: getattr(ours, f.attname) for f in AgentRun._meta.concrete_fields} == \
        {f.attname: getattr(theirs, f.attname) for f in AgentRun._meta.concrete_fields}
    assert user.username == "anwalt" and user.check_password("pw") and not ours._state.adding


def test_select_into_writes_what_create_writes_and_takes_columns_from_its_source() -> None:
    from django.db import connection

    conversation = _conversation()
    values = {"conversation": conversation, "user": conversation.user, "mode": "inline", "tier": 2,
              "task_type": "frist", "classifier_reason": "Regel"}
    obj, sql, params = Insert(AgentRun).select_into("src WHERE src.ok", taken={"created_at": "src.at"},
                                                    **values)
    with connection.cursor() as cursor:
        cursor.execute(f"WITH src AS (SELECT true AS ok, TIMESTAMPTZ '2026-11-29 10:00:00+00' AS at), "
                       f"w AS ({sql}) SELECT 1", params)
    theirs = AgentRun.objects.create(**values)
    assert _stored(AgentRun.objects.get(pk=obj.pk)) == _stored(theirs)
    assert AgentRun.objects.get(pk=obj.pk).created_at.isoformat() == "2026-11-29T10:00:00+00:00"

    skipped, sql, params = Insert(AgentRun).select_into("src WHERE src.ok", **values)
    with connection.cursor() as cursor:
        cursor.execute(f"WITH src AS (SELECT false AS ok), w AS ({sql}) SELECT 1", params)
    assert not AgentRun.objects.filter(pk=skipped.pk).exists()  # no row where the source yields none
