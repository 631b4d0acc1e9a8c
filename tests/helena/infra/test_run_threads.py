"""A run's own thread for the thread-sensitive calls of code that is not ours (helena/infra/db.py:
run_context): the calls land there, and the thread gives its connection back at the run's end (an
inline run closes nothing else afterwards: helena/runs/dispatch.py)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import connection

from akten.models import User
from helena.infra import db as db_threads
from tests.helena.runs.test_loop_statements import on_a_runner_loop

pytestmark = pytest.mark.django_db(transaction=True)


class _Counting(ThreadPoolExecutor):
    def __init__(self) -> None:
        super().__init__(max_workers=1, thread_name_prefix="helena-run-test")
        self.calls = 0

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return super().submit(fn, *args, **kwargs)


def _holds_connection(executor: ThreadPoolExecutor) -> bool:
    return executor.submit(lambda: connection.connection is not None).result(5)


def test_orm_calls_of_a_run_go_to_its_thread_which_gives_the_connection_back(monkeypatch) -> None:
    executor = _Counting()
    monkeypatch.setattr(db_threads, "_single", lambda: executor)

    seen: dict[str, Any] = {}

    async def run() -> None:  # as a runner runs it: no sync caller waits for it
        async with db_threads.run_context():
            seen["name"], seen["users"] = await sync_to_async(
                lambda: (threading.current_thread().name, User.objects.count()))()

    try:
        on_a_runner_loop(run)
        name, users = seen["name"], seen["users"]
        assert name.startswith("helena-run-test") and users >= 0
        assert executor.calls == 2  # the call and, at the end, giving the connection back
        assert not _holds_connection(executor)  # back in the pool: an idle run thread holds none
    finally:
        executor.shutdown()

