"""Kanzleimuster for the demo Kanzlei (`manage.py seed_demo`, helena/management/commands).

The texts are written for this project: letters and Schriftsätze as a German firm would send
them – the text inside the frame the DOCX/PDF prints around it (letterhead, the addressee each
Muster names by role, date, Zeichen, signature) –, with {{PLATZHALTER}} in UPPER_SNAKE_CASE for
everything that differs per Akte, a party named by case where the grammar needs it
({{MANDANT_GENITIV}}: „des Herrn …“, „der Frau …“) and its gendered words as
{{MANDANT: der Kläger | die Klägerin | die klagende Partei}} (akten/dokumente/platzhalter.py).
Notes for the person filling a template stand in square brackets ("[Hinweis: …]" at the top,
"[Alternative: …]") and are meant to be deleted before sending.

`seed_muster` creates templates whose titel is missing and brings a Muster the firm never edited
(its text is an earlier bundled version, by hash) up to date: a firm that edits a Muster keeps its
version on every later run.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.db import transaction

from akten.models import Beteiligter
from akten.models.dokument import NIEMAND
from helena.knowledge.models import Muster

R = Beteiligter.Rolle


@dataclass(frozen=True)
class MusterSpec:
    titel: str
    kategorie: str
    text: str
    empfaenger: str  # Muster.empfaenger: the Beteiligten-role the letter goes to, or NIEMAND


# The DOCX/PDF frame (akten/dokumente/ausgabe) prints the Kanzlei's letterhead, the addressee (the
# Beteiligte of MusterSpec.empfaenger, with their address), place and date, our Zeichen and the
# addressee's, „In Sachen … wegen …“, the title and the signature: a Muster holds only the text in
# between – from the salutation or the Antrag to the greeting – and repeats none of them.

MANDATSBESTAETIGUNG = """\
{{MANDANT_BRIEFANREDE}},

vielen Dank für Ihr Vertrauen und das Gespräch am {{AUFTRAGSDATUM}}. Wie besprochen bestätigen wir
Ihnen, dass Sie uns beauftragt haben, Ihre Interessen in der oben genannten Angelegenheit gegenüber
{{GEGNER_DATIV}} zu vertreten.

## Umfang des Auftrags

Der Auftrag umfasst {{AUFTRAGSUMFANG}}. [z. B. „die außergerichtliche Vertretung“ oder „die
Vertretung im gerichtlichen Verfahren des ersten Rechtszugs“] Weitergehende Tätigkeiten, etwa ein
Rechtsmittelverfahren, stimmen wir vorher gesondert mit Ihnen ab.

## Vergütung

Unsere Vergütung richtet sich nach dem Rechtsanwaltsvergütungsgesetz (RVG), soweit wir nichts
anderes schriftlich vereinbart haben. Wie bereits im Gespräch erläutert, richten sich die Gebühren
nach dem Gegenstandswert (§ 49b Abs. 5 BRAO). Für die entstandenen und voraussichtlich entstehenden
Gebühren und Auslagen erlauben wir uns, einen Vorschuss anzufordern (§ 9 RVG); die
Vorschussrechnung liegt bei.

[Nur Arbeitsrecht: Wie besprochen trägt im arbeitsgerichtlichen Verfahren des ersten Rechtszugs
jede Partei die Kosten ihres Prozessbevollmächtigten selbst, auch wenn sie den Prozess gewinnt
(§ 12a Abs. 1 ArbGG).]

[Falls rechtsschutzversichert: Die Deckungszusage Ihrer Rechtsschutzversicherung
{{RECHTSSCHUTZVERSICHERUNG}} holen wir für Sie ein. Kosten, die die Versicherung nicht übernimmt,
etwa eine Selbstbeteiligung, tragen Sie selbst.]

## Ihre Mitwirkung

Bitte senden Sie uns bis zum {{UNTERLAGEN_FRIST}} die folgenden Unterlagen: {{UNTERLAGEN}}.

