"""Log lines as an operator needs them (filters on the log handlers, settings.LOGGING).

Secrets out: a calendar feed's address is its key (/kalender/kal_….ics, no login), and Django logs the
path of every refused request („Not Found: /kalender/kal_…“, „Method Not Allowed“): every record that
reaches a handler, from any logger, is written with the key cut to its first characters (the prefix
the admin sees too). A 403 is logged without the traceback Django attaches to it."""

from __future__ import annotations

import logging
import re

# kal_ and the 8 characters of the prefix stay (as „Anfang der Adresse“ in the admin), the rest goes
SCHLUESSEL = re.compile(r"(/kalender/kal_[A-Za-z0-9_-]{0,8})[A-Za-z0-9_%-]*")


def maskieren(text: str) -> str:
    return SCHLUESSEL.sub(r"\1…", text)


class SchluesselFilter(logging.Filter):
    """Rewrites a record whose message holds a feed's key; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        nachricht = record.getMessage()
        if "/kalender/kal_" in nachricht:
            record.msg, record.args = maskieren(nachricht), ()
        return True


class AblehnungOhneTraceback(logging.Filter):
    """A refused request (403: a role that may not add a Briefkopf in the admin) is the rule working,
    not an error: its line stays, Django's traceback of the PermissionDenied does not flood the log."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", None) == 403:
            record.exc_info, record.exc_text = None, None
        return True


def daphne_zugriffe_maskieren() -> None:
    """daphne writes its access log (`python -m daphne` does by default) straight to a stream, past
    `logging`: its lines get the same cut. Called once by config/asgi.py, which daphne loads."""
    from daphne.access import AccessLogGenerator  # noqa: PLC0415 (only where daphne serves)

    if getattr(AccessLogGenerator.write_entry, "maskiert", False):
        return
    original = AccessLogGenerator.write_entry

    def write_entry(self: AccessLogGenerator, host: str, date: object, request: str, *args: object,
                    **kwargs: object) -> None:
        original(self, host, date, maskieren(request), *args, **kwargs)

    write_entry.maskiert = True  # type: ignore[attr-defined]
    AccessLogGenerator.write_entry = write_entry  # type: ignore[method-assign]
