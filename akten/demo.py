"""A demo Kanzlei ("Brandt & Hartmann Rechtsanwälte", Köln) for `manage.py seed_demo`.

Everything here is fictional: persons, firms, addresses, e-mails (reserved ``.example``
domains), phone numbers (ranges reserved for film and TV) and court file numbers.
Court names and cited norms are real; no court decision and no statute text is invented.

Dates are relative to the day of the first run (``timezone.localdate()``): each Akte names
its days as offsets ("Zugang der Kündigung: vor 9 Tagen"); dates of Termine and Fristen are
moved to a Werktag of the Akte's Bundesland, and Fristen with a statutory length (Klagefrist
§ 4 KSchG, Berufung § 517 ZPO, Berufungsbegründung § 520 ZPO) come from `akten.fristen`.

Idempotent: every record is looked up by a natural key that contains no date (Akte by
Aktenzeichen; Beteiligter by Akte+Rolle+Name; Frist by Akte+Bezeichnung; Dokument by
Akte+Titel; Zeiterfassung by Akte+User+Tätigkeit; Notiz by Akte+Verfasser+Titel; Alert by
Akte+Empfänger+Meldung; the Briefkopf when there is none) and only created when
missing, so a re-run, even on a later day, adds nothing and leaves existing rows (and changes
made while demoing) alone. Only the passwords of the five users are set again, their role is
corrected if it differs, a Beteiligter seeded without an Anrede gets the one given here, and a
Dokument whose text is still exactly as an earlier run seeded it gets the current text and its
addressee (the texts hold no letterhead, address, date or signature: the DOCX/PDF frame prints them).
`make run` seeds only a database that holds nothing but the demo (fremde_daten()), so a firm's
database restored into it keeps its users' passwords and gets no demo records.

Access matrix (x = AktenZugriff; `admin` has role ADMIN and sees every Akte without grants):

=========  ==========================================  ======  ==============  ===========  ==========
Akte       Kurzrubrum                                  anwalt  sachbearbeiter  sekretariat  praktikant
=========  ==========================================  ======  ==============  ===========  ==========
101/26     Müller ./. Bauer Logistik GmbH                x           x              x            x
102/26     Hoffmann ./. Lorenz                           x           x              x
103/26     Schäfer ./. Richter u. Isar Assekuranz        x           x                           x
104/26     Krüger ./. Küchenstudio Wendt GmbH            x           x              x
105/26     Neumann ./. Neumann                           x           x
106/26     Fischer ./. Fischer (vertraulich)             x
107/26     Elektro Yilmaz GmbH ./. Rheinwohnen Projekt               x              x
231/25     Wolf ./. Medizintechnik Rhein GmbH            x                          x
=========  ==========================================  ======  ==============  ===========  ==========

So anwalt sees 7 of 8 (not 107/26, Dr. Brandt's own case), sachbearbeiter 6, sekretariat 5,
praktikant 2; 106/26 is visible to anwalt only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from akten.demo_frueher import FRUEHERE_INHALTE
from akten.fristen import berechne_frist, berechne_preset, berechne_vorfrist
from akten.models import (
    Akte,
    AktenZugriff,
    Alert,
    Beteiligter,
    Briefkopf,
    Dokument,
    Frist,
    Notiz,
    Role,
    User,
    Zeiterfassung,
)
from akten.models.dokument import NIEMAND
from akten.services import grant_access

DEFAULT_PASSWORD = "helena-demo"
KANZLEI = "Brandt & Hartmann Rechtsanwälte"
KANZLEI_DOMAIN = "kanzlei-demo.de"

# A day of an Akte: the name of one of its days (AkteSpec.tage / .berechnet) or an offset
# in days from today (negative = past).
Tag = str | int

R = Beteiligter.Rolle
A = Beteiligter.Anrede
G = Akte.Rechtsgebiet
T = Frist.Typ


# --------------------------------------------------------------------------- #
# Record types
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class DemoUser:
    username: str
    role: Role
    first_name: str
    last_name: str
    superuser: bool = False
    berufsbezeichnung: str = ""  # under the signature of what this lawyer signs

    @property
    def email(self) -> str:
        return f"{self.first_name[0].lower()}.{self.last_name.lower()}@{KANZLEI_DOMAIN}"


@dataclass(frozen=True)
class BeteiligterSpec:
    rolle: str
    name: str
    anschrift: str = ""
    telefon: str = ""
    email: str = ""
    aktenzeichen_extern: str = ""
    notiz: str = ""
    anrede: str = ""  # Beteiligter.Anrede; empty for courts


@dataclass(frozen=True)
class FristSpec:
    bezeichnung: str
    am: Tag
    typ: str = T.FRIST
    verantwortlich: str = "anwalt"
    uhrzeit: time | None = None
    vorfrist_tage: int | None = None
    notfrist: bool = False
    erledigt: bool = False
    notiz: str = ""


@dataclass(frozen=True)
class DokumentSpec:
    titel: str
    inhalt: str  # Markdown; "{name}" is replaced by the Akte's day of that name (TT.MM.JJJJ)
    von: str
    am: Tag
    freigegeben: bool = True
    # whom the DOCX/PDF addresses (Dokument.empfaenger: a Beteiligten-role or "niemand"); the frame
    # prints letterhead, address, place and date, Zeichen and signature, so the text has none of them
    empfaenger: str = ""


@dataclass(frozen=True)
class ZeitSpec:
    user: str
    am: Tag
    minuten: int
    taetigkeit: str
    abrechenbar: bool = True


@dataclass(frozen=True)
class AkteSpec:
    aktenzeichen: str
    kurzrubrum: str
    wegen: str
    rechtsgebiet: str
    gegenstandswert: Decimal
    bundesland: str
    anwalt: str
    sachbearbeiter: str | None
    zugriff: tuple[str, ...]
    tags: tuple[str, ...]
    summary: str
    status: str = Akte.Status.OFFEN
    # Named days of the Akte as offsets from today (moved to a Werktag of the Bundesland).
    tage: Mapping[str, int] = field(default_factory=dict)
    # Named days computed by the Fristenrechner: name -> (preset key, name of the start day).
    berechnet: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    beteiligte: tuple[BeteiligterSpec, ...] = ()
    fristen: tuple[FristSpec, ...] = ()
    dokumente: tuple[DokumentSpec, ...] = ()
    zeiten: tuple[ZeitSpec, ...] = ()


@dataclass(frozen=True)
class NotizSpec:
    akte: str | None
    von: str
    titel: str
    inhalt: str


@dataclass(frozen=True)
class AlertSpec:
    akte: str | None
    empfaenger: str | None
    severity: str
    message: str


@dataclass(frozen=True)
class DemoSummary:
    """What the demo Kanzlei consists of after the run, and how many rows this run added."""

    benutzer: tuple[tuple[str, str], ...]  # (username, role label)
    akten: int
    beteiligte: int
    dokumente: int
    fristen: int
    fristen_offen: int
    fristen_ueberfaellig: int
    zeiterfassungen: int
    notizen: int
    alerts: int
    zugriffe: int
    neu_angelegt: int


# --------------------------------------------------------------------------- #
# The firm
# --------------------------------------------------------------------------- #

USERS: tuple[DemoUser, ...] = (
    DemoUser("admin", Role.ADMIN, "Katharina", "Brandt", superuser=True, berufsbezeichnung="Rechtsanwältin"),
    DemoUser("anwalt", Role.ANWALT, "Maximilian", "Hartmann", berufsbezeichnung="Rechtsanwalt"),
    DemoUser("sachbearbeiter", Role.SACHBEARBEITER, "Lea", "Schmitt"),
    DemoUser("sekretariat", Role.SEKRETARIAT, "Sandra", "Koch"),
    DemoUser("praktikant", Role.PRAKTIKANT, "Felix", "Wagner"),
)

# The letterhead of every DOCX/PDF and the KANZLEI_* of the Muster: the address the demo texts use.
BRIEFKOPF = {
    "kanzlei": KANZLEI,
    "anschrift": "Lindenallee 12\n50968 Köln",
    "ort": "Köln",
    "telefon": "0221 4710-100",
    "email": f"kanzlei@{KANZLEI_DOMAIN}",
    "kontakt": "Fax 0221 4710-109",
    "fusszeile": f"{KANZLEI} · Lindenallee 12 · 50968 Köln · Rechtsanwaltskammer Köln\n"
                 "Commerzbank Köln · IBAN DE89 3704 0044 0532 0130 00 · BIC COBADEFFXXX",
}

# --- 101/26 Kündigungsschutz ------------------------------------------------ #

_101_KUENDIGUNG = """# Kündigungsschreiben der Bauer Logistik GmbH – Zusammenfassung

- **Datum des Schreibens:** {kuendigung_zugang}
- **Zugang:** {kuendigung_zugang}, Einwurf durch Boten in den Hausbriefkasten des Mandanten
  (laut Mandant am Vormittag)
- **Art:** ordentliche, betriebsbedingte Kündigung „fristgerecht zum nächstmöglichen Zeitpunkt“
- **Unterzeichnet:** Geschäftsführer Frank Bauer, eigenhändig; Schriftform (§ 623 BGB) gewahrt,
  Original liegt vor
- **Begründung im Schreiben:** Wegfall der Position „Lagerleitung Schicht B“ infolge der
  Zusammenlegung der Lagerstandorte Porz und Lind
- **Betriebsrat:** „Der Betriebsrat wurde ordnungsgemäß angehört.“ Eine Stellungnahme des
  Betriebsrats ist nicht beigefügt.
- **Abfindung:** kein Hinweis nach § 1a KSchG

## Erste Einschätzung

Nach § 622 Abs. 2 S. 1 Nr. 4 BGB beträgt die Kündigungsfrist bei mehr als zehn Jahren
Betriebszugehörigkeit vier Monate zum Ende eines Kalendermonats; der Arbeitsvertrag verweist
auf die gesetzlichen Fristen.

Die Klagefrist von drei Wochen ab Zugang (§ 4 S. 1 KSchG) endet am **{klagefrist}**. Wird sie
versäumt, gilt die Kündigung als von Anfang an wirksam (§ 7 KSchG).

Ansatzpunkte: Sozialauswahl (§ 1 Abs. 3 KSchG) – die Schichtleiter der Schichten A und C sind
jünger, kürzer beschäftigt und nach Kenntnis des Mandanten ohne Unterhaltspflichten –
sowie die Anhörung des Betriebsrats (§ 102 Abs. 1 BetrVG).
"""

_101_VERMERK = """# Aktenvermerk

**Akte:** 101/26 Müller ./. Bauer Logistik GmbH
**Anlass:** Erstberatung am {erstberatung}, ca. 60 Minuten
**Anwesend:** Herr Thomas Müller, RA Hartmann

## Sachverhalt laut Mandant

- seit elf Jahren bei der Bauer Logistik GmbH beschäftigt, zuletzt Lagerleiter Schicht B,
  4.100 € brutto im Monat
