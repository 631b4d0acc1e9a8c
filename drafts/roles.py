"""Who may propose and decide which records (docs/protocol.md "Roles and tools"): the one rule.

Every record Helena writes is made by a write tool as a draft; the roles that may use that tool are
the roles that may approve or reject its drafts. The tool registry reads the rule from here.
"""

from __future__ import annotations

from typing import Any

from akten.accounts.users import role_of
from drafts.fields import TOOL_FOR_KIND

_FULL_ROLES = frozenset({"ADMIN", "ANWALT"})
_SACHBEARBEITER_EXCLUDED = frozenset({"update_akte_rag"})
_SEKRETARIAT_WRITE = frozenset({"create_notiz"})


def write_roles(tool: str) -> frozenset[str]:
    """The roles that may use the write tool `tool` (and decide the drafts it makes)."""
    roles = set(_FULL_ROLES)
    if tool not in _SACHBEARBEITER_EXCLUDED:
        roles.add("SACHBEARBEITER")
    if tool in _SEKRETARIAT_WRITE:
        roles.add("SEKRETARIAT")
    return frozenset(roles)


def may_make(user: Any, kind: str) -> bool:
    """May this user's role propose (and decide) drafts of this kind?"""
    tool = TOOL_FOR_KIND.get(kind)
    return tool is not None and role_of(user) in write_roles(tool)


def kinds_decidable_by(user: Any) -> list[str]:
    """The kinds whose making tool the user's role may use."""
    return [kind for kind in TOOL_FOR_KIND if may_make(user, kind)]
