"""Starting a committed run: inline as a task on the process's runner loop, background on Celery."""

from __future__ import annotations

import asyncio
import atexit
import contextvars
import logging
import threading
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from config.celery import app as celery_app
from helena.infra.loops import make_resident, new_loop
from helena.models import AgentRun
from helena.runs.durable.watch import watch
from helena.runs.execute import execute_run, resume_run

log = logging.getLogger(__name__)


class InlineRunner:
    """A daemon thread with its own asyncio loop: inline runs are tasks on it, so they live in the
    ASGI process, answer within the request's lifetime or beyond it, and never block a request.
    A Celery worker runs its background runs on its own one, too (helena.tasks)."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self.tasks: set[asyncio.Future] = set()

    def _ensure(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or not self._loop.is_running():
                loop = new_loop()
                make_resident(loop)
                ready = threading.Event()

                def serve() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    loop.run_forever()

                thread = threading.Thread(target=serve, name="helena-inline-runs", daemon=True)
                thread.start()
                ready.wait()
                atexit.register(_stop_at_exit, loop, thread)
                self._loop = loop
                watch.start()  # the heartbeat of the runs on this loop (helena/runs/durable/watch.py)
            return self._loop

    def submit(self, coro: Coroutine[Any, Any, Any]) -> Any:
        # A fresh context: the caller's (a request under daphne) points at an asgiref executor
        # that is gone once the response is sent; the run must not inherit it.
        future = contextvars.Context().run(asyncio.run_coroutine_threadsafe, coro, self._ensure())
        self.tasks.add(future)
        future.add_done_callback(self.tasks.discard)
        return future


def _stop_at_exit(loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
    """The runner loop stops before the interpreter winds down: uvloop's callbacks take the GIL from
    C, and one that fired while the interpreter is finalising could crash the process on its way out
    (runs still on it were handed over before: helena/runs/durable/shutdown.py)."""
    if loop.is_running():
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)


inline_runner = InlineRunner()
# A run the watch took over goes on on this process's runner, as its own runs do.
watch.resume = lambda run_pk, attempt, cause: inline_runner.submit(resume_run(run_pk, attempt, cause))


async def _inline(run_id: Any) -> None:
    """An inline run; its database threads give their connections back themselves (helena/infra/
    db.py), so nothing is left to close here."""
    try:
        await execute_run(run_id)
    except Exception:
        log.exception("inline run %s failed", run_id)


# Celery keeps a result backend (with its own Redis client) per thread and makes it on first use;
# every request runs on a thread of its own, so publishing from there made one per message. A few
# long-lived threads publish instead (more than one, so a slow broker does not queue every request).
_publisher = ThreadPoolExecutor(max_workers=4, thread_name_prefix="helena-publish")


BACKGROUND_TASK = "helena.run_in_background"  # helena/tasks.py; sent by name, the worker knows it


def _publish(run_pk: Any) -> str:
    return celery_app.send_task(BACKGROUND_TASK, args=[str(run_pk)]).id


def dispatch(run: AgentRun) -> None:
    """Start a committed run: inline on the runner, background on Celery."""
    if run.mode == AgentRun.Mode.INLINE:
        inline_runner.submit(_inline(run.pk))
        return
    task_id = _publisher.submit(_publish, run.pk).result()  # errors surface here, as before
    AgentRun.objects.filter(pk=run.pk).update(celery_task_id=task_id)