- 46 Jahre alt, verheiratet, zwei Kinder (9 und 13 Jahre); die Ehefrau arbeitet in Teilzeit
- Kündigung am {kuendigung_zugang} erhalten; vorher weder Personalgespräch noch Abmahnung
- im Betrieb rund 140 Arbeitnehmer, ein Betriebsrat ist gewählt
- die Schichtleiter der Schichten A und C (beide Anfang 30, seit drei bzw. vier Jahren im
  Betrieb) wurden nicht gekündigt

## Rechtliche Einschätzung (vorläufig)

Das Kündigungsschutzgesetz ist anwendbar (§ 1 Abs. 1, § 23 Abs. 1 KSchG). Die Tatsachen, die
die Kündigung bedingen, muss die Arbeitgeberin beweisen (§ 1 Abs. 2 S. 4 KSchG). Aussichtsreich
ist vor allem die Rüge der Sozialauswahl (§ 1 Abs. 3 S. 1 KSchG): Nach Betriebszugehörigkeit,
Lebensalter und Unterhaltspflichten ist der Mandant deutlich schutzwürdiger als die
vergleichbaren Schichtleiter. Die ordnungsgemäße Anhörung des Betriebsrats wird mit Nichtwissen
bestritten.

## Vereinbartes Vorgehen

1. Kündigungsschutzklage zum Arbeitsgericht Köln; die Klagefrist endet am {klagefrist},
   Einreichung spätestens zur Vorfrist.
2. Deckungsanfrage an die Rheinische Rechtsschutz AG (Sekretariat).
3. Der Mandant meldet sich unverzüglich arbeitsuchend (§ 38 Abs. 1 SGB III).
4. Ziel des Mandanten: Weiterbeschäftigung, hilfsweise eine angemessene Abfindung.
"""

_101_KLAGE = f"""# Entwurf – Kündigungsschutzklage

**Klage**

des Herrn Thomas Müller, Eichenweg 7, 51147 Köln
– Kläger –

Prozessbevollmächtigte: {KANZLEI}, Lindenallee 12, 50968 Köln

gegen

die Bauer Logistik GmbH, vertreten durch den Geschäftsführer Frank Bauer,
Industriestraße 40, 51149 Köln
– Beklagte –

wegen Kündigungsschutz.

Namens und in Vollmacht des Klägers erheben wir Klage und werden beantragen:

1. Es wird festgestellt, dass das Arbeitsverhältnis der Parteien durch die Kündigung der
   Beklagten vom {{kuendigung_zugang}} nicht aufgelöst wird.
2. Die Beklagte wird verurteilt, den Kläger für den Fall des Obsiegens mit dem Antrag zu 1.
   bis zum rechtskräftigen Abschluss des Verfahrens zu unveränderten Arbeitsbedingungen als
   Lagerleiter weiterzubeschäftigen.

## Begründung

**1. Arbeitsverhältnis.** Der Kläger ist seit elf Jahren bei der Beklagten beschäftigt, zuletzt
als Lagerleiter mit einem Bruttomonatsgehalt von 4.100 €. Er ist 46 Jahre alt, verheiratet und
zwei Kindern zum Unterhalt verpflichtet.

**2. Kündigung.** Mit Schreiben vom {{kuendigung_zugang}}, dem Kläger am selben Tag zugegangen,
kündigte die Beklagte das Arbeitsverhältnis ordentlich zum nächstmöglichen Zeitpunkt.

**3. Anwendbarkeit des KSchG.** Die Beklagte beschäftigt regelmäßig mehr als zehn
Arbeitnehmer (§ 23 Abs. 1 KSchG); das Arbeitsverhältnis besteht länger als sechs Monate
(§ 1 Abs. 1 KSchG).

**4. Soziale Rechtfertigung.** Die Kündigung ist sozial ungerechtfertigt (§ 1 Abs. 2 KSchG).
Dringende betriebliche Erfordernisse werden bestritten. Jedenfalls ist die Sozialauswahl
fehlerhaft (§ 1 Abs. 3 S. 1 KSchG): Die Schichtleiter der Schichten A und C sind mit dem
Kläger vergleichbar, aber deutlich jünger, kürzer beschäftigt und nicht unterhaltspflichtig.

**5. Betriebsrat.** Die ordnungsgemäße Anhörung des Betriebsrats (§ 102 Abs. 1 BetrVG) wird mit
Nichtwissen bestritten (§ 138 Abs. 4 ZPO).

Vorläufiger Streitwert: 12.300,00 € (§ 42 Abs. 2 S. 1 GKG, Vierteljahresverdienst).

*[Entwurf – noch nicht eingereicht; Beweisangebote und Anlagen K1–K4 ergänzen.]*
"""

# --- 102/26 Räumung ---------------------------------------------------------- #

_102_KUENDIGUNG = """\
**Mietverhältnis über die Wohnung Glogauer Straße 19, 2. OG links, 10999 Berlin
hier: fristlose, hilfsweise ordentliche Kündigung**

Sehr geehrter Herr Lorenz,

wir zeigen an, dass wir Ihre Vermieterin, Frau Renate Hoffmann, anwaltlich vertreten; eine auf
uns lautende Originalvollmacht ist beigefügt (§ 174 BGB).

Sie haben die Miete für die letzten drei Monate (jeweils 1.150,00 €, zusammen 3.450,00 €) trotz
Fälligkeit nicht gezahlt. Damit sind Sie für zwei aufeinander folgende Termine mit mehr als einer
Monatsmiete in Verzug.

Namens und in Vollmacht unserer Mandantin kündigen wir das Mietverhältnis

1. **fristlos** aus wichtigem Grund wegen Zahlungsverzugs (§ 543 Abs. 1, Abs. 2 S. 1 Nr. 3 BGB,
   § 569 Abs. 3 BGB),
2. **hilfsweise ordentlich** zum nächstzulässigen Termin wegen schuldhafter, nicht unerheblicher
   Verletzung Ihrer vertraglichen Pflichten (§ 573 Abs. 1, Abs. 2 Nr. 1 BGB).

Wir fordern Sie auf, die Wohnung bis zum {raeumungsfrist} zu räumen und mit sämtlichen
Schlüsseln an unsere Mandantin herauszugeben (§ 546 Abs. 1 BGB). Einer stillschweigenden
Verlängerung des Mietverhältnisses (§ 545 BGB) wird bereits jetzt widersprochen.

Vorsorglich weisen wir auf die Möglichkeit hin, der ordentlichen Kündigung nach §§ 574 bis 574b
BGB schriftlich zu widersprechen (§ 568 Abs. 2 BGB).

Mit freundlichen Grüßen
"""

_102_KLAGE = """# Klage auf Räumung und Zahlung (Auszug)

**Klage** der Frau Renate Hoffmann, Kaiserdamm 88, 14057 Berlin – Klägerin –
gegen Herrn Kevin Lorenz, Glogauer Straße 19, 10999 Berlin – Beklagter –
wegen Räumung und Zahlung.

Streitwert: 14.850,00 € (Räumung: Jahresbetrag der Nettokaltmiete, 12 × 950,00 € = 11.400,00 €,
§ 41 Abs. 2 GKG; Zahlung: 3.450,00 €).

## Anträge

1. Der Beklagte wird verurteilt, die Wohnung Glogauer Straße 19, 2. OG links, 10999 Berlin,
   bestehend aus drei Zimmern, Küche, Bad, Flur und dem Kellerabteil Nr. 7, zu räumen und an die
   Klägerin herauszugeben.
2. Der Beklagte wird verurteilt, an die Klägerin 3.450,00 € nebst Zinsen in Höhe von fünf
   Prozentpunkten über dem Basiszinssatz aus jeweils 1.150,00 € seit dem jeweiligen
   Fälligkeitstag zu zahlen.
3. Für den Fall der Fristversäumnis im schriftlichen Vorverfahren wird der Erlass eines
   Versäumnisurteils beantragt (§ 331 Abs. 3 ZPO).

## Begründung (Auszug)

Die Parteien verbindet ein Mietvertrag über die oben bezeichnete Wohnung; die Miete beträgt
950,00 € netto kalt zuzüglich 200,00 € Betriebskostenvorauszahlung. Der Beklagte hat die Miete
für drei aufeinander folgende Monate nicht gezahlt.

Mit Schreiben vom {kuendigung}, das die Zeugin Schulte am selben Tag in den Briefkasten des
Beklagten eingeworfen hat, hat die Klägerin fristlos, hilfsweise ordentlich gekündigt. Die
Räumungsfrist bis zum {raeumungsfrist} ist fruchtlos verstrichen.

Der Räumungsanspruch folgt aus § 546 Abs. 1 BGB und § 985 BGB, der Zahlungsanspruch aus § 535
Abs. 2 BGB, der Zinsanspruch aus §§ 286, 288 Abs. 1 BGB. Das Amtsgericht ist ausschließlich
zuständig (§ 23 Nr. 2 lit. a GVG, § 29a Abs. 1 ZPO).
"""

# --- 103/26 Verkehrsunfall --------------------------------------------------- #

_103_ANSPRUCH = """\
**Ihr Versicherungsnehmer: Stefan Richter – Schaden-Nr. KH-26-0481137
Verkehrsunfall vom {unfall} in München-Giesing**

Sehr geehrte Damen und Herren,

wir zeigen an, dass wir Frau Julia Schäfer, Pilgersheimer Straße 21, 81543 München, vertreten;
Vollmacht anbei.

## Unfallhergang

Am {unfall} gegen 17:40 Uhr befuhr unsere Mandantin mit ihrem Pkw VW Golf eine Kreuzung
ohne Verkehrszeichen, an der „rechts vor links“ gilt. Ihr Versicherungsnehmer näherte sich von
links, missachtete die Vorfahrt unserer Mandantin (§ 8 Abs. 1 S. 1 StVO) und stieß gegen die
Fahrerseite ihres Fahrzeugs. Der Unfall wurde polizeilich aufgenommen; ein unbeteiligter Zeuge
hat den Hergang beobachtet.

## Haftung

Ihr Versicherungsnehmer haftet als Halter nach § 7 Abs. 1 StVG, als Fahrer nach § 18 Abs. 1
StVG und nach § 823 Abs. 1 BGB; Sie haften unmittelbar nach § 115 Abs. 1 S. 1 Nr. 1 VVG. Die
Betriebsgefahr des Fahrzeugs unserer Mandantin tritt hinter dem Vorfahrtsverstoß vollständig
zurück.

## Schaden

| Position | Betrag |
|---|---:|
| Reparaturkosten laut Gutachten (brutto, Reparatur durchgeführt) | 7.842,16 € |
| Sachverständigenkosten | 986,30 € |
| Nutzungsausfall, 14 Tage à 59,00 € | 826,00 € |
| Allgemeine Kostenpauschale | 25,00 € |
| **Summe** | **9.679,46 €** |

Gutachten, Reparaturrechnung und Rechnung des Sachverständigen fügen wir bei. Unsere
Mandantin ist nicht zum Vorsteuerabzug berechtigt.

