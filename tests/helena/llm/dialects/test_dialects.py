"""The dialect parser (helena/llm/dialects) on raw model outputs: public fixtures, the guard's old
cases, and the property that matters live: the parse never depends on where the stream was split,
and no text delta ever carries markup."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helena.llm.base import ToolCall
from helena.llm.dialects._calls import normalize_call
from helena.llm.dialects._jsonish import repair_arguments
from helena.llm.dialects.parser import Call, Malformed, Reasoning, StreamParser, Text, merge, parse
from tests.data.model_outputs import FIXTURES

TOOLS = {"search_gesetze", "read_akte", "list_akten", "berechne_frist"}
# Markup of every dialect: none of it may ever be in a text delta. The second half is markup Helena
# reads only by its words (issue 34 B): namespaced tags, DSML, Gemma 4's half-open tokens, invoke
# XML, reasoning and answer wrappers, Kimi's ◁think▷, bracket tokens and Granite's sentences.
MARKUP_RE = re.compile(
    r"<\|[\w.\-]+\|>|<｜[^｜]{1,40}｜>|</?(?:tool_call|tool_calls|think|function_call)>|<function=|"
    r"</function>|<parameter=|\[TOOL_CALLS\]|\[ARGS\]|\[/?THINK\]|```tool_code"
    r"|</?[A-Za-z_][\w.\-]*:[\w.\-]+[^<>]*>|</?[|｜]DSML[|｜]|<\|[\w.\-\"]+>|<[\w.\-]+\|>"
    r"|</?(?:invoke|reasoning|answer|response|TOOLCALL|function_calls|arg_key|arg_value|tool|tools)\b[^<>]*>"
    r"|</?longcat_tool_call>|<parameter name=|<function name=|<(?:start|end)_function_call>|◁/?think▷"
    r"|\[(?:BEGIN|END) FINAL RESPONSE\]|Here is my (?:thought process|response):"
)


def named(text: str, names: Any) -> set[str]:
    """The tool names written as words in text."""
    return {n for n in names if re.search(rf"(?<![\w.:]){re.escape(n)}(?![\w])", text)}


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def summary(events: list[Any]) -> tuple[str, str, list[tuple[str, Any]], list[str]]:
    return (
        norm("".join(e.text for e in events if isinstance(e, Text))),
        norm("".join(e.text for e in events if isinstance(e, Reasoning))),
        [(e.call.name, e.call.arguments) for e in events if isinstance(e, Call)],
        [e.reason for e in events if isinstance(e, Malformed)],
    )


def streamed(text: str, cuts: list[int], **kwargs: Any) -> list[Any]:
    """The events of `text` fed in the pieces between the cut positions."""
    parser = StreamParser(**kwargs)
    events: list[Any] = []
    start = 0
    for cut in [*sorted(set(cuts)), len(text)]:
        events += parser.feed(text[start:cut])
        start = cut
    return events + parser.finish()


# --------------------------------------------------------------------------- public fixtures

TYPES = {"calculate_area": {"precision": "integer", "dimensions": "object"}}


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f["id"] for f in FIXTURES])
def test_public_model_outputs_parse_as_their_sources_say(fixture: dict[str, Any]) -> None:
    events = parse(fixture["text"], names=fixture["tools"], types=TYPES,
                   reasoning_first=fixture.get("prefilled_think", False))
    text, reasoning, calls, broken = summary(events)
    assert calls == [(c["name"], c["arguments"]) for c in fixture["calls"]]
    assert text == norm(fixture["content"])
    # Our reasoning never shows call markup (vLLM's keeps it): compare without the tags.
    assert reasoning == norm(re.sub(r"</?tool_call>", "", fixture["reasoning"]))
    assert broken == []
    assert not any(MARKUP_RE.search(e.text) for e in events if isinstance(e, Text))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
@pytest.mark.parametrize("fixture", FIXTURES, ids=[f["id"] for f in FIXTURES])
def test_any_split_of_a_stream_parses_like_the_whole(fixture: dict[str, Any], data: st.DataObject) -> None:
    text = fixture["text"]
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=min(len(text), 60)))
    kwargs = {"names": fixture["tools"], "types": TYPES,
              "reasoning_first": fixture.get("prefilled_think", False)}
    pieces = streamed(text, cuts, **kwargs)
    assert summary(merge(pieces)) == summary(parse(text, **kwargs))  # text, reasoning and calls alike
    shown = [event.text for event in pieces if isinstance(event, Text)]
    prose_names = named(fixture["content"], fixture["tools"])  # a tool named in a sentence may show
    for delta in shown:
        assert not MARKUP_RE.search(delta), delta
        assert named(delta, fixture["tools"]) <= prose_names, delta  # never a name before its call
    if fixture["reasoning"]:  # not even a piece of the reasoning reaches the answer
        assert norm(fixture["reasoning"])[:40] not in norm("".join(shown))


def test_token_by_token_text_is_released_at_once() -> None:
    """Plain prose waits for nothing; only a possible marker's prefix is held, and only as long as needed."""
    parser = StreamParser(names=TOOLS)
    assert parser.feed("Die Frist ") == [Text("Die Frist ")]
    assert parser.feed("endet <") == [Text("endet ")]  # "<" may open <tool_call>
    assert parser.feed("b>") == [Text("<b>")]  # decided: no marker
    assert parser.feed(' {"') == [Text(" ")]  # a bare object may be a call …
    assert parser.feed("frist") == [Text('{"frist')]  # … but no call starts with this key
    assert parser.feed('": 1}.') == [Text('": 1}.')]


