"""The Akte page's extension point: apps above akten add sections to it without akten knowing them.

A panel is a function (request, akte) -> Panel or None; the drafts app, for instance, registers the
drafts of the Akte that wait for a decision (drafts/apps.py). Registered in an AppConfig.ready(),
shown in the order of INSTALLED_APPS.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.http import HttpRequest
from django.utils.safestring import SafeString

from akten.models import Akte


@dataclass(frozen=True)
class Panel:
    slug: str  # CSS modifier and anchor: section--{slug}
    title: str  # German heading
    parts: list[SafeString]  # rendered HTML, shown one after another


PanelSource = Callable[[HttpRequest, Akte], Panel | None]
_sources: list[PanelSource] = []


def register(source: PanelSource) -> None:
    """Add a section to every Akte page (idempotent)."""
    if source not in _sources:
        _sources.append(source)


def panels_for(request: HttpRequest, akte: Akte) -> list[Panel]:
    """The sections other apps show on this (visible) Akte's page."""
    return [panel for source in _sources if (panel := source(request, akte)) is not None]