Geben Sie uns bitte sofort Bescheid, wenn Sie Post vom Gericht, von der Gegenseite oder von einer
Behörde erhalten – an solche Schreiben können Fristen geknüpft sein, die nur wenige Tage laufen.
Bitte nehmen Sie in dieser Angelegenheit keinen Kontakt zur Gegenseite auf, ohne dies vorher mit
uns abzustimmen.

## Vertraulichkeit und Datenschutz

Wir sind zur Verschwiegenheit verpflichtet (§ 43a Abs. 2 BRAO). Ihre Daten verarbeiten wir nur,
soweit es für die Bearbeitung des Mandats erforderlich ist; unsere Datenschutzhinweise nach
Art. 13 DSGVO liegen bei.

Bitte senden Sie uns die beigefügte Vollmacht unterschrieben zurück. Für Rückfragen erreichen Sie
uns unter der oben genannten Telefonnummer.

**Anlagen:** Vollmacht, Vorschussrechnung, Datenschutzhinweise

Mit freundlichen Grüßen
"""


FRISTVERLAENGERUNG = """\
[Hinweis: § 224 Abs. 2 ZPO erlaubt die Verlängerung richterlicher Fristen (z. B. der
Klageerwiderungsfrist, § 276 Abs. 1 S. 2 ZPO), gesetzlicher Fristen nur, wo das Gesetz es vorsieht.
Notfristen (z. B. §§ 339, 517 ZPO) sind nicht verlängerbar. Der Antrag muss vor Fristablauf bei
Gericht eingehen; als elektronisches Dokument einreichen (§ 130d ZPO). Die neue Frist läuft vom
Ablauf der bisherigen an (§ 224 Abs. 3 ZPO). Im Fristenkalender die alte Frist erst löschen, wenn
die Verlängerung bewilligt ist.]

Namens und in Vollmacht {{PARTEI_BEZEICHNUNG}} [z. B. „des Beklagten“] beantragen wir,

> die Frist zur {{FRIST_BEZEICHNUNG}}, die am {{FRISTENDE}} abläuft, um {{VERLAENGERUNG}} bis zum
> {{NEUES_FRISTENDE}} zu verlängern.

## Begründung

Die Frist kann aus erheblichen Gründen nicht eingehalten werden (§ 224 Abs. 2 ZPO):
{{VERLAENGERUNGSGRUND}}. [Konkret darlegen, z. B.: Zum Vortrag der Gegenseite im Schriftsatz vom …
muss die Mandantschaft noch Unterlagen von Dritten beschaffen; der sachbearbeitende Rechtsanwalt ist
vom … bis … urlaubsbedingt abwesend.]

Die vorstehenden Angaben werden anwaltlich versichert.

Eine Verzögerung des Rechtsstreits ist mit der Verlängerung nicht verbunden. [Falls zutreffend: Die
Gegenseite hat der Verlängerung zugestimmt.]
"""


BERUFUNGSBEGRUENDUNG_VERLAENGERUNG = """\
[Hinweis: Die Berufungsfrist selbst (§ 517 ZPO) ist eine Notfrist und nicht verlängerbar. Der
Antrag muss vor Ablauf der Begründungsfrist beim Berufungsgericht eingehen (§ 130d ZPO: als
elektronisches Dokument); das Berufungsgericht muss als Gericht in der Akte stehen, es ist der
Empfänger. Bis zur Bewilligung die ursprüngliche Frist im Fristenkalender behalten.]

Namens und in Vollmacht {{PARTEI_BEZEICHNUNG}} [z. B. „der Berufungsklägerin“] beantragen wir,

> die Frist zur Begründung der Berufung um einen Monat bis zum {{NEUES_FRISTENDE}} zu verlängern.

## Begründung

Das Urteil des {{ERSTGERICHT}} vom {{URTEIL_DATUM}} (Az. {{ERSTINSTANZ_AKTENZEICHEN}}) ist uns am
{{ZUSTELLUNG_DATUM}} zugestellt worden. Die Frist zur Begründung der Berufung endet daher am
{{FRISTENDE}} (§ 520 Abs. 2 S. 1 ZPO).