# --------------------------------------------------------------------------- argument repair

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
    # json-repair closes the list; the tool's parameter model then refuses a list where text belongs
    ("unbalanced garbage", '{"query": [}', {"query": []}),
    ("not a string at all", 17, None),
]




@pytest.mark.parametrize(
    ("raw", "expected"), [case[1:] for case in REPAIR_CASES], ids=[c[0] for c in REPAIR_CASES]
)
def test_repair_arguments(raw: Any, expected: dict[str, Any] | None) -> None:
    assert repair_arguments(raw) == expected


# --------------------------------------------------------------------------- calls written as text

Calls = list[tuple[str, Any]]
UNCHANGED = object()  # marker: the text must come back as given

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
        "",
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
        "unknown tool in a tag is a call (the executor answers: no such tool)",
        '<tool_call>\n{"name": "send_email", "arguments": {"to": "mandant@example.de"}}\n</tool_call>',
        [("send_email", {"to": "mandant@example.de"})],
        "",
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
        "python call in a tag",
        "<tool_call>\nread_akte(akte_id=3)\n</tool_call>",
        [("read_akte", {"akte_id": 3})],
        "",
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
def test_calls_written_as_text(text: str, expected_calls: Calls, expected_text: Any) -> None:
    events = parse(text, names=TOOLS)
    shown, _, calls, broken = summary(events)
    assert calls == expected_calls
    assert shown == norm(text if expected_text is UNCHANGED else expected_text)
    assert broken == []
    ids = [e.call.id for e in events if isinstance(e, Call)]
    assert all(re.fullmatch(r"call_[0-9a-f]{12}", i) for i in ids)
    assert len(set(ids)) == len(ids)


def test_without_tools_bare_json_is_text_but_markup_is_not() -> None:
    text = '{"name": "read_akte", "arguments": {"akte_id": 1}}'
    assert parse(text) == [Text(text)]
    events = parse('<tool_call>{"name": "read_akte", "arguments": {}}</tool_call>')
    assert [type(e) for e in events] == [Call]


def test_broken_call_in_markup_is_never_shown() -> None:
    events = parse('Ich lege sie an. <tool_call>{"name": "read_akte", "arguments": {akte: }</tool_call>',
                   names=TOOLS)
    assert summary(events)[0] == "Ich lege sie an."
    assert summary(events)[3] == ["Aufruf unlesbar"]


