"""The two calculators: lawyer's fees (RVG) and court fees (GKG)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from decimal import Decimal, localcontext

from akten.kosten.schritte import (
    GkgErgebnis,
    Position,
    RvgErgebnis,
    baue_positionen,
    lies_gebuehren,
    lies_gegenstandswert,
    lies_stichtag,
    pruefe_doppelte_und_ausschluesse,
    pruefe_flag,
    unbekannt,
)
from akten.kosten.tabellen import (
    ERHOEHBAR,
    GKG_AUSSCHLUESSE,
    GKG_TABELLEN,
    KV_GKG,
    RVG_AUSLAGEN,
    RVG_AUSSCHLUESSE,
    RVG_TABELLEN,
    SCHWELLENSATZ_2300,
    VV_RVG,
    waehle_tabelle,
)
from akten.kosten.zahlen import (
    AUSLAGENPAUSCHALE_ANTEIL,
    AUSLAGENPAUSCHALE_HOECHSTBETRAG,
    KONTEXT,
    UST_SATZ,
    KostenError,
    runde,
    satz_de,
)

# --------------------------------------------------------------------------- RVG


def berechne_rvg(
    *,
    gegenstandswert: Decimal | int | str,
    gebuehren: Sequence[Mapping[str, object] | str | int],
    auftragsdatum: date | None = None,
    auslagenpauschale: bool = True,
    ust: bool = True,
) -> RvgErgebnis:
    """Compute lawyer fees (Wertgebühren) under the RVG table in force on the Auftragsdatum.

    The Auftragsdatum decides the table (§ 60 RVG). Listing "7002"/"7008" in
    `gebuehren` switches the Auslagenpauschale/Umsatzsteuer on, whatever the flags say.
    """
    pauschale_an = pruefe_flag(auslagenpauschale, name="auslagenpauschale")
    ust_an = pruefe_flag(ust, name="ust")
    with localcontext(KONTEXT):
        hinweise: list[str] = []
        wert = lies_gegenstandswert(
            gegenstandswert, vorschrift="§ 22 Abs. 2 RVG", hinweise=hinweise
        )
        stichtag = lies_stichtag(auftragsdatum, bezeichnung="Auftragsdatum")
        tabelle = waehle_tabelle(RVG_TABELLEN, stichtag=stichtag, gesetz="RVG")
        verzeichnis = "VV RVG"

        posten: list[tuple[str, Decimal | None]] = []
        for nr, satz in lies_gebuehren(gebuehren, verzeichnis=verzeichnis):
            if nr in RVG_AUSLAGEN:
                if satz is not None:
                    raise KostenError(f"Nr. {nr} {verzeichnis} wird ohne Satz angegeben.")
                if nr == "7002":
                    pauschale_an = True
                else:
                    ust_an = True
                continue
            if nr not in VV_RVG:
                raise unbekannt(
                    nr, verzeichnis=verzeichnis, bekannt=[*VV_RVG, *RVG_AUSLAGEN]
                )
            posten.append((nr, satz))
        if not posten:
            raise KostenError("Bitte mindestens eine Gebühr (z. B. Nr. 3100 VV RVG) angeben.")
        nummern = [nr for nr, _ in posten]
        pruefe_doppelte_und_ausschluesse(
            nummern, verzeichnis=verzeichnis, ausschluesse=RVG_AUSSCHLUESSE
        )

        gebuehr_1_0 = tabelle.gebuehr(wert)
        positionen = baue_positionen(
            posten,
            katalog=VV_RVG,
            verzeichnis=verzeichnis,
            basis=gebuehr_1_0,
            mindest_vorschrift="§ 13 Abs. 2 RVG",
            hinweise=hinweise,
        )
        hinweise.extend(_rvg_hinweise(positionen, nummern))

        summe = sum((p.betrag for p in positionen), Decimal("0.00"))
        pauschale = Decimal("0.00")
        if pauschale_an:
            pauschale = min(
                runde(summe * AUSLAGENPAUSCHALE_ANTEIL), AUSLAGENPAUSCHALE_HOECHSTBETRAG
            )
        netto = summe + pauschale
        steuer = runde(netto * UST_SATZ) if ust_an else Decimal("0.00")
        return RvgErgebnis(
            tabelle=tabelle.bezeichnung,
            gegenstandswert=wert,
            gebuehr_1_0=gebuehr_1_0,
            positionen=positionen,
            auslagenpauschale=pauschale,
            netto=netto,
            ust=steuer,
            gesamt=netto + steuer,
            hinweise=tuple(hinweise),
        )


def _rvg_hinweise(positionen: Sequence[Position], nummern: Sequence[str]) -> list[str]:
    """Warnings a lawyer must see before billing, without blocking the calculation."""
    hinweise: list[str] = []
    for position in positionen:
        if position.nr == "2300" and position.satz > SCHWELLENSATZ_2300:
            hinweise.append(
                f"Geschäftsgebühr (Nr. 2300 VV RVG) mit Satz {satz_de(position.satz)}: "
                f"Ein Satz über 1,3 kann nur gefordert werden, wenn die Tätigkeit "
                f"umfangreich oder schwierig war; bitte begründen."
            )
    if "2300" in nummern and any(nr in ("3100", "3101") for nr in nummern):
        hinweise.append(
            "Die Anrechnung der Geschäftsgebühr auf die Verfahrensgebühr "
            "(Vorbem. 3 Abs. 4 VV RVG) ist nicht berücksichtigt."
        )
    if "1008" in nummern and not ERHOEHBAR.intersection(nummern):
        hinweise.append(
            "Die Erhöhung nach Nr. 1008 VV RVG setzt eine Verfahrens- oder "
            "Geschäftsgebühr voraus."
        )
    return hinweise


# --------------------------------------------------------------------------- GKG


def berechne_gkg(
    *,
    gegenstandswert: Decimal | int | str,
    gebuehren: Sequence[Mapping[str, object] | str | int] | None = None,
    stichtag: date | None = None,
) -> GkgErgebnis:
    """Compute court fees under the GKG table in force on `stichtag` (default: Nr. 1210).

    The caller picks the Stichtag (usually Anhängigkeit, § 71 GKG); default is today.
    """
    with localcontext(KONTEXT):
        hinweise: list[str] = []
        wert = lies_gegenstandswert(
            gegenstandswert, vorschrift="§ 39 Abs. 2 GKG", hinweise=hinweise
        )
        tag = lies_stichtag(stichtag, bezeichnung="Stichtag")
        tabelle = waehle_tabelle(GKG_TABELLEN, stichtag=tag, gesetz="GKG")
        verzeichnis = "KV GKG"

        posten = lies_gebuehren(
            ["1210"] if gebuehren is None else gebuehren, verzeichnis=verzeichnis
        )
        if not posten:
            raise KostenError("Bitte mindestens eine Gebühr (z. B. Nr. 1210 KV GKG) angeben.")
        for nr, _ in posten:
            if nr not in KV_GKG:
                raise unbekannt(nr, verzeichnis=verzeichnis, bekannt=list(KV_GKG))
        pruefe_doppelte_und_ausschluesse(
            [nr for nr, _ in posten], verzeichnis=verzeichnis, ausschluesse=GKG_AUSSCHLUESSE
        )

        gebuehr_1_0 = tabelle.gebuehr(wert)
        positionen = baue_positionen(
            posten,
            katalog=KV_GKG,
            verzeichnis=verzeichnis,
            basis=gebuehr_1_0,
            mindest_vorschrift="§ 34 Abs. 2 GKG",
            hinweise=hinweise,
        )
        return GkgErgebnis(
            tabelle=tabelle.bezeichnung,
            gegenstandswert=wert,
            gebuehr_1_0=gebuehr_1_0,
            positionen=positionen,
            gesamt=sum((p.betrag for p in positionen), Decimal("0.00")),
            hinweise=tuple(hinweise),
        )
