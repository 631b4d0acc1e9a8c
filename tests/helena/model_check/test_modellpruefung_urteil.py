"""What the measurements mean: the verdict per tier, the advice, the checks of calls, answers and
markup (pure: synthetic results, no model, no database)."""

from __future__ import annotations

from datetime import date
from typing import Any

from helena.model_check.report import CheckedModel, Verdict, advice, eligibility, summary, task_line, verdict
from helena.model_check.runner import TaskResult, check_calls, leak_in
from helena.model_check.tasks import catalogue, mentions_date

TODAY = date(2026, 11, 27)
TASKS = {task.key: task for task in catalogue(today=TODAY, context_window=8192)}


def result(key: str, **changes: Any) -> TaskResult:
    """A task as a careful model solved it, with `changes`."""
    task = TASKS[key]
    judged = bool(task.calls) or task.no_tool
    good = TaskResult(key=key, title=task.title, tier2=task.tier2, finish_reason="stop",
                      answer=task.example_answer, elapsed=2.0, calls_ok=True if judged else None, german=True,
                      answer_ok=True, first_token=0.5, tokens_per_second=20.0)
    for name, value in changes.items():
        setattr(good, name, value)
    return good


def all_good(**per_key: dict[str, Any]) -> list[TaskResult]:
    return [result(key, **per_key.get(key, {})) for key in TASKS]


def model(**changes: Any) -> CheckedModel:
    found = CheckedModel(tier=1, name="qwen3:4b", dialect="qwen3", dialect_label="Qwen3",
                         context_window=40960,
                         labels={"hermes": "Hermes / Qwen2.5 (<tool_call>)", "qwen3": "Qwen3"})
    for name, value in changes.items():
        setattr(found, name, value)
    return found


def test_ten_tasks_cover_what_the_issue_asks() -> None:
    assert list(TASKS) == ["fristen", "gesetz", "zwei_aufrufe", "ohne_werkzeug", "entwurf_frist",
                           "mehrschritt", "langer_kontext", "englisch", "werkzeugfehler", "fristberechnung"]
    assert TASKS["englisch"].prompt.startswith("Which") and TASKS["zwei_aufrufe"].same_turn
    assert "Weiß" in TASKS["entwurf_frist"].prompt and "." in TASKS["entwurf_frist"].prompt
    assert len(TASKS["langer_kontext"].prompt) > 8192 * 0.5 * 3.5 * 0.9


def test_one_miss_is_a_weakness_two_are_a_pattern() -> None:
    one = all_good(gesetz={"calls_ok": False, "call_problem": "kein Werkzeugaufruf"})
    assert verdict(one, tier=1) == Verdict(
        1, True, "geeignet für Stufe 1 (eine Schwäche: Vorschrift suchen – kein Werkzeugaufruf)")
    two = all_good(gesetz={"calls_ok": False}, fristen={"calls_ok": False})
    found = verdict(two, tier=1)
    assert not found.suitable and found.short == "Werkzeugaufrufe unzuverlässig"
    assert found.text == ("nicht geeignet für Stufe 1 – Werkzeugaufrufe unzuverlässig: 2 von 8 Aufgaben ohne "
                          "richtigen Aufruf (Fristen lesen, Vorschrift suchen)")


def test_markup_or_one_english_answer_is_never_suitable() -> None:
    leaked = all_good(fristen={"leak": "Markup „<tool_call>“"})
    assert verdict(leaked, tier=1).text == (
        "nicht geeignet für Stufe 1 – Markup oder Überlegung in der Antwort: Fristen lesen: "
        "Markup „<tool_call>“")
    english = all_good(englisch={"german": False})
    assert verdict(english, tier=1).short == "antwortet nicht auf Deutsch"


def test_tier_1_needs_neither_the_long_text_nor_several_steps() -> None:
    results = all_good(langer_kontext={"answer_ok": False, "answer_problem": "nennt nicht das Datum"},
                       mehrschritt={"calls_ok": False})
    assert verdict(results, tier=1).suitable and not verdict(results, tier=2).suitable
    assert eligibility(results) == "Eignung: Stufe 1 ja · Stufe 2 und 3 nein (Antworten unzuverlässig)"


def test_advice_names_the_dialect_the_markup_belongs_to() -> None:
    results = all_good(fristen={"leak": "Markup „<tool_call>“", "calls_ok": False},
                       gesetz={"malformed": True, "calls_ok": False})
    tips = advice(results, model=model(dialect="llama3", dialect_label="Llama 3"))
    assert tips[0] == ("Stell unter „Modellstufen → Format der Werkzeugaufrufe“ das Format „Hermes / Qwen2.5 "
                       "(<tool_call>)“ ein (erkannt war „Llama 3“).")


def test_advice_on_thinking_the_window_and_no_tools() -> None:
    slow = all_good(**{key: {"reasoning_chars": 4000, "elapsed": 45.0} for key in ("fristen", "gesetz")})
    assert any(tip.startswith("Schalte das Überlegen ab") for tip in advice(slow, model=model()))
    small = advice(all_good(), model=model(context_window=4096))
    assert small[0].startswith(
        "Gib dem Modell ein größeres Kontextfenster: mindestens 16.384 Tokens (jetzt 4.096)")
    silent = all_good(**{key: {"calls_ok": False} for key in ("fristen", "gesetz", "entwurf_frist")})
    tips = advice(silent, model=model(capabilities=["completion"]))
    assert tips[0].startswith("Der Server meldet für dieses Modell keine Werkzeuge")
    assert advice(all_good(), model=model()) == []


