#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.conf import settings  # noqa: PLC0415  (Django's own manage.py imports late, too)
    from django.core.exceptions import ImproperlyConfigured  # noqa: PLC0415
    from django.core.management import execute_from_command_line  # noqa: PLC0415

    try:  # settings say in German what is missing (no DATABASE_URL, no SECRET_KEY): that line, no traceback
        settings.DATABASES  # noqa: B018  (reading a setting imports config.settings)
    except ImproperlyConfigured as exc:
        sys.exit(f"Helena: {exc}")
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