Die Verlängerung um bis zu einem Monat ist auch ohne Einwilligung der Gegenseite zulässig, weil
erhebliche Gründe vorliegen (§ 520 Abs. 2 S. 3 ZPO): {{VERLAENGERUNGSGRUND}}. [Konkret darlegen,
z. B.: Arbeitsüberlastung des sachbearbeitenden Rechtsanwalts durch mehrere fristgebundene Sachen;
die Abstimmung der Berufungsbegründung mit der Mandantschaft ist wegen deren Auslandsaufenthalts
bis zum … nicht möglich.] Die vorstehenden Angaben werden anwaltlich versichert.

Der Rechtsstreit wird durch die Verlängerung nicht verzögert.

[Alternative bei Verlängerung um mehr als einen Monat: Die Prozessbevollmächtigten der Gegenseite
haben in die Verlängerung bis zum {{NEUES_FRISTENDE}} eingewilligt (§ 520 Abs. 2 S. 2 ZPO); ihre
Erklärung fügen wir bei.]
"""


PROZESSVOLLMACHT = """\
[Hinweis: Für einseitige Erklärungen gegenüber der Gegenseite (z. B. eine Kündigung) die
Originalvollmacht beifügen, sonst droht die Zurückweisung nach § 174 BGB. Im Prozess ist die
Vollmacht zu den Gerichtsakten zu reichen (§ 80 ZPO); einen Mangel prüft das Gericht bei einem
Rechtsanwalt nur auf Rüge (§ 88 ZPO).]

Hiermit wird

**{{KANZLEI_NAME}}**, {{KANZLEI_ANSCHRIFT}},

in Sachen **{{MANDANT_NAME}} ./. {{GEGNER_NAME}}**
wegen {{GEGENSTAND}}

Vollmacht erteilt

1. zur Prozessführung (u. a. nach §§ 81 ff. ZPO), einschließlich der Befugnis zur Erhebung und
   Zurücknahme von Widerklagen;
2. zur Vertretung in sonstigen Verfahren und bei außergerichtlichen Verhandlungen aller Art;
3. zur Begründung und Aufhebung von Vertragsverhältnissen und zur Abgabe und Entgegennahme von
   einseitigen Willenserklärungen (z. B. Kündigungen, Rücktritt, Anfechtung) im Zusammenhang mit
   der oben genannten Angelegenheit.

Die Vollmacht gilt für alle Instanzen. Sie erstreckt sich auf Neben- und Folgeverfahren aller
Art, insbesondere Mahnverfahren, Arrest und einstweilige Verfügung, Kostenfestsetzung und
Zwangsvollstreckung einschließlich der aus ihr erwachsenden besonderen Verfahren.

Sie umfasst insbesondere die Befugnis,

- Zustellungen zu bewirken und entgegenzunehmen,
- die Vollmacht ganz oder teilweise auf andere zu übertragen (Untervollmacht),
- Rechtsmittel einzulegen, zurückzunehmen und auf sie zu verzichten,
- den Rechtsstreit oder außergerichtliche Verhandlungen durch Vergleich, Verzicht oder
  Anerkenntnis zu erledigen,
- Geld, Wertsachen und Urkunden, insbesondere den Streitgegenstand und die von der Gegenseite,
  der Justizkasse oder anderen Stellen zu erstattenden Beträge, entgegenzunehmen,
- Akteneinsicht zu nehmen.

Die Vollmacht erlischt nicht durch den Tod der Vollmachtgeberin oder des Vollmachtgebers
(§ 86 ZPO).

