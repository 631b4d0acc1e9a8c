"""The demo Dokumente's texts as seed_demo wrote them before the DOCX/PDF frame printed letterhead,
addressee, place and date, Zeichen and signature itself (d8f2cc7): a stored demo Dokument whose text
is still one of these (with whatever dates its first run gave it) gets the current text and its
addressee (akten/demo.py, `_seed_akte`). Keyed by (Aktenzeichen, Titel); "{name}" is a day of the
Akte, as in akten/demo.py. Never edit: these are what older databases hold."""

from __future__ import annotations

FRUEHERE_INHALTE: dict[tuple[str, str], str] = {
    ("101/26", "Entwurf: Kündigungsschutzklage"): """\
# Entwurf – Kündigungsschutzklage

An das
Arbeitsgericht Köln

**Klage**

des Herrn Thomas Müller, Eichenweg 7, 51147 Köln
– Kläger –

Prozessbevollmächtigte: Brandt & Hartmann Rechtsanwälte, Lindenallee 12, 50968 Köln

gegen

die Bauer Logistik GmbH, vertreten durch den Geschäftsführer Frank Bauer,
Industriestraße 40, 51149 Köln
– Beklagte –

wegen Kündigungsschutz.

Namens und in Vollmacht des Klägers erheben wir Klage und werden beantragen:

1. Es wird festgestellt, dass das Arbeitsverhältnis der Parteien durch die Kündigung der
   Beklagten vom {kuendigung_zugang} nicht aufgelöst wird.
2. Die Beklagte wird verurteilt, den Kläger für den Fall des Obsiegens mit dem Antrag zu 1.
   bis zum rechtskräftigen Abschluss des Verfahrens zu unveränderten Arbeitsbedingungen als
   Lagerleiter weiterzubeschäftigen.

## Begründung

**1. Arbeitsverhältnis.** Der Kläger ist seit elf Jahren bei der Beklagten beschäftigt, zuletzt
als Lagerleiter mit einem Bruttomonatsgehalt von 4.100 €. Er ist 46 Jahre alt, verheiratet und
zwei Kindern zum Unterhalt verpflichtet.

**2. Kündigung.** Mit Schreiben vom {kuendigung_zugang}, dem Kläger am selben Tag zugegangen,
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
""",
    ("102/26", "Fristlose, hilfsweise ordentliche Kündigung des Mietverhältnisses"): """\
**Brandt & Hartmann Rechtsanwälte** · Lindenallee 12 · 50968 Köln

Herrn
Kevin Lorenz
Glogauer Straße 19
10999 Berlin

Köln, {kuendigung}

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

Hartmann
Rechtsanwalt
""",
    ("102/26", "Klage auf Räumung und Zahlung (Auszug)"): """\
# Klage auf Räumung und Zahlung (Auszug)

An das Amtsgericht Tempelhof-Kreuzberg

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
""",
    ("103/26", "Schadensanzeige und Anspruchsschreiben an die Isar Assekuranz"): """\
**Brandt & Hartmann Rechtsanwälte** · Lindenallee 12 · 50968 Köln

Isar Assekuranz Versicherungs-AG
Schadenabteilung Kraftfahrt
Postfach 20 11 40
80011 München

Köln, {anspruchsschreiben}

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

Hartmann
Rechtsanwalt
""",
    ("104/26", "Mängelrüge mit Fristsetzung zur Nacherfüllung"): """\
**Brandt & Hartmann Rechtsanwälte** · Lindenallee 12 · 50968 Köln

Küchenstudio Wendt GmbH
z. Hd. Herrn Holger Wendt
Vahrenwalder Straße 150
30165 Hannover

Köln, {maengelruege}

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

Hartmann
Rechtsanwalt
""",
    ("105/26", "Entwurf: Auseinandersetzungsverlangen und Teilungsvorschlag"): """\
# Entwurf – Auseinandersetzungsverlangen und Teilungsvorschlag

An Herrn Rechtsanwalt Dr. Georg Pfeiffer, Königstraße 60, 90402 Nürnberg
Ihr Zeichen: Pf 231/26 – Nachlass Herbert Neumann

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
""",
    ("106/26", "Auskunftsverlangen zum Zugewinnausgleich (§ 1379 BGB)"): """\
**Brandt & Hartmann Rechtsanwälte** · Lindenallee 12 · 50968 Köln

Frau Rechtsanwältin Birgit Lehmann
Poppelsdorfer Allee 30
53115 Bonn

Köln, {auskunftsverlangen}

**Ihr Zeichen: L-0316/26 – Familiensache Fischer ./. Fischer, AG Bonn 40 F 87/26
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

Hartmann
Rechtsanwalt
""",
}
