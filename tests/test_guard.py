"""Tests for helena.agent.guard with raw outputs the way local models really produce them."""

from __future__ import annotations

import re
from typing import Any

import pytest

from helena.agent.guard import PARSE_ERROR_HINT, guard_turn, repair_arguments, scan_content
from helena.llm.base import ToolCall, Turn, Usage

TOOLS = {"search_gesetze", "read_akte", "list_akten", "berechne_frist"}


# --------------------------------------------------------------------------- repair_arguments

REPAIR_CASES: list[tuple[str, Any, dict[str, Any] | None]] = [
    ("valid json", '{"query": "Berufungsfrist", "limit": 5}', {"query": "Berufungsfrist", "limit": 5}),
    ("valid json with apostrophe", '{"query": "Mieter\'s Recht"}', {"query": "Mieter's Recht"}),
    (
        "valid json with german quotes in value",
        '{"query": "§ 573 „berechtigtes Interesse“"}',
        {"query": "§ 573 „berechtigtes Interesse“"},
    ),
    (
        "valid json with escaped quotes",
        '{"query": "Urteil \\"Mietminderung\\""}',
        {"query": 'Urteil "Mietminderung"'},
    ),
    ("dict passes through", {"akte_id": 7}, {"akte_id": 7}),
    ("empty string for no-argument tool", "", {}),
    ("whitespace only", "  \n ", {}),
    ("json code fence", '```json\n{"query": "Kündigungsfrist"}\n```', {"query": "Kündigungsfrist"}),
    ("bare code fence", '```\n{"akte_id": 12}\n```', {"akte_id": 12}),
    ("unclosed code fence", '```json\n{"akte_id": 12}', {"akte_id": 12}),
    (
        "prose around object",
        'Hier sind die Argumente: {"query": "Verjährung"} – bitte prüfen.',
        {"query": "Verjährung"},
    ),
    (
        "prose with braces before object",
        'Platzhalter {Mandant} ersetzt: {"name": "Müller"}',
        {"name": "Müller"},
    ),
    ("trailing comma", '{"query": "Räumungsklage", "limit": 3,}', {"query": "Räumungsklage", "limit": 3}),
    (
        "trailing comma in nested list",
        '{"paragraphen": ["§ 517", "§ 520",], }',
        {"paragraphen": ["§ 517", "§ 520"]},
    ),
    (
        "single quotes",
        "{'query': 'Berufungsfrist', 'gesetz': 'ZPO'}",
        {"query": "Berufungsfrist", "gesetz": "ZPO"},
    ),
    (
        "single quotes with apostrophe in value",
        "{'query': 'Mieter's Recht', 'limit': 2}",
        {"query": "Mieter's Recht", "limit": 2},
    ),
    ("unquoted keys", '{query: "Mietminderung", limit: 10}', {"query": "Mietminderung", "limit": 10}),
    (
        "python literals",
        "{'mit_dokumenten': True, 'archiviert': False, 'filter': None}",
        {"mit_dokumenten": True, "archiviert": False, "filter": None},
    ),
    (
        "python and json literals mixed",
        "{'aktiv': True, 'filter': null, 'alt': false}",
        {"aktiv": True, "filter": None, "alt": False},
    ),
    ("python tuple becomes list", "{'range': (1, 3)}", {"range": [1, 3]}),
    ("double-encoded json string", '"{\\"query\\": \\"Berufungsfrist\\"}"', {"query": "Berufungsfrist"}),
    ("triple-encoded json string", '"\\"{\\\\\\"akte_id\\\\\\": 4}\\""', {"akte_id": 4}),
    ("python-quoted json string", '\'{"query": "Fristverlängerung"}\'', {"query": "Fristverlängerung"}),
    ("german smart quotes", "{„query“: „Berufungsfrist“}", {"query": "Berufungsfrist"}),
    ("english smart quotes", "{“query”: “Mietrecht”, “limit”: 4}", {"query": "Mietrecht", "limit": 4}),
    (
        "smart quotes with inner german quotes",
        "{“query”: “Urteil „Mietminderung“ BGH”}",
        {"query": "Urteil „Mietminderung“ BGH"},
    ),
    (
        "unescaped inner double quotes",
        '{"query": "Urteil "Mietminderung" BGH"}',
        {"query": 'Urteil "Mietminderung" BGH'},
    ),
    (
        "raw newline inside string",
        '{"text": "Sehr geehrte Damen und Herren,\nanbei"}',
        {"text": "Sehr geehrte Damen und Herren,\nanbei"},
    ),
    (
        "truncated closing brace",
        '{"query": "Zugewinnausgleich", "limit": 5',
        {"query": "Zugewinnausgleich", "limit": 5},
    ),
    (
        "line comment",
        '{\n  "akte_id": 3, // die Akte Müller\n  "teil": "Schriftsätze"\n}',
        {"akte_id": 3, "teil": "Schriftsätze"},
    ),
    ("windows path with invalid json escape", '{"pfad": "C:\\Akten\\2024"}', {"pfad": "C:\\Akten\\2024"}),
    ("unicode escapes", '{"name": "M\\u00fcller"}', {"name": "Müller"}),
    ("unrepairable garbage", "Ich kann das Werkzeug leider nicht aufrufen.", None),
    ("json list is not an object", '[{"query": "x"}]', None),
    ("json string without json inside", '"Berufungsfrist"', None),
    ("bare number", "42", None),
    ("unterminated string", '{"query": "Berufungs', None),
    ("lone brace", "{", None),
    ("keyword style", "query=Berufungsfrist, limit=5", None),
    ("unbalanced garbage", '{"query": [}', None),
    ("not a string at all", 17, None),
]