______________________________
Ort, Datum, Unterschrift {{MANDANT_NAME}}
"""


KUENDIGUNGSSCHUTZKLAGE = """\
[Hinweis: Klagefrist drei Wochen ab Zugang der schriftlichen Kündigung (§ 4 S. 1 KSchG); wird sie
versäumt, gilt die Kündigung als wirksam (§ 7 KSchG), dann nur noch Antrag auf nachträgliche
Zulassung (§ 5 KSchG). Sonderkündigungsschutz prüfen (u. a. § 15 KSchG, § 17 MuSchG,
§ 168 SGB IX). Die Arbeitgeberin ist in der Akte die Gegnerin; bei einer Gesellschaft den
gesetzlichen Vertreter mit angeben (in ihrer Anschrift: „vertreten durch den Geschäftsführer …“).
Einreichung als elektronisches Dokument (§ 46g ArbGG).]

{{MANDANT_GENITIV}}, {{MANDANT_ANSCHRIFT}},

– {{MANDANT: Kläger | Klägerin | klagende Partei}} –

Prozessbevollmächtigte: {{KANZLEI_NAME}}, {{KANZLEI_ANSCHRIFT}}

gegen

{{GEGNER_AKKUSATIV}}, {{GEGNER_ANSCHRIFT}},

– {{GEGNER: Beklagter | Beklagte | beklagte Partei}} –

Vorläufiger Streitwert: {{STREITWERT}} (Vierteljahresentgelt, § 42 Abs. 2 S. 1 GKG)

Namens und in Vollmacht {{MANDANT: des Klägers | der Klägerin | der klagenden Partei}} erheben wir
Klage und werden beantragen:

1. Es wird festgestellt, dass das Arbeitsverhältnis der Parteien durch die Kündigung
   {{GEGNER: des Beklagten | der Beklagten | der beklagten Partei}} vom {{KUENDIGUNG_DATUM}}, zugegangen
   am {{ZUGANG_DATUM}}, nicht aufgelöst worden ist.
2. Es wird festgestellt, dass das Arbeitsverhältnis der Parteien auch nicht durch andere
   Beendigungstatbestände endet, sondern über den {{KUENDIGUNGSTERMIN}} hinaus zu unveränderten
   Bedingungen fortbesteht.
3. [Optional] {{GEGNER: Der Beklagte | Die Beklagte | Die beklagte Partei}} wird verurteilt,
   {{MANDANT: den Kläger | die Klägerin | die klagende Partei}} im Falle des Obsiegens mit dem Antrag
   zu 1. bis zum rechtskräftigen Abschluss des Rechtsstreits zu unveränderten arbeitsvertraglichen
   Bedingungen als {{TAETIGKEIT}} weiterzubeschäftigen.

## Begründung

**1. Arbeitsverhältnis**

{{MANDANT: Der | Die | Die}} am {{GEBURTSDATUM}} geborene {{MANDANT: Kläger | Klägerin | klagende Partei}}
ist {{FAMILIENSTAND_UNTERHALTSPFLICHTEN}}. {{MANDANT: Er | Sie | Sie}} ist seit dem
{{EINTRITTSDATUM}} bei {{GEGNER: dem Beklagten | der Beklagten | der beklagten Partei}} als
{{TAETIGKEIT}} beschäftigt, zuletzt zu einem Bruttomonatsentgelt von {{BRUTTOMONATSENTGELT}}.

Beweis: Arbeitsvertrag vom {{ARBEITSVERTRAG_DATUM}} – **Anlage K 1** –

Das Arbeitsverhältnis besteht ohne Unterbrechung länger als sechs Monate (§ 1 Abs. 1 KSchG).
{{GEGNER: Der Beklagte | Die Beklagte | Die beklagte Partei}} beschäftigt in der Regel mehr als zehn
Arbeitnehmer ausschließlich der Auszubildenden (§ 23 Abs. 1 KSchG). Im Betrieb besteht
{{BETRIEBSRAT}} [„ein Betriebsrat“ / „kein Betriebsrat“].

**2. Kündigung**

