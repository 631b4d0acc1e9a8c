"""A run whose database goes away (a PostgreSQL restart, a failover, pg_terminate_backend) does not end
in an error: the real worker's connections are terminated mid-run (they reconnect), or the database is
unreachable for eight seconds (a proxy in front of it cut: the run waits, then goes on from its
checkpoint) — the answer comes, with one `done` and the draft once (issue 38)."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from subprocess import Popen

import pytest
from django.db import connection

from helena.models import RunEvent
from tests.conftest import Kanzlei, database_url, start_celery_worker, stop_celery_worker
from tests.helena.runs.test_durable_runs import ANSWER, TAKEOVER, _assert_answered_once, research
from tests.helena.web.test_runs_api import ask
from tests.pgproxy import pg_proxy
from tests.scripted_llm_server import ScriptedLLMServer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def worker() -> Iterator[Popen]:
    proc = start_celery_worker({**TAKEOVER, "PGAPPNAME": WORKER_APP}, pool="threads")
    yield proc
    stop_celery_worker(proc, signal.SIGKILL)


WORKER_APP = "helena-durable-worker"  # libpq's application_name of the worker's connections (PGAPPNAME)


def _terminate_other_connections() -> int:
    """Every connection of the worker: what a restart or failover does to them."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                       "WHERE datname = current_database() AND application_name = %s", [WORKER_APP])
        return cursor.fetchone()[0]


def test_a_run_survives_its_database_connections_being_terminated(
        kanzlei: Kanzlei, tiers: ScriptedLLMServer, worker: Popen) -> None:
    tiers.respond_with(research(kanzlei.akten["A"].pk))
    client = kanzlei.client("anwalt")
    _, run_id = ask(client, "Recherchiere gründlich die Kündigungsfristen in der Akte 1/26.",
                    mode="background", akte_id=str(kanzlei.akten["A"].pk))
    deadline = time.monotonic() + 60
    cuts = 0
    for wanted in (2, 5, 8):  # three times, at different points of the run
        while RunEvent.objects.filter(run_id=run_id, type="tool_result").count() < wanted:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        cuts += _terminate_other_connections()
    assert cuts >= 3, "the worker's connections were not there to cut"
    cut_at = time.monotonic()
    evs = _assert_answered_once(client, run_id)
    assert evs[-1]["text"] == ANSWER
    assert not [e for e in evs if e["type"] == "error"], "the cut showed as an error"
    took = time.monotonic() - cut_at
    resumed = len([e for e in evs if e["type"] == "resumed"])  # 0: the cut connections were idle
    print(f"\npg_terminate_backend ×3: answer {took:.1f} s after the last cut, {resumed} times resumed")
    assert worker.poll() is None


def test_a_run_waits_for_a_database_that_is_away_and_goes_on(kanzlei: Kanzlei,
                                                             tiers: ScriptedLLMServer) -> None:
    tiers.respond_with(research(kanzlei.akten["A"].pk))
    client = kanzlei.client("anwalt")
    with pg_proxy() as proxy:
        env = {**TAKEOVER, "DATABASE_URL": proxy.url_for(database_url())}
        proc = start_celery_worker(env, pool="threads")
        try:
            _, run_id = ask(client, "Recherchiere gründlich die Kündigungsfristen in der Akte 1/26.",
                            mode="background", akte_id=str(kanzlei.akten["A"].pk))
            deadline = time.monotonic() + 60
            while RunEvent.objects.filter(run_id=run_id, type="tool_result").count() < 3:
                assert time.monotonic() < deadline
                time.sleep(0.05)
            with proxy.down(seconds=8):  # a restart: connections cut, new ones refused
                cut_at = time.monotonic()
            evs = _assert_answered_once(client, run_id)
            took = time.monotonic() - cut_at
        finally:
            stop_celery_worker(proc, signal.SIGKILL)
    resumed = [e for e in evs if e["type"] == "resumed"]
    assert len(resumed) == 1 and "Datenbank" in resumed[0]["message"]
    assert not [e for e in evs if e["type"] == "error"]
    print(f"\ndatabase away 8 s: answer {took:.1f} s after it went away")
    assert took < 60