@pytest.mark.parametrize(
    ("raw", "expected"), [case[1:] for case in REPAIR_CASES], ids=[c[0] for c in REPAIR_CASES]
)
def test_repair_arguments(raw: Any, expected: dict[str, Any] | None) -> None:
    assert repair_arguments(raw) == expected


# --------------------------------------------------------------------------- scan_content

Calls = list[tuple[str, Any]]
UNCHANGED = object()  # marker: the text must come back exactly as given

SCAN_CASES: list[tuple[str, str, Calls, Any]] = [
    (
        "qwen2.5 tool_call tag",
        '<tool_call>\n{"name": "search_gesetze", "arguments": {"query": "Berufungsfrist"}}\n</tool_call>',
        [("search_gesetze", {"query": "Berufungsfrist"})],
        "",
    ),
    (
        "qwen3 with think block before the tag",
        "<think>\nIch brauche die Frist aus der ZPO.\n</think>\n\n<tool_call>\n"
        '{"name": "search_gesetze", "arguments": {"query": "§ 517 ZPO"}}\n</tool_call>',
        [("search_gesetze", {"query": "§ 517 ZPO"})],
        "<think>\nIch brauche die Frist aus der ZPO.\n</think>",
    ),
    (
        "two tool_call tags",
        '<tool_call>\n{"name": "read_akte", "arguments": {"akte_id": 7}}\n</tool_call>\n'
        '<tool_call>\n{"name": "search_gesetze", "arguments": {"query": "Mietminderung"}}\n</tool_call>',
        [("read_akte", {"akte_id": 7}), ("search_gesetze", {"query": "Mietminderung"})],
        "",
    ),
    (
        "unclosed tool_call at the end",
        'Ich suche das Gesetz.\n<tool_call>\n{"name": "search_gesetze", "arguments": {"query": "Widerruf"}}',
        [("search_gesetze", {"query": "Widerruf"})],
        "Ich suche das Gesetz.",
    ),
    (
        "tool_call with missing closing brace before the end tag",
        '<tool_call>\n{"name": "read_akte", "arguments": {"akte_id": 3}\n</tool_call>',
        [("read_akte", {"akte_id": 3})],
        "",
    ),
    (
        "tool_call tag wrapping a json fence",
        '<tool_call>\n```json\n{"name": "list_akten", "arguments": {}}\n```\n</tool_call>',
        [("list_akten", {})],
        "",
    ),
    (
        "tool_call tag with python dict",
        "<tool_call>\n{'name': 'read_akte', 'arguments': {'akte_id': 7, 'mit_dokumenten': True}}\n"
        "</tool_call>",
        [("read_akte", {"akte_id": 7, "mit_dokumenten": True})],
        "",
    ),
    (
        "llama3.1 bare object with parameters",
        '{"name": "read_akte", "parameters": {"query": "Müller"}}',
        [("read_akte", {"query": "Müller"})],
        "",
    ),
    (
        "llama3.1 python_tag and eom",
        '<|python_tag|>{"name": "search_gesetze", "parameters": {"query": "Mietpreisbremse"}}<|eom_id|>',
        [("search_gesetze", {"query": "Mietpreisbremse"})],
        "",
    ),
    (
        "llama3.1 python_tag with two calls separated by semicolon",
        '<|python_tag|>{"name": "read_akte", "parameters": {"akte_id": 1}}; '
        '{"name": "list_akten", "parameters": {}}',
        [("read_akte", {"akte_id": 1}), ("list_akten", {})],
        "",
    ),
    (
        "llama3.2 with type function",
        '{"type": "function", "name": "berechne_frist", "parameters": {"start": "2024-05-02", "monate": 1}}',
        [("berechne_frist", {"start": "2024-05-02", "monate": 1})],
        "",
    ),
    (
        "llama parameters encoded as string",
        '{"name": "read_akte", "parameters": "{\\"akte_id\\": 9}"}',
        [("read_akte", {"akte_id": 9})],
        "",
    ),
    (
        "mistral TOOL_CALLS list",
        '[TOOL_CALLS] [{"name": "search_gesetze", "arguments": {"query": "Verzugszinsen"}}]',
        [("search_gesetze", {"query": "Verzugszinsen"})],
        "",
    ),
    (
        "mistral TOOL_CALLS with two calls",
        '[TOOL_CALLS] [{"name": "read_akte", "arguments": {"akte_id": 2}}, '
        '{"name": "berechne_frist", "arguments": {"start": "2024-01-31", "monate": 1}}]',
        [("read_akte", {"akte_id": 2}), ("berechne_frist", {"start": "2024-01-31", "monate": 1})],
        "",
    ),
    (
        "mistral newer name ARGS format",
        '[TOOL_CALLS]search_gesetze[ARGS]{"query": "§ 286 BGB"}',
        [("search_gesetze", {"query": "§ 286 BGB"})],
        "",
    ),
    (
        "mistral list without the control token",
        '[{"name": "list_akten", "arguments": {"status": "offen"}}]',
        [("list_akten", {"status": "offen"})],
        "",
    ),
    (
        "json fence around a call",
        '```json\n{"name": "search_gesetze", "arguments": {"query": "Anwaltszwang"}}\n```',
        [("search_gesetze", {"query": "Anwaltszwang"})],
        "",
    ),
    (
        "fence with prose before and after",
        'Ich rufe die Akte auf:\n\n```json\n{"name": "read_akte", "arguments": {"akte_id": 11}}\n```\n\n'
        "Danach fasse ich zusammen.",
        [("read_akte", {"akte_id": 11})],
        "Ich rufe die Akte auf:\n\nDanach fasse ich zusammen.",
    ),
    (
        "text before and after a bare call",
        'Einen Moment, ich schaue in die Akte.\n{"name": "read_akte", "arguments": {"akte_id": 5}}\n'
        "Dann melde ich mich.",
        [("read_akte", {"akte_id": 5})],
        "Einen Moment, ich schaue in die Akte.\nDann melde ich mich.",
    ),
    (
        "call inline in a sentence",
        'Ich prüfe {"name": "search_gesetze", "arguments": {"query": "§ 193 BGB"}} jetzt.',
        [("search_gesetze", {"query": "§ 193 BGB"})],
        "Ich prüfe jetzt.",
    ),
    (
        "two concatenated bare objects",
        '{\n  "name": "read_akte",\n  "arguments": {\n    "akte_id": 4\n  }\n} '
        '{\n  "name": "search_gesetze",\n'
        '  "arguments": {\n    "query": "Mahnbescheid"\n  }\n}',
        [("read_akte", {"akte_id": 4}), ("search_gesetze", {"query": "Mahnbescheid"})],
        "",
    ),
    (
        "openai function wrapper with string arguments",
        '{"type": "function", "function": '
        '{"name": "search_gesetze", "arguments": "{\\"query\\": \\"Kaution\\"}"}}',
        [("search_gesetze", {"query": "Kaution"})],
        "",
    ),
    (
        "tool and args keys",
        '{"tool": "read_akte", "args": {"akte_id": 8}}',
        [("read_akte", {"akte_id": 8})],
        "",
    ),
    (
        "langchain action format",
        '{"action": "search_gesetze", "action_input": {"query": "Schönheitsreparaturen"}}',
        [("search_gesetze", {"query": "Schönheitsreparaturen"})],
        "",
    ),
    (
        "flat arguments next to the name",
        '{"name": "search_gesetze", "query": "Eigenbedarf"}',
        [("search_gesetze", {"query": "Eigenbedarf"})],
        "",
    ),
    (
        "tool_calls wrapper object",
        '{"tool_calls": [{"name": "list_akten", "arguments": {}}]}',
        [("list_akten", {})],
        "",
    ),
    (
        "functions prefix on the name",
        '{"name": "functions.read_akte", "arguments": {"akte_id": 6}}',
        [("read_akte", {"akte_id": 6})],
        "",
    ),
    (
        "phi-4-mini pipe tags with a list",
        '<|tool_call|>[{"name": "search_gesetze", "arguments": {"query": "Fristversäumnis"}}]<|/tool_call|>',
        [("search_gesetze", {"query": "Fristversäumnis"})],
        "",
    ),
    (
        "granite unclosed pipe tag",
        '<|tool_call|>[{"name": "list_akten", "arguments": {"status": "archiviert"}}]',
        [("list_akten", {"status": "archiviert"})],
        "",
    ),
    (
        "function equals tag",
        '<function=read_akte>{"akte_id": 21}</function>',
        [("read_akte", {"akte_id": 21})],
        "",
    ),
    (
        "call with unrepairable arguments keeps the raw string",
        '<tool_call>\n{"name": "search_gesetze", "arguments": "Berufungsfrist ZPO"}\n</tool_call>',
        [("search_gesetze", "Berufungsfrist ZPO")],
        "",
    ),
    (
        "call with trailing comma and single quotes",
        "{'name': 'search_gesetze', 'arguments': {'query': 'Mieter's Kündigung',},}",
        [("search_gesetze", {"query": "Mieter's Kündigung"})],
        "",
    ),
    (
        "two calls in one fence",
        '```json\n{"name": "read_akte", "arguments": {"akte_id": 1}}\n'
        '{"name": "list_akten", "arguments": {}}\n```',
        [("read_akte", {"akte_id": 1}), ("list_akten", {})],
        "",
    ),
    (
        "call after an unrelated code block keeps that block intact",
        'Die Formel:\n```python\nfrist = zustellung + monat\n```\n{"name": "berechne_frist", "arguments": '
        '{"start": "2024-03-31", "monate": 1}}',
        [("berechne_frist", {"start": "2024-03-31", "monate": 1})],
        "Die Formel:\n```python\nfrist = zustellung + monat\n```",
    ),
    # Everything below is not a tool call and must stay exactly as it is.
    (
        "unknown tool in a tag is ignored",
        '<tool_call>\n{"name": "send_email", "arguments": {"to": "mandant@example.de"}}\n</tool_call>',
        [],
        UNCHANGED,
    ),
    (
        "unknown tool as bare json is ignored",
        '{"name": "delete_akte", "arguments": {"akte_id": 1}}',
        [],
        UNCHANGED,
    ),
    (
        "german prose with a json example about something else",
        "Für den Import erwartet die Schnittstelle ein Objekt wie dieses:\n\n```json\n"
        '{"name": "Müller", "aktenzeichen": "12/24", "frist": "2024-06-30"}\n```\n\n'
        "Das Feld „frist“ ist optional.",
        [],
        UNCHANGED,
    ),
    (
        "prose with placeholders in braces",
        "Sehr geehrte/r {Anrede} {Nachname}, die Frist endet am {Datum}. Siehe [1] und [Anlage K3].",
        [],
        UNCHANGED,
    ),
    (
        "prose mentioning a tool name",
        "Ich könnte read_akte verwenden, aber dafür brauche ich das Aktenzeichen {z. B. 12/24}.",
        [],
        UNCHANGED,
    ),
    (
        "tool schema listing is not a call",
        'Meine Werkzeuge: {"name": "search_gesetze", "description": "Sucht Normen", '
        '"parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}',
        [],
        UNCHANGED,
    ),
    (
        "call-shaped object nested in an example stays",
        'Ein Protokolleintrag sieht so aus: {"zeit": "10:02", "aufruf": '
        '{"name": "read_akte", "arguments": {"akte_id": 1}}}',
        [],
        UNCHANGED,
    ),
    (
        "list mixing known and unknown tools stays",
        '[{"name": "read_akte", "arguments": {"akte_id": 1}}, {"name": "hack", "arguments": {}}]',
        [],
        UNCHANGED,
    ),
    (
        "closed tag with garbage stays",
        "<tool_call>\nread_akte(akte_id=3)\n</tool_call>",
        [],
        UNCHANGED,
    ),
    (
        "empty text",
        "",
        [],
        UNCHANGED,
    ),
    (
        "plain answer",
        "Die Berufungsfrist beträgt einen Monat (§ 517 ZPO).  ",
        [],
        UNCHANGED,
    ),
]