def test_truncated_call_is_never_repaired_into_a_call() -> None:
    text = '<tool_call>\n{"name": "read_akte", "arguments": {"akte_id": 1'
    assert summary(parse(text, names=TOOLS, truncated=True))[2:] == ([], ["Aufruf abgeschnitten"])
    bare = '{"name": "read_akte", "arguments": {"akte_id": 1'
    assert summary(parse(bare, names=TOOLS, truncated=True))[2:] == ([], ["Aufruf abgeschnitten"])
    # Without the cut (the model just forgot the braces), it is repaired.
    assert summary(parse(bare, names=TOOLS))[2] == [("read_akte", {"akte_id": 1})]


def test_call_inside_reasoning_is_not_executed() -> None:
    text = ('<think>Ich könnte {"name": "read_akte", "arguments": {"akte_id": 1}} aufrufen, '
            "aber die Frage ist allgemein.</think>Die Berufungsfrist beträgt einen Monat.")
    shown, reasoning, calls, _ = summary(parse(text, names=TOOLS))
    assert calls == []
    assert shown == "Die Berufungsfrist beträgt einen Monat."
    assert "read_akte" in reasoning


def test_stray_think_close_is_dropped_and_learned() -> None:
    parser = StreamParser(names=TOOLS)
    events = merge([*parser.feed("Okay, the user asks.</think>\n\nDie Antwort."), *parser.finish()])
    assert not any("</think>" in e.text for e in events if isinstance(e, Text))
    assert "reasoning_prefilled" in parser.flags


def test_pathological_input_is_fast_and_safe() -> None:
    """Prose full of half-open objects must not stall the stream."""
    text = '{"' * 5000 + "read_akte"
    started = time.monotonic()
    assert summary(parse(text, names=TOOLS))[2] == []
    assert repair_arguments('{"' * 20000) is None
    assert time.monotonic() - started < 5


# --------------------------------------------------------------------------- structured calls

NORMALIZE_CASES: list[tuple[str, ToolCall, str, Any]] = [
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
    [case[1:] for case in NORMALIZE_CASES],
    ids=[c[0] for c in NORMALIZE_CASES],
)
def test_structured_calls_are_repaired(call: ToolCall, name: str, arguments: Any) -> None:
    fixed = normalize_call(call, TOOLS)
    assert (fixed.id, fixed.name, fixed.arguments) == ("c1", name, arguments)


# --------------------------------------------------------------------------- found by a red-team pass


@pytest.mark.parametrize("text", [
    'Laut [„BGH"] gilt das.\n\n<tool_call>{"name": "read_akte", "arguments": {"akte_id": 1}}</tool_call>',
    'Laut {„Mandant"} gilt das.\n\n<think>intern</think>Antwort',
    "Das ist [„Anlage K1\"] – siehe unten.\n\n[TOOL_CALLS]read_akte[ARGS]{\"akte_id\": 1}",
    'Siehe ```-Blöcke. <tool_call>{"name": "read_akte", "arguments": {"akte_id": 1}}</tool_call>',
    '```bash\necho hi\n<tool_call>{"name": "read_akte", "arguments": {"akte_id": 1}}</tool_call>\n```',
    "```text\nHallo<|im_end|>",
    '```tool_code\nsearch_gesetze(query="BGB"\n```',
    "<|channel|>final<|message|>Antwort <think>x</think> und <|im_end|>",
    '<|python_tag|>read_akte(akte_id=1)<|eom_id|>',
    '{"arguments": {"city_name": "Berlin"}, "name": "read_akte"}',
    '[print(read_akte(akte_id=1))]',
    '<tool_call>{"name": "read_akte", "arguments": {"a": ' + "9" * 4301 + "}}</tool_call>",
    '{„name“: „read_akte“, „arguments“: {„akte_id“: 1}}',
    "<|channel|>analysis" + " " * 300 + "<|message|>kein Harmony-Kopf mehr<|end|>",  # decided by content
    # issue 34 B: markers known only by their words
    "<|begin_of_thought|>\n\nintern\n\n<|end_of_thought|>\n\n<|begin_of_solution|>\n\nAntwort\n\n"
    "<|end_of_solution|>",  # the OpenThoughts / Sky-T1 training format (open-thoughts, NovaSky-AI)
    "<|channel|>inner<|message|>intern<|end|><|start|>assistant<|channel|>final<|message|>Antwort<|return|>",
    "<seed:think>intern</seed:think><answer>Antwort</answer>",
    "[THINK]intern[/THINK][BEGIN FINAL RESPONSE]Antwort[END FINAL RESPONSE]",
    "◁think▷intern◁/think▷<response>Antwort</response>",
    "<|START_THINKING|>intern<|END_THINKING|><|START_RESPONSE|>Antwort<|END_RESPONSE|>",
    "<thought>intern</thought>Antwort",
    '<tool:call>{"name": "read_akte", "arguments": {"akte_id": 1}}</tool:call>',
    '<|tool_call|>read_akte(akte_id=1)<|/tool_call|>',
    '[TOOL_REQUEST]{"name": "read_akte", "arguments": {"akte_id": 1}}[END_TOOL_REQUEST]',
    '<function_calls>\n<invoke name="read_akte">\n<parameter name="akte_id">1</parameter>\n</invoke>\n'
    "</function_calls>",
    'read_akte[ARGS]{"akte_id": 1}',
    "read_akte(akte_id=1)\nsearch_gesetze(query='§ 517 ZPO')",
    '{"read_akte": {"akte_id": 1}}',
])
def test_no_markup_or_reasoning_shown_for_any_split(text: str) -> None:
    whole = summary(parse(text, names=TOOLS))
    for cuts in ([], list(range(len(text))), [i for i in range(0, len(text), 3)]):
        pieces = streamed(text, cuts, names=TOOLS)
        assert summary(merge(pieces)) == whole
        for event in pieces:
            if isinstance(event, Text):
                assert not MARKUP_RE.search(event.text) and "intern" not in event.text, event.text


