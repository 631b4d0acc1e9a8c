"""No client data to a cloud model without the firm's opt-in, and then only redacted, on every path.

From outside: runs through the JSON API against a scripted cloud endpoint that records every request
body; the admin as an office manager uses it; a web search endpoint that records every query.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client

from akten.models import Beteiligter
from helena.llm import locality, router
from helena.models import AgentRun, HelenaSettings, LLMCall, Message, ModelTier
from tests.conftest import Kanzlei
from tests.helena.web.test_runs_api import ask, events, post, wait
from tests.scripted_llm_server import ScriptedLLMServer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

# What must never reach the cloud: the people of Akten A and B, their contacts and file numbers.
SECRETS = (
    "Hans Meier", "Meier", "Domstraße 1", "50667", "hans.meier@example.org", "0221 1234567", "1234567",
    "DE89370400440532013000", "Stahlbau", "Petra Schulz", "Schulz", "Wohnbau", "Lindenallee 5", "80331",
    "p.schulz@example.net", "1/26", "2/26", "12.03.1980", "4 Ca 77/26",
)


@pytest.fixture
def parties(kanzlei: Kanzlei) -> Kanzlei:
    a, b = kanzlei.akten["A"], kanzlei.akten["B"]
    Beteiligter.objects.create(akte=a, rolle="mandant", name="Hans Meier", email="hans.meier@example.org",
                               telefon="0221 1234567", anschrift="Domstraße 1\n50667 Köln",
                               notiz="geb. 12.03.1980, IBAN DE89 3704 0044 0532 0130 00")
    Beteiligter.objects.create(akte=a, rolle="gegner", name="Stahlbau GmbH", aktenzeichen_extern="4 Ca 77/26")
    Beteiligter.objects.create(akte=b, rolle="mandant", name="Petra Schulz", email="p.schulz@example.net",
                               anschrift="Lindenallee 5, 80331 München")
    Beteiligter.objects.create(akte=b, rolle="gegner", name="Wohnbau AG")
    return kanzlei


def allow_cloud() -> None:
    HelenaSettings.objects.update_or_create(pk=1, defaults={"cloud_allowed": True,
                                                            "cloud_confirmation": "AVV geprüft"})


def cloud_tier(server: ScriptedLLMServer, *, tier: int = 1) -> ModelTier:
    """An OpenAI-compatible model on the scripted server, marked as running outside the firm."""
    return ModelTier.objects.create(tier=tier, provider="openai", model_name="cloud-x",
                                    base_url=server.url + "/v1", standort="extern")


def sent_to(server: ScriptedLLMServer) -> str:
    return json.dumps(server.requests_to("/v1/chat/completions"), ensure_ascii=False)


def assert_nothing_leaked(sent: str) -> None:
    for secret in SECRETS:
        assert secret not in sent, secret


def placeholders(text: str) -> list[str]:
    return list(dict.fromkeys(re.findall(r"\[MANDANT_\d+\]", text)))


def reads_two_akten(kanzlei: Kanzlei):
    """A cloud model that reads Akte A, then Akte B, then answers with the names it was given."""
    ids = [str(kanzlei.akten["A"].pk), str(kanzlei.akten["B"].pk)]

    def respond(request: dict[str, Any]) -> dict[str, Any]:
        tool_messages = [m for m in request["messages"] if m["role"] == "tool"]
        if len(tool_messages) < 2:
            akte_id = ids[len(tool_messages)]
            return {"tool_calls": [{"name": "read_akte_detail", "arguments": {"akte_id": akte_id}}]}
        seen = placeholders(" ".join(m["content"] for m in tool_messages))
        if not seen:  # a local model sees the real names
            return {"text": "Die Mandanten sind Hans Meier und Petra Schulz."}
        return {"text": "Die Mandanten sind " + " und ".join(seen) + "."}

    return respond


def test_general_chat_reading_two_akten_sends_no_client_data_to_the_cloud(
    parties: Kanzlei, server: ScriptedLLMServer
) -> None:
    cloud_tier(server)
    allow_cloud()
    server.respond_with(reads_two_akten(parties))
    client = parties.client("anwalt")
    # No Akte in the conversation; the question itself names a client and an e-mail address.
    _, run_id = ask(client, "Wer sind die Mandanten in 1/26 und 2/26? Hans Meier hat von "
                            "hans.meier@example.org geschrieben.", mode="inline")
    run = wait(client, run_id)
    assert run["status"] == "finished", run
    requests = server.requests_to("/v1/chat/completions")
    assert len(requests) == 3  # read A, read B, answer: all of them went to the cloud
    assert_nothing_leaked(sent_to(server))
    # The tool results reached the model, as placeholders.
    assert "[MANDANT_" in json.dumps(requests[-1]["messages"], ensure_ascii=False)
    # What the lawyer sees has the real names back, in the run and in the stored message.
    assert run["text"] in ("Die Mandanten sind Hans Meier und Petra Schulz.",
                           "Die Mandanten sind Petra Schulz und Hans Meier.")
    assert Message.objects.get(run_id=run_id, role="assistant").text == run["text"]


def test_a_typed_name_is_learned_only_from_akten_the_user_may_see(
    parties: Kanzlei, server: ScriptedLLMServer
) -> None:
    """Hans Meier is a client in Akte A. The anwalt may see A: the name goes out as a placeholder.
    The praktikant may not: no placeholder kind may tell the model, or the answer, that he is a
    client of the firm; only the patterns apply to what the praktikant typed."""
    cloud_tier(server)
    allow_cloud()
    server.respond_with(lambda request: {"text": "Dazu habe ich nichts."})
    question = "Was ist mit Hans Meier?"
    for username in ("anwalt", "praktikant"):
        client = parties.client(username)
        _, run_id = ask(client, question, mode="inline")
        assert wait(client, run_id)["status"] == "finished"
    first, second = (json.dumps(r["messages"][-1], ensure_ascii=False)
                     for r in server.requests_to("/v1/chat/completions"))
    assert "Hans Meier" not in first and "[MANDANT_1]" in first
    assert "[MANDANT_" not in second and "Hans Meier" in second


def test_earlier_answers_in_the_history_are_redacted_in_the_next_run(
    parties: Kanzlei, server: ScriptedLLMServer
) -> None:
    """A later run of the same conversation knows the Akten its earlier runs read: the history carries
    their real names."""
    ModelTier.objects.create(tier=1, provider="ollama", model_name="lokal", base_url=server.url)
    server.respond_with(reads_two_akten(parties))
    client = parties.client("anwalt")
    conv_id, run_id = ask(client, "Wer sind die Mandanten in 1/26 und 2/26?", mode="inline")
    assert "Hans Meier" in wait(client, run_id)["text"]  # a local model: no placeholders at all

    ModelTier.objects.filter(tier=1).update(provider="openai", base_url=server.url + "/v1", standort="extern")
    allow_cloud()
    server.respond_with(None).script([{"text": "Gern, [MANDANT_1] bekommt Post."}])
    _, body = post(client, f"/helena/conversations/{conv_id}/messages", {"text": "Danke!", "mode": "inline"})
    run = wait(client, body["run_id"])
    assert run["status"] == "finished"
    assert_nothing_leaked(sent_to(server))
    assert run["text"].endswith("bekommt Post.") and "[MANDANT" not in run["text"]


def test_side_calls_are_redacted_too(parties: Kanzlei, server: ScriptedLLMServer) -> None:
    """The LLM classifier and the history summary call the cloud through the same wrapping."""
    cloud_tier(server)
    allow_cloud()
    HelenaSettings.objects.filter(pk=1).update(llm_classifier=True)
    client = parties.client("anwalt")
    status, conv = post(client, "/helena/conversations", {"akte_id": str(parties.akten["A"].pk)})
    assert status == 201
    conversation_id = conv["id"]
    from helena.models import Conversation

    conversation = Conversation.objects.get(pk=conversation_id)
    for i in range(45):  # a long conversation: the next run summarises the older turns
        Message.objects.create(conversation=conversation, role="user" if i % 2 == 0 else "assistant",
                               text=f"Notiz {i}: Hans Meier, Domstraße 1, 50667 Köln, Tel. 0221 1234567.")
    verdict = {"mode": "inline", "tier": 1, "task_type": "frage", "reason": "kurz"}
    server.script([{"text": json.dumps(verdict)}, {"text": "- [MANDANT_1] wohnt in [ADRESSE_1]."},
                   {"text": "Erledigt für [MANDANT_1]."}])
    _, body = post(client, f"/helena/conversations/{conversation_id}/messages",
                   {"text": "Was weißt du über Hans Meier?", "mode": "inline"})
    run = wait(client, body["run_id"])
    assert run["status"] == "finished", run
    operations = set(LLMCall.objects.values_list("operation", flat=True))
    assert {"classifier", "summary"} <= operations
    assert len(server.requests_to("/v1/chat/completions")) == 3
    assert_nothing_leaked(sent_to(server))
    assert run["text"] == "Erledigt für Hans Meier."
    conversation.refresh_from_db()
    assert conversation.summary == "- Hans Meier wohnt in Domstraße 1."  # stored with the real values


# --- the opt-in guards every tier -------------------------------------------------------------------


def test_a_cloud_row_on_tier_1_is_never_called_without_the_opt_in(
    parties: Kanzlei, server: ScriptedLLMServer
) -> None:
    cloud_tier(server, tier=1)
    server.script([{"text": "Darf nie ankommen."}])
    client = parties.client("anwalt")
    _, run_id = ask(client, "Hallo?", mode="inline")
    run = wait(client, run_id)
    assert run["status"] == "failed"
    assert "Cloud" in run["text"] and "nicht freigegeben" in run["text"]
    assert server.requests_to("/v1/chat/completions") == []


def test_without_the_opt_in_the_router_falls_back_to_the_local_tier(
    parties: Kanzlei, server: ScriptedLLMServer
) -> None:
    ModelTier.objects.create(tier=1, provider="ollama", model_name="lokal", base_url=server.url)
    cloud_tier(server, tier=2)
    server.script([{"text": "Lokal beantwortet."}])
    client = parties.client("anwalt")
    _, run_id = ask(client, "Entwirf einen Schriftsatz: Klageerwiderung, ausführlich mit Begründung.",
                    mode="inline")
    run = wait(client, run_id)
    assert run["status"] == "finished" and run["tier"] == 1 and run["text"] == "Lokal beantwortet."
    assert server.requests_to("/v1/chat/completions") == []
    warning = next(e for e in events(client, run_id) if e["type"] == "warning")
    assert "Cloud" in warning["message"] or "nicht freigegeben" in warning["message"]


def test_an_internal_openai_compatible_server_needs_no_opt_in(
    parties: Kanzlei, server: ScriptedLLMServer
) -> None:
    """A vLLM on the firm's own machine is local: it is used without the opt-in and sees real names."""
    ModelTier.objects.create(tier=1, provider="openai", model_name="vllm-haus", base_url=server.url + "/v1")
    server.script([{"text": "Hans Meier ist Mandant."}])
    client = parties.client("anwalt")
    _, run_id = ask(client, "Wer ist Hans Meier?", mode="inline", akte_id=str(parties.akten["A"].pk))
    run = wait(client, run_id)
    assert run["status"] == "finished" and run["text"] == "Hans Meier ist Mandant."
    assert "Hans Meier" in sent_to(server)  # not redacted: it never left the house