@pytest.mark.parametrize(
    ("text", "expected_calls", "expected_text"),
    [case[1:] for case in SCAN_CASES],
    ids=[c[0] for c in SCAN_CASES],
)
def test_scan_content(text: str, expected_calls: Calls, expected_text: Any) -> None:
    calls, remaining = scan_content(text, known_tools=TOOLS)
    assert [(call.name, call.arguments) for call in calls] == expected_calls
    assert remaining == (text if expected_text is UNCHANGED else expected_text)
    for call in calls:
        assert re.fullmatch(r"call_[0-9a-f]{12}", call.id)
    assert len({call.id for call in calls}) == len(calls)


def test_scan_content_without_known_tools_finds_nothing() -> None:
    text = '{"name": "read_akte", "arguments": {"akte_id": 1}}'
    assert scan_content(text, known_tools=set()) == ([], text)


# --------------------------------------------------------------------------- guard_turn


def _turn(text: str = "", calls: list[ToolCall] | None = None, finish: Any = "stop") -> Turn:
    return Turn(text=text, tool_calls=calls or [], usage=Usage(10, 5), finish_reason=finish)


GUARD_CALL_CASES: list[tuple[str, ToolCall, str, Any]] = [
    ("dict arguments untouched", ToolCall("c1", "read_akte", {"akte_id": 1}), "read_akte", {"akte_id": 1}),
    ("string arguments parsed", ToolCall("c1", "read_akte", '{"akte_id": 1}'), "read_akte", {"akte_id": 1}),
    (
        "fenced python arguments",
        ToolCall("c1", "read_akte", "```json\n{'akte_id': 1, 'alle': True,}\n```"),
        "read_akte",
        {"akte_id": 1, "alle": True},
    ),
    ("empty arguments", ToolCall("c1", "list_akten", ""), "list_akten", {}),
    (
        "unrepairable stays raw",
        ToolCall("c1", "search_gesetze", "Berufungsfrist bitte"),
        "search_gesetze",
        "Berufungsfrist bitte",
    ),
    (
        "nested whole call unwrapped",
        ToolCall("c1", "read_akte", {"name": "read_akte", "arguments": {"akte_id": 2}}),
        "read_akte",
        {"akte_id": 2},
    ),
    (
        "nested call of another tool kept",
        ToolCall("c1", "read_akte", {"name": "list_akten", "arguments": {}}),
        "read_akte",
        {"name": "list_akten", "arguments": {}},
    ),
    (
        "name with prefix normalised",
        ToolCall("c1", "functions.read_akte", {"akte_id": 3}),
        "read_akte",
        {"akte_id": 3},
    ),
    ("unknown name kept for the loop to report", ToolCall("c1", "hack", {}), "hack", {}),
]


