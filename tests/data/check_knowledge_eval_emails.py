"""Prüft das zurückgehaltene E-Mail-Set `knowledge_eval_emails.json` gegen den gebündelten Korpus.

Aufruf aus dem Projektverzeichnis (nur Standardbibliothek):

    python tests/data/check_knowledge_eval_emails.py

Geprüft wird:
- Form jedes Eintrags (`frage`, `erwartet`, `gebiet`, `warum`), keine doppelten Fragen;
- Länge jeder `frage`: 120–400 Wörter, höchstens 2 000 Zeichen (Stilregel), hart höchstens 4 000;
- höchstens 8 E-Mails je Gebiet, mindestens 12 Gebiete;
- keine E-Mail steht wortgleich im Entwicklungsset `knowledge_eval_emails_dev.json`; E-Mails, deren
  erwartete Normen auch dort vorkommen, werden als Hinweis aufgezählt (kein Fehler);
- jede Norm in `erwartet` hat die Zitierform des Projekts (`§ 573c BGB`, `Art. 246a § 1 EGBGB`,
  `Art. 3 GG`, `§ 35 SGB V`, `Nr. 3100 VV RVG`) und existiert im amtlichen XML unter
  `corpus/gesetze/*.zip`, und zwar nicht als „(weggefallen)“.

Die Abkürzung wird über die `jurabk` der Gesetze aufgelöst – aus `corpus/gesetze/index.json`, falls
vorhanden, sonst aus dem `<jurabk>` am Anfang jeder XML-Datei (derselbe Wert, den index.json
verzeichnet): Jahreszusatz weg (`GKG 2004` → `GKG`), BGBEG → EGBGB, ZPOEG → EGZPO, GVGEG → EGGVG,
WoEigG → WEG, SGB-Bücher in römischen Ziffern (`SGB 5` → `SGB V`).

Gibt eine deutsche Zusammenfassung aus; Rückgabewert 1 bei jedem Problem, sonst 0.
"""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
import zipfile
from collections import Counter
from pathlib import Path

HIER = Path(__file__).resolve().parent
PROJEKT = HIER.parents[1]
SET = HIER / "knowledge_eval_emails.json"
DEV_SET = HIER / "knowledge_eval_emails_dev.json"  # Entwicklungsset: darf abgestimmt werden, dieses nicht
KORPUS = PROJEKT / "corpus" / "gesetze"

MIN_WOERTER, MAX_WOERTER = 120, 400
MAX_ZEICHEN, HART_MAX_ZEICHEN = 2000, 4000
MAX_JE_GEBIET, MIN_GEBIETE = 8, 12
MAX_NORMEN = 3

SONDERFAELLE = {"BGBEG": "EGBGB", "ZPOEG": "EGZPO", "GVGEG": "EGGVG", "WoEigG": "WEG"}
ROEMISCH = {
    "1": "I",
    "2": "II",
    "3": "III",
    "4": "IV",
    "5": "V",
    "6": "VI",
    "7": "VII",
    "8": "VIII",
    "9": "IX",
    "10": "X",
    "11": "XI",
    "12": "XII",
}
ZITAT = re.compile(
    r"^(?P<bez>§ \d+[a-z]*|Art\. \d+[a-z]*(?: § \d+[a-z]*)?|Nr\. (?P<vv>\d+) VV) (?P<abk>\S.*)$"
)


def zitierabk(jurabk: str) -> str:
    """`jurabk` aus dem XML → Abkürzung, unter der das Projekt zitiert."""
    abk = re.sub(r" (1[89]|20)\d\d$", "", jurabk.strip())
    if abk in SONDERFAELLE:
        return SONDERFAELLE[abk]
    m = re.fullmatch(r"SGB (\d+)", abk)
    if m and m.group(1) in ROEMISCH:
        return "SGB " + ROEMISCH[m.group(1)]
    return abk


def xml_aus_zip(zip_pfad: Path) -> bytes:
    with zipfile.ZipFile(zip_pfad) as z:
        namen = [n for n in z.namelist() if n.lower().endswith(".xml")]
        if len(namen) != 1:
            raise ValueError(f"{zip_pfad.name}: erwartet genau eine XML-Datei, gefunden {len(namen)}")
        return z.read(namen[0])