Wir fordern Sie auf, den Betrag von 9.679,46 € bis zum **{regulierungsfrist}** auf das im
Briefkopf genannte Kanzleikonto zu zahlen. Die Kosten unserer Inanspruchnahme sind Teil des
Schadens (§ 249 Abs. 1 BGB); unsere Kostennote liegt bei.

Mit freundlichen Grüßen
"""

_103_ZEUGE = """# Aktenvermerk: Telefonat mit dem Zeugen Martin Kaiser

**Datum:** {telefonat_zeuge}, ca. 15 Minuten
**Gesprächspartner:** Herr Martin Kaiser (Zeuge, Kontakt über die polizeiliche Unfallmitteilung)

Herr Kaiser hat den Unfall als Fußgänger von der Straßenecke aus beobachtet. Nach seiner
Schilderung kam der Wagen des Herrn Richter von links „zügig, ohne zu bremsen“ in die Kreuzung;
Frau Schäfer sei langsam und bereits in der Kreuzung gewesen. Herr Richter habe nach dem Unfall
gesagt, er habe „die Kreuzung für eine Vorfahrtstraße gehalten“.

Herr Kaiser ist bereit, als Zeuge auszusagen, und bittet um Kontakt per E-Mail. Seine Angaben
decken sich mit denen der Mandantin und mit der Unfallskizze im Gutachten.

**Weiteres:** Akteneinsicht in die Bußgeldakte abwarten; Zeugen im Anspruchsschreiben nur
allgemein erwähnt, Name erst im Prozess benennen.
"""

# --- 104/26 Kaufrecht -------------------------------------------------------- #

_104_MAENGELRUEGE = """\
**Kaufvertrag vom {kaufvertrag} über eine Einbauküche einschließlich Lieferung und Montage
(Auftrags-Nr. KW-0117) – Mängelrüge und Aufforderung zur Nacherfüllung**

Sehr geehrter Herr Wendt,

wir vertreten Frau Sabine Krüger, Podbielskistraße 212, 30177 Hannover; Vollmacht anbei.

Die am {montage} gelieferte und von Ihren Monteuren eingebaute Küche weist folgende Mängel auf:

1. Die Arbeitsplatte ist am Ausschnitt für die Spüle aufgequollen; die Schnittkante ist
   offenbar nicht versiegelt worden.
2. Die Front des integrierten Geschirrspülers schließt nicht bündig und schleift beim Öffnen an
   der benachbarten Schrankfront.
3. Der Hängeschrank links neben der Dunstabzugshaube ist sichtbar schief montiert (Abweichung
   etwa 8 mm auf 60 cm).

Fotos sind beigefügt. Eine unsachgemäß durchgeführte vereinbarte Montage begründet einen
Sachmangel (§ 434 Abs. 4 BGB). Da es sich um einen Verbrauchsgüterkauf handelt, wird zudem
vermutet, dass die Mängel bereits bei Gefahrübergang vorlagen (§§ 474, 477 Abs. 1 BGB).

Namens unserer Mandantin verlangen wir Nacherfüllung durch Beseitigung sämtlicher Mängel
(§ 437 Nr. 1, § 439 Abs. 1 BGB) und setzen Ihnen hierfür eine Frist bis zum
**{nacherfuellungsfrist}**. Bitte stimmen Sie einen Termin unmittelbar mit unserer Mandantin
ab. Die erforderlichen Aufwendungen, insbesondere Transport-, Wege-, Arbeits- und
Materialkosten, tragen Sie (§ 439 Abs. 2 BGB).

Nach fruchtlosem Fristablauf wird unsere Mandantin ihre weiteren Rechte geltend machen,
insbesondere vom Vertrag zurücktreten oder den Kaufpreis mindern und Schadensersatz verlangen
(§ 437 Nr. 2 und 3, §§ 323, 441, 280, 281 BGB).

Mit freundlichen Grüßen
"""

_104_RUECKTRITT = """# Entwurf – Rücktritt vom Kaufvertrag

*Nur verwenden, wenn die Nacherfüllungsfrist bis zum {nacherfuellungsfrist} fruchtlos abläuft.*

Sehr geehrter Herr Wendt,

die Ihnen mit Schreiben vom {maengelruege} gesetzte Frist zur Nacherfüllung ist fruchtlos
abgelaufen. Namens und in Vollmacht unserer Mandantin erklären wir hiermit den **Rücktritt** vom
Kaufvertrag vom {kaufvertrag} (§ 437 Nr. 2, § 323 Abs. 1, § 346 Abs. 1 BGB).

Wir fordern Sie auf, den Kaufpreis von 14.890,00 € bis zum [Datum] an unsere Mandantin zurückzuzahlen,
Zug um Zug gegen Rückgabe der Küche, die Sie auf Ihre Kosten abzubauen und abzuholen haben.
Schadensersatzansprüche, insbesondere wegen der Kosten eines Ersatzeinbaus, bleiben
vorbehalten (§ 325 BGB).

---

**Intern (vor Versand klären):**

- Erheblichkeit der Mängel prüfen (§ 323 Abs. 5 S. 2 BGB); Kosten der Mängelbeseitigung
  schätzen lassen. Ist die Pflichtverletzung unerheblich, nur Minderung (§ 441 BGB).
- Wertersatz für die Nutzung der Küche bis zur Rückgabe (§ 346 Abs. 1, 2 BGB) einkalkulieren.
- Mandantin fragen, ob sie die Küche behalten möchte – dann Minderung statt Rücktritt.
"""

# --- 105/26 Erbauseinandersetzung -------------------------------------------- #

_105_VERMERK = """# Aktenvermerk: Mandantengespräch zum Nachlass Herbert Neumann

**Datum:** {mandantengespraech}, ca. 2 Stunden
**Anwesend:** Frau Petra Neumann, RA Hartmann

## Sachverhalt

- Erblasser: Herbert Neumann, verstorben am {erbfall} in Fürth; kein Testament, Ehefrau
  vorverstorben. Erben nach § 1924 Abs. 1, 4 BGB: die Mandantin und ihr Bruder Jürgen Neumann
  zu je 1/2; gemeinschaftlicher Erbschein des Amtsgerichts Fürth (VI 412/25) liegt vor.
- Nachlass: Einfamilienhaus in Fürth (Verkehrswert nach Maklereinschätzung ca. 420.000 €),
  Bankguthaben ca. 58.000 €, Pkw (Schätzwert ca. 8.000 €).
- Die Beerdigungskosten von 9.400 € hat die Mandantin allein getragen.
- Der Bruder bewohnt das Haus seit dem Erbfall allein, zahlt kein Nutzungsentgelt und lehnt
  einen Verkauf ab. Er hat zu Lebzeiten des Vaters 25.000 € als Zuschuss zum Kauf einer
  Wohnung erhalten.

## Einschätzung

Jeder Miterbe kann jederzeit die Auseinandersetzung verlangen (§ 2042 Abs. 1 BGB). Vor der
Teilung sind die Nachlassverbindlichkeiten zu berichtigen (§ 2046 BGB); die Beerdigungskosten
(§ 1968 BGB) sind der Mandantin vorab zu erstatten. Kommt keine Einigung über das Haus zustande,
bleibt die Teilungsversteigerung (§ 2042 Abs. 2, § 753 BGB, § 180 ZVG). Für die alleinige
Nutzung kann die Mandantin ab einem entsprechenden Verlangen eine Nutzungsentschädigung fordern
(§ 2038 Abs. 2, § 745 Abs. 2 BGB). Ob der Zuschuss von 25.000 € als Ausstattung auszugleichen
ist (§ 2050 Abs. 1, § 1624 BGB), ist anhand der Umstände der Zuwendung zu klären.

## Vorgehen

1. Grundbuchauszug und Bankbestätigungen zum Todestag anfordern (Sachbearbeitung).
2. Auseinandersetzungsverlangen mit Teilungsvorschlag an den Gegenvertreter; zugleich
   Nutzungsentschädigung verlangen.
3. Mandantin bevorzugt Übernahme des Hauses durch den Bruder gegen Ausgleichszahlung.
"""

_105_TEILUNG = """# Entwurf – Auseinandersetzungsverlangen und Teilungsvorschlag

**Nachlass Herbert Neumann**

Sehr geehrter Herr Kollege Dr. Pfeiffer,

namens unserer Mandantin verlangen wir die Auseinandersetzung der Erbengemeinschaft nach
Herrn Herbert Neumann (§ 2042 Abs. 1 BGB) und schlagen folgende Teilung vor:

1. Vorab werden unserer Mandantin die von ihr verauslagten Beerdigungskosten von 9.400 €
   erstattet (§§ 1968, 2046 BGB). Vom Nachlass (Haus 420.000 €, Bankguthaben 58.000 €, Pkw
   8.000 €, zusammen 486.000 €) verbleiben 476.600 €, je Miterbe also 238.300 €.
2. Ihr Mandant übernimmt das Hausgrundstück in Fürth und den Pkw.
3. Unsere Mandantin erhält das Bankguthaben.
4. Ihr Mandant zahlt an unsere Mandantin einen Ausgleich von 189.700 €.

| | Ihr Mandant | unsere Mandantin |
|---|---:|---:|
| Hausgrundstück Fürth | 420.000 € | – |
| Pkw | 8.000 € | – |
| Bankguthaben | – | 58.000 € |
| Ausgleichszahlung | −189.700 € | 189.700 € |
| **Summe** | **238.300 €** | **247.700 €** (238.300 € + 9.400 € Erstattung) |

Die Ausgleichung des Zuschusses von 25.000 € (§ 2050 Abs. 1 BGB) behalten wir uns vor.

Zugleich verlangen wir für die alleinige Nutzung des Hauses durch Ihren Mandanten ab Zugang
dieses Schreibens eine Nutzungsentschädigung in Höhe der hälftigen ortsüblichen Miete, derzeit
700 € monatlich (§ 2038 Abs. 2, § 745 Abs. 2 BGB).

Sollte eine einvernehmliche Lösung nicht zustande kommen, wird unsere Mandantin die
Teilungsversteigerung beantragen (§ 180 ZVG).
"""

# --- 106/26 Familiensache --------------------------------------------------- #

_106_AUSKUNFT = """\
**Familiensache Fischer ./. Fischer, AG Bonn 40 F 87/26
hier: Auskunft zum Zugewinnausgleich**

Sehr geehrte Frau Kollegin Lehmann,

der Scheidungsantrag Ihres Mandanten ist unserer Mandantin am {zustellung_scheidungsantrag}
zugestellt worden; dieser Tag ist Stichtag für die Berechnung des Zugewinns (§ 1384 BGB).

Namens unserer Mandantin fordern wir Ihren Mandanten auf, Auskunft zu erteilen (§ 1379 Abs. 1
BGB) über

1. sein Vermögen zum Zeitpunkt der Trennung,
2. sein Anfangsvermögen am Tag der Eheschließung und
3. sein Endvermögen zum Stichtag,