Mit Schreiben vom {{KUENDIGUNG_DATUM}}, {{MANDANT: dem Kläger | der Klägerin | der klagenden Partei}}
zugegangen am {{ZUGANG_DATUM}}, kündigte {{GEGNER: der Beklagte | die Beklagte | die beklagte Partei}}
das Arbeitsverhältnis {{KUENDIGUNGSART}} [z. B. „ordentlich zum …“].

Beweis: Kündigungsschreiben vom {{KUENDIGUNG_DATUM}} – **Anlage K 2** –

**3. Antrag zu 1.: Unwirksamkeit der Kündigung**

Die Kündigung ist sozial ungerechtfertigt (§ 1 Abs. 2 KSchG). Gründe in der Person oder im
Verhalten {{MANDANT: des Klägers | der Klägerin | der klagenden Partei}} oder dringende betriebliche
Erfordernisse, die {{MANDANT: seiner | ihrer | ihrer}} Weiterbeschäftigung entgegenstehen, bestehen
nicht. {{GEGNER: Der Beklagte | Die Beklagte | Die beklagte Partei}} hat die Tatsachen zu beweisen,
die die Kündigung bedingen (§ 1 Abs. 2 S. 4 KSchG). [Soweit Gründe genannt wurden: konkret
bestreiten; bei betriebsbedingter Kündigung die Sozialauswahl rügen, § 1 Abs. 3 KSchG.]

Die ordnungsgemäße Anhörung des Betriebsrats (§ 102 Abs. 1 BetrVG) wird mit Nichtwissen
bestritten (§ 138 Abs. 4 ZPO).

Die Klage wird innerhalb von drei Wochen nach Zugang der Kündigung erhoben (§ 4 S. 1 KSchG).

**4. Antrag zu 2.: Allgemeiner Feststellungsantrag**

Der Antrag zu 2. ist eine allgemeine Feststellungsklage (§ 256 Abs. 1 ZPO). Das
Feststellungsinteresse folgt daraus, dass {{MANDANT: der Kläger | die Klägerin | die klagende Partei}}
weitere Kündigungen oder die Berufung {{GEGNER: des Beklagten | der Beklagten | der beklagten Partei}}
auf sonstige Beendigungstatbestände befürchten muss; {{FESTSTELLUNGSINTERESSE}}.

**Anlagen:** K 1 Arbeitsvertrag, K 2 Kündigungsschreiben
"""


MAHNSCHREIBEN = """\
[Hinweis: Gegenüber Privatpersonen die Pflichtangaben nach § 43d Abs. 1 BRAO aufnehmen (u. a.
Auftraggeber mit Anschrift, Forderungsgrund mit Vertragsgegenstand und Datum des Vertragsschlusses,
Zinsberechnung, Art, Höhe und Entstehungsgrund der Kosten, zuständige Rechtsanwaltskammer).
Anwaltskosten sind nur zu ersetzen, wenn der Schuldner bei der Beauftragung schon in Verzug war.
Ist die Gegenseite anwaltlich vertreten, geht das Schreiben an ihre Vertretung (§ 12 BORA): dann
als Empfänger „Gegnervertreter/in“ wählen.]

**Offene Forderung aus Rechnung Nr. {{RECHNUNGSNUMMER}} vom {{RECHNUNGSDATUM}}**

{{GEGNER_BRIEFANREDE}},

wir zeigen an, dass wir {{MANDANT_AKKUSATIV}}, {{MANDANT_ANSCHRIFT}}, anwaltlich vertreten. Eine auf uns
lautende Vollmacht fügen wir bei.

Unsere Mandantschaft hat Ihnen aufgrund des Vertrags vom {{VERTRAGSDATUM}} über {{LEISTUNG}} mit der
oben genannten Rechnung {{HAUPTFORDERUNG}} berechnet. Der Betrag war am {{FAELLIGKEIT}} fällig. Eine
Zahlung ist bis heute nicht eingegangen.

