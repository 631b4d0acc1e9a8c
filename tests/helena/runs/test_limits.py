"""Rate limiting: which limit applies, and that it holds exactly when requests arrive at once."""

from __future__ import annotations

import contextlib
import threading
import time
from datetime import timedelta

import pytest
from django.db import connections, transaction
from django.db.transaction import TransactionManagementError
from django.utils import timezone

from akten.models import Role, User
from helena.conversations import services
from helena.infra.rows import Insert
from helena.models import AgentRun, Conversation, HelenaSettings, Message, RateLimit
from helena.runs import rate_limit as limits
from helena.runs.rate_limit import (
    BERLIN,
    Gated,
    RateLimited,
    admission,
    admit,
    admit_and_write,
    runs_per_hour_for,
)

_RUN = Insert(AgentRun)


def _user(name: str = "anwalt", role: str = Role.ANWALT) -> User:
    return User.objects.create_user(username=name, password="pw", role=role)


def _start(user: User, conversation: Conversation, *, pause: float = 0,
           gated: bool | str = False) -> AgentRun:
    """What the service does: admit and create the run in one transaction (`gated`: after queueing
    in admission(), as start_run does; "one_trip": admit_and_write, without this process's queue, so
    only the database's lock stands between the requests)."""
    if gated == "one_trip":
        run, sql, params = _RUN.select_into("gate WHERE gate.admitted", conversation=conversation, user=user,
                                            mode=AgentRun.Mode.INLINE)
        assert admit_and_write(user=user, writes=[Gated(sql, params)])
        return run
    with admission(user) if gated else contextlib.nullcontext(), transaction.atomic():
        admit(user=user)
        if pause:
            time.sleep(pause)  # widens the race window the lock has to close
        return AgentRun.objects.create(conversation=conversation, user=user, mode=AgentRun.Mode.INLINE)


def _runs(user: User, n: int, *, status: str = AgentRun.Status.FINISHED,
          ago: timedelta | None = None) -> None:
    conversation = Conversation.objects.create(user=user)
    for _ in range(n):
        run = AgentRun.objects.create(conversation=conversation, user=user, mode=AgentRun.Mode.INLINE,
                                      status=status)
        if ago is not None:
            AgentRun.objects.filter(pk=run.pk).update(created_at=timezone.now() - ago)


# --- which limit applies ------------------------------------------------------------------------


@pytest.mark.django_db
def test_per_hour_limit_defaults_to_the_environment_setting(settings) -> None:
    settings.HELENA_RATE_LIMIT_PER_HOUR = 7
    assert runs_per_hour_for(_user()) == 7


@pytest.mark.django_db
def test_role_row_overrides_the_default_and_user_row_overrides_the_role(settings) -> None:
    settings.HELENA_RATE_LIMIT_PER_HOUR = 60
    anwalt, kollege, praktikant = _user(), _user("kollege"), _user("praktikant", Role.PRAKTIKANT)
    RateLimit.objects.create(role=Role.ANWALT, runs_per_hour=20)
    assert runs_per_hour_for(anwalt) == 20
    assert runs_per_hour_for(kollege) == 20
    assert runs_per_hour_for(praktikant) == 60
    RateLimit.objects.create(user=anwalt, runs_per_hour=3)
    assert runs_per_hour_for(anwalt) == 3
    assert runs_per_hour_for(kollege) == 20


@pytest.mark.django_db(transaction=True)
def test_admit_refuses_outside_a_transaction() -> None:
    """Without the surrounding transaction the lock would be gone before the run is created."""
    with pytest.raises(TransactionManagementError):
        admit(user=_user())


# --- the hourly limit ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_hourly_limit_counts_all_statuses_and_only_the_last_hour() -> None:
    user = _user()
    RateLimit.objects.create(user=user, runs_per_hour=3)
    _runs(user, 5, ago=timedelta(minutes=61))  # outside the window
    _runs(user, 1, status=AgentRun.Status.FAILED)
    _runs(user, 1, status=AgentRun.Status.CANCELLED)
    conversation = Conversation.objects.create(user=user)
    _start(user, conversation)
    with pytest.raises(RateLimited) as refused:
        _start(user, conversation)
    assert refused.value.code == "rate_limited"
    assert refused.value.kind == "per_hour"
    assert AgentRun.objects.filter(user=user).count() == 8  # 5 old + 3 in the window, nothing more


