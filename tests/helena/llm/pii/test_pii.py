"""Pseudonymisation for cloud calls: nothing personal leaves, the user sees the real names again."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal

import pytest

from akten.models import Akte, Beteiligter
from helena.llm.base import ChatModel, collect
from helena.llm.pii.patterns import PLACEHOLDER_HINT
from helena.llm.pii.redactor import Redactor
from helena.llm.pii.touched import akte_facts
from helena.llm.providers.openai_compat import OpenAICompatModel
from helena.llm.providers.scripted import ScriptedModel, ScriptedTurn
from helena.llm.wrappers.redacting import RedactingModel
from tests.scripted_llm_server import start_scripted_server

R = Beteiligter.Rolle


@pytest.fixture
def akte(db) -> Akte:
    akte = Akte.objects.create(aktenzeichen="101/26", kurzrubrum="Müller ./. Bauer Logistik GmbH",
                               wegen="Kündigungsschutz", rechtsgebiet="arbeitsrecht",
                               gegenstandswert=Decimal("12300"))
    rows = [
        (R.MANDANT, "Thomas Müller", "Eichenweg 7\n51147 Köln", "0221 4710-231",
         "thomas.mueller@mail.example", ""),
        (R.GEGNER, "Bauer Logistik GmbH",
         "vertreten durch den Geschäftsführer Frank Bauer\nIndustriestraße 40\n51149 Köln", "0221 4710-500",
         "personal@bauer-logistik.example", ""),
        (R.GEGNERVERTRETER, "Rechtsanwältin Dr. Julia Sommer",
         "Sommer Arbeitsrecht\nRingstraße 3\n50672 Köln", "0221 4710-620",
         "sommer@sommer-arbeitsrecht.example", "JS-0412/26"),
        (R.GERICHT, "Arbeitsgericht Köln", "Pohligstraße 9\n50969 Köln", "", "", "5 Ca 1234/26"),
        (R.ZEUGE, "Ralf Becker", "c/o Betriebsrat der Bauer Logistik GmbH\nIndustriestraße 40\n51149 Köln",
         "0221 4710-502", "", ""),
    ]
    for rolle, name, anschrift, telefon, email, az in rows:
        Beteiligter.objects.create(akte=akte, rolle=rolle, name=name, anschrift=anschrift, telefon=telefon,
                                   email=email, aktenzeichen_extern=az)
    return akte


TEXT = """Sehr geehrter Herr Müller,

in Sachen Thomas Müller ./. Bauer Logistik GmbH (unser Zeichen 101/26, Arbeitsgericht Köln 5 Ca 1234/26)
hat Rechtsanwältin Dr. Julia Sommer (Zeichen JS-0412/26) für die Bauer Logistik GmbH, vertreten durch
Herrn Frank Bauer, Industriestraße 40, 51149 Köln, die Klageerwiderung eingereicht. Frau Sommer beantragt
Klageabweisung. Der Zeuge Ralf Becker ist unter 0221 4710-502 erreichbar. Der Richter hat im Sommer einen
Gütetermin angesetzt; Herr Becker wird dort aussagen.

