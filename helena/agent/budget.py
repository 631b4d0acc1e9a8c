"""Token budget: keep the messages actually sent to the model inside its context window.

Estimate, not exact: characters / 3.5 (JSON for non-text parts) is close enough for German
legal text to stay clear of the window, and needs no tokenizer per model.
"""

from __future__ import annotations

import copy
import json
from typing import Any

CHARS_PER_TOKEN = 3.5
BUDGET_RATIO = 0.75
KEEP_LAST_EXCHANGES = 3
DROPPED_RESULT = "[Älteres Werkzeugergebnis entfernt, um im Kontextfenster zu bleiben.]"


def estimate_tokens(messages: list[dict[str, Any]]) -> int:
    total = 0.0
    for message in messages:
        content = message.get("content")
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        total += len(text) / CHARS_PER_TOKEN + 4
        if message.get("tool_calls"):
            total += len(json.dumps(message["tool_calls"], ensure_ascii=False)) / CHARS_PER_TOKEN
    return int(total)


def clip_tool_result(text: str, *, context_window: int, share: float = 0.25) -> str:
    """One tool result may use at most `share` of the window; the rest is cut with a note."""
    limit = int(context_window * share * CHARS_PER_TOKEN)
    if len(text) <= limit:
        return text
    omitted = len(text) - limit
    return text[:limit] + f"\n[… gekürzt: {omitted} Zeichen ausgelassen, das Ergebnis war zu lang.]"


def _exchanges(messages: list[dict[str, Any]]) -> list[list[int]]:
    """Indexes grouped by exchange: an assistant turn with its tool results, or a user message."""
    groups: list[list[int]] = []
    for i, message in enumerate(messages):
        if message["role"] == "tool" and groups:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def fit(messages: list[dict[str, Any]], *, context_window: int) -> list[dict[str, Any]]:
    """The messages to send: under BUDGET_RATIO of the window, oldest tool results dropped
    first, then the oldest assistant turns; never the system prompt, the first user message or
    the last three exchanges."""
    budget = int(context_window * BUDGET_RATIO)
    if estimate_tokens(messages) <= budget:
        return messages
    result = copy.deepcopy(messages)
    groups = _exchanges(result)
    protected: set[int] = {i for i, m in enumerate(result) if m["role"] == "system"}
    first_user = next((i for i, m in enumerate(result) if m["role"] == "user"), None)
    if first_user is not None:
        protected.add(first_user)
    for group in groups[-KEEP_LAST_EXCHANGES:]:
        protected.update(group)

    for i, message in enumerate(result):  # 1. oldest tool results
        if estimate_tokens(result) <= budget:
            return result
        if message["role"] == "tool" and i not in protected and message["content"] != DROPPED_RESULT:
            message["content"] = DROPPED_RESULT

    removable = [g for g in groups if not protected.intersection(g) and result[g[0]]["role"] == "assistant"]
    drop: set[int] = set()
    for group in removable:  # 2. oldest assistant turns, with their tool results
        if estimate_tokens([m for i, m in enumerate(result) if i not in drop]) <= budget:
            break
        drop.update(group)
    return [m for i, m in enumerate(result) if i not in drop]
