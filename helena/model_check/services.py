"""The model check of a tier, as `manage.py modellpruefung` and the admin's button start it.

The tier's model is resolved through the router as a run's is (its health check, the cloud rules, the
redaction of a cloud model) and booked in the usage ledger (operation `modellpruefung`), then each
task of the catalogue runs through the agent loop on the Prüfakte. The result is kept beside the tier
(ModelCheck), so the admin reads on the tier's page when it was checked and what came out.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from asgiref.sync import async_to_sync
from celery import current_app
from django.db import connection, transaction
from django.utils import timezone

from config.errors import DomainError
from helena.infra.db import db
from helena.llm import locality, router
from helena.llm.base import LLMError
from helena.llm.dialects import profiles
from helena.llm.wrappers.accounting import RecordingModel
from helena.model_check.pruefakte import Pruefakte
from helena.model_check.report import (
    CheckedModel,
    Verdict,
    as_details,
    closing_lines,
    header_lines,
    not_checked_reason,
    summary,
    task_line,
    verdict,
)
from helena.model_check.runner import TaskResult, run_task
from helena.model_check.tasks import catalogue
from helena.models import HelenaSettings, ModelCheck
from helena.runs.step_limits import limits_for

log = logging.getLogger(__name__)

TASK_NAME = "helena.modellpruefung"  # the Celery task (helena/tasks.py)
OPERATION = "modellpruefung"  # the usage ledger's Vorgang of the check's model calls
STALE = timedelta(minutes=60)  # an unfinished check older than this is taken as lost (its worker died)
LOST = "abgebrochen (der Worker lief nicht zu Ende)"
KEEP = 20  # checks kept per tier; older ones go when a check is stored
LOCK = 0x4D6F6450  # pg_advisory_xact_lock(LOCK, tier): one start of a tier's check at a time
Progress = Callable[[str], None]
Status = ModelCheck.Status


@dataclass
class TierCheck:
    """One tier's check: the model found, the tasks' results and the verdict (None: not checked)."""

    model: CheckedModel
    results: list[TaskResult] = field(default_factory=list)
    verdict: Verdict | None = None
    reason: str = ""  # why it was not checked (German)
    lines: list[str] = field(default_factory=list)
    busy: bool = False  # not checked: another check of the tier was running

    @property
    def tier(self) -> int:
        return self.model.tier

    @property
    def exit_code(self) -> int:
        """As the command's: 0 suitable, 1 not suitable, 2 not checked (the server cannot be reached)."""
        if self.verdict is None:
            return 2
        return 0 if self.verdict.suitable else 1


def check_tier(*, tier: int, requested_by: Any = None, progress: Progress | None = None,
               today: date | None = None) -> TierCheck:
    """Check the model serving `tier` now; each line goes to `progress` as soon as it is known."""
    found = TierCheck(model=CheckedModel(tier=tier))
    say = _sayer(found, progress)
    config = router.tier_configs().get(tier)
    if config is None:
        return _not_checked(found, say, f"Stufe {tier} ist nicht eingerichtet (Verwaltung → Modellstufen "
                                        f"oder HELENA_TIER{tier}_MODEL)")
    helena = HelenaSettings.load()
    opt_in = bool(helena.cloud_allowed)
    model = found.model
    model.name, model.host = config.name, config.host
    model.interface = "Ollama" if config.provider == "ollama" else "OpenAI-kompatibel"
    model.standort = locality.describe(url=config.host, tier=tier, standort=config.standort)
    if config.cloud and not opt_in:  # no call of any kind leaves the house before the firm's opt-in
        return _not_checked(found, say, "das Modell läuft in der Cloud, und die Cloud ist nicht freigegeben "
                                        "(Verwaltung → Helena-Einstellungen)")
    detected = router.detected_dialect(config, cloud_allowed=opt_in)
    profile = detected["profile"]
    model.dialect, model.dialect_label = profile.dialect, profile.label
    model.native_tools = profile.native_tools
    model.capabilities = detected["capabilities"]
    model.labels = {key: p.label for key, p in profiles.PROFILES.items()}
    user_id = getattr(requested_by, "pk", None)
    chat_seconds = limits_for("inline", helena).timeout  # the admin's „Zeitlimit im Chat“
    return async_to_sync(_check)(found, config=config, opt_in=opt_in, say=say, chat_seconds=chat_seconds,
                                 today=today or timezone.localdate(), user_id=user_id)


