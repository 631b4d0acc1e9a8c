"""The numbered entries of a fee schedule as norms of their own: Nr. 3100 VV RVG, Nr. 1210 KV GKG.

A lawyer cites "Nr. 3100 VV RVG", not "Anlage 1 RVG": each entry (its Gebührentatbestand, the fee
or rate, its Anmerkung) and each Vorbemerkung becomes one norm, with the Teil/Abschnitt it sits
in as its Gliederung. What stays in the Anlage itself is its introduction and table of contents.

The input is an Anlage's text as the importers render it: one line per table row with cells
joined by " | " ("3100 | Verfahrensgebühr … | 1,3"), headings such as "Abschnitt 1 Erster
Rechtszug", "Vorbemerkung 3.1: …" and Anmerkungen as plain lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from helena.knowledge.importers.common import GLIEDERUNG_SEP, ParsedNorm, collapse

# The schedules and how they are cited: "Vergütungsverzeichnis" → VV.
KUERZEL = {"vergütungsverzeichnis": "VV", "kostenverzeichnis": "KV", "gebührenverzeichnis": "GV"}
TITEL_CHARS = 200
_ENTRY_RE = re.compile(r"^(?P<nr>\d{4})\s*\|\s*(?P<rest>.*)$")
_HEADING_RE = re.compile(
    r"^(?P<art>Teil|Hauptabschnitt|Abschnitt|Unterabschnitt)\s+(?P<nr>\d+)\b\s*(?P<titel>[^|]*)$")
_VORBEMERKUNG_RE = re.compile(r"^Vorbemerkung\s+(?P<nr>\d+(?:\.\d+)*)\s*:\s*(?P<text>.*)$")
_HEADER_RE = re.compile(r"^Nr\.\s*\|\s*[^|]+\|\s*(?P<spalte>.+)$")
_TOC_TEIL_RE = re.compile(r"^Teil\s+(?P<nr>\d+)\s*\|\s*(?P<titel>[^|]+)$")
_LEVEL = {"Teil": 1, "Hauptabschnitt": 2, "Abschnitt": 3, "Unterabschnitt": 4}
_ANMERKUNG_RE = re.compile(r"\s\(1\)\s")
_LEADERS_RE = re.compile(r"\s*\.{3,}\s*")


def kuerzel_of(norm: ParsedNorm) -> str | None:
    """VV, KV or GV when the norm is an Anlage that is a fee schedule."""
    if not norm.bezeichnung.startswith("Anlage"):
        return None
    titel = norm.titel.casefold()
    return next((k for word, k in KUERZEL.items() if word in titel), None)


@dataclass
class _Part:
    kind: str  # "entry" or "vorbemerkung"
    nr: str
    gliederung: str
    spalte: str = ""  # the heading of the fee column in force for this entry
    cells: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)


@dataclass
class _State:
    spalte: str = "Gebühr"
    stack: list[tuple[int, str]] = field(default_factory=list)
    pending_heading: int | None = None  # index in stack of a heading whose title is on the next line
    intro: list[str] = field(default_factory=list)
    teile: dict[str, str] = field(default_factory=dict)  # the table of contents: "3" → "Teil 3 Zivilsachen …"
    parts: list[_Part] = field(default_factory=list)


def split_verzeichnis(anlage: ParsedNorm) -> tuple[ParsedNorm, list[ParsedNorm]]:
    """The Anlage (what precedes the first entry) and its entries and Vorbemerkungen as norms."""
    kuerzel = kuerzel_of(anlage)
    if kuerzel is None:
        return anlage, []
    state = _State()
    for raw in anlage.text.split("\n"):
        _take(state, collapse(raw))
    if not any(p.kind == "entry" for p in state.parts):
        return anlage, []
    name = f"{anlage.bezeichnung} {_schedule_name(anlage)}"
    root = GLIEDERUNG_SEP.join(filter(None, (anlage.gliederung, name)))
    head = ParsedNorm(anlage.bezeichnung, anlage.nummer, anlage.titel, "\n".join(state.intro).strip(),
                      anlage.order, anlage.gliederung)
    return head, [_norm(p, kuerzel=kuerzel, root=root) for p in state.parts]


def _schedule_name(anlage: ParsedNorm) -> str:
    return next((w for w in anlage.titel.split() if w.casefold() in KUERZEL), "")


def _take(state: _State, line: str) -> None:
    if not line or line == "##":
        return
    if header := _HEADER_RE.match(line):
        state.spalte = header.group("spalte").strip()
        return
    if entry := _ENTRY_RE.match(line):
        _enter_teil(state, entry.group("nr")[0])
        state.pending_heading = None
        state.parts.append(_Part("entry", entry.group("nr"), _gliederung(state), state.spalte,
                                 cells=[c.strip() for c in entry.group("rest").split("|")]))
        return
    if vorb := _VORBEMERKUNG_RE.match(line):
        _enter_teil(state, vorb.group("nr").split(".")[0])
        state.pending_heading = None
        state.parts.append(_Part("vorbemerkung", vorb.group("nr"), _gliederung(state),
                                 lines=[vorb.group("text")] if vorb.group("text") else []))
        return
    structure = _structure(state, line)
    if not state.parts:
        if toc := _TOC_TEIL_RE.match(line):
            state.teile[toc.group("nr")] = f"Teil {toc.group('nr')} {toc.group('titel').strip()}"
        state.intro.append(line)
        return
    if structure:
        return
    part = state.parts[-1]
    if part.kind == "entry" and " | " in line and not part.lines:  # the row goes on
        cells = [c.strip() for c in line.split("|")]
        part.cells[-1] = f"{part.cells[-1]} {cells[0]}".strip()
        part.cells.extend(cells[1:])
        return
    part.lines.append(line)


def _enter_teil(state: _State, teil: str) -> None:
    """The official XML prints a Teil's heading only in the table of contents, not above its table:
    an entry's first digit is its Teil (Nr. 3100 VV is in Teil 3), so the Gliederung follows it."""
    current = state.stack[0][1] if state.stack and state.stack[0][0] == _LEVEL["Teil"] else ""
    if current.split(" ")[:2] == ["Teil", teil] or teil not in state.teile:
        return
    state.stack[:] = [(_LEVEL["Teil"], state.teile[teil])]
    state.pending_heading = None


