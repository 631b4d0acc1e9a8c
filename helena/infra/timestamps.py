"""The one timestamp format clients get (docs/protocol.md): UTC, milliseconds, "Z". Imports nothing of
ours, so the models, the agent core and the edges can all use it."""

from __future__ import annotations

from datetime import UTC, datetime


def event_ts(moment: datetime | None = None) -> str:
    """An event's timestamp as clients get it; now without a moment. Live events, stored ones, the
    API's and the socket's own errors all use it."""
    moment = moment or datetime.now(UTC)
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