# --------------------------------------------------------------------------- unknown formats (issue 34 B)


@pytest.mark.parametrize(("text", "expected"), [
    ('<tool:call>{"name": "read_akte", "arguments": {"akte_id": 1}}</tool:call>',
     [("read_akte", {"akte_id": 1})]),
    ('<|tool_call|>read_akte(akte_id=1)<|/tool_call|>', [("read_akte", {"akte_id": 1})]),
    ('[TOOL_REQUEST]{"name": "read_akte", "arguments": {"akte_id": 1}}[END_TOOL_REQUEST]',
     [("read_akte", {"akte_id": 1})]),
    ('<function_calls><invoke name="read_akte"><parameter name="akte_id">1</parameter></invoke>'
     "</function_calls>", [("read_akte", {"akte_id": "1"})]),
    ('<Antwort>{"name": "read_akte", "arguments": {"akte_id": 1}}</Antwort>',
     [("read_akte", {"akte_id": 1})]),
    ('{"read_akte": {"akte_id": 1}}', [("read_akte", {"akte_id": 1})]),
    ('read_akte[ARGS]{"akte_id": 1}', [("read_akte", {"akte_id": 1})]),
    ("read_akte(akte_id=1)\nlist_akten()", [("read_akte", {"akte_id": 1}), ("list_akten", {})]),
    ('functools[{"name": "read_akte", "arguments": {"akte_id": 1}}]', [("read_akte", {"akte_id": 1})]),
])
def test_a_call_of_an_offered_tool_is_a_call_whatever_wraps_it(text: str, expected: Calls) -> None:
    shown, _, calls, broken = summary(parse(text, names=TOOLS))
    assert (shown, calls, broken) == ("", expected, [])


@pytest.mark.parametrize("text", [
    "Die Akte liest read_akte, die Fristen berechnet berechne_frist.",
    "Mit read_akte (dem Werkzeug für Akten) geht das.",
    "<Anrede> <Name>, anbei die Unterlagen.",
    "<b>Wichtig:</b> Die Frist läuft.",
    '{"frist": {"tage": 14}} ist das Format, das die Schnittstelle erwartet.',
    "[ANLAGE K1] und [Anlage K2] liegen bei.",
    "Der Streitwert <b und der Rest des Satzes ohne schließende Klammer.",
    "Here is my response: nothing else.",
])
def test_prose_stays_prose(text: str) -> None:
    """A tool named in a sentence, a placeholder in angle brackets, HTML, a JSON example whose key is
    no tool, bracketed prose: text as written (a Granite sentence without its opener too)."""
    assert summary(parse(text, names=TOOLS)) == (norm(text), "", [], [])


