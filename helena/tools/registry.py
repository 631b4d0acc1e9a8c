"""Which tools exist and which a user is offered.

Every module of helena.tools.handlers (one per tool family) is imported and its module-level `Tool`
objects (and lists named TOOLS) are collected, so adding a tool is adding a file. The role
filter of docs/protocol.md is `roles_for` (write tools: drafts/roles.py).
"""

from __future__ import annotations

import dataclasses
import importlib
import pickle
import pkgutil
from functools import cache
from types import ModuleType
from typing import Any

from akten.accounts.users import ALL_ROLES, role_of
from drafts.roles import write_roles
from helena.agent.tooling import Tool, ToolKind
from helena.llm.dialects.parser import StreamParser


def roles_for(kind: ToolKind, name: str) -> frozenset[str]:
    """The roles that may use a tool (docs/protocol.md role filter): read and meta tools every role, a
    write tool the roles that may propose and decide its drafts (the rule is drafts/roles.py)."""
    if kind in ("read", "meta"):
        return ALL_ROLES
    if kind != "write":
        raise ValueError(f"unknown tool kind {kind!r} for {name!r}")
    return write_roles(name)


class _RegisteredTool(Tool):
    """A discovered tool whose schema is built once.

    pydantic generates a JSON schema anew on every model_json_schema() call (~0.3 ms per tool), and
    the loop asks for every offered tool's schema on every model turn: with a dozen tools that was
    most of the CPU a run spent. Each call still gets its own copy, so a caller may change it: kept
    pickled, as unpickling copies a JSON-like structure in C (half of a copy in Python).
    """

    def schema(self) -> dict[str, Any]:
        cached = self.__dict__.get("_schema")
        if cached is None:
            cached = pickle.dumps(super().schema(), pickle.HIGHEST_PROTOCOL)
            object.__setattr__(self, "_schema", cached)  # frozen dataclass: a cache, not a field
        return pickle.loads(cached)  # our own bytes, made above


def _tool_modules() -> list[ModuleType]:
    package = importlib.import_module("helena.tools.handlers")
    return [
        importlib.import_module(f"{package.__name__}.{info.name}")
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name)
        if not info.name.startswith("_")
    ]


def _tools_of(module: ModuleType) -> list[Tool]:
    found: list[Tool] = [value for value in vars(module).values() if isinstance(value, Tool)]
    found.extend(t for t in getattr(module, "TOOLS", ()) or () if isinstance(t, Tool))
    return found


@cache
def all_tools() -> dict[str, Tool]:
    """Every discovered tool by name, with `roles` narrowed to what docs/protocol.md allows."""
    tools: dict[str, Tool] = {}
    originals: dict[str, Tool] = {}
    for module in _tool_modules():
        for tool in _tools_of(module):
            known = originals.get(tool.name)
            if known is tool:
                continue  # the same object imported into a second module, or also listed in TOOLS
            if known is not None:
                raise RuntimeError(
                    f"Two different tools are named {tool.name!r} (second in {module.__name__})"
                )
            originals[tool.name] = tool
            # A tool may narrow its roles further, never widen them beyond the protocol.
            allowed = roles_for(tool.kind, tool.name)
            roles = allowed if tool.roles is None else tool.roles & allowed
            if type(tool) is Tool:
                fields = {f.name: getattr(tool, f.name) for f in dataclasses.fields(tool) if f.init}
                tools[tool.name] = _RegisteredTool(**{**fields, "roles": roles})
            else:  # a Tool subclass keeps its own class (and builds its schema itself)
                tools[tool.name] = dataclasses.replace(tool, roles=roles)
    return dict(sorted(tools.items()))


def warm_up() -> None:
    """Discover the tools, build their schemas and the stream parser's tables (for all tool names, as
    every run's parser knows them, and for none, as side calls have) at process start
    (config/gc_tuning.py): the first run of a process paid ~50 ms of pydantic schema generation and
    ~40 ms of regex compiling per table otherwise."""
    tools = all_tools()
    for tool in tools.values():
        tool.schema()
    StreamParser(names=frozenset(tools))
    StreamParser()  # a side call's (summary, classifier): no tools


def tools_for(user: Any) -> list[Tool]:
    """The tools offered to this user: allowed for the role and available in this installation."""
    if user is None or not getattr(user, "is_authenticated", False) or not getattr(user, "is_active", False):
        return []
    role = role_of(user)
    return [tool for tool in all_tools().values() if role in tool.roles and tool.available()]


def not_set_up_for(user: Any) -> list[Tool]:
    """Tools the user's role may use that this installation has not set up (search_web without a
    search service): the prompt names them so the model does not try, the executor says why."""
    if user is None or not getattr(user, "is_authenticated", False) or not getattr(user, "is_active", False):
        return []
    role = role_of(user)
    return [tool for tool in all_tools().values() if role in tool.roles and not tool.available()]


def schemas_for(user: Any) -> list[dict[str, Any]]:
    """OpenAI function schemas of the tools offered to this user."""
    return [tool.schema() for tool in tools_for(user)]
