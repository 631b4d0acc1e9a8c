"""Lay words → the terms the statutes use.

Clients and trainees ask "Mein Chef hat mir gekündigt"; the KSchG says "Arbeitgeber" and
"Kündigung". The german stemmer cannot bridge that, so a question's lay words add these legal
terms to the search at a lower weight. Keys are matched as word prefixes on the lower-cased
question; values are plain German words (stemmed by PostgreSQL like everything else).
Written from general legal usage, not tuned to single questions.
"""

from __future__ import annotations

import re

LAIENBEGRIFFE: dict[str, str] = {
    # Arbeit
    "chef": "Arbeitgeber",
    "boss": "Arbeitgeber",
    "firma": "Arbeitgeber Betrieb",
    "mitarbeiter": "Arbeitnehmer",
    "angestellte": "Arbeitnehmer",
    "beschäftigte": "Arbeitnehmer",
    "gekündigt": "Kündigung",
    "kündigen": "Kündigung",
    "rausgeworfen": "Kündigung",
    "rausschmiss": "Kündigung",
    "entlassen": "Kündigung Entlassung",
    "gehalt": "Arbeitsentgelt Vergütung",
    "lohn": "Arbeitsentgelt Vergütung Arbeitseinkommen",
    "krankgeschrieben": "Arbeitsunfähigkeit Krankheit",
    "krank": "Arbeitsunfähigkeit Krankheit",
    "gelben schein": "Arbeitsunfähigkeitsbescheinigung ärztliche Bescheinigung",
    "gelbe schein": "Arbeitsunfähigkeitsbescheinigung ärztliche Bescheinigung",
    "krankschreibung": "Arbeitsunfähigkeitsbescheinigung ärztliche Bescheinigung",
    "attest": "ärztliche Bescheinigung",
    "urlaubstage": "Urlaub Urlaubsanspruch",
    "resturlaub": "Urlaub Übertragung Urlaubsjahr",
    "probezeit": "Probezeit Wartezeit",
    "kleinen betrieb": "Kleinbetrieb Arbeitnehmer Betriebe",
    "diskriminier": "Benachteiligung",
    "zu alt": "Benachteiligung Alter",
    "abfindung": "Abfindung",
    "arbeitsvertrag": "Arbeitsverhältnis Arbeitsvertrag",
    "befristet": "Befristung befristeter Arbeitsvertrag",
    # Miete
    "kaution": "Mietsicherheit Sicherheit",
    "nebenkosten": "Betriebskosten Abrechnung",
    "kaputt": "Mangel mangelhaft",
    "defekt": "Mangel mangelhaft",
    "schimmel": "Mangel",
    "weniger miete": "Minderung Miete",
    "mietminderung": "Minderung Miete",
    "ausziehen": "Kündigung Mietverhältnis",
    "abgenutzt": "Abnutzung vertragsgemäßer Gebrauch Veränderungen Verschlechterungen",
    "abnutzung": "vertragsgemäßer Gebrauch Veränderungen Verschlechterungen",
    "renovier": "Schönheitsreparaturen",
    "eigenbedarf": "berechtigtes Interesse Eigenbedarf",
    # Kauf
    "reparatur": "Nacherfüllung Nachbesserung",
    "reparieren": "Nacherfüllung Nachbesserung",
    "umtausch": "Nacherfüllung Lieferung mangelfreien Sache",
    "zurückschicken": "Widerruf Widerrufsrecht",
    "online bestellt": "Fernabsatzverträge Widerrufsrecht",
    "im internet": "Fernabsatzverträge",
    "zurücktreten": "Rücktritt",
    "zurückverlangen": "Minderung Rückgewähr",
    "teil vom kaufpreis": "Minderung Kaufpreis",
    "verjährt": "Verjährung",
    "beweisen": "Beweislast Vermutung",
    "gebrauchtwagen": "Kaufvertrag Sachmangel",
    "rechte habe ich": "Rechte des Käufers bei Mängeln",
    # Verfahren, Kosten, Anwälte
    "anwalt": "Rechtsanwalt",
    "anwältin": "Rechtsanwalt",
    "anwaltskosten": "Kosten Vergütung Rechtsanwalt",
    "honorar": "Vergütung Gebühren",
    "erfolgshonorar": "Erfolgshonorar",
    "nur bezahlt": "Erfolgshonorar",
    "wenn wir gewinnen": "Erfolgshonorar",
    "verliere": "unterliegende Partei Kosten",
    "verlieren": "unterliegende Partei Kosten",
    "gewinne": "obsiegen Kostenerstattung",
    "kein geld": "Prozesskostenhilfe",
    "kaum geld": "Prozesskostenhilfe",
    "wenig geld": "Prozesskostenhilfe",
    "kosten für den prozess": "Prozesskostenhilfe Prozessführung",
    "gerichtsgebühren": "Gebühren Gerichtskosten",
    "gerichtskosten": "Gebühren Gerichtskosten",
    "briefkasten": "Zustellung Einlegung Briefkasten",
    "zugestellt": "Zustellung",
    "nicht da": "Säumnis Versäumnisurteil",
    "verpasst": "Versäumung Wiedereinsetzung",
    "versäumt": "Versäumung Wiedereinsetzung",
    "samstag": "Sonnabend Sonntag allgemeinen Feiertag",
    "wochenende": "Sonnabend Sonntag allgemeinen Feiertag",
    "feiertag": "Sonnabend Sonntag allgemeinen Feiertag",
    "wehren": "Rechtsbehelf Einspruch Widerspruch",
    "pfändung": "Pfändung Pfändungsgrenzen Arbeitseinkommen",
    "gerichtsvollzieher": "Zwangsvollstreckung Gerichtsvollzieher",
    "zahlt nicht": "Verzug Zwangsvollstreckung",
    "offenlegen": "Vermögensauskunft",
    "was er besitzt": "Vermögensauskunft Vermögen",
    "zwingend einen anwalt": "Anwaltsprozess Vertretung durch Rechtsanwälte",
    "brauche ich": "Vertretung durch Rechtsanwälte",
    "streitwert": "Streitwert Wert",
    "mahnung": "Mahnung Verzug",
    "zinsen": "Verzugszinsen Zinsen",
    # Straf- und Berufsrecht
    "erwischt": "Diebstahl Wegnahme",
    "geklaut": "Diebstahl Wegnahme",
    "klauen": "Diebstahl Wegnahme",
    "gestohlen": "Diebstahl Wegnahme",
    "ladendiebstahl": "Diebstahl geringwertiger Sachen",
    "beleidigt": "Beleidigung",
    "anzeigen": "Strafantrag Antragsfrist",
    "anzeige": "Strafantrag Strafanzeige",
    "angegriffen": "Notwehr Angriff",
    "zurückgeschlagen": "Notwehr Verteidigung",
    "weggefahren": "Unerlaubtes Entfernen vom Unfallort",
    "fahrerflucht": "Unerlaubtes Entfernen vom Unfallort",
    "unfallflucht": "Unerlaubtes Entfernen vom Unfallort",
    "erzählen": "Verschwiegenheit Geheimnis offenbart",
    "weitersagen": "Verschwiegenheit Geheimnis offenbart",
    "schweigepflicht": "Verschwiegenheit Verletzung von Privatgeheimnissen",
    "beide ehepartner": "widerstreitende Interessen Parteiverrat",
    "beide seiten": "widerstreitende Interessen Parteiverrat",
    "beide parteien": "widerstreitende Interessen Parteiverrat",
    "aufbewahren": "Handakten Aufbewahrung",
    # Familie und Erbe
    "scheiden": "Scheidung Ehe",
    "getrennt": "Getrenntleben Trennung",
    "angespart": "Zugewinn Zugewinnausgleich",
    "vermögen in der ehe": "Zugewinn",
    "kindesunterhalt": "Unterhalt Mindestunterhalt minderjähriger Kinder",
    "unterhalt": "Unterhalt Unterhaltspflicht",
    "gestorben": "Erbfall Erblasser",
    "kein testament": "gesetzliche Erben Erbfolge",
    "wer erbt": "gesetzliche Erben Erbfolge",
    "enterbt": "Pflichtteil Verfügung von Todes wegen ausgeschlossen",
    "erbe ausschlagen": "Ausschlagung Ausschlagungsfrist Erbschaft",
    "schulden hinterlassen": "Ausschlagung Erbschaft Nachlassverbindlichkeiten",
    "umgang": "Umgangsrecht Umgang",
    # Verwaltung, Soziales, Sonstiges
    "bescheid": "Verwaltungsakt Bescheid",
    "behörde": "Behörde Verwaltungsakt",
    "entscheidet nicht": "Untätigkeitsklage ohne zureichenden Grund nicht entschieden",
    "nicht entschieden": "ohne zureichenden Grund nicht entschieden",
    "belehrung": "Rechtsbehelfsbelehrung",
    "wie und bis wann": "Rechtsbehelfsbelehrung",
    "jobcenter": "Verwaltungsakt Sozialgericht",
    "pleite": "Insolvenz Zahlungsunfähigkeit Insolvenzantrag",
    "insolvenz": "Insolvenz Zahlungsunfähigkeit",
    "fotos": "Lichtbilder Urheber",
    "foto": "Lichtbilder Urheber",
    "kopieren": "Vervielfältigung Privatkopie",
    "daten": "personenbezogene Daten Datenschutz",
}

_PATTERNS = [(re.compile(r"(?<![a-zäöüß])" + re.escape(k)), v) for k, v in LAIENBEGRIFFE.items()]


def fachbegriffe(question: str) -> str:
    """The legal terms the question's lay words stand for, as one space-separated text."""
    lowered = question.lower()
    terms: list[str] = []
    for pattern, legal in _PATTERNS:
        if pattern.search(lowered) and legal not in terms:
            terms.append(legal)
    return " ".join(terms)
