"""Taking a run into this process: from the queue (`claim`), or over from a process that is gone
(`retaken`), with everything its start needs read in one database trip."""

from __future__ import annotations

import dataclasses
import json
from datetime import timedelta
from typing import Any

from django.db import connection
from django.utils import timezone

from akten.models import User
from drafts.selectors import HAS_DRAFTS
from helena.agent.loop import Limits
from helena.infra.rows import Columns
from helena.llm import router  # imported late: router reads admin settings per run
from helena.llm.pii.touched import privacy_for
from helena.models import AgentRun, Conversation, HelenaSettings
from helena.runs.durable import checkpoints, local
from helena.runs.durable.checkpoints import Resumption
from helena.runs.events.writer import next_seq
from helena.runs.history import MESSAGES_AS_JSON, history_for
from helena.runs.setup import RunSetup, prepare_run
from helena.runs.step_limits import DEADLINE_GRACE, deadline_for, limits_for

MIN_SECONDS_LEFT = 5.0  # a run taken over with less of its time budget left is ended, not resumed
MAX_ATTEMPTS = 3  # takeovers of one run: a run that kills its process each time must not go round
# (a wait for the database in the same process is no takeover and does not count)


@dataclasses.dataclass
class Claimed:
    """A run taken into this process, with everything its start needs."""

    run: AgentRun
    limits: Limits
    configs: dict[int, Any]  # router.TierConfig per tier
    cloud_allowed: bool  # tier 3 may serve (configured, and internal or opted in)
    opt_in: bool  # the firm's cloud opt-in: without it no call reaches a cloud endpoint on any tier
    privacy: Any  # helena.llm.pii.privacy.Privacy: the run's redaction for every cloud call it makes
    setup: RunSetup | None  # None when the run is to be cancelled before it starts
    next_seq: int = 1  # of the run's next event
    resumption: Resumption | None = None  # set when the run goes on from a checkpoint
    cause: str = ""  # why it goes on elsewhere: "crash", "handover" or "database"
    ended: str = ""  # why a run taken over cannot go on (it then ends with this message)


_known_users: set[int] = set()  # users this process has seen run before: never a first contact again


def _first_contact(run: AgentRun) -> bool:
    """Whether this is the user's first run ever (Helena introduces herself); once it is not, it
    never is again, so a process asks the database once per user, not once per run."""
    if run.user_id in _known_users:
        return False
    first = not AgentRun.objects.filter(user=run.user_id, created_at__lt=run.created_at).exists()
    if not first:
        _known_users.add(run.user_id)
    return first


_CLAIM = f"""
    UPDATE {AgentRun._meta.db_table} SET status = 'running', started_at = %(now)s, owner = %(owner)s,
        heartbeat_at = %(beat)s, deadline = CASE WHEN mode = 'inline' THEN %(inline)s ELSE %(background)s END
    WHERE id = %(run)s AND status = 'queued'
"""


def _take(run_id: Any, helena: HelenaSettings, *, owner: str) -> bool:
    """Set a queued run to running, with the deadline of its own mode, in one statement (no read
    first; plain SQL, as it runs for every run); False if it was not queued."""
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(_CLAIM, {"now": now, "owner": owner, "beat": now if owner else None, "run": run_id,
                                "inline": deadline_for(AgentRun.Mode.INLINE, helena),
                                "background": deadline_for(AgentRun.Mode.BACKGROUND, helena)})
        return cursor.rowcount == 1


_RUN, _CONVERSATION, _USER = Columns(AgentRun, "r"), Columns(Conversation, "c"), Columns(User, "u")
# With the run: the conversation's messages (as history_for reads them) and whether it has drafts
# (as outcome_notes asks first) – two statements fewer at every run start.
_CLAIM_AND_READ = f"""
    WITH r AS ({_CLAIM} RETURNING *)
    SELECT {_RUN.sql}, {_CONVERSATION.sql}, {_USER.sql},
        ({MESSAGES_AS_JSON.format(conversation="r.conversation_id")}),
        ({HAS_DRAFTS.format(conversation="r.conversation_id")})
    FROM r
    JOIN {Conversation._meta.db_table} c ON c.id = r.conversation_id
    JOIN {User._meta.db_table} u ON u.id = r.user_id
"""


@dataclasses.dataclass
class _Read:
    """What the claiming statement read beside the run."""

    messages: list[tuple[int, str, str]]
    has_drafts: bool