@pytest.mark.parametrize(("url", "tier", "standort", "cloud"), [
    ("http://127.0.0.1:8000/v1", 1, "auto", False),
    ("http://10.1.2.3:8000/v1", 2, "auto", False),
    ("http://192.168.178.20:11434", 1, "auto", False),
    ("http://[::1]:8000/v1", 1, "auto", False),
    ("http://vllm:8000/v1", 1, "auto", False),
    ("http://gpu-server.kanzlei.internal/v1", 2, "auto", False),
    ("https://api.openai.com/v1", 1, "auto", True),
    ("https://api.mistral.ai/v1", 2, "auto", True),
    ("http://8.8.8.8:8000/v1", 1, "auto", True),
    ("https://llm.kanzlei-meier.de/v1", 1, "intern", False),
    ("http://127.0.0.1:8000/v1", 1, "extern", True),
    ("http://127.0.0.1:8000/v1", 3, "auto", True),  # the tier-3 slot is the cloud unless marked
    ("http://127.0.0.1:8000/v1", 3, "intern", False),
    ("http://134744072:11434", 1, "auto", True),  # 8.8.8.8 written as one number
    ("http://0x7f000001:11434", 1, "auto", True),
    ("https://api.openai.com/v1", 1, "intern", True),  # a public API stays cloud, whatever it is marked
    ("https://kanzlei.openai.azure.com/v1", 2, "intern", True),
])
def test_local_or_cloud_by_where_the_model_runs(url: str, tier: int, standort: str, cloud: bool) -> None:
    assert locality.is_cloud(url=url, tier=tier, standort=standort) is cloud