Sie befinden sich seit dem {{VERZUGSBEGINN}} in Verzug (§ 286 BGB). [Verzugsgrund nennen: Mahnung vom
… (§ 286 Abs. 1 BGB), kalendermäßig bestimmter Zahlungstermin (§ 286 Abs. 2 Nr. 1 BGB) oder
30 Tage nach Fälligkeit und Zugang der Rechnung (§ 286 Abs. 3 BGB – gegenüber Verbrauchern nur,
wenn die Rechnung darauf hingewiesen hat).] Sie schulden deshalb außer der Hauptforderung

1. Verzugszinsen in Höhe von fünf Prozentpunkten über dem Basiszinssatz seit dem
   {{VERZUGSBEGINN}} (§ 288 Abs. 1 BGB) [ist kein Verbraucher beteiligt: neun Prozentpunkte,
   § 288 Abs. 2 BGB], bis heute {{ZINSEN_BETRAG}},
2. die Kosten unserer Beauftragung als Verzugsschaden (§§ 280 Abs. 1 und 2, 286 BGB) in Höhe von
   {{RECHTSANWALTSKOSTEN}} gemäß beigefügter Berechnung.

[Ist der Schuldner kein Verbraucher, zusätzlich: die Pauschale von 40 Euro nach § 288 Abs. 5 BGB;
sie wird auf die Kosten der Rechtsverfolgung angerechnet.]

Namens und in Vollmacht unserer Mandantschaft fordern wir Sie auf, den Gesamtbetrag von

**{{GESAMTBETRAG}}**

bis spätestens **{{ZAHLUNGSFRIST}}** (Zahlungseingang) auf unser Anderkonto {{KANZLEI_BANKVERBINDUNG}}
unter Angabe unseres Zeichens {{AKTENZEICHEN}} zu überweisen. Wir sind zur Entgegennahme der Zahlung
bevollmächtigt.

Sollten Sie Einwendungen gegen die Forderung haben, teilen Sie uns diese bitte innerhalb der
genannten Frist mit. Geht bis dahin weder die Zahlung noch eine Stellungnahme ein, werden wir
unserer Mandantschaft empfehlen, die Forderung ohne weitere Ankündigung gerichtlich geltend zu
machen (Mahnverfahren oder Klage). Die dadurch entstehenden weiteren Kosten hätten Sie im Fall
Ihres Unterliegens zu tragen.

**Anlagen:** Vollmacht, Rechnung Nr. {{RECHNUNGSNUMMER}} (Kopie), Kosten- und Zinsberechnung

Mit freundlichen Grüßen
"""


DECKUNGSANFRAGE = """\
[Hinweis: Die Rechtsschutzversicherung der Mandantschaft muss in der Akte als Versicherung stehen;
sie ist der Empfänger.]

**{{MANDANT: Versicherungsnehmer | Versicherungsnehmerin}}: {{MANDANT_NAME}}
Versicherungsschein-Nr.: {{VERSICHERUNGSSCHEINNUMMER}}**

Sehr geehrte Damen und Herren,

wir zeigen an, dass uns {{MANDANT: Ihr Versicherungsnehmer | Ihre Versicherungsnehmerin}} mit der
Wahrnehmung {{MANDANT: seiner | ihrer | der}} rechtlichen Interessen in der folgenden Angelegenheit
beauftragt hat. Für die
Korrespondenz mit Ihnen hat uns die Mandantschaft von der anwaltlichen Schweigepflicht entbunden.

## Sachverhalt

{{SACHVERHALT}}

Der Rechtsschutzfall ist am {{RECHTSSCHUTZFALL_DATUM}} eingetreten: {{RECHTSSCHUTZFALL}} [den Verstoß
benennen, z. B. „Zugang der Kündigung vom …“, „Verweigerung der Kautionsrückzahlung mit Schreiben
vom …“].

## Rechtliche Einschätzung

{{RECHTLICHE_EINSCHAETZUNG}} [kurz: Anspruchsgrundlage, warum die Rechtsverfolgung hinreichende
Aussicht auf Erfolg bietet und nicht mutwillig ist]