def _take_and_read(run_id: Any, helena: HelenaSettings) -> tuple[AgentRun, _Read] | None:
    """_take and the read of the run with its conversation and user (as select_related would give
    them), the conversation's messages and whether it has drafts, in one statement; None if it was
    not queued."""
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(_CLAIM_AND_READ, {
            "now": now, "owner": local.owner(), "beat": now, "run": run_id,
            "inline": deadline_for(AgentRun.Mode.INLINE, helena),
            "background": deadline_for(AgentRun.Mode.BACKGROUND, helena)})
        row = cursor.fetchone()
    if row is None:
        return None
    run = _RUN.instance(row[:_RUN.count])
    users = _RUN.count + _CONVERSATION.count
    run.conversation = _CONVERSATION.instance(row[_RUN.count:users])
    run.user = _USER.instance(row[users:users + _USER.count])
    messages, has_drafts = row[users + _USER.count:]
    return run, _Read(messages=[tuple(m) for m in json.loads(messages)], has_drafts=has_drafts)


def claim(run_id: Any) -> Claimed | None:
    """Set a queued run to running in this process and read what it needs; None if it is gone or
    no longer queued (a message delivered twice changes nothing). One statement claims it and reads
    it with its conversation and user."""
    helena = HelenaSettings.cached()
    if local.draining.is_set():  # told to stop: a run that arrives now is handed over at once
        _take(run_id, helena, owner="")
        return None
    taken = _take_and_read(run_id, helena)
    if taken is None:
        return None
    run, read = taken
    # A run just claimed from the queue has no events yet: its first is 1 (no query for it).
    return _prepared(run, helena, limits_for(run.mode, helena), next_event=1, read=read)


LOST = ("Die Bearbeitung wurde unterbrochen (der ausführende Prozess ist ausgefallen). "
        "Bitte frag noch einmal.")
LOST_AGAIN = ("Die Bearbeitung wurde abgebrochen: der ausführende Prozess ist bei dieser Anfrage "
              "mehrmals ausgefallen. Bitte frag noch einmal, gern enger gefasst.")


def retaken(run_id: Any, attempt: int, cause: str = "crash") -> Claimed | None:
    """A run this process took over (the watch set its owner and attempt), read as `claim` reads
    a new one, with the checkpoint it goes on from; None if it is no longer this attempt's."""
    run = (AgentRun.objects.select_related("conversation", "user")
           .filter(pk=run_id, attempt=attempt, owner=local.owner(), status=AgentRun.Status.RUNNING).first())
    if run is None:
        return None
    helena = HelenaSettings.cached()
    limits = limits_for(run.mode, helena)
    resumption = checkpoints.resumption(run)
    left = limits.timeout - resumption.checkpoint.elapsed
    ended = ""
    if resumption.done is not None:
        pass  # it had ended: only the end is recorded
    elif run.takeovers > MAX_ATTEMPTS:
        ended = LOST_AGAIN
    elif left < MIN_SECONDS_LEFT or resumption.unsafe:
        ended = LOST
    else:  # the time it was away is not the run's: its deadline moves on by what is left
        AgentRun.objects.filter(pk=run.pk, attempt=attempt).update(
            deadline=timezone.now() + timedelta(seconds=left) + DEADLINE_GRACE)
    if ended:
        return Claimed(run=run, limits=limits, configs={}, cloud_allowed=False, opt_in=False, privacy=None,
                       setup=None, next_seq=next_seq(run.pk), resumption=resumption, ended=ended, cause=cause)
    claimed = _prepared(run, helena, limits)
    claimed.resumption, claimed.cause = resumption, cause
    return claimed


def _prepared(run: AgentRun, helena: HelenaSettings, limits: Limits,
              next_event: int | None = None, read: _Read | None = None) -> Claimed:
    configs = router.tier_configs()
    setup = None
    sources: list[Any] = []  # what the run's tools read, learned before each model call
    privacy = privacy_for(user=run.user, conversation_id=run.conversation_id,
                          akte_id=run.conversation.akte_id, sources=sources)
    if not run.cancel_requested:
        history, question = history_for(conversation=run.conversation, run_id=run.pk, privacy=privacy,
                                        messages=read.messages if read else None)
        setup = prepare_run(
            user=run.user,
            question=question,
            history=history,
            akte_id=run.conversation.akte_id,
            first_contact=_first_contact(run),
            run_id=str(run.pk),
            context_type=run.conversation.context_type,
            conversation_id=run.conversation_id,
            answer_in_question_language=helena.antwort_in_sprache_der_frage,
            has_drafts=read.has_drafts if read else None,
        )
        setup.ctx.sources = sources
        setup.ctx.privacy = privacy
    return Claimed(run=run, limits=limits, configs=configs,
                   cloud_allowed=router.is_cloud_allowed(helena=helena, configs=configs),
                   opt_in=bool(helena.cloud_allowed), privacy=privacy, setup=setup,
                   next_seq=next_event or next_seq(run.pk))