# --- the admin shows where a model runs and refuses a cloud row before the opt-in --------------------


@pytest.fixture
def office(admin_client: Client) -> Client:
    return admin_client


def tier_form(**fields: Any) -> dict[str, Any]:
    data = {"tier": "1", "provider": "openai", "model_name": "gpt-x", "base_url": "https://api.example.com/v1",
            "context_window": "", "dialect": "auto", "standort": "auto", "enabled": "on",
            "price_input_per_1k": "0", "price_output_per_1k": "0"}
    data.update(fields)
    return {k: v for k, v in data.items() if v is not None}


def test_admin_refuses_to_enable_a_cloud_row_before_the_opt_in(office: Client) -> None:
    response = office.post("/admin/helena/modeltier/add/", tier_form())
    assert response.status_code == 200
    page = response.content.decode()
    assert "außerhalb der Kanzlei" in page and "Helena-Einstellungen" in page
    assert not ModelTier.objects.exists()
    # Marked as running in the house, the same address is accepted; so is a loopback vLLM.
    assert office.post("/admin/helena/modeltier/add/", tier_form(standort="intern")).status_code == 302
    assert office.post("/admin/helena/modeltier/add/",
                       tier_form(tier="2", base_url="http://127.0.0.1:8000/v1")).status_code == 302
    # After the opt-in a cloud row can be enabled.
    allow_cloud()
    assert office.post("/admin/helena/modeltier/add/", tier_form(tier="3")).status_code == 302
    listing = office.get("/admin/helena/modeltier/").content.decode()
    assert "intern (so markiert)" in listing and "intern (127.0.0.1)" in listing
    assert "Cloud (Stufe 3" in listing


