"""The audit trail of tool calls (ToolCallLog): every call a model asked for, refused ones included."""

from __future__ import annotations

from typing import Any

from akten.models import Akte, User
from akten.selectors import get_akte
from config.errors import NotFound
from helena.infra.errorlog import record_error
from helena.models import ToolCallLog

_MAX_TEXT = 500


def _visible_akte(*, user: User | None, akte_id: Any) -> Akte | None:
    """The Akte only if the user may see it: the log must not link what the caller cannot see."""
    if user is None or akte_id in (None, ""):
        return None
    try:
        return get_akte(user=user, akte_id=akte_id)
    except NotFound:
        return None


TOOL_FAILURES = frozenset({"tool_failed", "timeout"})


def record_tool_call(
    *,
    tool: str,
    params: dict[str, Any],
    ok: bool,
    user: User | None,
    duration_ms: int,
    error_code: str | None = None,
    error: str | None = None,
    summary: str = "",
    akte_id: Any = None,
    fallback_akte_id: int | None = None,
    run_id: str | None = None,
) -> ToolCallLog:
    """Audit one tool call; the Akte is the one named in the arguments, else the one in focus."""
    if user is not None and getattr(user, "pk", None) is None:
        user = None
    akte = _visible_akte(user=user, akte_id=akte_id) or _visible_akte(user=user, akte_id=fallback_akte_id)
    row = ToolCallLog.objects.create(
        tool=tool[:100],
        params=params,
        ok=ok,
        error_code=(error_code or "")[:40],
        error=error or "",
        summary=(summary or "")[:_MAX_TEXT],
        duration_ms=max(0, int(duration_ms)),
        user=user,
        akte=akte,
        run_id=run_id or None,
    )
    if error_code in TOOL_FAILURES:  # broke on our side, not a refusal or a bad argument of the model
        record_error(kind="tool", code=error_code, message=error or "", run_id=run_id, user_id=row.user_id,
                     tool=tool, tool_call_id=row.pk)
    return row