jeweils durch Vorlage eines geordneten, vollständigen Bestandsverzeichnisses, und die Angaben
zu belegen, insbesondere durch Kontoauszüge, Depotaufstellungen und Unterlagen zur vermieteten
Eigentumswohnung. Den Wert der Eigentumswohnung bitten wir zu ermitteln (§ 1379 Abs. 1 S. 3
BGB).

Bitte erteilen Sie die Auskunft bis zum **{auskunftsfrist}**. Andernfalls werden wir im
Scheidungsverbund einen Stufenantrag zur Folgesache Güterrecht stellen (§ 137 Abs. 2 S. 1 Nr. 4
FamFG, § 113 Abs. 1 FamFG i. V. m. § 254 ZPO).

Unsere Mandantin erteilt ihrerseits Auskunft über ihr Vermögen; die Aufstellung folgt gesondert.

Mit freundlichen kollegialen Grüßen
"""

_106_UNTERHALT = """# Aktenvermerk: vorläufige Berechnung des Trennungsunterhalts (Entwurf)

**Stand:** {besprechung}, nach Angaben der Mandantin; Belege des Ehemanns fehlen noch.

| | Ehemann | Mandantin |
|---|---:|---:|
| Nettoeinkommen (Durchschnitt der letzten 12 Monate) | ca. 4.850 € | ca. 1.900 € |
| abzüglich berufsbedingter Aufwendungen | ca. 250 € | ca. 100 € |
| **bereinigtes Nettoeinkommen** | **ca. 4.600 €** | **ca. 1.800 €** |

Differenz: 2.800 €. Bei einer Quote von 45 % der Differenz (Erwerbstätigenbonus von 1/10)
ergäbe sich ein Trennungsunterhalt (§ 1361 Abs. 1 BGB) von **rund 1.260 € monatlich**.

**Offen / zu prüfen:**

- Pauschale für berufsbedingte Aufwendungen und Erwerbstätigenbonus nach den aktuellen
  Unterhaltsleitlinien des OLG Köln abgleichen.
- Mieteinnahmen aus der Eigentumswohnung des Ehemanns (Einkünfte abzüglich Kosten und
  Tilgungsanteile).
- Unterhalt für die volljährige, studierende Tochter (Rang: § 1609 Nr. 4 BGB) und dessen
  Berücksichtigung bei der Leistungsfähigkeit.
- Verzug: Auskunfts- und Zahlungsaufforderung zum Trennungsunterhalt (§ 1361 Abs. 4 S. 4,
  § 1360a Abs. 3, § 1613 Abs. 1 BGB) noch nicht versandt.
"""

# --- 107/26 Werklohn / Berufung --------------------------------------------- #

_107_URTEIL = """# Aktenvermerk: Urteilsanalyse und Erfolgsaussichten einer Berufung (Entwurf)

**Urteil:** Landgericht Düsseldorf, 3 O 217/25, verkündet am {urteil_verkuendung}, zugestellt
am {urteil_zustellung}.

**Tenor (sinngemäß):** Die Beklagte wird verurteilt, an die Klägerin 17.210,00 € nebst Zinsen
in Höhe von neun Prozentpunkten über dem Basiszinssatz (§ 288 Abs. 2 BGB) zu zahlen; im
Übrigen wird die Klage abgewiesen. Kosten: Klägerin 27 %, Beklagte 73 %.

## Fristen

- Berufung: bis **{berufungsfrist}** (§ 517 ZPO, Notfrist), beim Oberlandesgericht Düsseldorf
- Berufungsbegründung: bis **{begruendungsfrist}** (§ 520 Abs. 2 ZPO)
- Beschwer der Mandantin 6.474,50 € – Berufungssumme (§ 511 Abs. 2 Nr. 1 ZPO) erreicht.

## Würdigung

Abgewiesen wurden die Nachträge N3 (zusätzliche Unterverteilungen) und N5 (Verlegung der
Leerrohre in der Tiefgarage). Die Kammer hält eine Vereinbarung bzw. Anordnung dieser
Leistungen durch die Beklagte für nicht bewiesen (§§ 631, 632, 650b, 650c BGB).

Die Mandantin hatte für die mündliche Beauftragung durch den Bauleiter der Beklagten, Herrn
Thomas Berger, Zeugenbeweis angeboten; der Zeuge wurde nicht vernommen. Das Übergehen eines
erheblichen Beweisantrags kann die Berufung tragen (§ 513 Abs. 1, § 520 Abs. 3 S. 2 Nr. 2 ZPO;
Art. 103 Abs. 1 GG). Gesondert zu prüfen sind die Vollmacht des Bauleiters und die Textform der
Anordnung (§ 650b Abs. 2 S. 1 BGB).

## Empfehlung

Berufung beschränkt auf die Nachträge N3 und N5. Kostenrisiko der zweiten Instanz vorab
berechnen und mit Herrn Yilmaz bei der Rücksprache am {ruecksprache} besprechen.
"""

# --- 231/25 Zeugnis (archiviert) --------------------------------------------- #

_231_VERGLEICH = """# Vergleich im Gütetermin – Zusammenfassung und Abschluss

**Verfahren:** Arbeitsgericht Köln, 5 Ca 4711/25 – Wolf ./. Medizintechnik Rhein GmbH,
Berichtigung des Arbeitszeugnisses (§ 109 GewO)

**Gütetermin am {guetetermin}** – Vergleich mit Widerrufsvorbehalt bis {widerrufsfrist}:

1. Die Beklagte erteilt der Klägerin ein qualifiziertes Arbeitszeugnis entsprechend dem Entwurf
   der Klägerin (Anlage zum Protokoll), ausgestellt auf den Tag der Beendigung des
   Arbeitsverhältnisses.
2. Damit ist der Rechtsstreit erledigt.
3. Die Kosten des Rechtsstreits werden gegeneinander aufgehoben.

