"""Runs one tool call the model asked for and turns every outcome into an observation.

Nothing a tool does may end the agent's run: refusals, bad arguments, missing records, timeouts and
crashes all come back as a `ToolResult` with an error the model can act on. Every call, refused
ones included, is written to the audit table (ToolCallLog).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import httpx
from asgiref.sync import sync_to_async
from django.core.exceptions import PermissionDenied
from django.db import InterfaceError, OperationalError, connections
from pydantic import ValidationError

from akten.lesezugriffe.services import speichern
from config.db_unavailable import ist_ausfall
from config.errors import NotFound
from helena.agent.checkpoint import Suspended
from helena.agent.tooling import Tool, ToolContext, ToolResult
from helena.llm.dialects import repair_arguments
from helena.tools.audit import record_tool_call
from helena.tools.registry import all_tools, not_set_up_for

logger = logging.getLogger(__name__)

RETRY_DELAYS: tuple[float, ...] = (0.2, 0.4)  # exponential backoff, at most two retries
_MAX_RAW_ARGUMENTS = 2000


class _InvalidArguments(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _field_problems(tool: Tool, exc: ValidationError) -> list[str]:
    allowed = ", ".join(tool.params.model_fields) or "keine"
    problems: list[str] = []
    for error in exc.errors():
        field = ".".join(str(part) for part in error.get("loc", ())) or "(Argumente)"
        kind = error.get("type", "")
        if kind == "missing":
            text = "Pflichtangabe fehlt"
        elif kind == "extra_forbidden":
            text = f"unbekannter Parameter (erlaubt: {allowed})"
        elif kind == "literal_error":
            text = f"ungültiger Wert, erlaubt: {error.get('ctx', {}).get('expected', '')}"
        else:
            text = str(error.get("msg", "ungültig"))
        problems.append(f"{field}: {text}")
    return problems


def _validate(tool: Tool, raw: Any) -> Any:
    arguments = repair_arguments(raw, lenient=False)
    if arguments is None:
        raise _InvalidArguments(
            f"Die Argumente für {tool.name} sind kein gültiges JSON-Objekt. Bitte rufe das Werkzeug "
            f"erneut auf, mit einem JSON-Objekt als Argumenten "
            f"(Parameter: {', '.join(tool.params.model_fields) or 'keine'})."
        )
    try:
        return tool.params.model_validate(arguments)
    except ValidationError as exc:
        problems = "; ".join(_field_problems(tool, exc))
        raise _InvalidArguments(
            f"Ungültige Argumente für {tool.name}: {problems}. "
            f"Bitte korrigiere die Argumente und rufe das Werkzeug erneut auf."
        ) from None


def _is_transient(exc: BaseException) -> bool:
    """Lost DB connections and flaky HTTP backends; never validation, NotFound or permissions."""
    if isinstance(exc, OperationalError | InterfaceError):
        return True
    if isinstance(exc, httpx.HTTPStatusError):
        return exc.response.status_code >= 500
    return isinstance(exc, httpx.TransportError)


def _reset_db_connections() -> None:
    """Drop broken connections so a retry reconnects (never inside a transaction: tests, atomic)."""
    for conn in connections.all(initialized_only=True):
        if not conn.in_atomic_block:
            conn.close_if_unusable_or_obsolete()


def _error(code: str, message: str, summary: str) -> ToolResult:
    return ToolResult(ok=False, error=message, error_code=code, summary=summary)


async def _run(tool: Tool, params: Any, ctx: ToolContext) -> ToolResult:
    for attempt in range(len(RETRY_DELAYS) + 1):
        try:
            # asyncio.timeout, not wait_for: no task of its own, so a handler that never waits (the
            # calculators) returns without the loop running everything else first
            async with asyncio.timeout(tool.timeout):
                result = await tool.handler(params, ctx)
        except TimeoutError:
            return _error(
                "timeout",
                f"Zeitüberschreitung: {tool.name} hat nicht innerhalb von {tool.timeout:g} s geantwortet. "
                f"Versuche es mit einer engeren Anfrage erneut oder fahre ohne dieses Ergebnis fort.",
                "Zeitüberschreitung",
            )
        except NotFound:
            return _error("not_found", "Nicht gefunden.", "Nicht gefunden")
        except PermissionDenied:
            return _error("forbidden", "Dieses Werkzeug steht dir nicht zur Verfügung.", "Nicht erlaubt")
        except Suspended:
            raise  # the run stops here and goes on from its checkpoint (a plan's inner call, too)
        except Exception as exc:
            if _is_transient(exc) and attempt < len(RETRY_DELAYS):
                logger.warning("tool %s: transient %s, retry %d", tool.name, type(exc).__name__, attempt + 1)
                if isinstance(exc, OperationalError | InterfaceError):
                    await sync_to_async(_reset_db_connections)()
                await asyncio.sleep(RETRY_DELAYS[attempt])
                continue
            if ctx.record_reads is not None and ist_ausfall(exc):
                # In a run, a database that stays away is not the tool's failure: the run waits for it
                # and goes on from its checkpoint, where this call is made again (helena/runs/resume.py).
                raise Suspended("database") from exc
            logger.exception("tool %s failed", tool.name)
            if _is_transient(exc):
                message = (
                    f"{tool.name} ist vorübergehend nicht erreichbar. Versuche es später erneut "
                    f"oder fahre ohne dieses Ergebnis fort."
                )
            else:
                message = (
                    f"{tool.name} ist wegen eines internen Fehlers fehlgeschlagen. "
                    f"Fahre ohne dieses Ergebnis fort oder versuche einen anderen Weg."
                )
            return _error("tool_failed", message, "Werkzeug fehlgeschlagen")
        if not isinstance(result, ToolResult):
            logger.error("tool %s returned %r instead of a ToolResult", tool.name, type(result))
            message = f"{tool.name} hat kein verwertbares Ergebnis geliefert."
            return _error("tool_failed", message, "Werkzeug fehlgeschlagen")
        return result
    raise AssertionError("unreachable")  # pragma: no cover


def _audit_params(raw: Any) -> dict[str, Any]:
    arguments = repair_arguments(raw, lenient=False)
    if arguments is not None:
        return arguments
    return {"_raw": str(raw)[:_MAX_RAW_ARGUMENTS]}


async def _audit(*, name: str, raw: Any, result: ToolResult, ctx: ToolContext, started: float) -> None:
    """Record the call; within a run (ctx.audits) behind the loop, which awaits it before the end."""
    params = _audit_params(raw)
    write = _write_audit(name=name, params=params, result=result, ctx=ctx,
                         duration_ms=round((time.monotonic() - started) * 1000))
    if ctx.audits is None:
        await write
    else:
        ctx.audits.append(asyncio.create_task(write))


async def settle_audits(ctx: ToolContext) -> None:
    """Wait until the audit rows of the run's tool calls are written."""
    while ctx.audits:
        pending, ctx.audits[:] = list(ctx.audits), []
        await asyncio.gather(*pending)