def test_a_bare_name_is_held_until_what_follows_decides() -> None:
    parser = StreamParser(names=TOOLS)
    assert parser.feed("Ich nutze read") == [Text("Ich nutze ")]  # may become read_akte
    assert parser.feed("_akte") == []
    assert parser.feed(" dafür.") == [Text("read_akte dafür.")]  # prose after all
    parser = StreamParser(names=TOOLS)
    assert parser.feed("read_akte") == []
    assert parser.feed("(akte_id=3)") == []  # a call only if it fills its line: the line's end decides
    assert [type(e) for e in parser.feed("\n")] == [Call, Text]  # the name never shown; then "\n"


def test_an_angle_bracket_in_prose_is_released_at_the_next_word() -> None:
    """A tag's attributes are key="value": words after "<Anlage" make it prose at once."""
    parser = StreamParser(names=TOOLS)
    assert parser.feed("Siehe <Anlage") == [Text("Siehe ")]
    assert merge(parser.feed(" K1 und K2")) == [Text("<Anlage K1 und K2")]


def test_an_echo_of_the_call_in_the_same_answer_is_one_call() -> None:
    text = ('<tool_call>{"name": "read_akte", "arguments": {"akte_id": 1}}</tool_call>\n'
            '{"name": "read_akte", "arguments": {"akte_id": 1}}\nread_akte(akte_id=1)')
    assert summary(parse(text, names=TOOLS))[2] == [("read_akte", {"akte_id": 1})]
    other = '<tool_call>{"name": "read_akte", "arguments": {"akte_id": 2}}</tool_call>'
    assert len(summary(parse(text + other, names=TOOLS))[2]) == 2  # another call is another call


@pytest.mark.parametrize("text", [
    "<minimax:tool_call>Ich rufe gleich die Akte auf.</minimax:tool_call>",
    "<|START_ACTION|>[{\"tool_name\": \"read_akte\", \"parameters\": {akte: }}]<|END_ACTION|>",
    "read_akte(3)",
])
def test_an_unreadable_call_is_never_dropped_silently(text: str) -> None:
    """Markup that says "call" around something no call can be read from is an unreadable call (the
    model gets the retry hint); so is a call of a tool with positional arguments."""
    shown, _, calls, broken = summary(parse(text, names=TOOLS))
    assert (shown, calls, broken) == ("", [], ["Aufruf unlesbar"])


def test_a_channel_helena_does_not_know_is_reasoning() -> None:
    text = "<|channel|>inner<|message|>Nachdenken<|end|><|start|>assistant<|channel|>final<|message|>Antwort"
    shown, reasoning, _, _ = summary(parse(text, names=TOOLS))
    assert (shown, reasoning) == ("Antwort", "Nachdenken")


def test_a_call_with_a_long_brief_streams_in_linear_time() -> None:
    """A Schriftsatz as an argument, token by token: the held call is not re-read from the start."""
    text = '[TOOL_CALLS]read_akte[ARGS]{"notiz": "' + "Sehr geehrte Damen und Herren, " * 400 + '"}'
    started = time.process_time()
    events = streamed(text, list(range(0, len(text), 4)), names=TOOLS)
    assert [e.call.name for e in events if isinstance(e, Call)] == ["read_akte"]
    assert time.process_time() - started < 2


# ------------------------------------------------------------------- markup words in prose (review 5, 6)

