"""The model check's catalogue: ten short German tasks over the Prüfakte, each with the calls a careful
model makes and what its answer must hold.

Each task tests one thing a Kanzlei's everyday run needs of a model (read the Fristen, search a statute,
two calls in one turn, a question that needs no tool, a draft with a date and umlauts, several steps, a
long text, an English question, a tool error, a date for the calculator). `example` is a careful
model's way through the task: the documentation of what is expected, and the script of the
well-behaved model in the tests.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from akten.fristen import berechne
from akten.fristen.typen import MONATE
from helena.model_check.pruefakte import AKTE_ID, AKTENZEICHEN, GERICHT, Pruefakte

TASK_TIMEOUT = 180.0  # seconds per task: a slow local model on a CPU, not a chat's 30 s
LONG_TIMEOUT = 420.0  # the long text: reading ~16,000 tokens takes a CPU minutes
LONG_SHARE = 0.5  # of the window the long text fills (the prompt and the tools' schemas come on top)
LONG_CAP = 32768  # tokens: a 128k model is read up to here, or the check would take an hour

ArgCheck = Callable[[dict[str, Any]], str]  # "" when the arguments are right, else what is wrong


@dataclass(frozen=True)
class Expected:
    """A call the task needs: one of `tools`, with arguments that `check` accepts."""

    tools: tuple[str, ...]
    check: ArgCheck
    wanted: str  # German, for the report: "read_fristen mit akte_id 4711"
    after_error: bool = False  # it must come after a failed call (the recovery)


@dataclass(frozen=True)
class Task:
    key: str
    title: str  # German, for the report
    prompt: str
    akte: bool = False  # the conversation belongs to the Prüfakte (its facts are in the prompt)
    calls: tuple[Expected, ...] = ()
    no_tool: bool = False  # calling a tool here is a mistake
    same_turn: bool = False  # the calls are expected in one turn
    answer: Callable[[str], bool] = lambda text: bool(text.strip())
    answer_wanted: str = "eine Antwort"  # German: what the answer must hold
    fail_first: bool = False  # the first read of the Akte fails (helena.model_check.pruefakte)
    tier2: bool = False  # needed for tiers 2 and 3 only; tier 1 answers short lookups
    timeout: float = TASK_TIMEOUT
    example: tuple[tuple[dict[str, Any], ...], ...] = ()  # a careful model's turns of calls
    example_answer: str = ""


# --- argument checks ------------------------------------------------------------------------------

def _akte(args: dict[str, Any]) -> str:
    value = str(args.get("akte_id") if args.get("akte_id") is not None else "").strip()
    if value == AKTE_ID:
        return ""
    return f"akte_id fehlt (erwartet {AKTE_ID})" if not value else f"akte_id „{value}“ statt {AKTE_ID}"


def _words(*keys: str, need: tuple[str, ...], label: str) -> ArgCheck:
    def check(args: dict[str, Any]) -> str:
        text = " ".join(str(args.get(k) or "") for k in keys).casefold()
        return "" if any(w in text for w in need) else f"{label} „{text.strip()[:60]}“ passt nicht"
    return check


def _all(*checks: ArgCheck) -> ArgCheck:
    return lambda args: "; ".join(p for p in (c(args) for c in checks) if p)


def _draft(bezeichnung: str, datum: date) -> ArgCheck:
    def check(args: dict[str, Any]) -> str:
        problems = [p for p in (_akte(args),) if p]
        given = str(args.get("bezeichnung") or "")
        if "weiß" not in given.lower():  # casefold() would make ß an ss
            problems.append(f"Bezeichnung „{given[:60]}“ statt „{bezeichnung}“ (Umlaut oder ß verloren?)")
        if str(args.get("datum") or "") != datum.isoformat():
            problems.append(f"datum „{args.get('datum') or ''}“ statt {datum.isoformat()}")
        return "; ".join(problems)
    return check


def _calculation(start: date) -> ArgCheck:
    def check(args: dict[str, Any]) -> str:
        problems = []
        if str(args.get("start") or "").strip() not in (start.isoformat(), f"{start:%d.%m.%Y}"):
            problems.append(f"start „{args.get('start') or ''}“ statt {start.isoformat()}")
        dauer = args.get("dauer") if isinstance(args.get("dauer"), dict) else {}
        if args.get("preset") != "berufung" and str(dauer.get("monate")) != "1":
            problems.append("weder preset berufung noch dauer {\"monate\": 1}")
        return "; ".join(problems)
    return check


# --- answer checks --------------------------------------------------------------------------------

def date_forms(d: date) -> list[str]:
    """How an answer may write a date: 03.04.2026, 3.4.2026, 3. April 2026, 2026-04-03."""
    return [d.isoformat(), f"{d:%d.%m.}", f"{d.day}.{d.month}.", f"{d.day}. {MONATE[d.month - 1]}",
            f"{d:%d}. {MONATE[d.month - 1]}"]


def mentions_date(text: str, *days: date) -> bool:
    flat = re.sub(r"\s+", " ", text)
    return any(re.search(rf"(?<!\d){re.escape(form)}", flat) for d in days for form in date_forms(d))


# --- the long text ------------------------------------------------------------------------------------

_SENTENCES = (
    "Die Beklagte bestreitet, dass die Arbeiten im Bauabschnitt {n} vertragsgemäß ausgeführt wurden.",
    "Nach dem Bautagebuch wurde in der {n}. Kalenderwoche an der Fassade und am Dach gearbeitet.",
    "Der Sachverständige hat zu Position {n} des Leistungsverzeichnisses keine Abweichung festgestellt.",
    "Die Rechnungsposition {n} betrifft Material, das nach Auffassung der Beklagten nie geliefert wurde.",
    "Zu den Vorgängen am Bauabschnitt {n} wird die Bauleiterin als Zeugin benannt.",
    "Soweit die Klägerin zu Ziffer {n} Nachträge geltend macht, fehlt es an einer Vereinbarung.",
    "Die Abnahme der Teilleistung {n} wurde nach dem Protokoll unter Vorbehalt erklärt.",
)


def long_text(*, context_window: int, zugestellt: date) -> str:
    """A made-up Schriftsatz that fills about half the window, with one fact near its start."""
    target = int(min(context_window, LONG_CAP) * LONG_SHARE * 3.5)  # chars, as helena.agent.budget counts
    needle = (f"Das Urteil des {GERICHT}s wurde der Beklagten am {zugestellt:%d.%m.%Y} zugestellt; "
              "die Beklagte hat dagegen Berufung eingelegt.")
    paragraphs: list[str] = []
    n = 0
    while sum(len(p) for p in paragraphs) < target:
        n += 1
        body = " ".join(_SENTENCES[(n + i) % len(_SENTENCES)].format(n=n + i) for i in range(3))
        paragraphs.append(f"{n}. {body}")
        if n == 4:
            paragraphs.append(f"{n}a. {needle}")
    return "\n\n".join(paragraphs)


# --- the catalogue --------------------------------------------------------------------------------

def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def catalogue(*, today: date, context_window: int) -> list[Task]:
    """The tasks as of `today` (the Fristen lie ahead of it) for a model with this window."""
    akte = Pruefakte(today)
    wv, begruendung, termin = (date.fromisoformat(akte.frist(k)["datum"])
                               for k in ("wiedervorlage", "begruendung", "termin"))
    frist_am = today + timedelta(days=45)
    zugestellt = today - timedelta(days=20)
    zustellung = today - timedelta(days=5)
    ende = berechne(start=zustellung, preset="berufung", bundesland="NW").ende
    read = _call("read_fristen", akte_id=AKTE_ID)
    read_wanted = f"read_fristen mit akte_id {AKTE_ID}"
    offen = (f"Offen sind die Wiedervorlage am {wv:%d.%m.%Y}, die Berufungsbegründungsfrist am "
             f"{begruendung:%d.%m.%Y} und die Verhandlung am {termin:%d.%m.%Y}.")
    weiss = "Stellungnahme zum Gutachten Dr. Weiß"
    return [
        Task("fristen", "Fristen lesen", "Welche Fristen laufen in dieser Akte gerade?", akte=True,
             calls=(Expected(("read_fristen",), _akte, read_wanted),),
             answer=lambda t: mentions_date(t, wv, begruendung, termin),
             answer_wanted="die Daten der Fristen", example=((read,),), example_answer=offen),
        Task("gesetz", "Vorschrift suchen",
             "Wie lang ist die Berufungsfrist im Zivilprozess? Schlag bitte die Vorschrift nach.",
             calls=(Expected(("search_gesetze",),
                             _words("query", "gesetz", need=("517", "berufung"), label="Suche"),
                             "search_gesetze nach der Berufungsfrist"),),
             answer=lambda t: "517" in t, answer_wanted="§ 517 ZPO",
             example=((_call("search_gesetze", query="Berufungsfrist", gesetz="ZPO"),),),
             example_answer="Die Berufungsfrist beträgt nach § 517 ZPO einen Monat ab Zustellung des "
                            "Urteils; sie ist eine Notfrist."),
        Task("zwei_aufrufe", "Zwei Aufrufe in einem Zug",
             "Zeig mir die offenen Fristen dieser Akte und such mir § 193 BGB heraus.",
             akte=True, same_turn=True,
             calls=(Expected(("read_fristen",), _akte, read_wanted),
                    Expected(("search_gesetze",), _words("query", need=("193",), label="Suche"),
                             "search_gesetze nach § 193 BGB")),
             answer=lambda t: "193" in t and mentions_date(t, wv, begruendung, termin),
             answer_wanted="die Fristen und § 193 BGB",
             example=((read, _call("search_gesetze", query="§ 193 BGB")),),
             example_answer=f"{offen} Nach § 193 BGB tritt an die Stelle eines Sonntags, Feiertags oder "
                            "Sonnabends der nächste Werktag."),
        Task("ohne_werkzeug", "Frage ohne Werkzeug",
             "Formuliere bitte einen kurzen, freundlichen Satz, mit dem ich einer Mandantin für ihre Geduld "
             "danke.", no_tool=True,
             example_answer="Herzlichen Dank für die Geduld – wir melden uns, sobald es Neuigkeiten gibt."),
        Task("entwurf_frist", "Fristentwurf mit Datum und Umlauten",
             f"Leg bitte eine Frist „{weiss}“ zum {frist_am:%d.%m.%Y} an.", akte=True,
             calls=(Expected(("create_draft_frist",), _draft(weiss, frist_am),
                             f"create_draft_frist mit Bezeichnung, datum {frist_am.isoformat()}"),),
             answer=lambda t: "entwurf" in t.casefold() or "freigabe" in t.casefold(),
             answer_wanted="dass es ein Entwurf zur Freigabe ist",
             example=((_call("create_draft_frist", akte_id=AKTE_ID, bezeichnung=weiss,
                             datum=frist_am.isoformat()),),),
             example_answer=f"Ich habe einen Entwurf der Frist „{weiss}“ zum {frist_am:%d.%m.%Y} "
                            "vorbereitet; er wartet auf deine Freigabe."),
        Task("mehrschritt", "Mehrere Schritte",
             "Such die Akte von Erika Sommer und sag mir, wann dort die nächste Frist abläuft.", tier2=True,
             calls=(Expected(("read_akte", "search_alle_akten"),
                             _words("query", need=("sommer",), label="Suche"), "read_akte nach „Sommer“"),
                    Expected(("read_fristen", "read_akte_detail"), _akte, f"danach {read_wanted}")),
             answer=lambda t: mentions_date(t, wv), answer_wanted=f"die nächste Frist ({wv:%d.%m.%Y})",
             example=((_call("read_akte", query="Sommer"),), (read,)),
             example_answer=f"In der Akte {AKTENZEICHEN} läuft als Nächstes die Wiedervorlage am "
                            f"{wv:%d.%m.%Y} ab."),
        Task("langer_kontext", "Langer Kontext",
             "Hier ist ein Schriftsatz der Gegenseite:\n\n"
             + long_text(context_window=context_window, zugestellt=zugestellt)
             + "\n\nFrage: An welchem Tag wurde das Urteil laut diesem Schriftsatz zugestellt?",
             tier2=True, timeout=LONG_TIMEOUT,
             answer=lambda t: mentions_date(t, zugestellt), answer_wanted=f"das Datum {zugestellt:%d.%m.%Y}",
             example_answer=f"Laut Schriftsatz wurde das Urteil am {zugestellt:%d.%m.%Y} zugestellt."),
        Task("englisch", "Englische Frage", "Which deadlines are open in this case?", akte=True,
             calls=(Expected(("read_fristen", "read_akte_detail"), _akte, read_wanted),),
             answer=lambda t: mentions_date(t, wv, begruendung, termin),
             answer_wanted="die Daten der Fristen", example=((read,),), example_answer=offen),
        Task("werkzeugfehler", "Werkzeugfehler",
             "Bis wann muss die Berufung in dieser Akte begründet werden?", akte=True, fail_first=True,
             calls=(Expected(("read_fristen", "read_akte_detail"), _akte,
                             "nach dem Fehler ein zweiter Weg (read_akte_detail oder read_fristen)",
                             after_error=True),),
             answer=lambda t: mentions_date(t, begruendung),
             answer_wanted=f"das Fristende {begruendung:%d.%m.%Y}",
             example=((read,), (_call("read_akte_detail", akte_id=AKTE_ID),)),
             example_answer=f"Die Berufungsbegründungsfrist endet am {begruendung:%d.%m.%Y}."),
        Task("fristberechnung", "Frist berechnen",
             f"Das Urteil wurde uns am {zustellung:%d.%m.%Y} zugestellt. Wann endet die Berufungsfrist? "
             "Rechne bitte mit dem Fristenrechner.", akte=True,
             calls=(Expected(("calculate_frist",), _calculation(zustellung),
                             f"calculate_frist mit start {zustellung.isoformat()} und preset berufung"),),
             answer=lambda t: mentions_date(t, ende), answer_wanted=f"das Fristende {ende:%d.%m.%Y}",
             example=((_call("calculate_frist", start=zustellung.isoformat(), preset="berufung"),),),
             example_answer=f"Die Berufungsfrist endet am {ende:%d.%m.%Y}."),
    ]