async def _write_audit(*, name: str, params: dict[str, Any], result: ToolResult, ctx: ToolContext,
                       duration_ms: int) -> None:
    try:
        await sync_to_async(record_tool_call)(
            tool=name,
            params=params,
            ok=result.ok,
            error_code=result.error_code,
            error=result.error,
            summary=result.summary,
            duration_ms=duration_ms,
            user=ctx.user,
            akte_id=params.get("akte_id"),
            fallback_akte_id=ctx.akte_id,
            run_id=ctx.run_id,
        )
    except Exception:  # the audit must never end the run; the log line keeps the trace
        logger.exception("could not record tool call %s", name)


async def _note_reads(result: ToolResult, ctx: ToolContext) -> None:
    """A run collects its tools' reads for one INSERT per step (ctx.record_reads); a call outside a
    run (no such port) stores its reads at once, so no read of the firm's records goes unlogged."""
    if not result.ok or not result.reads:
        return
    ctx.reads.extend(result.reads)
    if ctx.record_reads is None:
        batch, ctx.reads[:] = list(ctx.reads), []
        await sync_to_async(speichern)(user=ctx.user, lesungen=batch, run_id=ctx.run_id)


async def execute(
    *, name: str, arguments: dict[str, Any] | str, ctx: ToolContext, offered: dict[str, Tool]
) -> ToolResult:
    """Run the tool `name` for ctx.user if it was offered to them; always returns, always audits."""
    started = time.monotonic()
    tool = offered.get(name)
    if tool is None:
        missing = next((t for t in not_set_up_for(ctx.user) if t.name == name), None)
        if missing is not None:
            note = missing.unavailable_note or "Dieses Werkzeug ist in dieser Kanzlei nicht eingerichtet."
            result = _error("not_configured", note, "Nicht eingerichtet")
        elif name in all_tools():
            result = _error("forbidden", "Dieses Werkzeug steht dir nicht zur Verfügung.", "Nicht erlaubt")
        else:
            names = ", ".join(sorted(offered)) or "keine"
            result = _error(
                "unknown_tool",
                f"Unbekanntes Werkzeug „{name}“. Verfügbar sind: {names}.",
                "Unbekanntes Werkzeug",
            )
    else:
        try:
            params = _validate(tool, arguments)
        except _InvalidArguments as exc:
            result = _error("invalid_arguments", exc.message, "Ungültige Argumente")
        else:
            result = await _run(tool, params, ctx)
    ctx.sources.extend(result.sources)
    await _note_reads(result, ctx)
    await _audit(name=name, raw=arguments, result=result, ctx=ctx, started=started)
    return result
