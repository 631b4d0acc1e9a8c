"""Choices several of Helena's records share, with the German labels the admin shows.

The stored values are the ones the agent loop, the model clients and the websocket protocol use
(docs/protocol.md); only the labels are for people.
"""

from __future__ import annotations

from django.db import models


class RunMode(models.TextChoices):
    """Where a run executes: streamed into the chat, or as a job in the background."""

    INLINE = "inline", "direkt (im Chat)"
    BACKGROUND = "background", "im Hintergrund"


class FinishReason(models.TextChoices):
    """Why a run ended (helena.agent.loop.FinishReason)."""

    STOP = "stop", "fertig"
    STALL = "stall", "kam nicht weiter"
    MAX_STEPS = "max_steps", "Schrittlimit erreicht"
    TOOL_CAP = "tool_cap", "zu viele Werkzeugaufrufe"
    TIMEOUT = "timeout", "Zeit abgelaufen"
    CANCELLED = "cancelled", "abgebrochen"
    ERROR = "error", "Fehler"
    WAITING_ON_USER = "waiting_on_user", "wartet auf Antwort"


class LLMProvider(models.TextChoices):
    """The interface a model call went through (helena.llm.base.ChatModel.provider)."""

    OLLAMA = "ollama", "Ollama"
    OPENAI = "openai", "OpenAI-kompatibel"
    SCRIPTED = "scripted", "Testmodell (vorgegebene Antworten)"