## Umfang der erbetenen Deckung

Wir bitten um Deckungszusage für {{DECKUNGSUMFANG}} [z. B. „die außergerichtliche Vertretung und die
gerichtliche Geltendmachung im ersten Rechtszug“]. Der Gegenstandswert beträgt voraussichtlich
{{GEGENSTANDSWERT}}.

[Bei laufender Frist: Die Sache ist eilbedürftig, weil die {{FRIST_BEZEICHNUNG}} am {{FRISTENDE}} abläuft.
Wir bitten daher um Ihre Entscheidung bis zum {{ANTWORTFRIST}}. Fristwahrende Maßnahmen werden wir
notfalls vorher ergreifen.]

Die für die Prüfung maßgeblichen Unterlagen fügen wir bei. Zugleich bitten wir um Zahlung eines
Vorschusses gemäß beigefügter Berechnung (§ 9 RVG).

**Anlagen:** {{ANLAGEN}}, Vorschussberechnung

Mit freundlichen Grüßen
"""


AKTENEINSICHT = """\
[Hinweis: Die Staatsanwaltschaft muss in der Akte als Behörde stehen, mit ihrem Aktenzeichen; sie
ist der Empfänger, ihr Zeichen steht im Briefkopf.]

**Ermittlungsverfahren gegen {{MANDANT_AKKUSATIV}}, geb. am {{MANDANT_GEBURTSDATUM}},
wegen {{TATVORWURF}}**

Sehr geehrte Damen und Herren,

wir zeigen an, dass wir {{MANDANT_AKKUSATIV}} in dem oben genannten Verfahren verteidigen. Eine Kopie der
Vollmacht ist beigefügt; Zustellungen und Mitteilungen bitten wir künftig an uns zu richten
(§ 145a Abs. 1 StPO).

Wir beantragen,

> uns Einsicht in die Ermittlungsakten einschließlich sämtlicher Beiakten und Sonderbände zu
> gewähren und die Besichtigung der amtlich verwahrten Beweisstücke zu ermöglichen
> (§ 147 Abs. 1 StPO).

Wir bitten, die Akten elektronisch bereitzustellen (§ 32f StPO) [alternativ: uns die Akten zur
Einsichtnahme in unsere Kanzleiräume zu übersenden; wir reichen sie umgehend zurück].

Sollte die Akteneinsicht derzeit nach § 147 Abs. 2 StPO versagt werden, beantragen wir jedenfalls
Einsicht in die Protokolle über Vernehmungen unserer Mandantschaft und in Sachverständigengutachten
(§ 147 Abs. 3 StPO) sowie eine Mitteilung, wann mit der vollständigen Akteneinsicht zu rechnen ist.

Bis zur Akteneinsicht wird sich unsere Mandantschaft zum Tatvorwurf nicht äußern. Eine Einlassung
behalten wir uns vor. Ladungen zu Vernehmungen bitten wir mit uns abzustimmen.

**Anlage:** Vollmacht (Kopie)

