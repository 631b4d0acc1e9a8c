"""Admission control for agent runs: runs per hour and concurrent runs per user, exact under concurrency.

Exactness comes from a transaction-scoped advisory lock per user: two admissions of the same user
never count at the same time, and the second one counts only after the first one's AgentRun is
committed (the lock is released at commit). This relies on PostgreSQL's default READ COMMITTED
isolation, where each statement sees everything committed before it started.

Waiting for that lock would hold a database connection per waiting request: a burst of messages
from one user (a hundred at once) took a connection each and ran the server out of them. So callers
first queue in `admission(user)`, a per-user lock of this process, after giving their connection
back; the advisory lock then only ever has the few processes' front runners waiting for it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.transaction import TransactionManagementError
from django.utils import timezone

from helena.infra import settings_cache
from helena.models import AgentRun, HelenaSettings, RateLimit

WINDOW = timedelta(hours=1)
# First key of pg_advisory_xact_lock(int, int): "HLRA" (Helena run admission), so the lock cannot
# collide with advisory locks other code takes on the user id.
LOCK_NAMESPACE = 0x484C5241
BERLIN = ZoneInfo("Europe/Berlin")
ACTIVE_STATUSES = (AgentRun.Status.QUEUED, AgentRun.Status.RUNNING)
# How long a request waits for the admissions of the same user before it is refused as busy; one
# admission takes milliseconds, so this is only reached when the database hangs.
ADMISSION_WAIT_SECONDS = 30.0
# The user's runs of the last hour and runs still active, in one statement (every run start pays it);
# positional parameters: since, user, since (_counts_params).
_COUNTS = f"""
    SELECT COUNT(*) FILTER (WHERE created_at > %s) AS hourly,
           COUNT(*) FILTER (WHERE status IN ('queued', 'running')) AS active
    FROM {AgentRun._meta.db_table}
    WHERE user_id = %s AND (created_at > %s OR status IN ('queued', 'running'))
"""


def _counts_params(user_pk: int, since: datetime) -> list[Any]:
    return [since, user_pk, since]


class RateLimited(Exception):
    """A new run is refused; `message` is for the user, `retry_at` says when it is worth trying again."""

    code = "rate_limited"

    def __init__(self, message: str, *, retry_at: datetime,
                 kind: Literal["per_hour", "concurrent"] = "per_hour") -> None:
        super().__init__(message)
        self.message = message
        self.retry_at = retry_at
        self.kind = kind


class AdmissionBusy(Exception):
    """The admissions of this user did not get their turn within ADMISSION_WAIT_SECONDS."""

    code = "busy"
    message = "Helena ist gerade stark ausgelastet. Bitte versuche es gleich noch einmal."


class _UserGates:
    """One lock per user id in this process, made on first use and dropped when nobody needs it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._gates: dict[int, tuple[threading.Lock, list[int]]] = {}  # pk → (gate, [holders + waiters])

    def waiting(self, pk: int) -> int:
        """Requests of this user queued behind the one being admitted (for tests and diagnostics)."""
        with self._lock:
            entry = self._gates.get(pk)
            return max(entry[1][0] - 1, 0) if entry else 0

    @contextmanager
    def hold(self, pk: int, *, timeout: float) -> Iterator[None]:
        with self._lock:
            gate, users = self._gates.setdefault(pk, (threading.Lock(), [0]))
            users[0] += 1
        try:
            if not gate.acquire(blocking=False):
                _give_back_connection()
                if not gate.acquire(timeout=timeout):
                    raise AdmissionBusy(AdmissionBusy.message)
            try:
                yield
            finally:
                gate.release()
        finally:
            with self._lock:
                users[0] -= 1
                if users[0] == 0:
                    del self._gates[pk]


_gates = _UserGates()


def _give_back_connection() -> None:
    """Before waiting: the request's connection goes back to the pool (or is closed without one).

    Inside a transaction the connection must stay (a caller's atomic block, e.g. in a test).
    """
    connection = connections[DEFAULT_DB_ALIAS]
    if connection.connection is not None and not connection.in_atomic_block:
        connection.close()


