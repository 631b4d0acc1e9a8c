"""The loop's parts on their own: event numbering, stall detection, token budget, system prompt."""

from __future__ import annotations

import asyncio
from datetime import date

import pytest
from pydantic import BaseModel

from akten.fristen import format_datum
from helena.agent import budget
from helena.agent.events import Emitter
from helena.agent.prompts import FIRST_CONTACT, system_prompt
from helena.agent.stall import StallDetector
from helena.agent.tooling import Tool, ToolResult


def test_events_are_numbered_without_gaps_and_reach_the_callback() -> None:
    seen: list[int] = []

    async def callback(event) -> None:
        seen.append(event.seq)

    emitter = Emitter(run_id="r1", callback=callback)

    async def go() -> None:
        await emitter.emit("run_started", mode="inline", tier=1, model="m", provider="scripted", max_steps=5)
        await emitter.emit("text", delta="Hallo")
        await emitter.emit("done", finish_reason="stop", text="Hallo", usage={}, cap_reached=False,
                           continue_offered=False)

    asyncio.run(go())
    assert seen == [1, 2, 3]
    first = emitter.events[0].as_dict()
    assert first["type"] == "run_started" and first["run_id"] == "r1" and first["ts"].endswith("Z")
    with pytest.raises(ValueError):
        asyncio.run(emitter.emit("erfunden"))


def test_stall_on_repeated_call_with_same_params_in_any_key_order() -> None:
    detector = StallDetector()
    assert not detector.record_call("search_gesetze", {"query": "Frist", "limit": 5})
    assert detector.record_call("search_gesetze", {"limit": 5, "query": "Frist"})
    assert "search_gesetze" in (detector.reason or "")


@pytest.mark.parametrize("ok", [True, False])
def test_stall_on_three_identical_results_or_failures(ok: bool) -> None:
    detector = StallDetector()
    assert not detector.record_result("read_akte", ok, {"x": 1})
    assert not detector.record_result("read_akte", ok, {"x": 1})
    assert detector.record_result("read_akte", ok, {"x": 1})


def test_no_stall_for_varied_results() -> None:
    detector = StallDetector()
    for i in range(6):
        assert not detector.record_call("read_akte", {"query": str(i)})
        assert not detector.record_result("read_akte", True, {"i": i})
    assert not detector.stalled


def _conversation(tool_results: int, size: int) -> list[dict]:
    messages = [{"role": "system", "content": "System " * 20}, {"role": "user", "content": "Erste Frage"}]
    for i in range(tool_results):
        messages.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "read_akte", "arguments": "{}"}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"Ergebnis {i} " + "x" * size})
    messages.append({"role": "user", "content": "Letzte Frage"})
    return messages


def test_budget_leaves_small_conversations_alone() -> None:
    messages = _conversation(2, 10)
    assert budget.fit(messages, context_window=8000) is messages


def test_budget_drops_oldest_tool_results_first_and_keeps_protected_parts() -> None:
    messages = _conversation(8, 2000)
    fitted = budget.fit(messages, context_window=4000)
    assert budget.estimate_tokens(fitted) <= 3000
    assert fitted[0] == messages[0] and fitted[1] == messages[1] and fitted[-1] == messages[-1]
    tool_contents = [m["content"] for m in fitted if m["role"] == "tool"]
    assert tool_contents[0] == budget.DROPPED_RESULT
    assert tool_contents[-1].startswith("Ergebnis 7")  # the recent exchanges are intact
    # every remaining tool result still answers an assistant tool call (valid for the APIs)
    call_ids = {c["id"] for m in fitted if m["role"] == "assistant" for c in m.get("tool_calls", [])}
    assert {m["tool_call_id"] for m in fitted if m["role"] == "tool"} <= call_ids
    assert messages[3]["content"].startswith("Ergebnis 0")  # the original list is untouched


def test_budget_then_drops_oldest_assistant_turns() -> None:
    messages = _conversation(30, 300)
    fitted = budget.fit(messages, context_window=2000)
    assert len(fitted) < len(messages)
    assert fitted[0]["role"] == "system" and fitted[1]["content"] == "Erste Frage"
    assert fitted[-1]["content"] == "Letzte Frage"


def test_overlong_tool_result_is_clipped_with_a_note() -> None:
    clipped = budget.clip_tool_result("a" * 100_000, context_window=8000)
    assert len(clipped) < 8000 and "gekürzt" in clipped
    assert budget.clip_tool_result("kurz", context_window=8000) == "kurz"


class _Params(BaseModel):
    query: str


async def _handler(params: _Params, ctx) -> ToolResult:
    return ToolResult(ok=True, data={})


def test_system_prompt_is_german_du_with_date_akte_and_tool_guidance() -> None:
    tool = Tool(name="search_gesetze", description="Search statutes", kind="read", params=_Params,
                handler=_handler)
    akte = {"id": 7, "aktenzeichen": "101/26", "kurzrubrum": "Müller ./. Bauer", "bundesland": "NW",
            "fristen": ["02.12.2026 Klagefrist"]}
    prompt = system_prompt(tools=[tool], today=format_datum(date(2026, 11, 21)),
                           user_name="Maximilian Hartmann", role="ANWALT", akte=akte, first_contact=True)
    assert "Samstag, 21.11.2026" in prompt
    assert "101/26" in prompt and "akte_id für Werkzeuge: 7" in prompt
    assert "search_gesetze" in prompt and "read_akte:" not in prompt
    assert FIRST_CONTACT in prompt
    assert "Entwurf" in prompt and "duzt" in prompt
    plain = system_prompt(tools=[], today=format_datum(date(2026, 11, 21)), user_name="x", role="ANWALT")
    assert FIRST_CONTACT not in plain
