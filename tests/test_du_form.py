"""Helena speaks to her users with "du", lower-case, everywhere (issue 31): "Melde dich mit deinem
Kanzlei-Zugang an", never "Melde Dich mit Deinem …" nor "Melden Sie sich …".

The scan reads every text a user may see — the templates (text and the attributes a screen reader
or a tooltip shows), the static JavaScript's string literals, the German strings in the apps' Python
code, the admin translations in akten/locale — and fails on

- a capitalised du-form inside a sentence ("auf Deine Freigabe", "Keine Verbindung – Deine …"). At
  the start of a sentence, a heading or a label ("Dein Konto", "Du"), after a colon that opens a
  whole sentence ("Keine Verbindung: Du bist …") and in a compound ("Du-Form") it is right;
- the polite form inside a sentence ("Bitte geben Sie …", "in Ihrem Browser"). A capitalised "Sie"
  or "Ihr" at a sentence's start may be "she" or "their" ("Sie bleibt im Eingabefeld"), so only
  the middle of a sentence counts.

The letters of the demo Muster speak to a court, an opponent or a client with "Sie", as they must;
those modules (THIRD_PARTY) are not scanned for the polite form.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("akten", "drafts", "helena", "config")
THIRD_PARTY = {"akten/demo.py", "akten/demo_frueher.py", "helena/conversations/demo.py",  # letters to others
               "helena/knowledge/demo.py"}

DU = r"Du|Dich|Dir|Dein(?:e|en|em|er|es)?"
SIE = r"Sie|Ihnen|Ihr(?:e|en|em|er|es)?"
BOUNDARY = "\u2029"  # stands for the start of a text (a block element, a new line of code)
SENTENCE_START = re.compile(r"(?:^|[.!?:\u2029])[\s\"„“‚‘»«(\[*_#>-]*$")
# Inline markup does not start a sentence; every other tag does.
INLINE_TAGS = re.compile(r"</?(?:a|abbr|b|code|em|i|kbd|mark|q|s|small|span|strong|sub|sup|time|u)\b[^>]*>")
ANY_TAG = re.compile(r"<[^>]+>")
SHOWN_ATTRIBUTES = re.compile(r'\b(?:aria-label|title|placeholder|alt)="([^"]*)"')


def _mid_sentence(text: str, words: str) -> Iterator[str]:
    """The capitalised words of `words` that stand inside a sentence of `text`, with context."""
    for found in re.finditer(rf"\b(?:{words})\b(?!-)", text):
        if not SENTENCE_START.search(text[:found.start()]):
            yield " ".join(text[max(0, found.start() - 40):found.end() + 30].split())


def _template_texts(source: str) -> Iterator[str]:
    source = re.sub(r"{#.*?#}|{%\s*comment\s*%}.*?{%\s*endcomment\s*%}", "", source, flags=re.S)
    source = re.sub(r"{{.*?}}", "x", source, flags=re.S)  # a value stands inside the sentence
    source = re.sub(r"{%.*?%}", "", source, flags=re.S)
    yield from SHOWN_ATTRIBUTES.findall(source)
    yield ANY_TAG.sub(BOUNDARY, INLINE_TAGS.sub("", source))


def _js_texts(source: str) -> Iterator[str]:
    source = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
    source = re.sub(r"(?m)(^|\s)//.*$", r"\1", source)
    for literal in re.findall(r'"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`', source):
        yield re.sub(r"\$\{[^}]*\}", "x", "".join(literal))


def _python_texts(source: str) -> Iterator[str]:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.JoinedStr):
            # A value in an f-string is often a whole sentence ("{exc} Dein Auftrag …"): it may end one.
            yield "".join(part.value if isinstance(part, ast.Constant) else "x." for part in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value.replace("\n", BOUNDARY)


def _po_texts(source: str) -> Iterator[str]:
    for block in re.findall(r'msgstr ((?:"(?:[^"\\]|\\.)*"\s*)+)', source):
        yield "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', block))


def _sources() -> Iterator[tuple[str, Iterator[str]]]:
    for path in sorted((ROOT / "templates").rglob("*.html")):
        yield str(path.relative_to(ROOT)), _template_texts(path.read_text(encoding="utf-8"))
    for path in sorted((ROOT / "static").rglob("*.js")):
        yield str(path.relative_to(ROOT)), _js_texts(path.read_text(encoding="utf-8"))
    for path in sorted((ROOT / "akten" / "locale").rglob("*.po")):
        yield str(path.relative_to(ROOT)), _po_texts(path.read_text(encoding="utf-8"))
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" not in path.parts:
                yield str(path.relative_to(ROOT)), _python_texts(path.read_text(encoding="utf-8"))


def findings() -> list[str]:
    found: list[str] = []
    for name, texts in _sources():
        for text in texts:
            found += [f"{name}: „{hit}“" for hit in _mid_sentence(text, DU)]
            if name not in THIRD_PARTY:
                found += [f"{name}: „{hit}“ (Sie-Form)" for hit in _mid_sentence(text, SIE)]
    return found


def test_user_facing_texts_use_lower_case_du() -> None:
    assert findings() == []


@pytest.mark.parametrize(("text", "wrong"), [
    ("Melde Dich mit Deinem Kanzlei-Zugang an.", ["Dich", "Deinem"]),
    ("Keine Verbindung – Deine Nachricht wurde nicht gesendet.", ["Deine"]),
    ("Bitte geben Sie Ihr Passwort ein.", ["Sie", "Ihr"]),
    ("Dein Konto", []),
    ("Du", []),
    ("Keine Verbindung: Du bist nicht angemeldet. Dein Token gilt weiter.", []),
    ("Antworte vollständig auf Deutsch (Du-Form).", []),
    ("Sie bleibt im Eingabefeld.", []),
])
def test_the_scan_tells_a_sentence_start_from_the_middle(text: str, wrong: list[str]) -> None:
    hits = list(_mid_sentence(text, DU)) + list(_mid_sentence(text, SIE))
    assert len(hits) == len(wrong) and all(any(w in h for h in hits) for w in wrong)


def test_the_scan_reads_templates_and_scripts_as_a_user_sees_them() -> None:
    template = ('<p>Keine Entwürfe warten auf <strong>Deine</strong> Freigabe.</p>'
                '<h1>{% if a %}Dein Konto</h1>')
    [hit] = [hit for text in _template_texts(template) for hit in _mid_sentence(text, DU)]
    assert hit.startswith("Keine Entwürfe warten auf Deine Freigabe.")
    attribute = '<span aria-label="{{ n }} warten auf Deine Freigabe">'
    assert len([h for text in _template_texts(attribute) for h in _mid_sentence(text, DU)]) == 1
    script = 'const a = `${n} für Dich`; // Dein Kommentar\nconst b = "Dein Konto";'
    assert [hit for text in _js_texts(script) for hit in _mid_sentence(text, DU)] == ["x für Dich"]
    code = 'message = ("Das ging nicht, "\n           "Du hast keinen Zugriff.")\n'
    assert len([h for text in _python_texts(code) for h in _mid_sentence(text, DU)]) == 1
