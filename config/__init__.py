"""Helena's Django project package; exposes the Celery app so `celery -A config` finds it."""

from .celery import app as celery_app

__all__ = ["celery_app"]