@contextmanager
def admission(user: Any) -> Iterator[None]:
    """Wait for this user's turn to be admitted, without a database connection while waiting.

    Wrap the transaction that calls admit() and creates the run in it, so the next request of the
    same user starts counting only after that transaction committed:

        with admission(user), transaction.atomic():
            admit(user=user)
            AgentRun.objects.create(...)

    Raises AdmissionBusy when the turn does not come within ADMISSION_WAIT_SECONDS.
    """
    if connections[DEFAULT_DB_ALIAS].in_atomic_block:
        # Inside a caller's transaction (a test's atomic block) the connection cannot be given
        # back, and the advisory lock in admit() holds until that transaction ends anyway.
        yield
        return
    with _gates.hold(int(user.pk), timeout=ADMISSION_WAIT_SECONDS):
        yield


def runs_per_hour_for(user: Any) -> int:
    """The user's own limit wins over the role's, which wins over the firm-wide default."""
    by_user, by_role = settings_cache.cached("rate_limits", _rate_limits)
    if user.pk in by_user:
        return by_user[user.pk]
    role = getattr(user, "role", "")
    if role in by_role:
        return by_role[role]
    return int(settings.HELENA_RATE_LIMIT_PER_HOUR)


def _rate_limits() -> tuple[dict[int, int], dict[str, int]]:
    """The RateLimit table as {user id: runs} and {role: runs} (the first row of a role counts)."""
    by_user: dict[int, int] = {}
    by_role: dict[str, int] = {}
    rows = RateLimit.objects.order_by("pk").values_list("user_id", "role", "runs_per_hour")
    for user_id, role, runs in rows:
        if user_id is not None:
            by_user.setdefault(user_id, runs)
        elif role:
            by_role.setdefault(role, runs)
    return by_user, by_role


def _lock_key(pk: int) -> int:
    """Fold the user id into the signed 32-bit range the two-int advisory lock takes.

    A collision of two users only makes them wait for each other; it never miscounts.
    """
    return ((int(pk) + 2**31) % 2**32) - 2**31


def _clock(moment: datetime) -> str:
    """HH:MM in Berlin, rounded up: at the printed minute the request really is possible."""
    local = timezone.localtime(moment, BERLIN)
    if local.second or local.microsecond:
        local = local.replace(second=0, microsecond=0) + timedelta(minutes=1)
    return f"{local:%H:%M}"


def _anfragen(n: int) -> str:
    return "Anfrage" if n == 1 else "Anfragen"


def _hourly_refusal(*, user: Any, limit: int, count: int, now: datetime) -> RateLimited:
    if limit <= 0:
        return RateLimited("Für dich sind derzeit keine Anfragen an Helena freigegeben.",
                           retry_at=now + WINDOW)
    # With `count` runs in the window, count - limit + 1 of them must leave it before one more fits;
    # normally (count == limit) that is the oldest one.
    leaving = (
        AgentRun.objects.filter(user_id=user.pk, created_at__gt=now - WINDOW)
        .order_by("created_at")
        .values_list("created_at", flat=True)[count - limit]
    )
    retry_at = leaving + WINDOW
    return RateLimited(
        f"Du hast das Limit von {limit} {_anfragen(limit)} pro Stunde erreicht. "
        f"Wieder möglich ab {_clock(retry_at)} Uhr.",
        retry_at=retry_at,
    )


def _concurrent_refusal(*, active: list[AgentRun], cap: int, helena: HelenaSettings,
                        now: datetime) -> RateLimited:
    """retry_at is an estimate: the earliest moment an active run must have ended (its deadline)."""
    if cap <= 0:
        return RateLimited("Für dich sind derzeit keine Anfragen an Helena freigegeben.",
                           retry_at=now + WINDOW, kind="concurrent")
    ends = []
    for run in active:
        if run.deadline is not None:
            ends.append(run.deadline)
        else:
            inline = run.mode == AgentRun.Mode.INLINE
            timeout = helena.inline_timeout_s if inline else helena.background_timeout_s
            ends.append((run.started_at or run.created_at) + timedelta(seconds=timeout))
    retry_at = max(min(ends), now) if ends else now
    n = len(active)
    if n == 1:
        message = "Es läuft bereits eine Anfrage von dir. Bitte warte, bis sie fertig ist, oder brich sie ab."
    else:
        message = (f"Es laufen bereits {n} Anfragen von dir. "
                   "Bitte warte, bis eine fertig ist, oder brich eine ab.")
    return RateLimited(message, retry_at=retry_at, kind="concurrent")