Der Vergleich ist von keiner Seite widerrufen worden. Das berichtigte Zeugnis ist am
{zeugnis_eingang} eingegangen, stimmt mit dem vereinbarten Wortlaut überein und ist der
Mandantin übersandt. Akte abgeschlossen.
"""

AKTEN: tuple[AkteSpec, ...] = (
    AkteSpec(
        aktenzeichen="101/26",
        kurzrubrum="Müller ./. Bauer Logistik GmbH",
        wegen="Kündigungsschutz (ordentliche betriebsbedingte Kündigung)",
        rechtsgebiet=G.ARBEITSRECHT,
        gegenstandswert=Decimal("12300.00"),
        bundesland="NW",
        anwalt="anwalt",
        sachbearbeiter="sachbearbeiter",
        zugriff=("anwalt", "sachbearbeiter", "sekretariat", "praktikant"),
        tags=("Kündigungsschutz", "Sozialauswahl", "Rechtsschutzversicherung"),
        summary=(
            "Der Mandant (46, seit elf Jahren Lagerleiter, verheiratet, zwei Kinder) wendet sich "
            "gegen eine ordentliche betriebsbedingte Kündigung der Bauer Logistik GmbH. Die "
            "Klagefrist nach § 4 S. 1 KSchG läuft drei Wochen ab Zugang. Angriffspunkte: "
            "Sozialauswahl (§ 1 Abs. 3 KSchG) und Anhörung des Betriebsrats (§ 102 BetrVG). "
            "Klageentwurf liegt vor; Deckungszusage der Rechtsschutzversicherung ist angefragt."
        ),
        tage={"kuendigung_zugang": -9, "erstberatung": -6},
        berechnet={"klagefrist": ("kuendigungsschutzklage", "kuendigung_zugang")},
        beteiligte=(
            BeteiligterSpec(
                R.MANDANT, "Thomas Müller", "Eichenweg 7\n51147 Köln", "0221 4710-231",
                "thomas.mueller@mail.example",
                notiz="Lagerleiter, 4.100 € brutto; rechtsschutzversichert (Rheinische Rechtsschutz AG)",
                anrede=A.HERR,
            ),
            BeteiligterSpec(
                R.GEGNER, "Bauer Logistik GmbH",
                "vertreten durch den Geschäftsführer Frank Bauer\nIndustriestraße 40\n51149 Köln",
                "0221 4710-500", "personal@bauer-logistik.example",
                notiz="rund 140 Arbeitnehmer, Betriebsrat vorhanden",
                anrede=A.FIRMA,
            ),
            BeteiligterSpec(
                R.GEGNERVERTRETER, "Rechtsanwältin Dr. Julia Sommer",
                "Sommer Arbeitsrecht\nRingstraße 3\n50672 Köln", "0221 4710-620",
                "sommer@sommer-arbeitsrecht.example", "JS-0412/26",
                notiz="hat die Vertretung der Arbeitgeberin schriftlich angezeigt",
                anrede=A.FRAU,
            ),
            BeteiligterSpec(
                R.GERICHT, "Arbeitsgericht Köln", "Pohligstraße 9\n50969 Köln",
                notiz="örtlich zuständig; Klage noch nicht eingereicht",
            ),
            BeteiligterSpec(
                R.VERSICHERUNG, "Rheinische Rechtsschutz AG",
                "Leistungsabteilung\nPostfach 10 04 61\n50444 Köln",
                "0221 4710-800", "leistung@rheinische-rechtsschutz.example", "RS-26-200417",
                notiz="Rechtsschutzversicherung des Mandanten; Deckungsanfrage gestellt, Zusage steht aus",
                anrede=A.FIRMA,
            ),
            BeteiligterSpec(
                R.ZEUGE, "Ralf Becker",
                "c/o Betriebsrat der Bauer Logistik GmbH\nIndustriestraße 40\n51149 Köln",
                "0221 4710-502",
                notiz="Betriebsratsvorsitzender; zur Anhörung des Betriebsrats (§ 102 BetrVG)",
                anrede=A.HERR,
            ),
        ),
        fristen=(
            FristSpec(
                "Klagefrist Kündigungsschutzklage (§ 4 S. 1 KSchG)", "klagefrist",
                vorfrist_tage=5, notfrist=False,
                notiz=(
                    "Drei Wochen ab Zugang der Kündigung (mit dem Fristenrechner berechnet). Keine "
                    "Notfrist im Sinne des § 224 ZPO, bei Versäumung gilt die Kündigung aber als "
                    "wirksam (§ 7 KSchG) – wie eine Notfrist behandeln."
                ),
            ),
            FristSpec(
                "Deckungszusage der Rechtsschutzversicherung eingegangen?", 3,
                typ=T.WIEDERVORLAGE, verantwortlich="sekretariat",
            ),
            FristSpec(
                "Erstberatung Herr Müller", "erstberatung", typ=T.TERMIN, uhrzeit=time(10, 0),
                erledigt=True,
            ),
        ),
        dokumente=(
            DokumentSpec(
                "Kündigungsschreiben der Bauer Logistik GmbH (Zusammenfassung)", _101_KUENDIGUNG,
                von="sachbearbeiter", am="erstberatung", empfaenger=NIEMAND,
            ),
            DokumentSpec(
                "Aktenvermerk: Erstberatung zur Kündigung", _101_VERMERK,
                von="anwalt", am="erstberatung", empfaenger=NIEMAND,
            ),
            DokumentSpec(
                "Entwurf: Kündigungsschutzklage", _101_KLAGE, von="anwalt", am=-2, freigegeben=False,
                empfaenger=R.GERICHT,
            ),
        ),
        zeiten=(
            ZeitSpec("anwalt", "erstberatung", 60, "Erstberatung, Prüfung des Kündigungsschreibens"),
            ZeitSpec("anwalt", -2, 90, "Entwurf der Kündigungsschutzklage"),
            ZeitSpec(
                "sekretariat", "erstberatung", 15,
                "Aktenanlage, Vollmacht, Deckungsanfrage an die Rechtsschutzversicherung",
                abrechenbar=False,
            ),
            ZeitSpec(
                "praktikant", -3, 45, "Recherche zur Sozialauswahl (§ 1 Abs. 3 KSchG) unter Anleitung",
                abrechenbar=False,
            ),
        ),
    ),
    AkteSpec(
        aktenzeichen="102/26",
        kurzrubrum="Hoffmann ./. Lorenz",
        wegen="Räumung und Herausgabe der Wohnung, Zahlung rückständiger Miete",
        rechtsgebiet=G.MIETRECHT,
        gegenstandswert=Decimal("14850.00"),
        bundesland="BE",
        anwalt="anwalt",
        sachbearbeiter="sachbearbeiter",
        zugriff=("anwalt", "sachbearbeiter", "sekretariat"),
        tags=("Räumungsklage", "Zahlungsverzug", "Mietrückstand"),
        summary=(
            "Die Mandantin (Vermieterin) hat dem Mieter wegen eines Mietrückstands von drei "
            "Monatsmieten (3.450 €) fristlos, hilfsweise ordentlich gekündigt (§ 543 Abs. 2 S. 1 "
            "Nr. 3, § 573 Abs. 2 Nr. 1 BGB). Räumungs- und Zahlungsklage ist beim Amtsgericht "
            "Tempelhof-Kreuzberg anhängig. Der Beklagte beruft sich auf eine Mietminderung wegen "
            "Schimmels; Stellungnahme und Verhandlungstermin stehen an. Risiko: Schonfristzahlung "
            "(§ 569 Abs. 3 Nr. 2 BGB) beseitigt nur die fristlose Kündigung."
        ),
        tage={
            "kuendigung": -75, "raeumungsfrist": -61, "klage_eingereicht": -21,
            "stellungnahmefrist": 10, "verhandlung": 25,
        },
        beteiligte=(
            BeteiligterSpec(
                R.MANDANT, "Renate Hoffmann", "Kaiserdamm 88\n14057 Berlin", "030 23125-114",
                "r.hoffmann@mail.example",
                notiz="Eigentümerin und Vermieterin des Hauses Glogauer Straße 19",
                anrede=A.FRAU,
            ),
            BeteiligterSpec(
                R.GEGNER, "Kevin Lorenz", "Glogauer Straße 19, 2. OG links\n10999 Berlin",
                notiz="Mieter; Nettokaltmiete 950 €, Betriebskostenvorauszahlung 200 €",
                anrede=A.HERR,
            ),
            BeteiligterSpec(
                R.GEGNERVERTRETER, "Rechtsanwalt Markus Engel", "Oranienstraße 120\n10969 Berlin",
                "030 23125-377", "engel@ra-engel.example", "E 88/26",
                anrede=A.HERR,
            ),
            BeteiligterSpec(
                R.GERICHT, "Amtsgericht Tempelhof-Kreuzberg", "Möckernstraße 130\n10963 Berlin",
                aktenzeichen_extern="17 C 212/26",
                notiz="ausschließlich zuständig (§ 29a Abs. 1 ZPO)",
            ),
            BeteiligterSpec(
                R.ZEUGE, "Monika Schulte", "Hausverwaltung Schulte\nBergmannstraße 5\n10961 Berlin",
                "030 23125-290", "m.schulte@hv-schulte.example",
                notiz="hat die Kündigung in den Briefkasten des Mieters eingeworfen",
                anrede=A.FRAU,
            ),
        ),
        fristen=(
            FristSpec(
                "Stellungnahme zur Klageerwiderung (richterliche Frist)", "stellungnahmefrist",
                vorfrist_tage=4,
                notiz="Beklagter macht Minderung wegen Schimmels geltend – Fotos und Mängelanzeigen "
                "bei der Mandantin anfordern.",
            ),
            FristSpec(
                "Mündliche Verhandlung, Amtsgericht Tempelhof-Kreuzberg", "verhandlung",
                typ=T.TERMIN, uhrzeit=time(10, 30),
                notiz="Persönliches Erscheinen der Mandantin angeordnet.",
            ),
            FristSpec(
                "Gerichtskostenvorschuss eingezahlt – Zustellung der Klage überwachen", -18,
                typ=T.WIEDERVORLAGE, verantwortlich="sekretariat", erledigt=True,
            ),
        ),
        dokumente=(
            DokumentSpec(
                "Fristlose, hilfsweise ordentliche Kündigung des Mietverhältnisses", _102_KUENDIGUNG,
                von="anwalt", am="kuendigung", empfaenger=R.GEGNER,
            ),
            DokumentSpec(
                "Klage auf Räumung und Zahlung (Auszug)", _102_KLAGE,
                von="anwalt", am="klage_eingereicht", empfaenger=R.GERICHT,
            ),
        ),
        zeiten=(
            ZeitSpec("sachbearbeiter", -23, 30, "Forderungsaufstellung Mietrückstände"),
            ZeitSpec("anwalt", "klage_eingereicht", 75, "Klageschrift Räumung und Zahlung"),
            ZeitSpec(
                "sekretariat", -20, 10, "Gerichtskostenvorschuss angewiesen, Fristen notiert",
                abrechenbar=False,
            ),
        ),
    ),
    AkteSpec(
        aktenzeichen="103/26",
        kurzrubrum="Schäfer ./. Richter u. Isar Assekuranz",
        wegen="Schadensersatz aus Verkehrsunfall",
        rechtsgebiet=G.VERKEHRSRECHT,
        gegenstandswert=Decimal("9679.46"),
        bundesland="BY",
        anwalt="anwalt",
        sachbearbeiter="sachbearbeiter",
        zugriff=("anwalt", "sachbearbeiter", "praktikant"),
        tags=("Verkehrsunfall", "Haftpflichtversicherung", "Nutzungsausfall"),
        summary=(
            "Vorfahrtsverletzung (rechts vor links, § 8 Abs. 1 StVO) in München: Der Gegner stieß "
            "gegen die Fahrerseite des Pkw der Mandantin. Schaden von 9.679,46 € beim "
            "Kfz-Haftpflichtversicherer des Gegners angemeldet (Direktanspruch § 115 Abs. 1 S. 1 "
            "Nr. 1 VVG; Haftung §§ 7, 18 StVG). Die Regulierungsfrist ist ohne Zahlung "
            "abgelaufen; ein unbeteiligter Zeuge bestätigt den Hergang. Nächster Schritt: Klage."
        ),
        tage={
            "unfall": -24, "mandantengespraech": -18, "anspruchsschreiben": -16,
            "regulierungsfrist": -2, "telefonat_zeuge": -9,
        },
        beteiligte=(
            BeteiligterSpec(
                R.MANDANT, "Julia Schäfer", "Pilgersheimer Straße 21\n81543 München",
                "089 99998-412", "julia.schaefer@mail.example",
                notiz="Halterin und Fahrerin des VW Golf; nicht vorsteuerabzugsberechtigt",
                anrede=A.FRAU,
            ),
            BeteiligterSpec(
                R.GEGNER, "Stefan Richter", "Aberlestraße 9\n81371 München",
                notiz="Fahrer und Halter des unfallverursachenden Pkw",
                anrede=A.HERR,
            ),
            BeteiligterSpec(
                R.VERSICHERUNG, "Isar Assekuranz Versicherungs-AG",
                "Schadenabteilung Kraftfahrt\nPostfach 20 11 40\n80011 München", "089 99998-700",
                "kfz-schaden@isar-assekuranz.example", "KH-26-0481137",
                notiz="Kfz-Haftpflichtversicherer des Gegners",
                anrede=A.FIRMA,
            ),
            BeteiligterSpec(
                R.ZEUGE, "Martin Kaiser", "Tegernseer Landstraße 140\n81539 München",
                "089 99998-236", "m.kaiser@mail.example",
                notiz="Fußgänger, hat den Unfall von der Straßenecke aus gesehen",
                anrede=A.HERR,
            ),
            BeteiligterSpec(
                R.SACHVERSTAENDIGER, "Kfz-Sachverständigenbüro Huber",
                "Schleißheimer Straße 200\n80797 München", "089 99998-510",
                "gutachten@sv-huber.example", "G-26-1187",
                notiz="Reparaturkosten 7.842,16 € brutto, Reparaturdauer 14 Tage",
                anrede=A.FIRMA,
            ),
        ),
        fristen=(
            FristSpec(
                "Regulierungsfrist Isar Assekuranz – Zahlungseingang prüfen", "regulierungsfrist",
                verantwortlich="sachbearbeiter",
                notiz="Bei fruchtlosem Ablauf Mandantin informieren und Klage vorbereiten.",
            ),
            FristSpec(
                "Akteneinsicht in die Bußgeldakte beantragt", -15,
                typ=T.WIEDERVORLAGE, verantwortlich="sachbearbeiter", erledigt=True,
            ),
            FristSpec(
                "Eingang der Bußgeldakte – Unfallskizze auswerten", 10,
                typ=T.WIEDERVORLAGE, verantwortlich="sachbearbeiter",
            ),
        ),
        dokumente=(
            DokumentSpec(
                "Schadensanzeige und Anspruchsschreiben an die Isar Assekuranz", _103_ANSPRUCH,
                von="anwalt", am="anspruchsschreiben", empfaenger=R.VERSICHERUNG,
            ),
            DokumentSpec(
                "Aktenvermerk: Telefonat mit dem Zeugen Kaiser", _103_ZEUGE,
                von="sachbearbeiter", am="telefonat_zeuge", empfaenger=NIEMAND,
            ),
        ),
        zeiten=(
            ZeitSpec("anwalt", "mandantengespraech", 45, "Mandantengespräch zum Unfallhergang"),
            ZeitSpec("sachbearbeiter", "anspruchsschreiben", 40, "Anspruchsschreiben an die Versicherung"),
            ZeitSpec("sachbearbeiter", "telefonat_zeuge", 15, "Telefonat mit dem Zeugen Kaiser, Vermerk"),
            ZeitSpec(
                "praktikant", -8, 20, "Schadenspositionen tabellarisch aufbereitet", abrechenbar=False
            ),
        ),
    ),
    AkteSpec(
        aktenzeichen="104/26",
        kurzrubrum="Krüger ./. Küchenstudio Wendt GmbH",
        wegen="Mängel einer Einbauküche (Nacherfüllung, ggf. Rücktritt)",
        rechtsgebiet=G.KAUFRECHT,
        gegenstandswert=Decimal("14890.00"),
        bundesland="NI",
        anwalt="anwalt",
        sachbearbeiter="sachbearbeiter",
        zugriff=("anwalt", "sachbearbeiter", "sekretariat"),
        tags=("Sachmangel", "Verbrauchsgüterkauf", "Nacherfüllung"),
        summary=(
            "Die Mandantin hat eine Einbauküche samt Montage für 14.890 € gekauft. Aufgequollene "
            "Arbeitsplatte, schleifende Geschirrspülerfront, schief montierter Hängeschrank "
            "(Montagemangel, § 434 Abs. 4 BGB; Vermutung nach § 477 BGB). Mängelrüge mit Frist "
            "zur Nacherfüllung (§ 439 BGB) ist versandt; nach Fristablauf Rücktritt oder "
            "Minderung (§ 437 Nr. 2 BGB) prüfen."
        ),
        tage={
            "kaufvertrag": -95, "montage": -47, "besprechung": -13, "maengelruege": -11,
            "nacherfuellungsfrist": 3,
        },
        beteiligte=(
            BeteiligterSpec(
                R.MANDANT, "Sabine Krüger", "Podbielskistraße 212\n30177 Hannover",
                email="s.krueger@mail.example",
                anrede=A.FRAU,
            ),
            BeteiligterSpec(
                R.GEGNER, "Küchenstudio Wendt GmbH",
                "vertreten durch den Geschäftsführer Holger Wendt\nVahrenwalder Straße 150\n"
                "30165 Hannover",
                email="service@kuechen-wendt.example", aktenzeichen_extern="Auftrag KW-0117",
                anrede=A.FIRMA,
            ),
            BeteiligterSpec(
                R.ZEUGE, "Daniel Vogel", "Podbielskistraße 212\n30177 Hannover",
                notiz="Lebensgefährte der Mandantin; bei Montage und Abnahme anwesend",
                anrede=A.HERR,
            ),
        ),
        fristen=(
            FristSpec(
                "Ablauf der Nacherfüllungsfrist Küchenstudio Wendt – Rücktritt oder Minderung prüfen",
                "nacherfuellungsfrist", typ=T.WIEDERVORLAGE,
            ),
            FristSpec(
                "Besprechung mit Mandantin, Sichtung der Fotos", "besprechung",
                typ=T.TERMIN, uhrzeit=time(15, 0), erledigt=True,
            ),
        ),
        dokumente=(
            DokumentSpec(
                "Mängelrüge mit Fristsetzung zur Nacherfüllung", _104_MAENGELRUEGE,
                von="anwalt", am="maengelruege", empfaenger=R.GEGNER,
            ),
            DokumentSpec(
                "Entwurf: Rücktritt vom Kaufvertrag", _104_RUECKTRITT,
                von="sachbearbeiter", am=-1, freigegeben=False, empfaenger=R.GEGNER,
            ),
        ),
        zeiten=(
            ZeitSpec("anwalt", "besprechung", 50, "Prüfung Kaufvertrag und Fotos, Besprechung"),
            ZeitSpec("anwalt", "maengelruege", 40, "Mängelrüge mit Fristsetzung"),
            ZeitSpec(
                "sachbearbeiter", "maengelruege", 15,
                "Versand der Mängelrüge per Einschreiben, Frist notiert",
                abrechenbar=False,
            ),
        ),
    ),
    AkteSpec(
        aktenzeichen="105/26",
        kurzrubrum="Neumann ./. Neumann",
        wegen="Auseinandersetzung der Erbengemeinschaft nach Herbert Neumann",
        rechtsgebiet=G.ERBRECHT,
        gegenstandswert=Decimal("243000.00"),
        bundesland="BY",
        anwalt="anwalt",
        sachbearbeiter="sachbearbeiter",
        zugriff=("anwalt", "sachbearbeiter"),
        tags=("Erbengemeinschaft", "Teilungsversteigerung", "Nutzungsentschädigung"),
        summary=(
            "Die Mandantin und ihr Bruder sind gesetzliche Erben ihres Vaters zu je 1/2 (Erbschein "
            "AG Fürth). Hauptnachlassgegenstand ist ein Einfamilienhaus in Fürth (ca. 420.000 €), "
            "das der Bruder allein bewohnt, ohne Nutzungsentgelt zu zahlen. Ziel: Auseinandersetzung "
            "nach § 2042 BGB, bevorzugt Übernahme durch den Bruder gegen Ausgleichszahlung; sonst "
            "Teilungsversteigerung (§ 180 ZVG). Offen: Ausgleichung eines Zuschusses von 25.000 € "
            "(§ 2050 BGB)."
        ),
        tage={"erbfall": -160, "mandantengespraech": -31, "videokonferenz": 10},
        beteiligte=(
            BeteiligterSpec(
                R.MANDANT, "Petra Neumann", "Goltsteinstraße 45\n50968 Köln", "0221 4710-318",
                "petra.neumann@mail.example", notiz="Miterbin zu 1/2",
                anrede=A.FRAU,
            ),
            BeteiligterSpec(
                R.GEGNER, "Jürgen Neumann", "Kurgartenstraße 31\n90762 Fürth",
                notiz="Miterbe zu 1/2; bewohnt das Nachlassgrundstück",
                anrede=A.HERR,
            ),
            BeteiligterSpec(
                R.GEGNERVERTRETER, "Rechtsanwalt Dr. Georg Pfeiffer",
                "Königstraße 60\n90402 Nürnberg", email="pfeiffer@kanzlei-pfeiffer.example",
                aktenzeichen_extern="Pf 231/26",
                anrede=A.HERR,
            ),
            BeteiligterSpec(
                R.GERICHT, "Amtsgericht Fürth – Nachlassgericht", aktenzeichen_extern="VI 412/25",
                notiz="gemeinschaftlicher Erbschein erteilt (je 1/2)",
            ),
        ),
        fristen=(
            FristSpec(
                "Videokonferenz mit Gegenvertreter Dr. Pfeiffer (Teilungsvorschlag)", "videokonferenz",
                typ=T.TERMIN, uhrzeit=time(14, 0),
            ),
            FristSpec(
                "Stellungnahme der Gegenseite zum Teilungsvorschlag eingegangen?", 25,
                typ=T.WIEDERVORLAGE, verantwortlich="sachbearbeiter",
            ),
            FristSpec(
                "Grundbuchauszug und Bankbestätigungen zum Todestag angefordert", -29,
                typ=T.WIEDERVORLAGE, verantwortlich="sachbearbeiter", erledigt=True,
            ),
        ),
        dokumente=(
            DokumentSpec(
                "Aktenvermerk: Mandantengespräch zum Nachlass", _105_VERMERK,
                von="anwalt", am="mandantengespraech", empfaenger=NIEMAND,
            ),
            DokumentSpec(
                "Entwurf: Auseinandersetzungsverlangen und Teilungsvorschlag", _105_TEILUNG,
                von="anwalt", am=-4, freigegeben=False, empfaenger=R.GEGNERVERTRETER,
            ),
        ),
        zeiten=(
            ZeitSpec(
                "anwalt", "mandantengespraech", 120, "Mandantengespräch Nachlass, Sichtung der Unterlagen"
            ),
            ZeitSpec("sachbearbeiter", -29, 35, "Nachlassaufstellung, Anforderung Grundbuchauszug"),
            ZeitSpec("anwalt", -4, 90, "Entwurf Teilungsvorschlag"),
        ),
    ),
    AkteSpec(
        aktenzeichen="106/26",
        kurzrubrum="Fischer ./. Fischer",
        wegen="Zugewinnausgleich und Trennungsunterhalt (Folgesache zum Scheidungsverfahren)",
        rechtsgebiet=G.FAMILIENRECHT,
        gegenstandswert=Decimal("38500.00"),
        bundesland="NW",
        anwalt="anwalt",
        sachbearbeiter=None,
        zugriff=("anwalt",),
        tags=("Zugewinnausgleich", "Trennungsunterhalt", "vertraulich"),
        summary=(
            "Die Mandantin lebt seit gut einem Jahr getrennt; der Ehemann hat die Scheidung beim "
            "Amtsgericht – Familiengericht – Bonn beantragt. Geltend gemacht werden "
            "Zugewinnausgleich (§ 1378 Abs. 1 BGB; der Ehemann hält u. a. eine vermietete "
            "Eigentumswohnung und ein Wertpapierdepot) und Trennungsunterhalt (§ 1361 BGB). "
            "Auskunft nach § 1379 BGB ist verlangt. Vertraulich: nur RA Hartmann."
        ),
        tage={
            "zustellung_scheidungsantrag": -35, "besprechung": -14, "auskunftsverlangen": -3,
            "auskunftsfrist": 25,
        },
        beteiligte=(
            BeteiligterSpec(
                R.MANDANT, "Claudia Fischer", "Kessenicher Straße 80\n53129 Bonn",
                email="claudia.fischer@mail.example",
                notiz="Buchhalterin in Teilzeit; gemeinsame Tochter (21) studiert",
                anrede=A.FRAU,
            ),
            BeteiligterSpec(
                R.GEGNER, "Michael Fischer", "Reuterstraße 150\n53113 Bonn", notiz="Ingenieur", anrede=A.HERR
            ),
            BeteiligterSpec(
                R.GEGNERVERTRETER, "Rechtsanwältin Birgit Lehmann", "Poppelsdorfer Allee 30\n53115 Bonn",
                email="lehmann@familienrecht-lehmann.example", aktenzeichen_extern="L-0316/26",
                anrede=A.FRAU,
            ),
            BeteiligterSpec(
                R.GERICHT, "Amtsgericht Bonn – Familiengericht", "Wilhelmstraße 23\n53111 Bonn",
                aktenzeichen_extern="40 F 87/26", notiz="Scheidungsverfahren anhängig",
            ),
        ),
        fristen=(
            FristSpec(
                "Fragebogen zum Versorgungsausgleich beim Familiengericht einreichen", 10,
                vorfrist_tage=3,
                notiz="Richterliche Frist; Renteninformation der Mandantin liegt vor, Unterlagen "
                "zur Betriebsrente fehlen noch.",
            ),
            FristSpec(
                "Auskunftsfrist Zugewinn – ggf. Stufenantrag als Folgesache", "auskunftsfrist",
                typ=T.WIEDERVORLAGE,
            ),
            FristSpec(
                "Vertretungsanzeige an das Familiengericht", -30, typ=T.WIEDERVORLAGE, erledigt=True
            ),
        ),
        dokumente=(
            DokumentSpec(
                "Auskunftsverlangen zum Zugewinnausgleich (§ 1379 BGB)", _106_AUSKUNFT,
                von="anwalt", am="auskunftsverlangen", empfaenger=R.GEGNERVERTRETER,
            ),
            DokumentSpec(
                "Aktenvermerk: vorläufige Berechnung Trennungsunterhalt", _106_UNTERHALT,
                von="anwalt", am="besprechung", freigegeben=False, empfaenger=NIEMAND,
            ),
        ),
        zeiten=(
            ZeitSpec("anwalt", "besprechung", 90, "Besprechung mit Mandantin: Trennung, Zugewinn, Unterhalt"),
            ZeitSpec("anwalt", "auskunftsverlangen", 60, "Auskunftsverlangen nach § 1379 BGB"),
        ),
    ),
    AkteSpec(
        aktenzeichen="107/26",
        kurzrubrum="Elektro Yilmaz GmbH ./. Rheinwohnen Projekt GmbH",
        wegen="Restwerklohn Elektroinstallation, Berufung wegen abgewiesener Nachträge",
        rechtsgebiet=G.VERTRAGSRECHT,
        gegenstandswert=Decimal("23684.50"),
        bundesland="NW",
        anwalt="admin",
        sachbearbeiter="sachbearbeiter",
        zugriff=("sachbearbeiter", "sekretariat"),
        tags=("Werklohn", "Nachtrag", "Berufung"),
        summary=(
            "Die Mandantin verlangt restlichen Werklohn für die Elektroinstallation eines "
            "Mehrfamilienhauses in Düsseldorf. Das Landgericht Düsseldorf hat 17.210,00 € "
            "zugesprochen und die Klage wegen zweier Nachträge (6.474,50 €) abgewiesen; der "
            "benannte Zeuge für deren Beauftragung wurde nicht vernommen. Zu entscheiden ist über "
            "eine beschränkte Berufung; Berufungsfrist (§ 517 ZPO, Notfrist) und "
            "Begründungsfrist (§ 520 Abs. 2 ZPO) sind notiert."
        ),
        tage={"urteil_verkuendung": -19, "urteil_zustellung": -12, "urteil_versand": -10, "ruecksprache": 5},
        berechnet={
            "berufungsfrist": ("berufung", "urteil_zustellung"),
            "begruendungsfrist": ("berufungsbegruendung", "urteil_zustellung"),
        },
        beteiligte=(
            BeteiligterSpec(
                R.MANDANT, "Elektro Yilmaz GmbH",
                "vertreten durch den Geschäftsführer Murat Yilmaz\nHeerdter Landstraße 50\n"
                "40549 Düsseldorf",
                email="info@elektro-yilmaz.example",
                anrede=A.FIRMA,
            ),
            BeteiligterSpec(
                R.GEGNER, "Rheinwohnen Projekt GmbH",
                "vertreten durch die Geschäftsführerin Dr. Anja Kessler\nKönigsallee 90\n40212 Düsseldorf",
                anrede=A.FIRMA,
            ),
            BeteiligterSpec(
                R.GEGNERVERTRETER, "Krämer Baurecht Rechtsanwälte PartG mbB",
                "Kaiserswerther Straße 100\n40474 Düsseldorf", email="post@kraemer-baurecht.example",
                aktenzeichen_extern="Kr 512/25",
                anrede=A.FIRMA,
            ),
            BeteiligterSpec(
                R.GERICHT, "Landgericht Düsseldorf", "Werdener Straße 1\n40227 Düsseldorf",
                aktenzeichen_extern="3 O 217/25", notiz="Urteil der 3. Zivilkammer",
            ),
            BeteiligterSpec(
                R.ZEUGE, "Thomas Berger", "c/o Rheinwohnen Projekt GmbH\nKönigsallee 90\n40212 Düsseldorf",
                notiz="Bauleiter der Beklagten; soll die Nachträge N3 und N5 mündlich beauftragt "
                "haben; vom Landgericht nicht vernommen",
                anrede=A.HERR,
            ),
        ),
        fristen=(
            FristSpec(
                "Berufungsfrist (§ 517 ZPO)", "berufungsfrist", verantwortlich="admin",
                vorfrist_tage=7, notfrist=True,
                notiz="Ein Monat ab Zustellung des Urteils, mit dem Fristenrechner berechnet.",
            ),
            FristSpec(
                "Berufungsbegründungsfrist (§ 520 Abs. 2 ZPO)", "begruendungsfrist",
                verantwortlich="admin", vorfrist_tage=14,
                notiz="Zwei Monate ab Zustellung des Urteils; verlängerbar auf Antrag.",
            ),
            FristSpec(
                "Rücksprache mit Herrn Yilmaz: Entscheidung über die Berufung", "ruecksprache",
                typ=T.TERMIN, uhrzeit=time(11, 0), verantwortlich="admin",
            ),
            FristSpec(
                "Urteil an Mandantin übersandt, Kostenrisiko erläutert", "urteil_versand",
                typ=T.WIEDERVORLAGE, verantwortlich="sachbearbeiter", erledigt=True,
            ),
        ),
        dokumente=(
            DokumentSpec(
                "Aktenvermerk: Urteilsanalyse und Erfolgsaussichten der Berufung", _107_URTEIL,
                von="admin", am=-9, freigegeben=False, empfaenger=NIEMAND,
            ),
        ),
        zeiten=(
            ZeitSpec("admin", -9, 120, "Urteilsanalyse, Erfolgsaussichten der Berufung"),
            ZeitSpec(
                "sachbearbeiter", "urteil_versand", 15, "Urteil an Mandantin übersandt", abrechenbar=False
            ),
        ),
    ),
    AkteSpec(
        aktenzeichen="231/25",
        kurzrubrum="Wolf ./. Medizintechnik Rhein GmbH",
        wegen="Berichtigung des Arbeitszeugnisses",
        rechtsgebiet=G.ARBEITSRECHT,
        status=Akte.Status.ARCHIVIERT,
        gegenstandswert=Decimal("3600.00"),
        bundesland="NW",
        anwalt="anwalt",
        sachbearbeiter=None,
        zugriff=("anwalt", "sekretariat"),
        tags=("Arbeitszeugnis", "Vergleich"),
        summary=(
            "Klage auf Berichtigung des Arbeitszeugnisses (§ 109 GewO). Im Gütetermin vor dem "
            "Arbeitsgericht Köln Vergleich über ein Zeugnis nach dem Entwurf der Mandantin; das "
            "berichtigte Zeugnis liegt vor. Akte abgeschlossen und archiviert."
        ),
        tage={"guetetermin": -70, "widerrufsfrist": -56, "zeugnis_eingang": -40},
        beteiligte=(
            BeteiligterSpec(
                R.MANDANT, "Anna Wolf", "Zülpicher Straße 140\n50937 Köln", "0221 4710-455",
                "anna.wolf@mail.example",
                anrede=A.FRAU,
            ),
            BeteiligterSpec(
                R.GEGNER, "Medizintechnik Rhein GmbH", "Butzweilerhofallee 12\n50829 Köln",
                email="personal@medizintechnik-rhein.example",
                anrede=A.FIRMA,
            ),
            BeteiligterSpec(
                R.GERICHT, "Arbeitsgericht Köln", "Pohligstraße 9\n50969 Köln",
                aktenzeichen_extern="5 Ca 4711/25",
            ),
        ),
        fristen=(
            FristSpec(
                "Widerrufsfrist Vergleich", "widerrufsfrist", erledigt=True,
                notiz="Nicht widerrufen; Vergleich bestandskräftig.",
            ),
            FristSpec(
                "Eingang des berichtigten Zeugnisses prüfen", "zeugnis_eingang",
                typ=T.WIEDERVORLAGE, verantwortlich="sekretariat", erledigt=True,
            ),
        ),
        dokumente=(
            DokumentSpec(
                "Vergleich im Gütetermin – Zusammenfassung und Abschluss", _231_VERGLEICH,
                von="anwalt", am="zeugnis_eingang", empfaenger=NIEMAND,
            ),
        ),
        zeiten=(
            ZeitSpec("anwalt", "guetetermin", 60, "Wahrnehmung des Gütetermins, Vergleichsverhandlung"),
            ZeitSpec(
                "sekretariat", "zeugnis_eingang", 10, "Zeugnis an Mandantin übersandt, Akte archiviert",
                abrechenbar=False,
            ),
        ),
    ),
)

NOTIZEN: tuple[NotizSpec, ...] = (
    NotizSpec(
        "101/26", "anwalt", "Rechtsschutzversicherung",
        "Deckungszusage der Rheinischen Rechtsschutz AG steht noch aus. Klage notfalls auch ohne "
        "Deckungszusage fristwahrend einreichen – der Mandant ist einverstanden.",
    ),
    NotizSpec(
        "105/26", "sachbearbeiter", "Grundbuchauszug Fürth",
        "Grundbuchauszug liegt vor. In Abteilung III eine Grundschuld über 80.000 €, nach Auskunft "
        "der Bank noch mit rund 12.000 € valutiert – im Teilungsvorschlag berücksichtigen.",
    ),
    NotizSpec(
        None, "sekretariat", "Postausgang",
        "Bei Einschreiben mit Rückschein: Rückschein nach Eingang einscannen und zur jeweiligen "
        "Akte nehmen.",
    ),
)

ALERTS: tuple[AlertSpec, ...] = (
    AlertSpec(
        "103/26", None, Alert.Severity.WARNING,
        "Die Regulierungsfrist der Isar Assekuranz ist abgelaufen, ein Zahlungseingang ist nicht "
        "verbucht. Bitte Mandantin informieren und Klage vorbereiten.",
    ),
    AlertSpec(
        "101/26", "anwalt", Alert.Severity.CRITICAL,
        "Die Klagefrist nach § 4 KSchG in Sachen Müller ./. Bauer Logistik GmbH läuft bald ab – "
        "der Klageentwurf wartet auf deine Freigabe.",
    ),
    AlertSpec(
        None, "sachbearbeiter", Alert.Severity.INFO,
        "Bitte die Zeiterfassung der vergangenen Woche vervollständigen.",
    ),
)


# --------------------------------------------------------------------------- #
# Seeding
# --------------------------------------------------------------------------- #


def _arbeitstag(day: date, *, bundesland: str, vorwaerts: bool) -> date:
    """The nearest Werktag of the Land: forwards for future days, backwards for past ones."""
    if vorwaerts:
        return berechne_frist(start=day - timedelta(days=1), tage=1, bundesland=bundesland).ende
    return berechne_vorfrist(ende=day + timedelta(days=1), tage=1, bundesland=bundesland).datum


class _Kalender:
    """The days of one Akte, resolved against today."""

    def __init__(self, spec: AkteSpec, heute: date) -> None:
        self.heute = heute
        self.bundesland = spec.bundesland
        self.tage: dict[str, date] = {name: self._offset(n) for name, n in spec.tage.items()}
        for name, (preset, ab) in spec.berechnet.items():
            self.tage[name] = berechne_preset(
                preset=preset, start=self.tage[ab], bundesland=self.bundesland
            ).ende

    def _offset(self, days: int) -> date:
        return _arbeitstag(
            self.heute + timedelta(days=days), bundesland=self.bundesland, vorwaerts=days >= 0
        )

    def __call__(self, tag: Tag) -> date:
        return self.tage[tag] if isinstance(tag, str) else self._offset(tag)

    def um(self, tag: Tag, uhrzeit: time) -> datetime:
        return timezone.make_aware(datetime.combine(self(tag), uhrzeit))

    def text(self, template: str) -> str:
        return template.format_map({name: d.strftime("%d.%m.%Y") for name, d in self.tage.items()})


def demo_tage(aktenzeichen: str, *, heute: date | None = None) -> dict[str, date]:
    """The named days of one demo Akte ("kuendigung_zugang", "klagefrist" …) as the seed resolves
    them for `heute`, for whatever else the demo writes about that Akte (helena/conversations/demo.py)."""
    spec = next(s for s in AKTEN if s.aktenzeichen == aktenzeichen)
    return _Kalender(spec, heute or timezone.localdate()).tage


def _ensure_user(spec: DemoUser, *, password: str) -> tuple[User, bool]:
    """Create the user if missing; always (re)set the password and keep the role as specified."""
    # the demo users log in with their password alone (docs/protocol.md): the visible exemption
    flags = {"role": spec.role, "is_active": True, "ohne_zweiten_faktor": True}
    if spec.superuser:
        flags |= {"is_superuser": True, "is_staff": True}
    user, created = User.objects.get_or_create(
        username=spec.username,
        defaults={
            "first_name": spec.first_name,
            "last_name": spec.last_name,
            "email": spec.email,
            **flags,
        },
    )
    # a Berufsbezeichnung the demo gives is set where none was entered (a user seeded before it
    # existed); one entered stays
    if spec.berufsbezeichnung and not user.berufsbezeichnung:
        flags["berufsbezeichnung"] = spec.berufsbezeichnung
    changed = [attr for attr, value in flags.items() if getattr(user, attr) != value]
    for attr in changed:
        setattr(user, attr, flags[attr])
    # Set again only when it changed: a new hash (new salt) would end every demo user's session at each
    # start of make run — a chat left open across a restart could no longer watch its run go on.
    fields = list(changed)
    if created or not user.check_password(password):
        user.set_password(password)
        fields.append("password")
    if created or fields:
        user.save(update_fields=None if created else fields)
    return user, created


class _Counter:
    def __init__(self) -> None:
        self.neu = 0
        self.anzahl: dict[str, int] = {}

    def add(self, kind: str, created: bool) -> None:
        self.anzahl[kind] = self.anzahl.get(kind, 0) + 1
        self.neu += int(created)


def _seed_akte(
    spec: AkteSpec, *, users: Mapping[str, User], heute: date, count: _Counter
) -> Akte:
    kal = _Kalender(spec, heute)
    akte, created = Akte.objects.get_or_create(
        aktenzeichen=spec.aktenzeichen,
        defaults={
            "kurzrubrum": spec.kurzrubrum,
            "wegen": spec.wegen,
            "rechtsgebiet": spec.rechtsgebiet,
            "status": spec.status,
            "gegenstandswert": spec.gegenstandswert,
            "bundesland": spec.bundesland,
            "anwalt": users[spec.anwalt],
            "sachbearbeiter": users[spec.sachbearbeiter] if spec.sachbearbeiter else None,
            "tags": list(spec.tags),
            "summary": spec.summary,
        },
    )
    count.add("akten", created)

    for username in spec.zugriff:
        neu = not AktenZugriff.objects.filter(akte=akte, user=users[username]).exists()
        grant_access(akte=akte, user=users[username], granted_by=users["admin"])
        count.add("zugriffe", neu)

    for b in spec.beteiligte:
        beteiligter, created = Beteiligter.objects.get_or_create(
            akte=akte, rolle=b.rolle, name=b.name,
            defaults={
                "anrede": b.anrede,
                "anschrift": b.anschrift,
                "telefon": b.telefon,
                "email": b.email,
                "aktenzeichen_extern": b.aktenzeichen_extern,
                "notiz": b.notiz,
            },
        )
        if not created and b.anrede and not beteiligter.anrede:  # seeded before there was an Anrede
            Beteiligter.objects.filter(pk=beteiligter.pk).update(anrede=b.anrede)
        count.add("beteiligte", created)

    for f in spec.fristen:
        datum = kal(f.am)
        vorfrist = (
            berechne_vorfrist(ende=datum, tage=f.vorfrist_tage, bundesland=spec.bundesland).datum
            if f.vorfrist_tage
            else None
        )
        _, created = Frist.objects.get_or_create(
            akte=akte, bezeichnung=f.bezeichnung,
            defaults={
                "typ": f.typ,
                "datum": datum,
                "uhrzeit": f.uhrzeit,
                "vorfrist": vorfrist,
                "ist_notfrist": f.notfrist,
                "erledigt": f.erledigt,
                "erledigt_am": kal.um(f.am, time(16, 0)) if f.erledigt else None,
                "verantwortlich": users[f.verantwortlich],
                "notiz": f.notiz,
            },
        )
        count.add("fristen", created)

    for d in spec.dokumente:
        status = Dokument.Status.FREIGEGEBEN if d.freigegeben else Dokument.Status.ENTWURF
        dokument, created = Dokument.objects.get_or_create(
            akte=akte, titel=d.titel,
            defaults={
                "inhalt": kal.text(d.inhalt),
                "empfaenger": d.empfaenger,
                "status": status,
                "erstellt_durch": Dokument.ErstelltDurch.MENSCH,
                "erstellt_von": users[d.von],
                "freigegeben_von": users[spec.anwalt] if d.freigegeben else None,
                "freigegeben_am": kal.um(d.am, time(17, 0)) if d.freigegeben else None,
            },
        )
        if not created:
            _auf_neuen_stand(dokument, d, aktenzeichen=spec.aktenzeichen, kal=kal)
        count.add("dokumente", created)

    for z in spec.zeiten:
        _, created = Zeiterfassung.objects.get_or_create(
            akte=akte, user=users[z.user], taetigkeit=z.taetigkeit,
            defaults={"datum": kal(z.am), "dauer_minuten": z.minuten, "abrechenbar": z.abrechenbar},
        )
        count.add("zeiterfassungen", created)
    return akte


_TAG = re.compile(r"\{([a-z_]+)\}")


def _tage_im_text(vorlage: str, text: str) -> dict[str, str] | None:
    """The days ("TT.MM.JJJJ" by name) a text holds if it is exactly `vorlage` with its "{name}"s
    filled in, else None."""
    muster, gesehen = [], set()
    for i, teil in enumerate(_TAG.split(vorlage)):
        if i % 2 == 0:
            muster.append(re.escape(teil))
        elif teil in gesehen:
            muster.append(f"(?P={teil})")
        else:
            gesehen.add(teil)
            muster.append(rf"(?P<{teil}>\d{{2}}\.\d{{2}}\.\d{{4}})")
    treffer = re.fullmatch("".join(muster), text)
    return treffer.groupdict() if treffer else None


def _auf_neuen_stand(dokument: Dokument, d: DokumentSpec, *, aktenzeichen: str, kal: _Kalender) -> None:
    """A demo Dokument seeded before it had an addressee (its text then carried letterhead, address,
    date and signature, akten/demo_frueher.py): while its text is still exactly as seeded, it gets
    the current text, with the days its first run gave it, and its addressee. One edited or given
    an addressee since stays as it is."""
    if dokument.empfaenger or not d.empfaenger:
        return
    for vorlage in filter(None, (FRUEHERE_INHALTE.get((aktenzeichen, d.titel)), d.inhalt)):
        tage = _tage_im_text(vorlage, dokument.inhalt)
        if tage is not None:
            break
    else:
        return
    dokument.inhalt = d.inhalt.format_map({name: tag.strftime("%d.%m.%Y") for name, tag in kal.tage.items()}
                                          | tage)
    dokument.empfaenger = d.empfaenger
    dokument.save(update_fields=["inhalt", "empfaenger", "aktualisiert_am"])


def fremde_daten() -> list[str]:
    """What in the database is not the demo Kanzlei's, in German ("2 Benutzer", "40 Akten"): users
    seed_demo did not make (another name, or a demo name with another e-mail address) and Akten with
    another Aktenzeichen. `make run` seeds only when this is empty: a firm's restored database must
    never get demo records, demo passwords or reactivated users at a start."""
    demo_emails = {spec.username: spec.email for spec in USERS}
    benutzer = sum(1 for username, email in User.objects.values_list("username", "email")
                   if demo_emails.get(username) != email)
    akten = Akte.objects.exclude(aktenzeichen__in=[spec.aktenzeichen for spec in AKTEN]).count()
    fremd = [f"{benutzer} Benutzer"] if benutzer else []
    return fremd + ([f"{akten} {'Akte' if akten == 1 else 'Akten'}"] if akten else [])


@transaction.atomic
def seed_demo_kanzlei(*, password: str, heute: date | None = None) -> DemoSummary:
    """Create (or complete) the demo Kanzlei; see the module docstring. `heute` is for tests."""
    if not password:
        raise ValueError("password must not be empty")
    heute = heute or timezone.localdate()
    count = _Counter()

    users: dict[str, User] = {}
    for spec in USERS:
        users[spec.username], created = _ensure_user(spec, password=password)
        count.add("benutzer", created)

    if not Briefkopf.objects.exists():  # a letterhead the firm filled in stays as it is
        Briefkopf.objects.create(**BRIEFKOPF)
        count.neu += 1

    akten = {
        spec.aktenzeichen: _seed_akte(spec, users=users, heute=heute, count=count) for spec in AKTEN
    }

    for n in NOTIZEN:
        _, created = Notiz.objects.get_or_create(
            akte=akten[n.akte] if n.akte else None, verfasst_von=users[n.von], titel=n.titel,
            defaults={"inhalt": n.inhalt},
        )
        count.add("notizen", created)

    for a in ALERTS:
        _, created = Alert.objects.get_or_create(
            akte=akten[a.akte] if a.akte else None,
            empfaenger=users[a.empfaenger] if a.empfaenger else None,
            message=a.message,
            defaults={"severity": a.severity},
        )
        count.add("alerts", created)

    offen = Frist.objects.filter(akte__in=akten.values(), erledigt=False)
    return DemoSummary(
        benutzer=tuple((u.username, u.get_role_display()) for u in users.values()),
        akten=count.anzahl["akten"],
        beteiligte=count.anzahl["beteiligte"],
        dokumente=count.anzahl["dokumente"],
        fristen=count.anzahl["fristen"],
        fristen_offen=offen.count(),
        fristen_ueberfaellig=offen.filter(datum__lt=heute).count(),
        zeiterfassungen=count.anzahl["zeiterfassungen"],
        notizen=count.anzahl["notizen"],
        alerts=count.anzahl["alerts"],
        zugriffe=count.anzahl["zugriffe"],
        neu_angelegt=count.neu,
    )