def gesetze_verzeichnis() -> tuple[dict[str, Path], list[str]]:
    """Zitierabkürzung → ZIP-Datei; dazu Probleme (z. B. doppelte Abkürzungen)."""
    probleme: list[str] = []
    paare: list[tuple[str, Path]] = []
    index = KORPUS / "index.json"
    if index.exists():
        for eintrag in json.loads(index.read_text(encoding="utf-8")):
            zip_pfad = KORPUS / (Path(eintrag["file"]).stem + ".zip")
            paare.append((eintrag["jurabk"], zip_pfad))
    else:
        for zip_pfad in sorted(KORPUS.glob("*.zip")):
            with zipfile.ZipFile(zip_pfad) as z:
                name = next(n for n in z.namelist() if n.lower().endswith(".xml"))
                kopf = z.open(name).read(20000).decode("utf-8", "replace")
            # wie der Importer: die amtliche Abkürzung (amtabk, „StAG“) vor der juris-Abkürzung („RuStAG“)
            m = re.search(r"<amtabk>([^<]+)</amtabk>", kopf) or re.search(r"<jurabk>([^<]+)</jurabk>", kopf)
            if not m:
                probleme.append(f"{zip_pfad.name}: kein <jurabk> gefunden")
                continue
            paare.append((m.group(1), zip_pfad))
    verzeichnis: dict[str, Path] = {}
    for jurabk, zip_pfad in paare:
        abk = zitierabk(jurabk)
        if abk in verzeichnis and verzeichnis[abk] != zip_pfad:
            probleme.append(f"Abkürzung {abk} doppelt: {verzeichnis[abk].name} und {zip_pfad.name}")
        verzeichnis[abk] = zip_pfad
    return verzeichnis, probleme


def klartext(element: ET.Element | None) -> str:
    if element is None:
        return ""
    return re.sub(r"\s+", " ", "".join(element.itertext())).strip()


def normen_eines_gesetzes(zip_pfad: Path) -> tuple[dict[str, str], set[str]]:
    """Bezeichnung (`§ 573c`, `Art. 3`, `Art. 246a § 1`) → Normtext; dazu die Nummern des VV."""
    wurzel = ET.fromstring(xml_aus_zip(zip_pfad))
    normen: dict[str, str] = {}
    vv_nummern: set[str] = set()
    for norm in wurzel.iter("norm"):
        meta = norm.find("metadaten")
        if meta is None:
            continue
        enbez = (meta.findtext("enbez") or "").strip()
        gliederung = (meta.findtext("gliederungseinheit/gliederungsbez") or "").strip()
        text = klartext(norm.find("textdaten/text"))
        titel = klartext(meta.find("titel"))
        artikel = gliederung.replace("Art ", "Art. ", 1) if re.fullmatch(r"Art \d+[a-z]*", gliederung) else ""
        if enbez.startswith("§ ") and artikel:
            bez = f"{artikel} {enbez}"
        elif enbez:
            bez = enbez.replace("Art ", "Art. ", 1) if enbez.startswith("Art ") else enbez
        elif artikel and text:
            bez = artikel  # Artikel ohne Paragraphen (z. B. Art. 6 EGBGB): Text steht an der Gliederung
        else:
            continue
        inhalt = text if text else titel
        if titel == "(weggefallen)":
            inhalt = "(weggefallen)"
        if bez not in normen or normen[bez] in ("(weggefallen)", ""):
            normen[bez] = inhalt  # bei doppelter Bezeichnung zählt die nicht weggefallene
        if enbez == "Anlage 1":
            for eintrag in norm.iter("entry"):
                if eintrag.get("colname") == "col1":
                    nummer = klartext(eintrag)
                    if re.fullmatch(r"\d{4,5}", nummer):
                        vv_nummern.add(nummer)
    return normen, vv_nummern


def wortzahl(text: str) -> int:
    return sum(1 for token in text.split() if re.search(r"\w", token))