def admit(*, user: Any) -> None:
    """Refuse a new run with RateLimited, or return so the caller creates it in the same transaction.

    Must run inside transaction.atomic(), with the AgentRun created in that same transaction: the
    advisory lock taken here is held until commit, so concurrent admissions of one user serialize
    and each sees the runs admitted before it. Writes nothing.
    """
    connection = connections[DEFAULT_DB_ALIAS]
    if not connection.in_atomic_block:
        raise TransactionManagementError("admit() must be called inside transaction.atomic().")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [LOCK_NAMESPACE, _lock_key(user.pk)])

    now = timezone.now()
    limit = runs_per_hour_for(user)
    with connection.cursor() as cursor:  # both counts in one plain statement: every run start pays it
        cursor.execute(_COUNTS, _counts_params(user.pk, now - WINDOW))
        count, active = cursor.fetchone()
    _refuse_over(user=user, count=count, active=active, limit=limit, helena=HelenaSettings.cached(), now=now)


def _refuse_over(*, user: Any, count: int, active: int, limit: int, helena: HelenaSettings,
                 now: datetime) -> None:
    """RateLimited when the counts reach the hourly limit or the concurrency cap."""
    if count >= limit:
        raise _hourly_refusal(user=user, limit=limit, count=count, now=now)
    cap = helena.max_concurrent_runs_per_user
    # Counted, and loaded only to explain a refusal: with many runs at once, loading them all for
    # every admission made a burst of messages quadratic.
    if active >= cap:
        active_runs = AgentRun.objects.filter(user_id=user.pk, status__in=ACTIVE_STATUSES)
        running = list(active_runs.only("mode", "deadline", "started_at", "created_at"))
        raise _concurrent_refusal(active=running, cap=cap, helena=helena, now=now)


@dataclass(frozen=True)
class Gated:
    """A write that happens only if the run is admitted: SQL that reads `gate` (a CTE with the
    column `admitted`), e.g. `INSERT INTO t (a, b) SELECT %s, %s FROM gate WHERE gate.admitted`."""

    sql: str
    params: list[Any]


def admit_and_write(*, user: Any, writes: Sequence[Gated], unless: Gated | None = None) -> datetime | None:
    """admit() and the writes of the new run in one round trip: the moment of the admission when
    admitted and written (`gate.at`, the time after the lock: the writes stamp their rows with it),
    None when `unless` (SQL for EXISTS) found something and nothing was written; RateLimited else.

    Sent as one query string, which PostgreSQL runs as one transaction (or inside the caller's):
    the advisory lock first, then counts and writes in one statement – a statement of its own, so
    under READ COMMITTED it counts every run the admissions before it committed, as admit() does.
    A run start paid seven round trips for this (BEGIN, lock, counts, two INSERTs, UPDATE, COMMIT).
    Call it inside admission(user).
    """
    now = timezone.now()
    limit = runs_per_hour_for(user)
    helena = HelenaSettings.cached()
    blocked = f"EXISTS ({unless.sql})" if unless is not None else "FALSE"
    ctes = "".join(f",\n w{i} AS ({write.sql})" for i, write in enumerate(writes))
    sql = (f"SELECT pg_advisory_xact_lock(%s, %s);\n"
           f"WITH counts AS ({_COUNTS}), gate AS (\n"
           f" SELECT hourly, active, q.blocked, hourly < %s AND active < %s AND NOT q.blocked AS admitted,\n"
           f"  clock_timestamp() AS at FROM counts, (SELECT {blocked} AS blocked) AS q){ctes}\n"
           "SELECT hourly, active, blocked, admitted, at FROM gate")
    params: list[Any] = [LOCK_NAMESPACE, _lock_key(user.pk), *_counts_params(user.pk, now - WINDOW),
                         limit, helena.max_concurrent_runs_per_user, *(unless.params if unless else [])]
    for write in writes:
        params += write.params
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute(sql, params)
        if not cursor.nextset():  # past the lock's row
            raise RuntimeError("admission: the database answered the lock but not the counts")
        count, active, blocked_now, admitted, at = cursor.fetchone()
    if admitted:
        return at
    if blocked_now:
        return None
    _refuse_over(user=user, count=count, active=active, limit=limit, helena=helena, now=now)
    raise AssertionError("not admitted, yet under every limit")  # the same figures on both sides
