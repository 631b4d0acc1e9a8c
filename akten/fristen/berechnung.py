"""The Fristen calculator's entry points: berechne_frist, berechne_vorfrist, berechne_preset,
berechne (by name or by duration) and kein_werktag."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from akten.fristen.eingabe import normalisiere_bundesland, parse_datum, parse_fristbeginn
from akten.fristen.kalender import non_working_reason
from akten.fristen.presets import NOTFRIST_HINWEIS, PRESETS
from akten.fristen.rechnen import (
    compute_end,
    parse_vorfrist_dauer,
    partial_holiday_hints,
    regional_holiday_hint,
    shift_forward,
    vorfrist_vor,
)
from akten.fristen.typen import (
    Dauer,
    Fristbeginn,
    FristErgebnis,
    FristError,
    FristPreset,
    Verschiebung,
    Vorfrist,
    format_datum,
    land_text,
    parse_dauer,
)

# --------------------------------------------------------------------------- #
# Public API
# --------------------------------------------------------------------------- #


def kein_werktag(day: date | str, bundesland: str | None = None) -> str | None:
    """Why ``day`` is no Werktag in ``bundesland`` (Sa/So, gesetzlicher Feiertag), else None.

    For checking a date someone typed in: a Frist never ends on such a day (§ 193 BGB,
    § 222 Abs. 2 ZPO), so a proposed Fristende there is almost certainly miscounted.
    """
    return non_working_reason(parse_datum(day), normalisiere_bundesland(bundesland))


def berechne_frist(
    *,
    start: date | str,
    tage: int = 0,
    wochen: int = 0,
    monate: int = 0,
    jahre: int = 0,
    dauer: Dauer | Mapping[str, object] | None = None,
    bundesland: str | None = None,
    fristbeginn: Fristbeginn = "ereignis",
    vorfrist_tage: int | None = None,
    werktagsregel: bool = True,
    preset: FristPreset | None = None,
) -> FristErgebnis:
    """Compute a Frist per §§ 187, 188, 193 BGB, § 222 ZPO with a German Begründung.

    Give the length either as tage/wochen/monate/jahre or as ``dauer`` (dict or Dauer),
    not both. ``vorfrist_tage`` adds a Vorfrist that many days before the end.
    ``werktagsregel=False`` disables § 193 BGB (e.g. for Kündigungsfristen).
    """
    start_date = parse_datum(start)
    beginn = parse_fristbeginn(fristbeginn)
    land = normalisiere_bundesland(bundesland)
    loose = {"tage": tage, "wochen": wochen, "monate": monate, "jahre": jahre}
    if dauer is not None:
        if any(v != 0 or isinstance(v, bool) for v in loose.values()):
            raise FristError("Dauer bitte entweder als „dauer“ oder als Einzelwerte angeben.")
        frist_dauer = parse_dauer(dauer)
    else:
        frist_dauer = parse_dauer(loose)
    if not isinstance(werktagsregel, bool):
        raise FristError("„werktagsregel“ muss wahr oder falsch sein.")

    lines: list[str] = []
    if preset is not None:
        art = "Notfrist" if preset.notfrist else "keine Notfrist"
        lines.append(f"{preset.bezeichnung} ({preset.norm}, {art}).")
    if beginn == "ereignis":
        lines.append(
            f"Fristbeginn nach § 187 Abs. 1 BGB: Ereignistag {format_datum(start_date)}; "
            "dieser Tag wird nicht mitgerechnet."
        )
    else:
        lines.append(
            f"Fristbeginn nach § 187 Abs. 2 BGB: Beginn des Tages {format_datum(start_date)}; "
            "dieser Tag wird mitgerechnet."
        )
    lines.append(f"Dauer: {frist_dauer.text}.")
    raw_end, steps = compute_end(start_date, frist_dauer, beginn)
    lines.extend(steps)
    lines.append(f"Rechnerisches Fristende: {format_datum(raw_end)}.")

    hints: list[str] = []
    if preset is not None:
        if preset.notfrist:
            hints.append(NOTFRIST_HINWEIS)
        if preset.hinweis:
            hints.append(preset.hinweis)

    skipped: tuple[Verschiebung, ...] = ()
    ende = raw_end
    if werktagsregel:
        ende, skipped = shift_forward(raw_end, land)
        if skipped:
            lines.append(
                "Das rechnerische Fristende fällt auf einen Sonnabend, Sonntag oder "
                "gesetzlichen Feiertag; nach § 193 BGB, § 222 Abs. 2 ZPO endet die Frist mit "
                "Ablauf des nächsten Werktags. Übersprungen: "
                + "; ".join(f"{format_datum(v.datum)} ({v.grund})" for v in skipped)
                + "."
            )
        else:
            lines.append(
                "Das Fristende fällt auf einen Werktag; keine Verschiebung nach § 193 BGB, "
                "§ 222 Abs. 2 ZPO."
            )
        if land:
            lines.append(f"Berücksichtigte Feiertage: gesetzliche Feiertage in {land_text(land)}.")
        else:
            lines.append(
                "Kein Bundesland angegeben: Es wurden nur bundesweite gesetzliche Feiertage "
                "berücksichtigt."
            )
            hints.append(
                "Kein Bundesland angegeben: landesrechtliche Feiertage wurden nicht "
                "berücksichtigt. Bitte das Bundesland des Gerichts bzw. Erklärungsorts angeben."
            )
            if regional := regional_holiday_hint(ende):
                hints.append(regional)
        hints.extend(partial_holiday_hints(land, ende, skipped))
    else:
        lines.append(
            "Keine Verschiebung nach § 193 BGB (Werktagsregel ausdrücklich nicht angewendet, "
            "z. B. bei Kündigungsfristen)."
        )
    lines.append(f"Fristende: {format_datum(ende)}, 24:00 Uhr.")

    vorfrist: Vorfrist | None = None
    if vorfrist_tage is not None:
        vorfrist, vorfrist_hints = vorfrist_vor(
            ende, parse_vorfrist_dauer(vorfrist_tage, None), land, start_date
        )
        hints.extend(vorfrist_hints)

    return FristErgebnis(
        start=start_date,
        dauer=frist_dauer,
        fristbeginn=beginn,
        bundesland=land,
        ende=ende,
        unverschobenes_ende=raw_end,
        begruendung=" ".join(lines),
        verschoben=skipped,
        hinweise=tuple(hints),
        vorfrist=vorfrist,
        preset=preset,
        notfrist=preset.notfrist if preset else False,
        werktagsregel=werktagsregel,
    )


def berechne_vorfrist(
    *,
    ende: date | str,
    tage: int | None = None,
    wochen: int | None = None,
    bundesland: str | None = None,
) -> Vorfrist:
    """Reminder date before ``ende`` (default 7 Tage), moved *backwards* to a working day.

    Backwards because staff must see it on a working day before the deadline;
    partial holidays (e.g. 15.08. in BY) also count as non-working here since an
    earlier reminder is always safe.
    """
    ende_date = parse_datum(ende)
    land = normalisiere_bundesland(bundesland)
    vorfrist, _ = vorfrist_vor(ende_date, parse_vorfrist_dauer(tage, wochen), land)
    return vorfrist


def berechne_preset(
    *,
    preset: str,
    start: date | str,
    bundesland: str | None = None,
    vorfrist_tage: int | None = None,
) -> FristErgebnis:
    """Compute a named standard Frist (see ``PRESETS``) with the same core as berechne_frist."""
    if not isinstance(preset, str) or preset.strip().casefold() not in PRESETS:
        valid = ", ".join(PRESETS)
        raise FristError(f"Unbekannte Fristart „{preset}“. Gültig sind: {valid}.")
    chosen = PRESETS[preset.strip().casefold()]
    return berechne_frist(
        start=start,
        dauer=chosen.dauer,
        bundesland=bundesland,
        vorfrist_tage=vorfrist_tage,
        preset=chosen,
    )


def berechne(
    *,
    start: date | str,
    dauer: Mapping[str, object] | None = None,
    preset: str | None = None,
    bundesland: str | None = None,
    fristbeginn: Fristbeginn = "ereignis",
    vorfrist_tage: int | None = None,
) -> FristErgebnis:
    """One entry for callers that accept either a named preset or an explicit Dauer (API, tools)."""
    if preset is not None:
        if dauer is not None:
            raise FristError("Bitte entweder „dauer“ oder „preset“ angeben, nicht beides.")
        if fristbeginn != "ereignis":
            raise FristError("Vordefinierte Fristen beginnen immer mit einem Ereignis.")
        return berechne_preset(preset=preset, start=start, bundesland=bundesland, vorfrist_tage=vorfrist_tage)
    if dauer is None:
        raise FristError("Bitte „dauer“ (z. B. {\"monate\": 1}) oder „preset“ angeben.")
    return berechne_frist(start=start, dauer=dauer, bundesland=bundesland, fristbeginn=fristbeginn,
                          vorfrist_tage=vorfrist_tage)
