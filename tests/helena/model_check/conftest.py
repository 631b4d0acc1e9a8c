"""Scripted models for the model check: each answers every chat request from its JSON (the scripted
server's respond_with), finding the task by the conversation's first user message."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone

from helena.model_check.tasks import Task, catalogue
from tests.scripted_llm_server import DEFAULT_MODEL_INFO, ScriptedLLMServer

Responder = Callable[[dict[str, Any]], dict[str, Any]]
WINDOW = DEFAULT_MODEL_INFO["qwen3.context_length"]


def _task_of(request: dict[str, Any]) -> tuple[Task, list[dict[str, Any]]]:
    messages = request["messages"]
    first = next(m["content"] for m in messages if m["role"] == "user")
    # By the prompt's start: the long text's length depends on the window the server reports.
    tasks = {t.prompt[:40]: t for t in catalogue(today=timezone.localdate(), context_window=WINDOW)}
    return tasks[first[:40]], messages


def _turns_done(messages: list[dict[str, Any]]) -> int:
    return sum(1 for m in messages if m["role"] == "assistant" and m.get("tool_calls"))


def behaving(*, answer: Callable[[Task], str] = lambda task: task.example_answer,
             as_text: bool = False) -> Responder:
    """A careful model: the catalogue's example calls, turn by turn, then its answer. `as_text`: the
    calls as Hermes markup in the content, as a server without a tool parser passes them on."""
    def respond(request: dict[str, Any]) -> dict[str, Any]:
        task, messages = _task_of(request)
        done = _turns_done(messages)
        if done < len(task.example) and as_text:
            return {"raw": "".join(f"<tool_call>{json.dumps(call, ensure_ascii=False)}</tool_call>"
                                   for call in task.example[done])}
        if done < len(task.example):
            return {"tool_calls": [dict(call) for call in task.example[done]]}
        return {"text": answer(task)}
    return respond


def english() -> Responder:
    """Calls the right tools, answers in English (also when asked again in German)."""
    return behaving(answer=lambda task: "The answer is in the records: " + task.example_answer.split(":")[-1]
                    + " Please tell me if you need anything else.")


def never_calls_tools() -> Responder:
    """Answers every question at once, in German, without ever calling a tool."""
    def respond(request: dict[str, Any]) -> dict[str, Any]:
        return {"text": "Das kann ich dir leider nicht sicher beantworten."}
    return respond


@pytest.fixture
def tier1(server: ScriptedLLMServer, db) -> ScriptedLLMServer:
    """Tier 1 is qwen3:4b on the scripted server (Ollama)."""
    from helena.models import ModelTier

    ModelTier.objects.create(tier=1, provider="ollama", model_name="qwen3:4b", base_url=server.url)
    return server