@pytest.mark.django_db
def test_message_names_the_limit_and_when_the_oldest_run_leaves_the_window() -> None:
    user = _user()
    RateLimit.objects.create(user=user, runs_per_hour=5)
    _runs(user, 1, ago=timedelta(minutes=50, seconds=30))  # the oldest
    _runs(user, 4, ago=timedelta(minutes=10))
    oldest = AgentRun.objects.filter(user=user).order_by("created_at").first()
    with pytest.raises(RateLimited) as refused:
        _start(user, Conversation.objects.create(user=user))
    free = oldest.created_at + timedelta(hours=1)
    assert refused.value.retry_at == free
    shown = timezone.localtime(free, BERLIN).replace(second=0, microsecond=0) + timedelta(minutes=1)
    assert refused.value.message == (
        f"Du hast das Limit von 5 Anfragen pro Stunde erreicht. Wieder möglich ab {shown:%H:%M} Uhr."
    )
    assert str(refused.value) == refused.value.message


@pytest.mark.django_db
def test_lowered_limit_waits_for_enough_runs_to_leave() -> None:
    user = _user()
    RateLimit.objects.create(user=user, runs_per_hour=2)
    for minutes in (50, 40, 30):
        _runs(user, 1, ago=timedelta(minutes=minutes))
    with pytest.raises(RateLimited) as refused:
        _start(user, Conversation.objects.create(user=user))
    second_oldest = AgentRun.objects.filter(user=user).order_by("created_at")[1]
    assert refused.value.retry_at == second_oldest.created_at + timedelta(hours=1)
    assert "Limit von 2 Anfragen pro Stunde" in refused.value.message


# --- concurrent runs --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_concurrent_runs_cap_counts_queued_and_running_only() -> None:
    user = _user()
    RateLimit.objects.create(user=user, runs_per_hour=100)
    helena = HelenaSettings.load()
    helena.max_concurrent_runs_per_user = 3
    helena.save()
    _runs(user, 5, status=AgentRun.Status.FINISHED)
    _runs(user, 2, status=AgentRun.Status.RUNNING)
    conversation = Conversation.objects.create(user=user)
    _start(user, conversation)  # queued: now 3 active
    with pytest.raises(RateLimited) as refused:
        _start(user, conversation)
    assert refused.value.kind == "concurrent"
    assert refused.value.message == (
        "Es laufen bereits 3 Anfragen von dir. Bitte warte, bis eine fertig ist, oder brich eine ab."
    )
    assert refused.value.retry_at >= timezone.now() - timedelta(seconds=5)

    running = AgentRun.objects.filter(user=user, status=AgentRun.Status.RUNNING)
    running.update(status=AgentRun.Status.CANCELLED)
    _start(user, conversation)  # a slot is free again


@pytest.mark.django_db
def test_hourly_limit_is_reported_before_the_concurrency_cap() -> None:
    user = _user()
    RateLimit.objects.create(user=user, runs_per_hour=2)
    _runs(user, 3, status=AgentRun.Status.RUNNING)
    with pytest.raises(RateLimited) as refused:
        _start(user, Conversation.objects.create(user=user))
    assert refused.value.kind == "per_hour"
    assert "Wieder möglich ab" in refused.value.message


# --- exactness under concurrency -------------------------------------------------------------------


def _race(user: User, conversation: Conversation, n: int, *, gated: bool | str = False
          ) -> tuple[list[AgentRun], list[RateLimited], list[BaseException]]:
    admitted: list[AgentRun] = []
    refused: list[RateLimited] = []
    failed: list[BaseException] = []
    barrier = threading.Barrier(n)
    lock = threading.Lock()

    def attempt() -> None:
        try:
            barrier.wait(timeout=10)
            try:
                run = _start(user, conversation, pause=0.03, gated=gated)
            except RateLimited as exc:
                with lock:
                    refused.append(exc)
            else:
                with lock:
                    admitted.append(run)
        except BaseException as exc:
            with lock:
                failed.append(exc)
        finally:
            connections.close_all()  # each thread had its own connection

    threads = [threading.Thread(target=attempt) for _ in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return admitted, refused, failed


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("gated", [False, True, "one_trip"], ids=["admit", "admission+admit", "one_trip"])
def test_hourly_limit_is_exact_when_twelve_requests_arrive_at_once(gated: bool | str) -> None:
    user = _user()
    RateLimit.objects.create(user=user, runs_per_hour=5)
    helena = HelenaSettings.load()
    helena.max_concurrent_runs_per_user = 50
    helena.save()
    conversation = Conversation.objects.create(user=user)

    admitted, refused, failed = _race(user, conversation, 12, gated=gated)

    assert failed == []
    assert len(admitted) == 5
    assert len(refused) == 7
    assert all(exc.kind == "per_hour" for exc in refused)
    assert AgentRun.objects.filter(user=user).count() == 5


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("gated", [False, True, "one_trip"], ids=["admit", "admission+admit", "one_trip"])
def test_concurrency_cap_is_exact_when_requests_arrive_at_once(gated: bool | str) -> None:
    user = _user()
    other = _user("kollege")
    RateLimit.objects.create(role=Role.ANWALT, runs_per_hour=100)
    helena = HelenaSettings.load()
    helena.max_concurrent_runs_per_user = 3
    helena.save()
    conversation = Conversation.objects.create(user=user)
    _runs(other, 3, status=AgentRun.Status.RUNNING)  # someone else's runs do not count

    admitted, refused, failed = _race(user, conversation, 8, gated=gated)

    assert failed == []
    assert (len(admitted), len(refused)) == (3, 5)
    assert all(exc.kind == "concurrent" for exc in refused)
    assert AgentRun.objects.filter(user=user, status=AgentRun.Status.QUEUED).count() == 3


# --- a burst of one user's requests ----------------------------------------------------------------


def _busy_backends() -> int:
    """Sessions of other connections to this database that are in a transaction or a query."""
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                       "AND pid <> pg_backend_pid() AND state <> 'idle'")
        return cursor.fetchone()[0]


