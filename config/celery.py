"""Celery application: background agent runs and periodic sweeps run here."""

import os
from typing import Any

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def _prepare_worker(**_kwargs: Any) -> None:
    """Before the pool starts, so prefork children inherit the result.

    No database connection or connection pool of this process may reach the children (they would
    share its sockets): each child opens its own. And the garbage collector is tuned
    (config/gc_tuning.py).
    """
    # Imported here, not at the top: config/__init__ imports this module before Django is set up.
    import django  # noqa: PLC0415
    from django.db import connections  # noqa: PLC0415

    from config.gc_tuning import tune  # noqa: PLC0415

    django.setup()
    for connection in connections.all():
        connection.close()
        if connection.vendor == "postgresql":
            connection.close_pool()
    tune()