Mit freundlichen Grüßen
"""


MUSTER: tuple[MusterSpec, ...] = (
    MusterSpec("Mandatsbestätigung", "Mandat", MANDATSBESTAETIGUNG, R.MANDANT),
    MusterSpec("Fristverlängerungsantrag", "Schriftsatz", FRISTVERLAENGERUNG, R.GERICHT),
    MusterSpec(
        "Antrag auf Verlängerung der Berufungsbegründungsfrist",
        "Schriftsatz",
        BERUFUNGSBEGRUENDUNG_VERLAENGERUNG,
        R.GERICHT,
    ),
    MusterSpec("Prozessvollmacht", "Vollmacht", PROZESSVOLLMACHT, NIEMAND),
    MusterSpec("Kündigungsschutzklage", "Arbeitsrecht", KUENDIGUNGSSCHUTZKLAGE, R.GERICHT),
    MusterSpec("Mahnschreiben", "Forderung", MAHNSCHREIBEN, R.GEGNER),
    MusterSpec("Deckungsanfrage Rechtsschutzversicherung", "Mandat", DECKUNGSANFRAGE, R.VERSICHERUNG),
    MusterSpec("Akteneinsichtsgesuch im Ermittlungsverfahren", "Strafrecht", AKTENEINSICHT, R.BEHOERDE),
)


# SHA-256 of the texts earlier releases bundled (by titel): a Muster still holding one was never edited
# by the firm and gets the current text – e.g. its parties named by Anrede („der Frau …“, not „des …“),
# and since the DOCX/PDF frame prints letterhead, addressee, date, Zeichen and signature, none of them
# in the text any more (the letters of those releases carried their own and printed them twice).
FRUEHERE_FASSUNGEN: dict[str, frozenset[str]] = {
    "Mandatsbestätigung": frozenset({
        "93df72179d558fe891c33c8632b2b3cd23467a1cc77d6b2297b1c42026daa4a7",
        "1848ab7e789d858dc9a49a222a744b9c40504d935c61efb537ab8d140035f237",
    }),
    "Fristverlängerungsantrag": frozenset({
        "c1b87d0f0ecf474c301dd1d83306bf22461847660554761052b72ea51fdea1cc",
    }),
    "Antrag auf Verlängerung der Berufungsbegründungsfrist": frozenset({
        "c8f8e5df59219fa8eef877502a6e033d6c52af3ac6bd3d3fc481404a06df32eb",
    }),
    "Prozessvollmacht": frozenset({
        "f2958b3f91b16d3ac865a2ab52910fc6e4da09ff8dcd8c1d6702c8d5c2dfae53",
    }),
    "Kündigungsschutzklage": frozenset({
        "131b0e196452cecdc3cba2ec4b605973b7b7c1ada0a7dc0a91b79de642ddb37c",
        "37f9df760ef34e2eeca9810ea0b40a17fd5ccb74eab2a64e488e5c388c8b8123",
        "a101ea9301e521ab9d3194417e422d151b00ce81609265e684e4cb94941cf445",
    }),
    "Mahnschreiben": frozenset({
        "ae7c2b05b98bf3d249f31bc91daf93963ac5c94e6c155d2e848528fbb2fa65d9",
        "068afb0ca6714cf07276904775a22f4b4d7d54348100356f395a28661aa6943e",
    }),
    "Deckungsanfrage Rechtsschutzversicherung": frozenset({
        "3696640fad5a21b53c6e6f33eca5fda2c3c7a5ab14868e9b51f09b20b47bc694",
        "6f962cc89fd992dedcdf1277ada295af4ba118cf6e6f3436b9dfa2a1e076c1b0",
    }),
    "Akteneinsichtsgesuch im Ermittlungsverfahren": frozenset({
        "f127610988b540def0adf5d70383841469f9a1db0fdbc2520737476631a511a8",
        "1ba438ede189a0420cc8f1bb28f9c8d494a283d1f31c13b603cd19bb81991ddc",
    }),
}


def _fassung(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@transaction.atomic
def seed_muster() -> int:
    """Create the missing Kanzleimuster by titel and return how many were created; a Muster whose
    text is an earlier bundled version gets the current one and its addressee. Edited Muster are
    never touched."""
    created = 0
    for spec in MUSTER:
        muster, neu = Muster.objects.get_or_create(
            titel=spec.titel,
            defaults={"kategorie": spec.kategorie, "text": spec.text, "empfaenger": spec.empfaenger,
                      "quelle": Muster.Quelle.KANZLEI},
        )
        created += int(neu)
        unbearbeitet = _fassung(muster.text) in FRUEHERE_FASSUNGEN.get(spec.titel, ())
        if not neu and muster.text != spec.text and unbearbeitet:
            muster.text, muster.empfaenger = spec.text, spec.empfaenger
            muster.save(update_fields=["text", "empfaenger", "aktualisiert_am"])
    return created