async def _check(found: TierCheck, *, config: router.TierConfig, opt_in: bool, say: Callable[[str], Any],
                 chat_seconds: float, today: date, user_id: int | None) -> TierCheck:
    try:  # pinned to this tier: a check must not quietly try the model of another
        resolved = await router.resolve(tier=config.tier, cloud_allowed=opt_in, configs={config.tier: config})
    except LLMError as exc:
        return await db(_not_checked, found, say, _unreachable(config, exc))
    booked = RecordingModel(resolved.model, user_id=user_id, tier=config.tier, operation=OPERATION,
                            price_in=resolved.price_in, price_out=resolved.price_out)
    try:
        found.model.context_window = await booked.context_window()
        for line in header_lines(found.model):
            await db(say, line)
        tasks = catalogue(today=today, context_window=found.model.context_window)
        for number, task in enumerate(tasks, 1):
            result = await run_task(task, model=booked, akte=Pruefakte(today), tier=config.tier,
                                    chat_seconds=chat_seconds)
            reason = not_checked_reason(result, model=found.model) if number == 1 else ""
            if reason:  # nothing came back: the other nine would fail alike and say nothing of the model
                return await db(_not_checked, found, say, reason)
            found.results.append(result)
            await db(say, task_line(number, result))
    finally:
        await booked.settle()
        await booked.aclose()
    found.verdict = verdict(found.results, tier=config.tier)
    for line in closing_lines(found.results, model=found.model, found=found.verdict):
        await db(say, line)
    return found


def _sayer(found: TierCheck, progress: Progress | None) -> Callable[[str], None]:
    def say(line: str) -> None:
        found.lines.append(line)
        if progress is not None:
            progress(line)
    return say


def _not_checked(found: TierCheck, say: Callable[[str], None], reason: str) -> TierCheck:
    found.reason = reason
    for line in [*header_lines(found.model), f"Nicht geprüft: {reason}."]:
        say(line)
    return found


def _unreachable(config: router.TierConfig, exc: LLMError) -> str:
    """German, from Helena's own message; the (English) detail is the log's."""
    if config.health_checked and exc.retryable:
        return f"der Server antwortet nicht ({config.host})"
    log.info("model check of tier %s: %s (%s)", config.tier, exc, exc.detail)
    return str(exc).rstrip(".")


def check_tiers(*, tiers: Sequence[int] | None = None, requested_by: Any = None,
                progress: Progress | None = None) -> list[TierCheck]:
    """The command's check: the tiers asked for (else every one the firm may use), each kept beside its
    tier. A cloud tier without the firm's opt-in is named, not checked: no call may go there."""
    if tiers is None:
        configs = router.tier_configs()
        usable = router.usable_tiers(configs, cloud_allowed=bool(HelenaSettings.load().cloud_allowed))
        for tier in sorted(set(configs) - usable):
            if progress is not None:
                progress(f"Stufe {tier}: nicht geprüft – das Modell läuft in der Cloud, und die Cloud ist "
                         "nicht freigegeben (Verwaltung → Helena-Einstellungen).")
        tiers = sorted(usable)
    checks = []
    for tier in tiers:
        if checks and progress is not None:
            progress("")
        check, new = claim(tier=tier, requested_by=requested_by, status=Status.LAEUFT)
        if not new:  # the admin's button (or another shell) checks this tier right now
            checks.append(_busy(tier, check, progress))
            continue
        try:
            found = check_tier(tier=tier, requested_by=requested_by, progress=_kept(check, progress))
        except BaseException:  # Ctrl-C or a bug: the tier is free for the next check at once
            ModelCheck.objects.filter(pk=check.pk).update(status=Status.FEHLER, finished_at=timezone.now(),
                                                          verdict="Die Modellprüfung ist abgebrochen.")
            raise
        store(found, check=check)
        checks.append(found)
    return checks


def _kept(check: ModelCheck, progress: Progress | None) -> Progress:
    """Each line to `progress` and to the check's row as it comes: the tier's page shows how far it is."""
    lines: list[str] = []

    def say(line: str) -> None:
        lines.append(line)
        ModelCheck.objects.filter(pk=check.pk).update(lines=list(lines))
        if progress is not None:
            progress(line)
    return say


def _busy(tier: int, running: ModelCheck, progress: Progress | None) -> TierCheck:
    since = f"seit {timezone.localtime(running.created_at):%H:%M}"
    found = TierCheck(model=CheckedModel(tier=tier), busy=True,
                      reason=f"für Stufe {tier} läuft schon eine Modellprüfung ({since}); ihr "
                             "Ergebnis steht bald bei der Stufe")
    found.lines.append(f"Stufe {tier}: nicht geprüft – {found.reason}.")
    if progress is not None:
        progress(found.lines[0])
    return found


def exit_code(checks: Sequence[TierCheck]) -> int:
    """2 when a tier could not be checked (or none is set up), else 1 when one is not suitable, else 0.

    A tier whose check was running already is named but counts only when nothing else was checked
    (as a cloud tier without the opt-in): its result comes from the check that runs."""
    counted = [c for c in checks if not c.busy]
    if not counted or any(c.exit_code == 2 for c in counted):
        return 2
    return max(c.exit_code for c in counted)