def test_the_calls_are_judged_by_name_and_arguments() -> None:
    fristen, entwurf = TASKS["fristen"], TASKS["entwurf_frist"]
    number = {"name": "read_fristen", "arguments": {"akte_id": 4711}, "ok": True}
    assert check_calls(fristen, [number]) == (True, "")
    wrong = {"name": "read_fristen", "arguments": {"akte_id": "1/26"}, "ok": False}
    assert check_calls(fristen, [wrong]) == (False, "read_fristen: akte_id „1/26“ statt 4711")
    lost = {"akte_id": "4711", "bezeichnung": "Stellungnahme zum Gutachten Dr. Weiss", "datum": "11.01.2027"}
    ok, problem = check_calls(entwurf, [{"name": "create_draft_frist", "arguments": lost, "ok": True}])
    assert not ok and "(Umlaut oder ß verloren?)" in problem
    assert "datum „11.01.2027“ statt 2027-01-11" in problem
    assert check_calls(TASKS["ohne_werkzeug"], [{"name": "read_akte", "arguments": {}, "ok": True}]) == (
        False, "rief read_akte auf, obwohl kein Werkzeug nötig war")
    recovered = [{"name": "read_fristen", "arguments": {"akte_id": "4711"}, "ok": False},
                 {"name": "read_akte_detail", "arguments": {"akte_id": "4711"}, "ok": True}]
    assert check_calls(TASKS["werkzeugfehler"], recovered) == (True, "")
    assert check_calls(TASKS["werkzeugfehler"], recovered[:1])[0] is False


def test_markup_thinking_aloud_and_dates() -> None:
    assert leak_in('Hier: <tool_call>{"name": "read_fristen"}') == "Markup „<tool_call>“"
    assert leak_in("Okay, the user wants the deadlines.") == "Überlegung („the user wants“)"
    assert leak_in("Die Frist endet am 03.12.2026 (§ 517 ZPO).") == ""
    day = date(2026, 12, 3)
    forms = ("am 03.12.2026", "am 3.12.", "am 3. Dezember", "2026-12-03")
    assert all(mentions_date(text, day) for text in forms)
    assert not mentions_date("am 13.12.2026", day)


def test_the_lines_read_as_german_for_one_tier_and_several() -> None:
    line = task_line(1, result("fristen", calls=[{"name": "read_fristen"}], first_token=0.42,
                               tokens_per_second=31.4))
    assert line == " 1. ✓ Fristen lesen: read_fristen erkannt, Argumente richtig · Deutsch · ohne Markup · " \
                   "erstes Token 0,4 s · 31 Tokens/s"
    yes, no = Verdict(1, True, "geeignet für Stufe 1"), Verdict(2, False, "nicht geeignet …", "Markup")
    assert summary([yes], []) == "Ergebnis: geeignet für Stufe 1"
    assert summary([], [(1, "der Server antwortet nicht (x)")]) == "Ergebnis: nicht geprüft – der Server " \
                                                                 "antwortet nicht (x)"
    assert summary([yes, no], [(3, "Cloud nicht freigegeben")]) == (
        "Ergebnis: Stufe 1 geeignet; Stufe 2 nicht geeignet (Markup); Stufe 3 nicht geprüft (Cloud nicht "
        "freigegeben)")


def test_tokens_per_second_count_only_turns_that_streamed_text() -> None:
    """A call-only turn comes in one piece at its end: 40 tokens in 0.01 s would read as 4000 Tokens/s."""
    from helena.model_check.runner import ModelCall, _measure

    call_only = ModelCall(first_token=8.0, duration=8.01, tokens=40, chunks=1)
    answer = ModelCall(first_token=0.5, duration=10.5, tokens=100, chunks=50, streamed=True)
    found = result("fristen")
    _measure(found, [call_only, answer])
    assert found.first_token == 8.0 and found.tokens_per_second == 10.0
    _measure(found, [call_only])
    assert found.tokens_per_second is None
    assert task_line(1, found).endswith("erstes Token 8,0 s · – Tokens/s")


def test_too_slow_for_a_chat_fails_tier_1_only() -> None:
    slow = {"too_slow": "dauerte 45 s, ein Chat-Lauf darf 30 s (Helena-Einstellungen → Zeitlimit im Chat)",
            "chat_seconds": 30.0}
    one = all_good(fristen=slow)
    assert verdict(one, tier=1).text == (
        "geeignet für Stufe 1 (eine Schwäche: Fristen lesen – dauerte 45 s, ein Chat-Lauf darf 30 s "
        "(Helena-Einstellungen → Zeitlimit im Chat))")
    two = all_good(fristen=slow, gesetz=slow)
    assert verdict(two, tier=1).short == "zu langsam für den Chat"
    assert verdict(two, tier=2).suitable
    tips = advice(two, model=model())
    assert tips[0].startswith("Das Modell braucht länger, als ein Chat-Lauf dauern darf (2 Aufgaben über "
                              "30 s)")
