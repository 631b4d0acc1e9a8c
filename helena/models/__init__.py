"""Helena's own records: conversations, runs and their events (conversations.py), usage, audit and
errors (ledger.py), the admin's settings (admin_settings.py), tasks given to Helena (auftraege.py),
her memory per Akte (memory.py), the model check's results (model_check.py)."""

from helena.models.admin_settings import DIALECT_CHOICES, HelenaSettings, ModelTier, RateLimit, TaskRoute
from helena.models.auftraege import HelenaTask
from helena.models.conversations import (
    AgentRun,
    Conversation,
    Message,
    PendingQuestion,
    Plan,
    RunEvent,
)
from helena.models.ledger import ErrorLog, LLMCall, ToolCallLog
from helena.models.memory import AktenGedaechtnis
from helena.models.model_check import ModelCheck

__all__ = [
    "DIALECT_CHOICES",
    "AgentRun",
    "AktenGedaechtnis",
    "Conversation",
    "ErrorLog",
    "HelenaSettings",
    "HelenaTask",
    "LLMCall",
    "Message",
    "ModelCheck",
    "ModelTier",
    "PendingQuestion",
    "Plan",
    "RateLimit",
    "RunEvent",
    "TaskRoute",
    "ToolCallLog",
]
