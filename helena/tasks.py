"""Celery tasks (thin; the file Celery looks for): background runs and the sweep call into
helena.runs; the Akten vectors into helena.knowledge.aktensuche; questions, Aufträge and memory into
conversations and proactive; the model check into helena.model_check. A Celery task is not an
Auftrag an Helena (helena/proactive/auftraege.py)."""

from __future__ import annotations

import socket
from typing import Any

from celery import shared_task
from celery.signals import worker_ready, worker_shutting_down
from django.db import close_old_connections, connection

from helena.conversations.questions import expire_stale_questions
from helena.knowledge.aktensuche import indexing
from helena.knowledge.aktensuche.indexing import DRAIN_TASK, SWEEP_TASK
from helena.model_check.services import TASK_NAME as MODEL_CHECK_TASK
from helena.model_check.services import run_stored_check
from helena.proactive.auftraege import auftraege_abschliessen
from helena.proactive.memory import refresh_due
from helena.runs.dispatch import BACKGROUND_TASK, inline_runner
from helena.runs.durable.shutdown import hand_over
from helena.runs.durable.watch import watch
from helena.runs.execute import execute_run
from helena.runs.sweep import sweep_stale_runs as sweep


@shared_task(name="helena.healthcheck", ignore_result=False)
def healthcheck() -> dict[str, str]:
    """Answer from a worker that it runs and reaches the database; used by ops and tests."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_database()")
        (database,) = cursor.fetchone()
    return {"worker": socket.gethostname(), "database": database}


@shared_task(name=BACKGROUND_TASK, acks_late=True, ignore_result=True)
def run_in_background(run_id: str) -> None:
    """A background AgentRun. Acknowledged when done: a message delivered again finds its run no
    longer queued and changes nothing (a run whose worker died goes on elsewhere from its
    checkpoint, taken over by the watch: helena/runs/durable/).

    No result: the run's outcome is in the database. Storing one made each of the worker's task
    threads build its own result backend client on first use (~5 ms of CPU each, in the middle of
    other runs' streaming).

    The run is a task on the process's runner loop, as inline runs are in daphne; this thread waits
    for it. An event loop per task thread cost each run a loop and its own Redis connections, and a
    hundred loops competing for the GIL (bench/agent_overhead.py).
    """
    try:
        inline_runner.submit(execute_run(run_id)).result()
    finally:
        close_old_connections()


@worker_ready.connect
def _watch_runs(**_kwargs: Any) -> None:
    """The worker beats for its runs and takes over background runs whose process is gone
    (helena/runs/durable/watch.py); the pool is threads, so the runs live in this process."""
    watch.start(role="worker")


@worker_shutting_down.connect
def _hand_runs_over(**_kwargs: Any) -> None:
    """Told to stop (SIGTERM, Ctrl-C): the running runs are handed over at their next step
    boundary before Celery waits for its tasks (helena/runs/durable/shutdown.py)."""
    hand_over()


@shared_task(name="helena.sweep_stale_runs")
def sweep_stale_runs() -> int:
    return sweep()


@shared_task(name="helena.expire_questions")
def expire_questions() -> int:
    """Helena's questions nobody answered within 7 days are closed with a note (hourly)."""
    return expire_stale_questions()


@shared_task(name=DRAIN_TASK, ignore_result=True)
def index_akten() -> int:
    """Embed what changed in the Akten asked for (helena/knowledge/aktensuche/indexing.py)."""
    return indexing.drain()


@shared_task(name=SWEEP_TASK)
def index_unindexed_akten() -> int:
    """Every 10 minutes: Akten without vectors, and Aufträge whose task was lost."""
    return indexing.sweep()


@shared_task(name="helena.close_tasks")
def close_finished_tasks() -> int:
    """Every minute: tasks whose run ended where no one closed them (a cancel, the sweep)."""
    return auftraege_abschliessen()


@shared_task(name="helena.refresh_memories")
def refresh_memories() -> int:
    """Every minute: Helena's memory of the Akten that changed a minute ago or more (debounced)."""
    return refresh_due()


@shared_task(name=MODEL_CHECK_TASK, acks_late=False, ignore_result=True)
def modellpruefung(check_id: int) -> None:
    """The model check the admin started: minutes of model calls, so here and not in the request.
    Acks early: a re-delivered check would run (and book its calls) twice."""
    try:
        run_stored_check(check_id=check_id)
    finally:
        close_old_connections()