@pytest.mark.parametrize(
    ("call", "name", "arguments"),
    [case[1:] for case in GUARD_CALL_CASES],
    ids=[c[0] for c in GUARD_CALL_CASES],
)
def test_guard_turn_repairs_tool_calls(call: ToolCall, name: str, arguments: Any) -> None:
    turn = _turn("Ich schaue nach.", [call], finish="tool_calls")
    guarded = guard_turn(turn, known_tools=TOOLS)
    assert [(c.id, c.name, c.arguments) for c in guarded.tool_calls] == [("c1", name, arguments)]
    assert guarded.text == "Ich schaue nach."
    assert guarded.finish_reason == "tool_calls"
    assert guarded is not turn


def test_guard_turn_does_not_scan_text_when_tool_calls_exist() -> None:
    text = 'Beispiel: {"name": "list_akten", "arguments": {}}'
    turn = _turn(text, [ToolCall("c1", "read_akte", {"akte_id": 1})])
    guarded = guard_turn(turn, known_tools=TOOLS)
    assert guarded.text == text
    assert [c.name for c in guarded.tool_calls] == ["read_akte"]


def test_guard_turn_moves_text_calls_into_tool_calls() -> None:
    turn = _turn(
        'Ich suche.\n<tool_call>\n{"name": "search_gesetze", "arguments": {"query": "Frist"}}\n</tool_call>'
    )
    guarded = guard_turn(turn, known_tools=TOOLS)
    assert guarded.text == "Ich suche."
    assert [(c.name, c.arguments) for c in guarded.tool_calls] == [("search_gesetze", {"query": "Frist"})]
    assert guarded.finish_reason == "tool_calls"
    assert guarded.usage == Usage(10, 5)
    assert turn.tool_calls == []  # the input turn is left alone
    assert turn.text.startswith("Ich suche.\n<tool_call>")


