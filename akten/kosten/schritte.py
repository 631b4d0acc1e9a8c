"""The results (Position, RvgErgebnis, GkgErgebnis) and the steps both calculators share: reading
the Gegenstandswert, the Stichtag and the fee numbers, a fee with its Mindestbetrag."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from akten.kosten.tabellen import Gebuehrentatbestand
from akten.kosten.zahlen import (
    BERLIN,
    HOECHSTWERT,
    MINDESTBETRAG,
    PLAUSIBILITAETSGRENZE,
    KostenError,
    abgeschnitten,
    eur_de,
    geld,
    parse_betrag,
    parse_satz,
    runde,
    satz_de,
    satz_text,
)

# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Position:
    """One computed fee line."""

    nr: str
    bezeichnung: str
    satz: Decimal
    betrag: Decimal

    def as_dict(self) -> dict[str, str]:
        """JSON-ready form with decimal strings."""
        return {
            "nr": self.nr,
            "bezeichnung": self.bezeichnung,
            "satz": satz_text(self.satz),
            "betrag": geld(self.betrag),
        }


@dataclass(frozen=True)
class RvgErgebnis:
    """Lawyer fee calculation; `gegenstandswert` is the value used (after the cap)."""

    tabelle: str
    gegenstandswert: Decimal
    gebuehr_1_0: Decimal
    positionen: tuple[Position, ...]
    auslagenpauschale: Decimal
    netto: Decimal
    ust: Decimal
    gesamt: Decimal
    hinweise: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        """JSON shape consumed by the API and the frontend; money as two-place strings."""
        return {
            "tabelle": self.tabelle,
            "gebuehr_1_0": geld(self.gebuehr_1_0),
            "positionen": [p.as_dict() for p in self.positionen],
            "auslagenpauschale": geld(self.auslagenpauschale),
            "netto": geld(self.netto),
            "ust": geld(self.ust),
            "gesamt": geld(self.gesamt),
            "hinweise": list(self.hinweise),
        }


@dataclass(frozen=True)
class GkgErgebnis:
    """Court fee calculation; no VAT is charged on court fees."""

    tabelle: str
    gegenstandswert: Decimal
    gebuehr_1_0: Decimal
    positionen: tuple[Position, ...]
    gesamt: Decimal
    hinweise: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        """JSON shape consumed by the API and the frontend; money as two-place strings."""
        return {
            "tabelle": self.tabelle,
            "gebuehr_1_0": geld(self.gebuehr_1_0),
            "positionen": [p.as_dict() for p in self.positionen],
            "gesamt": geld(self.gesamt),
            "hinweise": list(self.hinweise),
        }


# --------------------------------------------------------------------------- shared steps


def lies_gegenstandswert(value: object, *, vorschrift: str, hinweise: list[str]) -> Decimal:
    """Validate the value and apply the 30 Mio cap, telling the user when it bites."""
    wert = parse_betrag(value, bezeichnung="Gegenstandswert")
    if wert <= 0:
        raise KostenError("Der Gegenstandswert muss größer als 0 EUR sein.")
    if wert > PLAUSIBILITAETSGRENZE:
        raise KostenError(
            f"Der Gegenstandswert ist unplausibel hoch (mehr als "
            f"{eur_de(PLAUSIBILITAETSGRENZE)}); bitte Eingabe prüfen."
        )
    if wert > HOECHSTWERT:
        hinweise.append(
            f"Der Gegenstandswert von {eur_de(wert)} wurde nach {vorschrift} "
            f"auf {eur_de(HOECHSTWERT)} begrenzt."
        )
        return HOECHSTWERT
    return wert


def lies_stichtag(value: date | None, *, bezeichnung: str) -> date:
    """Default to today; reject non-dates so strings go through parse_datum explicitly."""
    if value is None:
        return datetime.now(BERLIN).date()
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    raise KostenError(f"Ungültiges {bezeichnung}: erwartet wird ein Datum.")


def pruefe_flag(value: object, *, name: str) -> bool:
    """Only real booleans: a JSON string "false" would otherwise count as true."""
    if not isinstance(value, bool):
        raise KostenError(f"Ungültige Angabe für „{name}“: erwartet wird ja/nein (true/false).")
    return value


def _nummer(value: object, *, verzeichnis: str) -> str:
    """Normalise a fee number given as str or int."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise KostenError(f"Ungültige Nummer im {verzeichnis}: erwartet wird z. B. „3100“.")
    return str(value).strip()