NOTE_TOOLS = TOOLS | {"create_notiz", "read_fristen"}
MARKUP_WORDS_IN_PROSE = [
    "Setze in <Text> den Namen ein.",
    "Ersetze [TEXT] durch den Namen des Mandanten.",
    "Der Beklagte schreibt: [ANTWORT DES BEKLAGTEN] – das genügt nicht.",
    "Die Frage lautet <answer>Ja</answer> oder nein.",
    "Die Gliederung: <Analysis> folgt, dann das Ergebnis.",
    "Nutzen Sie <thinking> nicht als Überschrift. Die Frist läuft.",
    "Schreiben Sie <Tool>. Danach prüfe ich die Frist.",
    "Ergebnis:\n<Analysis> folgt unten.\nDie Frist läuft.",  # a line's start is not the output's
    "Ergebnis:\n<answer>Ja</answer>",
    "Tipp: Nutze create_notiz(text='Rückruf')",
    'Ich habe read_fristen(akte_id="4711") aufgerufen.',
    "Nachgeschlagen: read_fristen(4711)",
    "Tipp: `create_notiz(text='Rückruf')` legt die Notiz an.",
    '`read_fristen(akte_id="4711")`',
    'Ergebnis:\nread_fristen(akte_id="4711") liefert zwei Fristen.',  # starts a line, but does not fill it
    "read_fristen(4711) hat nichts ergeben.",
]


@pytest.mark.parametrize("text", MARKUP_WORDS_IN_PROSE)
def test_markup_words_in_a_sentence_stay_verbatim_for_any_split(text: str) -> None:
    """A wrapper, reasoning or call word in the middle of an answer, and a tool's call in a sentence
    or in backticks: the text as written, no call, no reasoning, no retry."""
    for cuts in ([], list(range(len(text))), list(range(0, len(text), 3))):
        pieces = streamed(text, cuts, names=NOTE_TOOLS)
        assert merge(pieces) == [Text(text)], cuts


@settings(max_examples=30, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize("text", MARKUP_WORDS_IN_PROSE)
def test_markup_words_in_a_sentence_stay_verbatim_hypothesis(text: str, data: st.DataObject) -> None:
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=len(text)))
    assert merge(streamed(text, cuts, names=NOTE_TOOLS)) == [Text(text)]


@pytest.mark.parametrize(("text", "expected"), [
    ("<answer>Ja, die Frist läuft.</answer>", ("Ja, die Frist läuft.", "", [], [])),
    ("\n<answer>\nJa.\n</answer>\n", ("Ja.", "", [], [])),
    ("[ANTWORT]Ja.[/ANTWORT]", ("Ja.", "", [], [])),
    ("<Analysis>intern</Analysis>Die Frist läuft.", ("Die Frist läuft.", "intern", [], [])),
    ("<thinking>intern</thinking>Die Frist läuft.", ("Die Frist läuft.", "intern", [], [])),
    ("Ich lege sie an.\ncreate_notiz(text='Rückruf')\n",
     ("Ich lege sie an.", "", [("create_notiz", {"text": "Rückruf"})], [])),
    ('Zuerst:\n  read_fristen(akte_id="4711")  \nDanach melde ich mich.',
     ("Zuerst: Danach melde ich mich.", "", [("read_fristen", {"akte_id": "4711"})], [])),
    ('read_fristen(akte_id="4711")<|eot_id|>', ("", "", [("read_fristen", {"akte_id": "4711"})], [])),
    ("Nachgeschlagen:\nread_fristen(4711)", ("Nachgeschlagen:", "", [], ["Aufruf unlesbar"])),
    ('Ich prüfe. <TOOLCALL>[{"name": "read_fristen", "arguments": {"akte_id": 1}}]</TOOLCALL>',
     ("Ich prüfe.", "", [("read_fristen", {"akte_id": 1})], [])),
])
def test_genuine_markup_at_the_start_still_counts(text: str, expected: Any) -> None:
    """A wrapper that opens the output goes (with its closer), reasoning that opens it is reasoning,
    a bare call that fills its line is a call; a call tag in a sentence counts when a call follows."""
    assert summary(parse(text, names=NOTE_TOOLS)) == expected
    for cuts in (list(range(len(text))), list(range(0, len(text), 3))):
        pieces = streamed(text, cuts, names=NOTE_TOOLS)
        assert summary(merge(pieces)) == expected
        shown = [e.text for e in pieces if isinstance(e, Text)]
        assert not any(named(delta, NOTE_TOOLS) for delta in shown), shown  # no name before its call
        assert not any("intern" in delta or MARKUP_RE.search(delta) for delta in shown), shown
