"""Lay words → the terms the statutes use.

Clients and trainees ask "Mein Chef hat mir gekündigt"; the KSchG says "Arbeitgeber" and
"Kündigung". The german stemmer cannot bridge that, so a question's lay words add these legal
terms to the search at a lower weight. Keys are matched as word prefixes on the lower-cased
question; values are plain German words (stemmed by PostgreSQL like everything else).
Written from general legal usage, not tuned to single questions.
"""

from __future__ import annotations

import re

from helena.knowledge.laienbegriffe import LAIENBEGRIFFE_ALLGEMEIN

LAIENBEGRIFFE: dict[str, str] = {
    # Questions about time limits (the phrase is replaced by the legal concept)
    "wie lange habe ich": "Frist",
    "wie lange kann ich": "Frist",
    "wie lange vorher": "Frist",
    "wie lange": "Frist Dauer",
    "zeit habe ich": "Frist",
    "habe ich zeit": "Frist",
    "habe ich noch zeit": "Frist",
    "zeit zu": "Frist",
    "bis wann": "Frist binnen",
    "wie viel zeit": "Frist",
    "zu spät": "Frist Versäumung",
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
    # Unfall, Schaden
    "unfall": "Schadensersatz unerlaubte Handlung",
    "aufs auto gefahren": "Schadensersatz Beschädigung Eigentum",
    "schmerzensgeld": "immaterieller Schaden Entschädigung in Geld",
    "mitschuld": "Mitverschulden",
    "selbst schuld": "Mitverschulden",
    "zu schnell": "Mitverschulden",
    "gutachten": "Herstellung erforderlichen Geldbetrag",
    "ansprüche": "Anspruch Verjährung",
    # Handel, Insolvenz, Urheber, Wettbewerb, Datenschutz
    "onlineshop": "Handelsgewerbe Gewerbebetrieb",
    "gewerbe": "Handelsgewerbe Gewerbebetrieb",
    "reklamieren": "Untersuchungs- und Rügepflicht Mangel anzeigen",
    "reklamation": "Rügepflicht Mangel anzeigen",
    "handelsvertreter": "Handelsvertreter Ausgleichsanspruch",
    "aufheben": "Aufbewahrung Aufbewahrungsfristen",
    "buchungsbelege": "Buchungsbelege Handelsbücher Aufbewahrung",
    "insolvenz anmelden": "Antragspflicht Insolvenzantrag",
    "privatinsolvenz": "Restschuldbefreiung Verbraucherinsolvenz",
    "schulden los": "Restschuldbefreiung",
    "offenen rechnung": "Anmeldung der Forderungen Insolvenzverwalter",
    "offene rechnung": "Anmeldung der Forderungen Insolvenzverwalter",
    "geschützt": "Schutzfrist Schutz erlischt",
    "kopie": "Vervielfältigung privaten Gebrauch",
    "brennen": "Vervielfältigung privaten Gebrauch",
    "quelle": "Zitate Quellenangabe",
    "zitieren": "Zitate Quellenangabe",
    "newsletter": "Werbung elektronischer Post unzumutbare Belästigungen",
    "werbe": "Werbung unzumutbare Belästigungen",
    "kamera": "Videoüberwachung optisch-elektronischen Einrichtungen öffentlich zugänglicher Räume",
    "videoüberwachung": "Videoüberwachung optisch-elektronischen Einrichtungen",
    "personalakte": "Beschäftigungsverhältnis Daten von Beschäftigten",
    "diagnose": "Gesundheitsdaten besondere Kategorien personenbezogener Daten",
    # Verwaltung, Soziales, Sonstiges
    "bescheid": "Verwaltungsakt Bescheid",
    "behörde": "Behörde Verwaltungsakt",
    "entscheidet nicht": "Untätigkeitsklage ohne zureichenden Grund nicht entschieden",
    "nicht entschieden": "ohne zureichenden Grund nicht entschieden",
    "belehrung": "Rechtsbehelfsbelehrung",
    "wie und bis wann": "Rechtsbehelfsbelehrung",
    "jobcenter": "Verwaltungsakt Sozialgericht",
    "sofort befolgen": "aufschiebende Wirkung",
    "aufschiebend": "aufschiebende Wirkung",
    "halben jahr nicht": "Untätigkeitsklage ohne zureichenden Grund nicht entschieden",
    "untätig": "Untätigkeitsklage ohne zureichenden Grund nicht entschieden",
    "steht gar nicht drin": "Rechtsbehelfsbelehrung unterblieben",
    "polizei": "Vernehmung Beschuldigter",
    "vorladung": "Vernehmung Ladung",
    "aussage machen": "Aussage Vernehmung des Beschuldigten",
    "verjährt ein": "Verfolgungsverjährung Verjährungsfrist",
    "mitnehmen": "Pfändung unpfändbare Sachen",
    "beratungsgespräch": "Beratung Erstberatung Gebühr",
    "erstberatung": "Beratung Erstberatung Gebühr",
    "zum amtsgericht": "Zuständigkeit der Amtsgerichte",
    "gegenseite": "Kostentragungspflicht unterliegende Partei",
    "nichts vereinbart": "Vergütung nach dem Gegenstandswert",
    "scheiden lassen": "Scheidung Scheitern der Ehe",
    "hälfte": "Ausgleichsforderung Zugewinnausgleich",
    "pleite": "Insolvenz Zahlungsunfähigkeit Insolvenzantrag",
    "insolvenz": "Insolvenz Zahlungsunfähigkeit",
    "fotos": "Lichtbilder Urheber",
    "foto": "Lichtbilder Urheber",
    "kopieren": "Vervielfältigung Privatkopie",
    "daten": "personenbezogene Daten Datenschutz",
}