class Pruefung:
    """Sammelt Probleme und Kennzahlen über alle Einträge."""

    def __init__(self) -> None:
        self.probleme: list[str] = []
        self.verzeichnis, verzeichnis_probleme = gesetze_verzeichnis()
        self.probleme.extend(verzeichnis_probleme)
        self.geladen: dict[str, tuple[dict[str, str], set[str]]] = {}
        self.gebiete: Counter[str] = Counter()
        self.gesehen: dict[str, int] = {}
        self.woerter: list[int] = []
        self.zeichen: list[int] = []
        self.zitate = 0
        self.gemeinsam_mit_dev: list[int] | None = None

    def eintrag(self, nr: int, eintrag: object) -> None:
        ort = f"E-Mail {nr}"
        if not isinstance(eintrag, dict) or set(eintrag) != {"frage", "erwartet", "gebiet", "warum"}:
            self.probleme.append(f"{ort}: braucht genau die Felder frage, erwartet, gebiet, warum")
            return
        for feld in ("frage", "gebiet", "warum"):
            if not isinstance(eintrag[feld], str) or not eintrag[feld].strip():
                self.probleme.append(f"{ort}: {feld} fehlt oder ist leer")
        if isinstance(eintrag["gebiet"], str) and eintrag["gebiet"].strip():
            self.gebiete[eintrag["gebiet"]] += 1
        if isinstance(eintrag["frage"], str) and eintrag["frage"].strip():
            self.laenge(ort, nr, eintrag["frage"])
        erwartet = eintrag["erwartet"]
        if not isinstance(erwartet, list):
            self.probleme.append(f"{ort}: erwartet muss eine Liste sein")
            return
        if not 1 <= len(erwartet) <= MAX_NORMEN:
            self.probleme.append(f"{ort}: erwartet muss 1 bis {MAX_NORMEN} Normen nennen")
        if len(set(map(str, erwartet))) != len(erwartet):
            self.probleme.append(f"{ort}: eine Norm steht doppelt in erwartet")
        for zitat in erwartet:
            self.zitat(ort, zitat)

    def laenge(self, ort: str, nr: int, frage: str) -> None:
        schluessel = re.sub(r"\s+", " ", frage).strip().lower()
        if schluessel in self.gesehen:
            self.probleme.append(f"{ort}: gleiche frage wie E-Mail {self.gesehen[schluessel]}")
        self.gesehen.setdefault(schluessel, nr)
        w, z = wortzahl(frage), len(frage)
        self.woerter.append(w)
        self.zeichen.append(z)
        if not MIN_WOERTER <= w <= MAX_WOERTER:
            self.probleme.append(f"{ort}: {w} Wörter, erlaubt sind {MIN_WOERTER}–{MAX_WOERTER}")
        if z > HART_MAX_ZEICHEN:
            self.probleme.append(f"{ort}: {z} Zeichen, harte Grenze ist {HART_MAX_ZEICHEN}")
        elif z > MAX_ZEICHEN:
            self.probleme.append(f"{ort}: {z} Zeichen, höchstens {MAX_ZEICHEN} sind vorgesehen")

    def zitat(self, ort: str, zitat: object) -> None:
        self.zitate += 1
        m = ZITAT.match(zitat) if isinstance(zitat, str) else None
        if not m:
            self.probleme.append(f"{ort}: „{zitat}“ hat nicht die Zitierform (z. B. „§ 573c BGB“)")
            return
        abk = m.group("abk")
        if abk not in self.verzeichnis:
            self.probleme.append(f"{ort}: Gesetz „{abk}“ aus „{zitat}“ ist nicht im Korpus")
            return
        if not self.verzeichnis[abk].exists():
            self.probleme.append(f"{ort}: Datei {self.verzeichnis[abk].name} für „{abk}“ fehlt im Korpus")
            return
        if abk not in self.geladen:
            self.geladen[abk] = normen_eines_gesetzes(self.verzeichnis[abk])
        normen, vv_nummern = self.geladen[abk]
        if m.group("vv"):
            if abk != "RVG" or m.group("vv") not in vv_nummern:
                self.probleme.append(f"{ort}: „{zitat}“ steht nicht im Vergütungsverzeichnis des Korpus")
            return
        bez = m.group("bez")
        if bez not in normen:
            self.probleme.append(f"{ort}: „{zitat}“ gibt es im Korpus nicht ({self.verzeichnis[abk].name})")
        elif normen[bez] in ("(weggefallen)", ""):
            self.probleme.append(f"{ort}: „{zitat}“ ist im Korpus weggefallen oder leer")

    def gebiete_pruefen(self) -> None:
        for gebiet, anzahl in sorted(self.gebiete.items()):
            if anzahl > MAX_JE_GEBIET:
                self.probleme.append(f"Gebiet „{gebiet}“: {anzahl} E-Mails, höchstens {MAX_JE_GEBIET}")
        if len(self.gebiete) < MIN_GEBIETE:
            self.probleme.append(f"nur {len(self.gebiete)} Gebiete, mindestens {MIN_GEBIETE} verlangt")

    def abgleich_dev(self, eintraege: list) -> None:
        """Gleicher Text wie im Entwicklungsset ist ein Fehler; gemeinsame Normen werden nur berichtet."""
        if not DEV_SET.exists():
            return
        try:
            dev = json.loads(DEV_SET.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as fehler:
            self.probleme.append(f"{DEV_SET.name} nicht lesbar: {fehler}")
            return
        dev_texte = {re.sub(r"\s+", " ", str(e.get("frage", ""))).strip().lower() for e in dev}
        dev_normen = {n for e in dev for n in e.get("erwartet", [])}
        gemeinsam = []
        for nr, eintrag in enumerate(eintraege, start=1):
            if not isinstance(eintrag, dict):
                continue
            if re.sub(r"\s+", " ", str(eintrag.get("frage", ""))).strip().lower() in dev_texte:
                self.probleme.append(f"E-Mail {nr}: steht wortgleich auch im Entwicklungsset {DEV_SET.name}")
            if set(eintrag.get("erwartet") or []) & dev_normen:
                gemeinsam.append(nr)
        self.gemeinsam_mit_dev = gemeinsam

    def bericht(self, anzahl: int) -> int:
        print(
            f"{SET.name}: {anzahl} E-Mails, {len(self.gebiete)} Gebiete, {self.zitate} erwartete Normen "
            f"aus {len(self.geladen)} Gesetzen gegen {KORPUS.relative_to(PROJEKT)} geprüft."
        )
        if self.woerter:
            print(
                f"Länge: Ø {sum(self.woerter) / len(self.woerter):.0f} Wörter "
                f"({min(self.woerter)}–{max(self.woerter)}), "
                f"Ø {sum(self.zeichen) / len(self.zeichen):.0f} Zeichen (höchstens {max(self.zeichen)})."
            )
        print("Gebiete: " + ", ".join(f"{g} {n}" for g, n in self.gebiete.most_common()))
        if self.gemeinsam_mit_dev is not None:
            nummern = ", ".join(map(str, self.gemeinsam_mit_dev)) or "keine"
            print(
                f"Gemeinsame erwartete Norm mit {DEV_SET.name}: {len(self.gemeinsam_mit_dev)} E-Mails "
                f"(Nr. {nummern}) – Ergebnisse getrennt berichten (Hinweis, kein Fehler)."
            )
        if self.probleme:
            print(f"\n{len(self.probleme)} Problem(e):")
            for problem in self.probleme:
                print(f"  FEHLER: {problem}")
            return 1
        print("Alles in Ordnung: jede erwartete Norm steht im gebündelten Korpus, alle Längen passen.")
        return 0


def main() -> int:
    try:
        eintraege = json.loads(SET.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as fehler:
        print(f"FEHLER: {SET.name} nicht lesbar: {fehler}")
        return 1
    if not isinstance(eintraege, list) or not eintraege:
        print(f"FEHLER: {SET.name} muss eine nicht leere JSON-Liste sein")
        return 1
    pruefung = Pruefung()
    for nr, eintrag in enumerate(eintraege, start=1):
        pruefung.eintrag(nr, eintrag)
    pruefung.gebiete_pruefen()
    pruefung.abgleich_dev(eintraege)
    return pruefung.bericht(len(eintraege))


if __name__ == "__main__":
    sys.exit(main())