def test_guard_turn_keeps_length_finish_reason() -> None:
    turn = _turn('<tool_call>\n{"name": "read_akte", "arguments": {"akte_id": 1}', finish="length")
    guarded = guard_turn(turn, known_tools=TOOLS)
    assert [c.name for c in guarded.tool_calls] == ["read_akte"]
    assert guarded.finish_reason == "length"


def test_guard_turn_plain_answer_unchanged() -> None:
    turn = _turn('Die Frist endet am 30.06.2024. Beispiel: {"name": "Müller"}')
    guarded = guard_turn(turn, known_tools=TOOLS)
    assert guarded.text == turn.text
    assert guarded.tool_calls == []
    assert guarded.finish_reason == "stop"


def test_parse_error_hint_explains_the_format() -> None:
    assert "JSON" in PARSE_ERROR_HINT
    assert "Werkzeug" in PARSE_ERROR_HINT
    assert "tool-calling format" in PARSE_ERROR_HINT


def test_pathological_input_is_fast_and_safe() -> None:
    """Prose full of half-open objects must not stall the loop (lenient parsing has a budget)."""
    import time

    text = '{"' * 5000 + "read_akte"
    started = time.monotonic()
    assert scan_content(text, known_tools=TOOLS) == ([], text)
    assert repair_arguments('{"' * 20000) is None
    assert time.monotonic() - started < 2