# Words that shape a question but say nothing about its subject. PostgreSQL's german stop
# list drops "wie", "ich", "habe"; these survive it and would otherwise count as content.
FRAGEWOERTER = (
    "wie lange", "wie viel", "wie viele", "wieviel", "wann", "welche", "welcher", "welches", "warum",
    "darf", "dürfen", "darfst", "muss", "müssen", "musst", "kann", "können", "könnte", "sollte",
    "gilt", "gelten", "bekomme", "bekommen", "passiert", "eigentlich", "überhaupt", "trotzdem",
    "jetzt", "noch", "schon", "genau", "bitte", "einfach", "wirklich", "gerade", "unbedingt",
    "mein", "meine", "meinem", "meinen", "meiner", "unser", "unsere", "unserem", "unseren",
    "stimmt", "richtig", "geht", "gibt", "frage", "fragen", "jemand", "etwas", "irgendwie",
    # auxiliaries and function words the german stop list keeps, frequent in questions
    "wurde", "wurden", "worden", "werde", "werden", "wird", "wirst", "würde", "würden", "ist",
    "sind", "war", "waren", "hat", "hatte", "hatten", "haben", "habe", "hast", "sei", "wäre",
    "beim", "dass", "trotz", "dagegen", "deswegen", "deshalb", "darum", "also", "mal", "nur",
    "seit", "ganz", "normal", "kommt", "kommen", "macht", "machen", "lassen", "lässt", "sagt",
    "sagen", "meint", "weiß", "wusste", "will", "wollen", "möchte", "möchten", "soll", "sollen",
    "neben", "nebenbei", "letztes", "letzten", "heute", "gestern", "morgen", "immer", "nie",
    "niemals", "oft", "sofort", "bald", "dann", "danach", "vorher", "damit", "dafür", "davon",
    "daran", "darauf", "hier", "dort", "da", "so", "sehr", "viel", "viele", "wenig", "mehr",
    "weniger", "andere", "anderen", "anderer", "einem", "einer", "eines", "jetzt", "nun", "okay",
    "ok", "ja", "nein", "na", "eben", "halt", "doch", "wohl", "zwar", "bzw", "usw", "etc",
)

# Concepts the statutes mostly express without naming them: a Frist is "binnen eines Monats",
# "innerhalb von drei Wochen". Keys and values are german snowball stems (as in the index).
STAMM_SYNONYME: dict[str, tuple[str, ...]] = {
    "frist": ("binn", "innerhalb", "woch", "monat"),
    "kundig": ("kundigungsfrist", "gekundigt", "auflos"),
    "kosten": ("gebuhr", "auslag", "vergut"),
}

def _table(*, allgemein: bool = True, eigen: bool = True) -> dict[str, str]:
    """The general table (laienbegriffe.py) overlaid with the entries above."""
    table: dict[str, str] = dict(LAIENBEGRIFFE_ALLGEMEIN) if allgemein else {}
    if eigen:
        for key, legal in LAIENBEGRIFFE.items():
            table[key] = f"{table[key]} {legal}" if key in table and legal not in table[key] else legal
    return table


def _compile(table: dict[str, str]) -> re.Pattern[str]:
    keys = sorted(table, key=len, reverse=True)  # the longest phrase wins at a position
    return re.compile(r"(?<![a-zäöüß])(" + "|".join(map(re.escape, keys)) + r")[a-zäöüß]*")


TABLE = _table()
_PATTERN = _compile(TABLE)
_FRAGE_RE = re.compile(r"(?<![a-zäöüß])(" + "|".join(map(re.escape, FRAGEWOERTER)) + r")(?![a-zäöüß])")


def umschreiben(question: str) -> tuple[str, str]:
    """Split a question into (its own content words, the legal terms its lay words stand for).

    Lay words and question words are removed from the first part: "gekündigt" would otherwise
    count as a rare and therefore heavy word, while "Kündigung" is what the statutes say.
    """
    terms: list[str] = []

    def replace(match: re.Match[str]) -> str:
        legal = TABLE[match.group(1)]
        if legal not in terms:
            terms.append(legal)
        return " "

    text = _PATTERN.sub(replace, question.lower())
    text = _FRAGE_RE.sub(" ", text)
    return " ".join(text.split()), " ".join(terms)


def fachwoerter(text: str) -> str:
    """The statutes' words for the text's lay words, each once, for the semantic model: a word the
    writer already took from the statutes ("Arbeitsgericht", "Berufungsfrist") is not expanded, since
    its expansion would pull the question towards its neighbours (§ 54 ArbGG Güteverhandlung)."""
    terms: dict[str, None] = {}
    for match in _PATTERN.finditer(text.lower()):
        legal = TABLE[match.group(1)]
        words = legal.lower().split()
        if any(w.startswith(match.group(1)) for w in words):  # the key is a word of the statutes
            continue
        terms.update(dict.fromkeys(legal.split()))
    return " ".join(terms)
