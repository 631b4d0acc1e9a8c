"""The ReAct loop end to end: the real `ollama` and `openai` clients over real HTTP against the
scripted server, the real tool executor (validation, audit) and a few test tools.

Every scenario must end with exactly one `done` event carrying the right finish reason.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from pydantic import BaseModel, ConfigDict

from akten.models import Role, User
from helena.agent.events import Emitter
from helena.agent.loop import Limits, run_agent
from helena.agent.nudges import ANSWER_PROMPT, CONTINUE_OFFER, PARSE_ERROR_HINT
from helena.agent.stall import STALL_MESSAGE
from helena.agent.tooling import Tool, ToolContext, ToolResult
from helena.llm.providers.ollama import OllamaModel
from helena.llm.providers.openai_compat import OpenAICompatModel
from helena.models import ToolCallLog
from helena.runs.setup import prepare_run
from helena.tools.executor import execute
from helena.tools.registry import all_tools
from tests.conftest import Kanzlei  # noqa: F401  (fixture type)
from tests.scripted_llm_server import ScriptedLLMServer, start_scripted_server, unused_port

pytestmark = pytest.mark.django_db(transaction=True)


class LookupParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str


async def _lookup(params: LookupParams, ctx: ToolContext) -> ToolResult:
    await asyncio.sleep(0.3)  # long enough that sequential execution would show
    summary = f"1 Treffer für {params.query}"
    return ToolResult(ok=True, data={"treffer": params.query.upper()}, summary=summary)


LOOKUP = Tool(name="lookup", description="Look something up.", kind="read", params=LookupParams,
              handler=_lookup, label="Schlage nach")


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with start_scripted_server() as srv:
        yield srv


@pytest.fixture
def user(db) -> User:
    return User.objects.create_user(username="loop-anwalt", password="x", role=Role.ANWALT)


def make_model(provider: str, server: ScriptedLLMServer, *, timeout: float = 10) -> Any:
    if provider == "ollama":
        return OllamaModel("qwen3:4b", host=server.url, timeout=timeout)
    return OpenAICompatModel("gpt-test", base_url=server.url + "/v1", api_key="test", timeout=timeout)


def run(model: Any, user: User, *, mode: str = "inline", limits: Limits | None = None,
        cancel_after_text: bool = False, question: str = "Wie lange läuft die Berufungsfrist?") -> tuple:
    cancel = asyncio.Event()

    async def callback(event) -> None:
        if cancel_after_text and event.type == "text":
            cancel.set()

    emitter = Emitter(run_id="run-1", callback=callback)
    messages = [{"role": "system", "content": "Du bist Helena."}, {"role": "user", "content": question}]
    ctx = ToolContext(user=user, run_id="run-1")

    async def go():
        return await run_agent(model=model, messages=messages, tools=[LOOKUP], ctx=ctx, emitter=emitter,
                               mode=mode, limits=limits, cancel=cancel, execute=execute,
                               known_names=all_tools())

    result = async_to_sync(go)()
    events = [e.as_dict() for e in emitter.events]
    done = [e for e in events if e["type"] == "done"]
    assert len(done) == 1, [e["type"] for e in events]
    assert events[-1]["type"] == "done"
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    return result, events, done[0]


def of_type(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


PROVIDERS = ["ollama", "openai"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_plain_answer(server, user, provider) -> None:
    server.script([{"text": "Die Berufungsfrist beträgt einen Monat (§ 517 ZPO)."}])
    _result, events, done = run(make_model(provider, server), user)
    assert done["finish_reason"] == "stop"
    assert "".join(e["delta"] for e in of_type(events, "text")) == done["text"]
    assert done["text"].startswith("Die Berufungsfrist")
    assert of_type(events, "run_started")[0]["provider"] == provider
    assert done["usage"]["completion_tokens"] > 0


@pytest.mark.parametrize("provider", PROVIDERS)
def test_one_tool_call(server, user, provider) -> None:
    server.script([{"tool_calls": [{"name": "lookup", "arguments": {"query": "frist"}}]},
                   {"text": "Gefunden: FRIST."}])
    _result, events, done = run(make_model(provider, server), user)
    assert done["finish_reason"] == "stop" and done["text"] == "Gefunden: FRIST."
    (call,) = of_type(events, "tool_call")
    (res,) = of_type(events, "tool_result")
    assert call["tool"] == "lookup" and call["arguments"] == {"query": "frist"} and call["step"] == 1
    assert res["ok"] and res["call_id"] == call["call_id"] and res["summary"] == "1 Treffer für frist"
    assert of_type(events, "step")[0]["summary"] == "Schritt 1/5: Schlage nach: frist …"
    chat = "/api/chat" if provider == "ollama" else "/v1/chat/completions"
    second = server.requests_to(chat)[-1]["messages"]
    assert any(m["role"] == "tool" and "FRIST" in m["content"] for m in second)
    assert ToolCallLog.objects.filter(tool="lookup", ok=True).count() == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_three_parallel_tool_calls(server, user, provider) -> None:
    server.script([{"tool_calls": [{"name": "lookup", "arguments": {"query": q}} for q in "abc"]},
                   {"text": "Drei Ergebnisse."}])
    started = time.monotonic()
    _result, events, done = run(make_model(provider, server), user)
    assert done["finish_reason"] == "stop"
    assert len(of_type(events, "tool_result")) == 3
    assert time.monotonic() - started < 0.85  # 3 × 0.3 s would be sequential


def test_tool_call_written_as_text_is_executed_and_not_shown(server, user) -> None:
    server.script([{"text": '<tool_call>\n{"name": "lookup", "arguments": {"query": "x"}}\n</tool_call>'},
                   {"text": "Erledigt."}])
    _result, events, done = run(make_model("ollama", server), user)
    assert done["finish_reason"] == "stop" and done["text"] == "Erledigt."
    assert len(of_type(events, "tool_result")) == 1
    assert not any("tool_call" in e["delta"] for e in of_type(events, "text"))


def test_broken_json_in_content_is_repaired(server, user) -> None:
    server.script([{"text": "```json\n{'name': 'lookup', 'arguments': {'query': 'mietrecht',}}\n```"},
                   {"text": "Fertig."}])
    _result, events, done = run(make_model("ollama", server), user)
    assert done["finish_reason"] == "stop"
    assert of_type(events, "tool_call")[0]["arguments"] == {"query": "mietrecht"}


def test_broken_arguments_from_openai_go_back_to_the_model(server, user) -> None:
    server.script([{"tool_calls": [{"name": "lookup", "arguments": '{"query": x y z'}]},
                   {"tool_calls": [{"name": "lookup", "arguments": {"query": "x"}}]},
                   {"text": "Jetzt passt es."}])
    _result, events, done = run(make_model("openai", server), user)
    first, second = of_type(events, "tool_result")
    assert not first["ok"] and second["ok"]
    assert done["finish_reason"] == "stop"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_unknown_tool(server, user, provider) -> None:
    server.script([{"tool_calls": [{"name": "zaubern", "arguments": {}}]}, {"text": "Das kann ich nicht."}])
    _result, events, done = run(make_model(provider, server), user)
    (res,) = of_type(events, "tool_result")
    assert not res["ok"] and "lookup" in res["error"]
    assert done["finish_reason"] == "stop"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_invalid_arguments_corrected_on_next_turn(server, user, provider) -> None:
    server.script([{"tool_calls": [{"name": "lookup", "arguments": {"quer": 1}}]},
                   {"tool_calls": [{"name": "lookup", "arguments": {"query": "berufung"}}]},
                   {"text": "Korrigiert und gefunden."}])
    _result, events, done = run(make_model(provider, server), user)
    bad, good = of_type(events, "tool_result")
    assert not bad["ok"] and "query" in bad["error"]
    assert good["ok"]
    assert done["finish_reason"] == "stop"
    chat = "/api/chat" if provider == "ollama" else "/v1/chat/completions"
    retry_request = server.requests_to(chat)[1]["messages"]
    assert any(m["role"] == "tool" and "query" in m["content"] for m in retry_request)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_stall(server, user, provider) -> None:
    same = {"tool_calls": [{"name": "lookup", "arguments": {"query": "immer dasselbe"}}]}
    server.script([same, same, {"text": "Meine beste Antwort."}])
    _result, _events, done = run(make_model(provider, server), user)
    assert done["finish_reason"] == "stall"
    assert done["text"] == "Meine beste Antwort."
    last = server.requests[-1]
    assert not last.get("tools")
    assert STALL_MESSAGE in str(last["messages"])


@pytest.mark.parametrize(("mode", "offered"), [("inline", True), ("background", False)])
def test_step_cap(server, user, mode, offered) -> None:
    steps = 5 if mode == "inline" else 3
    calls = [{"tool_calls": [{"name": "lookup", "arguments": {"query": f"q{i}"}}]} for i in range(steps)]
    server.script([*calls, {"text": "Zwischenstand: bisher gefunden Q0 bis Q4."}])
    limits = None if mode == "inline" else Limits(max_steps=steps, timeout=60)
    _result, _events, done = run(make_model("ollama", server), user, mode=mode, limits=limits)
    assert done["finish_reason"] == "max_steps"
    assert done["cap_reached"] is True and done["continue_offered"] is offered
    assert done["text"].startswith("Zwischenstand")
    assert done["text"].endswith(CONTINUE_OFFER) is offered
    assert not server.requests[-1].get("tools")  # the last call answers without tools


def test_tool_cap(server, user) -> None:
    server.script([{"tool_calls": [{"name": "lookup", "arguments": {"query": f"q{i}"}} for i in range(9)]},
                   {"text": "Acht Ergebnisse reichen."}])
    _result, events, done = run(make_model("openai", server), user)
    assert done["finish_reason"] == "tool_cap" and done["cap_reached"]
    assert len(of_type(events, "tool_result")) == 8
    assert of_type(events, "warning")[0]["code"] == "tool_cap"
    assert done["text"] == "Acht Ergebnisse reichen."


def test_timeout(server, user) -> None:
    server.script([{"text": "Zu spät.", "delay": 5}])
    _result, _events, done = run(make_model("ollama", server, timeout=30), user,
                               limits=Limits(max_steps=5, timeout=1.0))
    assert done["finish_reason"] == "timeout"
    assert done["text"]


def test_cancel_keeps_the_partial_answer(server, user) -> None:
    server.script([{"text": ["Teil eins. ", "Teil zwei. ", "Teil drei."], "chunk_delay": 0.5}])
    _result, _events, done = run(make_model("openai", server), user, cancel_after_text=True)
    assert done["finish_reason"] == "cancelled"
    assert done["text"].startswith("Teil eins")
    assert "Teil drei" not in done["text"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_model_500(server, user, provider) -> None:
    server.script([{"status": 500, "body": "interner Fehler"}])
    _result, events, done = run(make_model(provider, server), user)
    assert done["finish_reason"] == "error"
    (error,) = of_type(events, "error")
    assert error["code"] == "model_error" and error["message"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_refused_connection(user, provider) -> None:
    port = unused_port()
    if provider == "ollama":
        model = OllamaModel("qwen3:4b", host=f"http://127.0.0.1:{port}", timeout=5)
    else:
        model = OpenAICompatModel("gpt-test", base_url=f"http://127.0.0.1:{port}/v1", api_key="x", timeout=5)
    _result, events, done = run(model, user)
    assert done["finish_reason"] == "error"
    (error,) = of_type(events, "error")
    # the lawyer is told whom to ask; the address is not for the chat
    assert error["code"] == "model_unavailable" and "Administration" in error["message"]
    assert f"127.0.0.1:{port}" not in error["message"]


def test_ollama_tool_call_parse_error_is_retried_once_with_a_hint(server, user) -> None:
    server.script([{"status": 500, "body": "error parsing tool call: raw='{\"query\": }'"},
                   {"text": "Zweiter Versuch klappt."}])
    _result, _events, done = run(make_model("ollama", server), user)
    assert done["finish_reason"] == "stop" and done["text"] == "Zweiter Versuch klappt."
    retry = server.requests_to("/api/chat")[-1]["messages"]
    assert retry[-1]["content"] == PARSE_ERROR_HINT


def test_a_second_tool_call_parse_error_ends_as_a_stall_with_an_answer(server, user) -> None:
    """Unreadable twice: Helena answers with what she has; as a stall the run may escalate."""
    bad = {"status": 500, "body": "error parsing tool call: raw='{\"query\": }'"}
    server.script([bad, bad, {"text": "Ich konnte nicht nachschlagen."}])
    _result, events, done = run(make_model("ollama", server), user)
    assert done["finish_reason"] == "stall" and done["text"] == "Ich konnte nicht nachschlagen."
    assert [e["code"] for e in of_type(events, "warning")] == ["tool_call_format"]
    assert not of_type(events, "error")


def test_a_model_that_only_thought_is_asked_for_its_answer(server, user) -> None:
    server.capabilities = ["completion", "tools", "thinking"]
    server.script([{"thinking": "Die Frist ergibt sich aus § 517 ZPO."},
                   {"text": "Die Berufungsfrist beträgt einen Monat."}])
    _result, events, done = run(make_model("ollama", server), user)
    assert done["finish_reason"] == "stop" and done["text"] == "Die Berufungsfrist beträgt einen Monat."
    assert "".join(e["delta"] for e in of_type(events, "reasoning")) == "Die Frist ergibt sich aus § 517 ZPO."
    assert server.requests_to("/api/chat")[-1]["messages"][-1]["content"] == ANSWER_PROMPT


def test_rbac_through_the_tools_in_a_run(server, kanzlei) -> None:
    """A Praktikant asks about an Akte he may not see: the prompt leaves it out, the tool says
    'nicht gefunden', and nothing of it reaches the model."""
    praktikant, geheim = kanzlei.users["praktikant"], kanzlei.akten["C"]
    setup = prepare_run(user=praktikant, question="Was steht in der Akte?", akte_id=geheim.pk)
    assert geheim.kurzrubrum not in setup.messages[0]["content"]
    assert setup.ctx.akte_id is None
    offered = {t.name for t in setup.tools}
    assert "read_akte_detail" in offered and not offered & {"create_draft_dokument", "update_akte_rag"}
    server.script([{"tool_calls": [{"name": "read_akte_detail", "arguments": {"akte_id": str(geheim.pk)}}]},
                   {"text": "Diese Akte finde ich nicht."}])
    emitter = Emitter(run_id="rbac")
    result = async_to_sync(run_agent)(model=make_model("openai", server), messages=setup.messages,
                                      tools=setup.tools, ctx=setup.ctx, emitter=emitter,
                                      execute=setup.execute, known_names=setup.known_names)
    (res,) = [e.as_dict() for e in emitter.events if e.type == "tool_result"]
    assert not res["ok"] and "nicht gefunden" in res["error"]
    sent = str(server.requests_to("/v1/chat/completions")[-1]["messages"])
    assert geheim.kurzrubrum not in sent and "Vertraulich" not in sent
    assert result.finish_reason == "stop"
    assert ToolCallLog.objects.get(tool="read_akte_detail").ok is False


def test_prepare_run_includes_a_visible_akte_and_the_first_contact(kanzlei) -> None:
    anwalt, akte = kanzlei.users["anwalt"], kanzlei.akten["A"]
    setup = prepare_run(user=anwalt, question="Wie ist der Stand?", akte_id=str(akte.pk), first_contact=True)
    prompt = setup.messages[0]["content"]
    assert akte.aktenzeichen in prompt and "Frist A offen" in prompt
    assert "Hi, ich bin Helena!" in prompt
    assert setup.ctx.akte_id == akte.pk
    assert setup.messages[-1] == {"role": "user", "content": "Wie ist der Stand?"}


def test_thinking_of_reasoning_models_is_not_shown(server, user) -> None:
    server.script([{"text": "<think>Der Nutzer fragt nach der Frist. Ich überlege …</think>\n\nEin Monat."}])
    _result, events, done = run(make_model("ollama", server), user)
    assert done["text"] == "Ein Monat."
    assert "überlege" not in "".join(e["delta"] for e in of_type(events, "text"))