def test_admin_settings_say_what_leaves_the_house(office: Client, settings) -> None:
    settings.HELENA_SEARCH_URL = "http://searx.example:8080"
    page = office.get("/admin/helena/helenasettings/add/").content.decode()
    assert "Was die Kanzlei verlässt" in page and "http://searx.example:8080" in page
    assert "pseudonymisiert" in page


# --- search_web sends no client data either -----------------------------------------------------------


@pytest.fixture
def search_server() -> Iterator[tuple[str, list[str]]]:
    queries: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            queries.extend(parse_qs(urlsplit(self.path).query).get("q", []))
            body = json.dumps({"results": [{"url": "https://example.org/urteil", "title": "Treffer",
                                            "content": "Ein Urteil."}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", queries
    httpd.shutdown()
    httpd.server_close()


def test_search_web_query_is_redacted_even_with_a_local_model(
    parties: Kanzlei, server: ScriptedLLMServer, search_server: tuple[str, list[str]], settings
) -> None:
    url, queries = search_server
    settings.HELENA_SEARCH_URL = url
    ModelTier.objects.create(tier=1, provider="ollama", model_name="lokal", base_url=server.url)
    akte = parties.akten["A"]
    server.script([  # two searches in one turn: they run at once, both must be redacted
        {"tool_calls": [
            {"name": "search_web", "arguments": {
                "query": "Hans Meier Domstraße 1 Köln Kündigung hans.meier@example.org"}, "id": "s1"},
            {"name": "search_web", "arguments": {"query": "Stahlbau GmbH Meier Abfindung"}, "id": "s2"},
        ]},
        {"text": "Nichts Einschlägiges gefunden."},
    ])
    client = parties.client("anwalt")
    _, run_id = ask(client, "Such im Web nach unserem Mandanten.", mode="inline", akte_id=str(akte.pk))
    run = wait(client, run_id)
    assert run["status"] == "finished", run
    assert len(queries) == 2
    for query in queries:
        for secret in ("Hans Meier", "Meier", "Domstraße", "hans.meier@example.org", "Stahlbau"):
            assert secret not in query
    assert any("Kündigung" in q for q in queries) and any("Abfindung" in q for q in queries)
    assert AgentRun.objects.get(pk=run_id).status == "finished"


def test_a_draft_read_by_a_tool_teaches_its_akte(parties: Kanzlei) -> None:
    """Drafts have UUIDs: their Akte is learned like that of a Frist or a Dokument."""
    from drafts.models import Draft
    from drafts.services import create_draft
    from helena.llm.pii.touched import akten_of

    draft = create_draft(user=parties.users["anwalt"], kind="notiz", akte_id=parties.akten["B"].pk,
                         fields={"inhalt": "Rückruf"})
    source = {"table": Draft._meta.db_table, "id": str(draft.pk)}
    assert akten_of([source, {"table": Draft._meta.db_table, "id": "kein-uuid"}]) == {parties.akten["B"].pk}


def test_router_never_builds_an_unredacted_cloud_model(server: ScriptedLLMServer, db) -> None:
    """The one constructor: a cloud configuration comes wrapped, or not at all."""
    from helena.llm.base import ModelUnavailable
    from helena.llm.wrappers.redacting import RedactingModel

    config = router.TierConfig(tier=1, provider="openai", name="x", host="https://api.example.com/v1")
    assert config.cloud
    with pytest.raises(ModelUnavailable):
        router.build_model(config, cloud_allowed=False)
    assert isinstance(router.build_model(config, cloud_allowed=True), RedactingModel)
    local = router.TierConfig(tier=1, provider="openai", name="x", host=server.url + "/v1")
    assert not isinstance(router.build_model(local, cloud_allowed=False), RedactingModel)
