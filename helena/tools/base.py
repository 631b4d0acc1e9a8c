"""Parameters several tools share. What a tool is lives in the agent core (helena/agent/tooling.py):
a tool module here defines `Tool` objects at module level and the registry discovers them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class DauerParams(BaseModel):
    """A Frist's length as the tools take it (calculate_frist, create_draft_frist)."""

    model_config = ConfigDict(extra="forbid")
    tage: int = Field(0, ge=0)
    wochen: int = Field(0, ge=0)
    monate: int = Field(0, ge=0)
    jahre: int = Field(0, ge=0)
