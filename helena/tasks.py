"""Celery tasks (thin): the agent's background runs arrive here in a later step."""

from __future__ import annotations

import socket

from celery import shared_task
from django.db import connection


@shared_task(name="helena.healthcheck", ignore_result=False)
def healthcheck() -> dict[str, str]:
    """Answer from a worker that it runs and reaches the database; used by ops and tests."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_database()")
        (database,) = cursor.fetchone()
    return {"worker": socket.gethostname(), "database": database}