def lies_gebuehren(
    gebuehren: object, *, verzeichnis: str
) -> list[tuple[str, Decimal | None]]:
    """Read [{nr, satz?}] (or bare numbers) into (nr, satz) pairs; rates are parsed here."""
    if isinstance(gebuehren, (str, bytes)) or not isinstance(gebuehren, Sequence):
        raise KostenError("Die Gebühren müssen als Liste angegeben werden.")
    posten: list[tuple[str, Decimal | None]] = []
    for eintrag in gebuehren:
        if isinstance(eintrag, Mapping):
            unbekannt = sorted(str(k) for k in eintrag if k not in ("nr", "satz"))
            if unbekannt:
                raise KostenError(
                    f"Unbekannte Angabe bei einer Gebühr: {', '.join(unbekannt)} "
                    f"(erlaubt sind „nr“ und „satz“)."
                )
            if "nr" not in eintrag:
                raise KostenError("Jede Gebühr braucht eine Nummer („nr“).")
            nr = _nummer(eintrag["nr"], verzeichnis=verzeichnis)
            roh = eintrag.get("satz")
            leer = roh is None or (isinstance(roh, str) and not roh.strip())
            posten.append((nr, None if leer else parse_satz(roh)))
        else:
            posten.append((_nummer(eintrag, verzeichnis=verzeichnis), None))
    return posten


def unbekannt(nr: str, *, verzeichnis: str, bekannt: Sequence[str]) -> KostenError:
    """Error for an unknown number that lists the valid ones, so the user can correct it."""
    return KostenError(
        f"Unbekannte Nummer „{abgeschnitten(nr)}“ im {verzeichnis}. "
        f"Bekannte Nummern: {', '.join(sorted(bekannt))}."
    )


def pruefe_doppelte_und_ausschluesse(
    nummern: Sequence[str], *, verzeichnis: str, ausschluesse: Sequence[tuple[str, str]]
) -> None:
    """One value can carry each fee once, and never a fee plus its reduced variant."""
    gesehen: set[str] = set()
    for nr in nummern:
        if nr in gesehen:
            raise KostenError(f"Nr. {nr} {verzeichnis} ist mehrfach angegeben.")
        gesehen.add(nr)
    for a, b in ausschluesse:
        if a in gesehen and b in gesehen:
            raise KostenError(
                f"Nr. {a} und Nr. {b} {verzeichnis} schließen sich aus; bitte nur eine angeben."
            )


def _satz_fuer(
    tatbestand: Gebuehrentatbestand, satz: Decimal | None, *, verzeichnis: str
) -> Decimal:
    """Apply the default rate or check a given one against what the number permits."""
    if satz is None:
        return tatbestand.satz
    nr = tatbestand.nr
    if tatbestand.art == "fest":
        if satz != tatbestand.satz:
            raise KostenError(
                f"Nr. {nr} {verzeichnis} hat den festen Satz {satz_de(tatbestand.satz)}; "
                f"angegeben wurde {satz_de(satz)}."
            )
    elif tatbestand.art == "rahmen":
        assert tatbestand.min_satz is not None and tatbestand.max_satz is not None
        if not tatbestand.min_satz <= satz <= tatbestand.max_satz:
            raise KostenError(
                f"Der Satz für Nr. {nr} {verzeichnis} muss zwischen "
                f"{satz_de(tatbestand.min_satz)} und {satz_de(tatbestand.max_satz)} liegen; "
                f"angegeben wurde {satz_de(satz)}."
            )
    else:
        assert tatbestand.max_satz is not None and tatbestand.schritt is not None
        vielfaches = satz % tatbestand.schritt == 0
        if satz > tatbestand.max_satz or not (vielfaches or satz == tatbestand.max_satz):
            raise KostenError(
                f"Die Erhöhung nach Nr. {nr} {verzeichnis} beträgt "
                f"{satz_de(tatbestand.schritt)} je weiteren Auftraggeber, höchstens "
                f"{satz_de(tatbestand.max_satz)}; angegeben wurde {satz_de(satz)}."
            )
    return satz


def gebuehr_mit_mindestbetrag(*, basis: Decimal, satz: Decimal) -> tuple[Decimal, bool]:
    """Fee for one rate, rounded, raised to the statutory minimum; flag says if it was raised."""
    betrag = runde(basis * satz)
    if betrag < MINDESTBETRAG:
        return MINDESTBETRAG, True
    return betrag, False


def baue_positionen(
    posten: Sequence[tuple[str, Decimal | None]],
    *,
    katalog: Mapping[str, Gebuehrentatbestand],
    verzeichnis: str,
    basis: Decimal,
    mindest_vorschrift: str,
    hinweise: list[str],
) -> tuple[Position, ...]:
    """Turn validated (nr, satz) pairs into rounded fee lines."""
    ergebnis: list[Position] = []
    for nr, satz_eingabe in posten:
        tatbestand = katalog[nr]
        satz = _satz_fuer(tatbestand, satz_eingabe, verzeichnis=verzeichnis)
        betrag, angehoben = gebuehr_mit_mindestbetrag(basis=basis, satz=satz)
        if angehoben:
            hinweise.append(
                f"Nr. {nr} {verzeichnis}: Mindestbetrag von {eur_de(MINDESTBETRAG)} "
                f"angesetzt ({mindest_vorschrift})."
            )
        ergebnis.append(
            Position(nr=nr, bezeichnung=tatbestand.bezeichnung, satz=satz, betrag=betrag)
        )
    return tuple(ergebnis)