Ihre Anschrift Eichenweg 7, 51147 Köln ist vermerkt. Rückfragen bitte an thomas.mueller@mail.example oder
telefonisch unter 0221 4710-231. Der Vorschuss geht auf das Konto DE89 3704 0044 0532 0130 00.
Das Parallelverfahren 17 C 212/26 beim AG Tempelhof-Kreuzberg (Glogauer Straße 19) und unsere Akte
231/25 betreffen andere Mandanten; dort erreichen Sie Frau Lorenz unter +49 30 23125-114 bzw.
k.lorenz@mail.example. Der Bauer auf dem Nachbarhof ist nicht beteiligt.
"""

PII = [
    "Müller", "Thomas", "Bauer Logistik", "Frank Bauer", "Julia Sommer", "Frau Sommer", "Ralf Becker",
    "Herr Becker", "Eichenweg", "51147", "Industriestraße 40", "51149", "101/26", "5 Ca 1234/26", "JS-0412",
    "0221", "thomas.mueller", "mail.example", "DE89", "3704 0044", "17 C 212/26", "Glogauer Straße 19",
    "231/25", "23125", "k.lorenz",
]


def redactor_for(akte: Akte) -> Redactor:
    return Redactor.for_akte(akte_facts([akte.pk])[0])


def test_redacts_a_realistic_letter(akte: Akte) -> None:
    redactor = redactor_for(akte)
    redacted = redactor.redact_text(TEXT)
    for value in PII:
        assert value not in redacted, value
    assert "Sehr geehrter Herr [MANDANT_1_NACHNAME]," in redacted
    assert "in Sachen [MANDANT_1] ./. [GEGNER_1] GmbH" in redacted
    assert "Rechtsanwältin Dr. [PERSON_" in redacted
    assert "[EMAIL_" in redacted and "[TELEFON_" in redacted and "[IBAN_1]" in redacted
    assert "[ADRESSE_" in redacted and "[AZ_" in redacted
    # Common words that are also surnames stay where they are words.
    assert "Der Richter hat im Sommer einen" in redacted
    assert "Der Bauer auf dem Nachbarhof" in redacted
    # Courts are public; their names stay, their file numbers do not.
    assert "Arbeitsgericht Köln [AZ_" in redacted


def test_placeholders_are_stable(akte: Akte) -> None:
    redactor = redactor_for(akte)
    first = redactor.redact_text(
        "Thomas Müller, Eichenweg 7, thomas.mueller@mail.example, DE89370400440532013000")
    again = redactor.redact_text(
        "Eichenweg 7: Thomas Müller (THOMAS.MUELLER@mail.example), DE89 3704 0044 0532 0130 00")
    assert first == "[MANDANT_1], [ADRESSE_1], [EMAIL_1], [IBAN_1]"
    assert again == "[ADRESSE_1]: [MANDANT_1] ([EMAIL_1]), [IBAN_1]"
    # Another Redactor for the same Akte numbers the known values the same way.
    fresh = redactor_for(akte)
    assert fresh.redact_text("Thomas Müller ./. Bauer Logistik GmbH") == "[MANDANT_1] ./. [GEGNER_1] GmbH"
    # The same phone number in another spelling is the same value.
    assert redactor.redact_text("0221/4710231") == redactor.redact_text("+49 221 4710-231")


def test_restore_round_trip(akte: Akte) -> None:
    redactor = redactor_for(akte)
    redacted = redactor.redact_text(TEXT)
    assert redacted != TEXT
    assert redactor.restore(redacted) == TEXT
    assert redactor.restore("[MANDANT_1]s Kündigung, [UNBEKANNT_9], [mandant_1]") == (
        "Thomas Müllers Kündigung, [UNBEKANNT_9], Thomas Müller"
    )


def test_regex_detectors_without_an_akte() -> None:
    redactor = Redactor.for_akte(None, extra_names=["Erika Mustermann"])
    text = ("Frau Erika Mustermann (erika@example.org, Tel. 0171 2345678, IBAN DE02 1203 0000 0000 2020 51) "
            "klagt vor dem LAG 7 Sa 345/26; unser Az. 88/26. Frau Mustermann zahlt 1.500 € am 12.03.2026, "
            "das sind 1/2 der Forderung nach § 573 Abs. 2 BGB. Sie wohnt Lindenstraße 5a, 12345 Musterstadt, "
            "früher Kölner Straße 12.")
    redacted = redactor.redact_text(text)
    assert redacted == (
        "Frau [PERSON_1] ([EMAIL_1], Tel. [TELEFON_1], IBAN [IBAN_1]) klagt vor dem LAG [AZ_1]; "
        "unser Az. [AZ_2]. Frau [PERSON_1_NACHNAME] zahlt 1.500 € am 12.03.2026, "
        "das sind 1/2 der Forderung nach § 573 Abs. 2 BGB. "
        "Sie wohnt [ADRESSE_1], [ADRESSE_2], früher [ADRESSE_3]."
    )
    assert redactor.restore(redacted) == text


def test_shared_surnames_get_a_neutral_placeholder(db) -> None:
    akte = Akte.objects.create(aktenzeichen="105/26", kurzrubrum="Neumann ./. Neumann",
                               rechtsgebiet="erbrecht")
    Beteiligter.objects.create(akte=akte, rolle=R.MANDANT, name="Petra Neumann")
    Beteiligter.objects.create(akte=akte, rolle=R.GEGNER, name="Jürgen Neumann")
    redactor = redactor_for(akte)
    assert redactor.redact_text("Petra Neumann ./. Jürgen Neumann; Herr Neumann bewohnt das Haus.") == (
        "[MANDANT_1] ./. [GEGNER_1]; Herr [NACHNAME_1] bewohnt das Haus."
    )


def test_kurzrubrum_names_without_beteiligte(db) -> None:
    akte = Akte.objects.create(aktenzeichen="1/26", kurzrubrum="Meier ./. Stahlbau GmbH",
                               rechtsgebiet="arbeitsrecht")
    redactor = redactor_for(akte)
    assert redactor.redact_text("Akte 1/26: Meier ./. Stahlbau GmbH") == (
        "Akte [AZ_1]: [MANDANT_1] ./. [GEGNER_1] GmbH"
    )


def test_redact_messages_covers_contents_arguments_and_tool_results(akte: Akte) -> None:
    redactor = redactor_for(akte)
    messages = [
        {"role": "system", "content": "Akte 101/26 (Thomas Müller ./. Bauer Logistik GmbH)"},
        {"role": "user", "content": "Schreib Herrn Müller, Eichenweg 7."},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "read_akte", "arguments": json.dumps({"query": "Thomas Müller"})}},
            {"id": "c2", "type": "function",
             "function": {"name": "create_notiz",
                          "arguments": {"inhalt": "Anruf Ralf Becker, 0221 4710-502"}}},
        ]},
        {"role": "tool", "tool_call_id": "c1", "name": "read_akte", "content": json.dumps(
            {"akten": [{"aktenzeichen": "101/26", "anschrift": "Eichenweg 7\n51147 Köln"}]},
            ensure_ascii=True)},
        {"role": "tool", "tool_call_id": "c2", "name": "create_notiz",
         "content": '{"abgeschnitten": "Eichenweg 7\\n51147 Köln, Thomas Mü'},
    ]
    original = json.loads(json.dumps(messages))
    redacted = redactor.redact_messages(messages)
    assert messages == original  # the loop's history is untouched
    wire = json.dumps(redacted, ensure_ascii=False)
    for value in ("Müller", "Eichenweg", "51147", "101/26", "Ralf Becker", "4710"):
        assert value not in wire, value
    assert json.loads(redacted[2]["tool_calls"][0]["function"]["arguments"]) == {"query": "[MANDANT_1]"}
    assert redacted[2]["tool_calls"][1]["function"]["arguments"]["inhalt"].startswith("Anruf [PERSON_")
    assert json.loads(redacted[3]["content"])["akten"][0]["anschrift"] == "[ADRESSE_1]\n[ADRESSE_2]"
    assert redacted[3]["tool_call_id"] == "c1" and redacted[3]["name"] == "read_akte"


# --- RedactingModel ---------------------------------------------------------------------------------


def test_redacting_model_with_a_scripted_model(akte: Akte) -> None:
    redactor = redactor_for(akte)
    placeholder_answer = {}

    def answer(messages: list[dict]) -> ScriptedTurn:
        # The model works with what it received: it quotes the placeholders back.
        user = messages[-1]["content"]
        placeholder_answer["user"] = user
        return ScriptedTurn(
            text="Entwurf für Herrn [MANDANT_1_NACHNAME] ([ADRESSE_1], [ADRESSE_2]) liegt vor.",
            tool_calls=[("create_draft_dokument", {"akte_id": "1", "titel": "Schreiben an [MANDANT_1]",
                                                   "inhalt": "Sehr geehrter Herr [MANDANT_1_NACHNAME],"})],
        )

    inner = ScriptedModel([answer], name="gpt-cloud", context_window=64000)
    model = RedactingModel(inner, redactor)
    assert isinstance(model, ChatModel)
    window = asyncio.run(model.context_window())
    assert (model.name, model.provider, window) == ("gpt-cloud", "scripted", 64000)

    messages = [{"role": "system", "content": "Du bist Helena."},
                {"role": "user", "content": "Entwirf ein Schreiben an Thomas Müller, Eichenweg 7, 51147 Köln "
                                            "(thomas.mueller@mail.example) in der Sache 101/26."}]
    turn = asyncio.run(collect(model.stream(messages=messages, tools=[])))

    received = json.dumps([call.messages for call in inner.calls], ensure_ascii=False)
    for value in ("Thomas", "Müller", "Eichenweg", "51147", "thomas.mueller", "101/26"):
        assert value not in received, value
    assert inner.calls[0].messages[0]["content"].endswith(PLACEHOLDER_HINT)
    assert placeholder_answer["user"].startswith("Entwirf ein Schreiben an [MANDANT_1], [ADRESSE_1]")

    assert turn.text == "Entwurf für Herrn Müller (Eichenweg 7, 51147 Köln) liegt vor."
    call = turn.tool_calls[0]
    assert call.arguments == {"akte_id": "1", "titel": "Schreiben an Thomas Müller",
                              "inhalt": "Sehr geehrter Herr Müller,"}
    assert messages[1]["content"].startswith("Entwirf ein Schreiben an Thomas Müller")  # caller's copy intact


def test_placeholder_split_across_deltas_is_restored(akte: Akte) -> None:
    redactor = redactor_for(akte)
    redactor.redact_text("Thomas Müller, Eichenweg 7")  # the placeholders exist before the answer
    with start_scripted_server() as server:
        server.script([{
            "text": ["Sehr geehrter Herr [MAND", "ANT_1_NACH", "NAME], Ihre Anschrift [", "ADRESSE_1",
                     "] ist notiert. Gruß an [MANDANT_1]", "s Familie [", "1] Ende [MANDANT_", "1]"],
            "tool_calls": [{"name": "create_notiz", "arguments": {"inhalt": "Rückruf [MANDANT_1]"}}],
        }])
        inner = OpenAICompatModel("cloud", base_url=server.url + "/v1", api_key="sk-test")
        model = RedactingModel(inner, redactor)

        async def run() -> tuple[list[str], object]:
            deltas: list[str] = []
            calls = []
            async for chunk in model.stream(messages=[{"role": "user", "content": "Thomas Müller?"}]):
                if chunk.kind == "text":
                    deltas.append(chunk.text)
                elif chunk.kind == "tool_call":
                    calls.append(chunk.tool_call)
            return deltas, calls

        deltas, calls = asyncio.run(run())
        sent = json.dumps(server.requests_to("/v1/chat/completions"), ensure_ascii=False)
    assert "Müller" not in sent and "Thomas" not in sent
    shown = "".join(deltas)
    assert shown == ("Sehr geehrter Herr Müller, Ihre Anschrift Eichenweg 7 ist notiert. "
                     "Gruß an Thomas Müllers Familie [1] Ende Thomas Müller")
    assert not any("[MAND" in delta or "ADRESSE" in delta for delta in deltas)  # never half a placeholder
    assert calls[0].arguments == {"inhalt": "Rückruf Thomas Müller"}