def _until(condition: object, what: str) -> None:
    deadline = time.monotonic() + 10
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.01)


@pytest.mark.django_db(transaction=True)
def test_requests_waiting_for_their_admission_hold_no_database_connection() -> None:
    """A hundred messages of one user at once used to take a connection each while they waited for
    the user's lock, and ran the server out of connections; now only the one being admitted has a
    transaction open, and the others all get their turn."""
    user = _user()
    RateLimit.objects.create(user=user, runs_per_hour=100)
    HelenaSettings.objects.update_or_create(pk=1, defaults={"max_concurrent_runs_per_user": 50})
    conversation = Conversation.objects.create(user=user)
    first_in, let_go = threading.Event(), threading.Event()
    started: list[AgentRun] = []
    failed: list[BaseException] = []

    def first() -> None:
        try:
            with admission(user), transaction.atomic():
                admit(user=user)
                started.append(AgentRun.objects.create(conversation=conversation, user=user,
                                                       mode=AgentRun.Mode.INLINE))
                first_in.set()
                let_go.wait(timeout=20)
        except BaseException as exc:
            failed.append(exc)
            first_in.set()
        finally:
            connections.close_all()

    def later() -> None:
        try:
            User.objects.get(pk=user.pk)  # like a request: authenticated, so it has a connection
            started.append(_start(user, conversation, gated=True))
        except BaseException as exc:
            failed.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=first)]
    threads[0].start()
    first_in.wait(timeout=20)
    threads += [threading.Thread(target=later) for _ in range(6)]
    for thread in threads[1:]:
        thread.start()
    try:
        _until(lambda: limits._gates.waiting(user.pk) == 6, "six queued requests")
        assert _busy_backends() == 1  # the first one's open transaction, nobody waiting on a lock
    finally:
        let_go.set()
        for thread in threads:
            thread.join(timeout=30)
    assert failed == []
    assert len(started) == 7 and AgentRun.objects.filter(user=user).count() == 7


@pytest.mark.django_db(transaction=True)
def test_a_request_that_does_not_get_its_turn_is_refused_as_busy(monkeypatch) -> None:
    user = _user()
    RateLimit.objects.create(user=user, runs_per_hour=100)
    conversation = Conversation.objects.create(user=user)
    monkeypatch.setattr(limits, "ADMISSION_WAIT_SECONDS", 0.05)
    holding, let_go = threading.Event(), threading.Event()

    def hold() -> None:
        with admission(user):
            holding.set()
            let_go.wait(timeout=20)

    holder = threading.Thread(target=hold)
    holder.start()
    holding.wait(timeout=20)
    try:
        with pytest.raises(services.RunRefused) as refused:
            services.start_run(user=user, conversation=conversation, text="Wann endet die Frist?",
                               mode="inline")
    finally:
        let_go.set()
        holder.join(timeout=20)
    assert (refused.value.status, refused.value.code) == (503, "busy")
    assert refused.value.message == limits.AdmissionBusy.message
    assert "ausgelastet" in refused.value.message
    assert not AgentRun.objects.filter(user=user).exists()
    assert not Message.objects.filter(conversation=conversation).exists()


@pytest.mark.django_db(transaction=True)
def test_a_message_and_its_run_are_stamped_with_the_moment_of_their_admission(monkeypatch) -> None:
    """Stamped after the queue and the lock, not when the request arrived: messages keep the order in
    which they were admitted, and the hourly window counts from there."""
    monkeypatch.setattr(services, "dispatch", lambda run: None)
    user = _user()
    conversation = Conversation.objects.create(user=user)
    before = timezone.now()
    run = services.start_run(user=user, conversation=conversation, text="Wann endet die Frist?",
                             mode="inline")
    stored = AgentRun.objects.get(pk=run.pk)
    message = Message.objects.get(conversation=conversation, role=Message.Role.USER)
    conversation.refresh_from_db()
    assert before < stored.created_at == run.created_at == message.created_at == conversation.updated_at
