"""What the loop tells the model when a turn went wrong (no answer, English, an announced lookup
without a call, a broken or cut-off call, a limit reached), and the warnings the user sees then."""

from __future__ import annotations

import re

CONTINUE_OFFER = "Ich bin noch nicht fertig. Möchtest du, dass ich im Hintergrund weitermache?"
FINAL_ANSWER_PROMPT = (
    "Du hast keine weiteren Schritte mehr. Beantworte die Frage jetzt mit dem, was du bisher "
    "herausgefunden hast, und sag offen, was noch fehlt."
)
TOOL_CAP_PROMPT = (
    "Du hast in einem Schritt mehr Werkzeuge aufgerufen als erlaubt; nur die ersten wurden "
    "ausgeführt. Antworte jetzt mit dem, was du hast."
)
PARSE_ERROR_HINT = (
    "Dein letzter Werkzeugaufruf konnte nicht gelesen werden. Rufe das Werkzeug bitte erneut über das "
    "Tool-Calling-Format auf: genau ein Werkzeugname, die Argumente als gültiges JSON-Objekt mit doppelten "
    "Anführungszeichen, ohne abschließende Kommas, ohne Markdown-Codeblöcke und ohne Fließtext im Aufruf. "
    "Your last tool call could not be parsed. Call the tool again using the tool-calling format with valid "
    "JSON arguments (double quotes, no trailing commas, no code fences) and no prose inside the call."
)
GERMAN_PROMPT = (
    "Deine letzte Antwort war auf Englisch. Antworte bitte noch einmal, inhaltlich gleich, "
    "vollständig auf Deutsch (Du-Form)."
)
ANSWER_PROMPT = "Du hast nur überlegt, aber nicht geantwortet. Gib jetzt deine Antwort auf Deutsch."
NUDGE_PROMPT = (
    "Du hast angekündigt, etwas nachzusehen, aber kein Werkzeug aufgerufen. Ruf das passende Werkzeug "
    "jetzt auf, statt es nur anzukündigen; wenn keines passt, antworte direkt."
)
TRUNCATED_PROMPT = (
    "Deine letzte Antwort wurde wegen der Längenbegrenzung mitten im Werkzeugaufruf abgeschnitten "
    "und nicht ausgeführt. Rufe das Werkzeug erneut auf, mit knappen Argumenten und ohne langen Text davor."
)
TRUNCATED_WARNING = (
    "Die Antwort des Modells wurde wegen der Längenbegrenzung mitten in einem Werkzeugaufruf "
    "abgeschnitten; der unvollständige Aufruf wurde nicht ausgeführt (es wurde nichts angelegt)."
)
CUT_ANSWER_WARNING = "Die Antwort des Modells wurde wegen der Längenbegrenzung abgeschnitten."
GUARD_FAILED_WARNING = (
    "Das Modell konnte auch im zweiten Versuch keinen lesbaren Werkzeugaufruf erzeugen."
)
# A turn that only announces a lookup ("Ich schaue mir die Fristen an …") and stops without a call.
_ANNOUNCE_RE = re.compile(
    r"\b(?:ich\s+(?:schaue|sehe|prüfe|suche|rufe|hole|lese|öffne|berechne|recherchiere|frage)"
    r"|ich\s+werde\s+\w+(?:\s+\w+){0,5}\s+(?:nachsehen|nachschauen|prüfen|suchen|abrufen|anlegen|"
    r"berechnen|heraussuchen|durchsuchen|ansehen|lesen)|lass\s+mich|einen\s+(?:moment|augenblick)"
    r"|let\s+me|i\s*'?ll\s+(?:check|look|search)|i\s+will\s+(?:check|look|search))\b",
    re.I,
)


def announces_lookup(text: str) -> bool:
    """Whether an answer only says what Helena is about to look up (and no question to the user)."""
    stripped = text.strip()
    if not stripped or len(stripped) > 400 or stripped.endswith("?"):
        return False
    return bool(_ANNOUNCE_RE.search(stripped))
