"""The error log (seed 003): failed model calls, tool failures, guard failures, run errors and socket
failures, so an admin sees what breaks before users complain.

One row per cause and hour: the same failure (kind, code, message, tool, model) within WINDOW of
its row's first occurrence counts on that row (`anzahl`, `zuletzt_am`, the links of the latest
occurrence) instead of adding one. A model server that is down fails every memory refresh and
every run; as rows of their own those would bury the one different error an admin must see.

Writing a row must never break what failed: every error here is logged and swallowed.
"""

from __future__ import annotations

import logging
import uuid
from datetime import date, timedelta
from typing import Any

from django.db.models import F, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone

from helena.infra.db import db
from helena.models import AgentRun, ErrorLog

log = logging.getLogger(__name__)

MAX_MESSAGE = 2000
WINDOW = timedelta(hours=1)


def record_error(
    *,
    kind: str,
    code: str = "",
    message: str = "",
    run_id: Any = None,
    user_id: Any = None,
    context_type: str = "",
    mode: str = "",
    tool: str = "",
    model: str = "",
    tool_call_id: Any = None,
    llm_call_id: Any = None,
    unless_model_failed: bool = False,
) -> None:
    """Store one ErrorLog row (kind: model/tool/guard/run/websocket); never raises.

    `unless_model_failed`: a run that ends because its model call failed is one failure, already
    logged (kind model, linked to its ledger row): no second row for the run's end.
    """
    try:
        run_id = _uuid(run_id)
        if unless_model_failed and run_id is not None and ErrorLog.objects.filter(
                run_id=run_id, kind=ErrorLog.Kind.MODEL).exists():
            return
        if run_id is not None and not (context_type and mode and model):
            # The run knows where it happened: context, execution mode, model.
            known = AgentRun.objects.filter(pk=run_id).values(
                "context_type", "mode", "model", "user_id").first()
            if known is None:
                run_id = None
            else:
                context_type = context_type or known["context_type"]
                mode, model = mode or known["mode"], model or known["model"]
                user_id = user_id or known["user_id"]
        cause = {"kind": kind, "code": str(code)[:60], "message": str(message)[:MAX_MESSAGE],
                 "tool": str(tool or "")[:100], "model": str(model or "")[:200]}
        occurrence = {"context_type": str(context_type or "")[:20], "mode": str(mode or "")[:12],
                      "run_id": run_id, "user_id": _pk(user_id), "tool_call_id": _pk(tool_call_id),
                      "llm_call_id": _pk(llm_call_id)}
        now = timezone.now()
        same = (ErrorLog.objects.filter(**cause, created_at__gte=now - WINDOW)
                .order_by("-created_at").values_list("pk", flat=True).first())
        if same is None or not ErrorLog.objects.filter(pk=same).update(
                anzahl=F("anzahl") + 1, zuletzt_am=now, **occurrence):
            ErrorLog.objects.create(**cause, **occurrence, zuletzt_am=now)
    except Exception:  # the log must not turn one failure into two
        log.exception("writing the error log failed (%s %s)", kind, code)


async def arecord_error(**fields: Any) -> None:
    """record_error from async code, on the database threads (helena.infra.db), which give their
    connections back: a thread of the default executor would keep one from the pool for good."""
    await db(lambda: record_error(**fields))


def _pk(value: Any) -> Any:
    """A primary key or None (run ids arrive as strings from the tools' context)."""
    if value in (None, ""):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _uuid(value: Any) -> uuid.UUID | None:
    """A run id (AgentRun's primary key is a UUID) or None."""
    if value in (None, ""):
        return None
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        return None


def errors_per_day(*, days: int = 14, today: date | None = None) -> list[dict[str, Any]]:
    """Failures per day (Europe/Berlin) and kind for the last `days` days, newest first, days without
    any included: the admin sees at a glance whether something started breaking. Occurrences, not
    rows: a row counting 16 failures counts 16 (on the day it was first seen)."""

    tz = timezone.get_current_timezone()
    today = today or timezone.localdate()
    first = today - timedelta(days=days - 1)
    counts: dict[date, dict[str, int]] = {first + timedelta(days=i): {} for i in range(days)}
    rows = (ErrorLog.objects.annotate(day=TruncDate("created_at", tzinfo=tz)).filter(day__gte=first)
            .values("day", "kind").annotate(n=Sum("anzahl")))
    for row in rows:
        if row["day"] in counts:
            counts[row["day"]][row["kind"]] = row["n"]
    kinds = [kind for kind, _ in ErrorLog.Kind.choices]
    return [{"day": day, "total": sum(per_kind.values()), "kinds": [per_kind.get(k, 0) for k in kinds]}
            for day, per_kind in sorted(counts.items(), reverse=True)]