def summary_line(checks: Sequence[TierCheck]) -> str:
    return summary([c.verdict for c in checks if c.verdict is not None],
                   [(c.tier, c.reason) for c in checks if c.verdict is None])


def store(found: TierCheck, *, check: ModelCheck | None = None, requested_by: Any = None) -> ModelCheck:
    """Keep a finished check beside its tier (the command's and the button's alike)."""
    check = check or ModelCheck(tier=found.tier, requested_by=requested_by)
    check.model_name, check.host = found.model.name[:200], found.model.host[:300]
    check.provider = found.model.interface[:20]
    check.status = Status.FERTIG
    check.suitable = found.verdict.suitable if found.verdict else None
    check.verdict = (found.verdict.text if found.verdict else f"nicht geprüft – {found.reason}")[:500]
    check.exit_code = found.exit_code
    check.lines = found.lines
    check.details = as_details(found.results, model=found.model, found=found.verdict)
    check.finished_at = timezone.now()
    check.save()
    kept = ModelCheck.objects.filter(tier=found.tier).order_by("-created_at").values_list("pk", flat=True)
    ModelCheck.objects.filter(pk__in=list(kept[KEEP:])).delete()
    return check


# --- the admin's button: a check in the Celery worker -------------------------------------------------

def start_check(*, tier: int, requested_by: Any) -> tuple[ModelCheck, bool]:
    """A check waiting for the worker, sent once it is committed: (the check, whether it is new).

    While a check of the tier waits or runs, the button gives that one instead of a second.
    """
    if router.tier_configs().get(tier) is None:
        raise DomainError(f"Stufe {tier} ist nicht eingerichtet; es gibt kein Modell zu prüfen.")
    check, new = claim(tier=tier, requested_by=requested_by, status=Status.WARTET)
    if new:
        transaction.on_commit(lambda: _send(check.pk))
    return check, new


def claim(*, tier: int, requested_by: Any, status: str) -> tuple[ModelCheck, bool]:
    """(a new check of `tier` with `status`, True), or (the check that waits or runs, False).

    Two clicks, or the button and the command, are serialised by a lock per tier (a row lock would
    not stop two inserts when there is no row yet): the look and the insert are one step. A check
    unfinished after STALE is taken as lost (its worker died): marked so, it no longer blocks."""
    config = router.tier_configs().get(tier)
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [LOCK, tier])
        unfinished = ModelCheck.objects.filter(tier=tier, status__in=[Status.WARTET, Status.LAEUFT])
        unfinished.filter(created_at__lt=timezone.now() - STALE).update(
            status=Status.FEHLER, verdict=LOST, finished_at=timezone.now())
        running = _running(unfinished)
        if running is not None:
            return running, False
        check = ModelCheck.objects.create(tier=tier, status=status, requested_by=requested_by,
                                          model_name=config.name[:200] if config else "",
                                          host=config.host[:300] if config else "")
    return check, True


def _running(unfinished: Any) -> ModelCheck | None:
    return unfinished.order_by("-created_at").first()


def _send(check_id: int) -> None:
    try:
        current_app.send_task(TASK_NAME, args=[check_id])
    except Exception:  # the broker is down: the check says so instead of waiting forever
        log.exception("queueing model check %s failed", check_id)
        ModelCheck.objects.filter(pk=check_id, status=Status.WARTET).update(
            status=Status.FEHLER, finished_at=timezone.now(),
            verdict="Die Prüfung konnte nicht gestartet werden (Celery/Redis nicht erreichbar). Versuch es "
                    "später noch einmal.")


def run_stored_check(*, check_id: int) -> ModelCheck | None:
    """The Celery task's work: only a waiting check is claimed (a task delivered twice runs once); its
    lines are kept as they come, so the tier's page shows how far it is."""
    if not ModelCheck.objects.filter(pk=check_id, status=Status.WARTET).update(status=Status.LAEUFT):
        return None
    check = ModelCheck.objects.select_related("requested_by").get(pk=check_id)
    try:
        found = check_tier(tier=check.tier, requested_by=check.requested_by, progress=_kept(check, None))
    except Exception:
        log.exception("model check %s failed", check_id)
        ModelCheck.objects.filter(pk=check_id).update(
            status=Status.FEHLER, finished_at=timezone.now(),
            verdict="Die Modellprüfung ist abgebrochen (ein interner Fehler; Einzelheiten im Protokoll des "
                    "Workers).")
        check.refresh_from_db()
        return check
    return store(found, check=check)


def latest_checks() -> dict[int, ModelCheck]:
    """The newest check of each tier."""
    newest = ModelCheck.objects.order_by("tier", "-created_at").distinct("tier")
    return {check.tier: check for check in newest}