def _structure(state: _State, line: str) -> bool:
    """Whether the line is a heading (or a heading's title) and has set the Gliederung.

    A table of contents sets it too, until the body's own "Teil 1" replaces it."""
    if heading := _HEADING_RE.match(line):
        _push(state, heading)
        return True
    if state.pending_heading is not None:  # "Teil 1" on one line, its title on the next
        level, label = state.stack[state.pending_heading]
        state.stack[state.pending_heading] = (level, f"{label} {line}")
        state.pending_heading = None
        return True
    return False


def _push(state: _State, heading: re.Match[str]) -> None:
    level = _LEVEL[heading.group("art")]
    while state.stack and state.stack[-1][0] >= level:
        state.stack.pop()
    label = f"{heading.group('art')} {heading.group('nr')}"
    titel = heading.group("titel").strip()
    state.stack.append((level, f"{label} {titel}" if titel else label))
    state.pending_heading = None if titel else len(state.stack) - 1


def _gliederung(state: _State) -> str:
    return GLIEDERUNG_SEP.join(label for _, label in state.stack)


def _norm(part: _Part, *, kuerzel: str, root: str) -> ParsedNorm:
    gliederung = GLIEDERUNG_SEP.join(filter(None, (root, part.gliederung)))
    if part.kind == "vorbemerkung":
        text = "\n".join(part.lines).strip()
        return ParsedNorm(f"Vorbemerkung {part.nr} {kuerzel}", f"{kuerzel.lower()}vorb{part.nr}", "",
                          text, 0, gliederung)
    cells = [_LEADERS_RE.sub(" ", c).strip() for c in part.cells]
    tatbestand, gebuehr = (" ".join(cells[:-1]), cells[-1]) if len(cells) > 1 else (cells[0], "")
    titel = _ANMERKUNG_RE.split(tatbestand, 1)[0]  # some tables carry the Anmerkung in the same cell
    if len(titel) > TITEL_CHARS:
        titel = titel[:TITEL_CHARS].rsplit(" ", 1)[0] + " …"
    text = "\n".join(filter(None, (tatbestand, f"{part.spalte}: {gebuehr}" if gebuehr else "", *part.lines)))
    return ParsedNorm(f"Nr. {part.nr} {kuerzel}", f"{kuerzel.lower()}{part.nr}", titel, text, 0, gliederung)


def split_verzeichnisse(normen: list[ParsedNorm]) -> list[ParsedNorm]:
    """The law's norms with every fee schedule's entries after its Anlage, numbered in order."""
    out: list[ParsedNorm] = []
    for norm in normen:
        head, entries = split_verzeichnis(norm)
        out.append(head)
        out.extend(entries)
    for order, norm in enumerate(out, start=1):
        norm.order = order
    return out
