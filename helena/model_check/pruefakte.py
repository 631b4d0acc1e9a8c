"""The made-up Akte the model check works on, and the tools over it.

The model under test sees what it sees in a real run: every tool of the registry with its real name,
description and parameters, and the real system prompt. Only the answers are canned: they come from
this synthetic Akte, never from the firm's database, so nothing of the firm's data reaches a model
while it is being checked (a cloud model included). Dates are relative to the check's day, so the
Fristen are always ahead.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from pydantic import ValidationError

from akten.fristen import FristError, berechne
from helena.agent.tooling import Tool, ToolContext, ToolResult
from helena.llm.dialects import repair_arguments
from helena.tools.registry import all_tools

AKTE_ID = "4711"
AKTENZEICHEN = "PRÜF-7/26"
MANDANTIN = "Erika Sommer"
GEGNER = "Beispiel Bau GmbH"
GEGNERVERTRETUNG = "Rechtsanwältin Dr. Jana Köhler"
GERICHT = "Landgericht Musterstadt"
NOTHING = "In der Prüfakte gibt es dazu nichts."

# Public statute texts (the law is no secret of the firm), enough for the questions of the catalogue.
NORMEN: tuple[dict[str, str], ...] = (
    {"zitat": "§ 517 ZPO", "titel": "Berufungsfrist", "text": (
        "Die Berufungsfrist beträgt einen Monat; sie ist eine Notfrist und beginnt mit der Zustellung des in "
        "vollständiger Form abgefassten Urteils, spätestens aber mit Ablauf von fünf Monaten nach der "
        "Verkündung.")},
    {"zitat": "§ 520 ZPO", "titel": "Berufungsbegründung", "text": (
        "Die Frist für die Berufungsbegründung beträgt zwei Monate und beginnt mit der Zustellung des in "
        "vollständiger Form abgefassten Urteils, spätestens aber mit Ablauf von fünf Monaten nach der "
        "Verkündung.")},
    {"zitat": "§ 193 BGB", "titel": "Sonn- und Feiertag; Sonnabend", "text": (
        "Ist an einem bestimmten Tage oder innerhalb einer Frist eine Willenserklärung abzugeben oder eine "
        "Leistung zu bewirken und fällt der bestimmte Tag oder der letzte Tag der Frist auf einen Sonntag, "
        "einen am Erklärungs- oder Leistungsort staatlich anerkannten allgemeinen Feiertag oder einen "
        "Sonnabend, so tritt an die Stelle eines solchen Tages der nächste Werktag.")},
    {"zitat": "§ 222 ZPO", "titel": "Fristberechnung", "text": (
        "Fällt das Ende einer Frist auf einen Sonntag, einen allgemeinen Feiertag oder einen Sonnabend, so "
        "endet die Frist mit Ablauf des nächsten Werktages.")},
    {"zitat": "§ 631 BGB", "titel": "Vertragstypische Pflichten beim Werkvertrag", "text": (
        "Durch den Werkvertrag wird der Unternehmer zur Herstellung des versprochenen Werkes, der Besteller "
        "zur Entrichtung der vereinbarten Vergütung verpflichtet.")},
)
_WORD_RE = re.compile(r"[a-zäöüß]+|\d+")


@dataclass(frozen=True)
class Pruefakte:
    """The synthetic Akte as of `today`: its facts for the prompt, its Fristen, its parties."""

    today: date

    def frist(self, key: str) -> dict[str, Any]:
        return next(f for f in self.fristen() if f["key"] == key)

    def fristen(self) -> list[dict[str, Any]]:
        """Open Fristen, the nearest first (read_fristen's fields)."""
        rows = [("wiedervorlage", "wiedervorlage", "Wiedervorlage: Gutachten Dr. Weiß prüfen", 3, False),
                ("begruendung", "frist", "Berufungsbegründungsfrist", 12, False),
                ("termin", "termin", "Mündliche Verhandlung, Saal 2.14", 30, False)]
        return [{"key": key, "id": str(90 + n), "akte_id": AKTE_ID, "aktenzeichen": AKTENZEICHEN, "typ": typ,
                 "bezeichnung": name, "datum": (self.today + timedelta(days=days)).isoformat(),
                 "uhrzeit": "10:00" if typ == "termin" else None, "notfrist": notfrist, "erledigt": False,
                 "ueberfaellig": False, "bundesland": "NW"}
                for n, (key, typ, name, days, notfrist) in enumerate(rows)]

    def kurz(self) -> dict[str, Any]:
        return {"id": AKTE_ID, "aktenzeichen": AKTENZEICHEN, "kurzrubrum": f"Sommer ./. {GEGNER}",
                "wegen": "Werklohn aus Bauvertrag", "status": "offen", "rechtsgebiet": "Baurecht"}

    def prompt_facts(self) -> dict[str, Any]:
        """The Akte in focus as helena.agent.prompts.akte_block reads it, without its Fristen: a real
        run's prompt names the next ones, but here the tasks that ask for them test the tools, and a
        model answering from the prompt would be judged for a call it rightly did not need."""
        return {**self.kurz(), "bundesland": "NW", "gegenstandswert": "18500.00 EUR", "mandant": MANDANTIN,
                "gegner": GEGNER, "gericht": GERICHT}

    def detail(self) -> dict[str, Any]:
        return {**self.kurz(), "bundesland": "NW", "gegenstandswert": "18500.00",
                "beteiligte": [{"rolle": "mandant", "name": MANDANTIN},
                               {"rolle": "gegner", "name": GEGNER},
                               {"rolle": "gegnervertreter", "name": GEGNERVERTRETUNG},
                               {"rolle": "gericht", "name": GERICHT, "aktenzeichen": "3 O 118/26"}],
                "fristen": [{k: v for k, v in f.items() if k != "key"} for f in self.fristen()],
                "dokumente": [{"id": "501", "titel": "Urteil Landgericht Musterstadt"},
                              {"id": "502", "titel": "Gutachten Dr. Weiß"}]}


@dataclass
class Werkzeugkasten:
    """The tools of one task over the Prüfakte (the loop's events keep the calls).

    With `fail_first`, the first call that reads the Akte fails with an error that names the other way
    to the same facts: whether the model reads an error and recovers is part of the check.
    """

    akte: Pruefakte
    fail_first: bool = False
    _failed: bool = False

    def tools(self) -> list[Tool]:
        """Every tool a run may offer (meta tools aside: they need a run's ports), answering from here."""
        return [dataclasses.replace(tool, handler=self._handler(tool))
                for tool in all_tools().values() if tool.kind != "meta" and tool.available()]

    def not_set_up(self) -> list[Tool]:
        return [tool for tool in all_tools().values() if tool.kind != "meta" and not tool.available()]

    def _handler(self, tool: Tool) -> Callable[[Any, ToolContext], Any]:
        name = tool.name
        answer = getattr(self, f"_{name}", None)

        async def handler(params: Any, ctx: ToolContext) -> ToolResult:
            data = params.model_dump(exclude_none=True)
            if self.fail_first and not self._failed and name in ("read_fristen", "read_akte_detail"):
                self._failed = True
                other = "read_akte_detail" if name == "read_fristen" else "read_fristen"
                return ToolResult(ok=False, error_code="tool_failed", summary="Werkzeug fehlgeschlagen",
                                  error=f"{name} ist gerade nicht erreichbar (Wartung). Nutze {other} "
                                        f"mit akte_id {AKTE_ID}; dort stehen die Fristen ebenfalls.")
            if answer is None and tool.kind == "write":
                return ToolResult(ok=True, summary="Entwurf zur Freigabe vorgelegt", data={
                    "entwurf_id": "E-2", "status": "wartet auf Freigabe", "felder": data})
            if answer is None:
                return ToolResult(ok=True, data={"ergebnisse": [], "anzahl": 0, "hinweis": NOTHING},
                                  summary="Nichts gefunden")
            return answer(data)

        return handler

    async def execute(self, *, name: str, arguments: Any, ctx: ToolContext,
                      offered: dict[str, Tool]) -> ToolResult:
        """The executor of a run in small: validate, answer, never raise."""
        tool = offered.get(name)
        if tool is None:
            return ToolResult(ok=False, error_code="unknown_tool", summary="Unbekanntes Werkzeug",
                              error=f"Unbekanntes Werkzeug „{name}“. Verfügbar sind: "
                                    f"{', '.join(sorted(offered))}.")
        try:
            return await self._run(tool, arguments, ctx)
        except Exception as exc:  # a bug of the canned answers must not end the check
            return ToolResult(ok=False, error_code="tool_failed", summary="Werkzeug fehlgeschlagen",
                              error=f"{name} ist fehlgeschlagen ({type(exc).__name__}).")

    async def _run(self, tool: Tool, arguments: Any, ctx: ToolContext) -> ToolResult:
        parsed = repair_arguments(arguments, lenient=False)
        if parsed is None:
            return _invalid(f"Die Argumente für {tool.name} sind kein gültiges JSON-Objekt.")
        try:
            params = tool.params.model_validate(parsed)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e.get('loc', ()))) or '(Argumente)'}: {e.get('msg')}"
                                 for e in exc.errors())
            return _invalid(f"Ungültige Argumente für {tool.name}: {problems}.")
        return await tool.handler(params, ctx)

    # --- the canned answers, one per tool the catalogue asks for -------------------------------------

    def _read_fristen(self, data: dict[str, Any]) -> ToolResult:
        if data.get("akte_id") not in (None, "", AKTE_ID):
            return _not_found(data["akte_id"])
        items = [] if data.get("status") == "past" else [
            {k: v for k, v in f.items() if k != "key"} for f in self.akte.fristen()]
        data = {"fristen": items, "anzahl": len(items), "heute": self.akte.today.isoformat()}
        return ToolResult(ok=True, data=data, summary=f"{len(items)} Fristen gefunden")

    def _read_akte(self, data: dict[str, Any]) -> ToolResult:
        query = str(data.get("query") or "").casefold()
        hit = not query or any(word in query for word in ("sommer", "prüf", "beispiel", "werklohn", AKTE_ID))
        akten = [self.akte.kurz()] if hit else []
        found: dict[str, Any] = {"akten": akten, "anzahl": len(akten)}
        if not akten:
            found["hinweis"] = "Keine Akte gefunden. Versuche search_alle_akten für eine Volltextsuche."
        return ToolResult(ok=True, data=found, summary=f"{len(akten)} Akten gefunden")

    def _search_alle_akten(self, data: dict[str, Any]) -> ToolResult:
        akten = self._read_akte(data).data["akten"]
        return ToolResult(ok=True, data={"ergebnisse": [{**a, "akte_id": a["id"]} for a in akten],
                                         "anzahl": len(akten)}, summary=f"{len(akten)} Treffer")

    def _read_akte_detail(self, data: dict[str, Any]) -> ToolResult:
        if data.get("akte_id") != AKTE_ID:
            return _not_found(data.get("akte_id"))
        return ToolResult(ok=True, data=self.akte.detail(), summary=f"Akte {AKTENZEICHEN}")

    def _search_gesetze(self, data: dict[str, Any]) -> ToolResult:
        words = set(_WORD_RE.findall(f"{data.get('query', '')} {data.get('gesetz', '')}".casefold()))
        scored = [(len(words & set(_WORD_RE.findall(" ".join(n.values()).casefold()))), n) for n in NORMEN]
        hits = [n for score, n in sorted(scored, key=lambda s: -s[0]) if score > 0][:3]
        return ToolResult(ok=True, data={"ergebnisse": hits, "anzahl": len(hits),
                                         "stand": "nicht amtliche Fassung"}, summary=f"{len(hits)} Normen")

    def _calculate_frist(self, data: dict[str, Any]) -> ToolResult:
        try:
            ergebnis = berechne(start=data["start"], dauer=data.get("dauer"), preset=data.get("preset"),
                                bundesland="NW", fristbeginn=data.get("fristbeginn", "ereignis"),
                                vorfrist_tage=data.get("vorfrist_tage"))
        except FristError as exc:
            return _invalid(str(exc))
        return ToolResult(ok=True, data={**ergebnis.as_dict(), "bundesland_quelle": f"Akte {AKTENZEICHEN}"},
                          summary=f"Frist endet am {ergebnis.ende:%d.%m.%Y}")

    def _create_draft_frist(self, data: dict[str, Any]) -> ToolResult:
        if data.get("akte_id") != AKTE_ID:
            return _not_found(data.get("akte_id"))
        return ToolResult(ok=True, summary="Frist zur Freigabe vorgelegt", data={
            "entwurf_id": "E-1", "art": "frist", "status": "wartet auf Freigabe", "felder": data,
            "hinweis": "Entwurf angelegt. Er wartet auf die Freigabe durch einen Menschen; in der Akte ist "
                       "noch nichts gespeichert. Sag das dem Nutzer."})


def _invalid(message: str) -> ToolResult:
    return ToolResult(ok=False, error_code="invalid_arguments", summary="Ungültige Argumente",
                      error=f"{message} Bitte korrigiere die Argumente und rufe das Werkzeug erneut auf.")


def _not_found(akte_id: Any) -> ToolResult:
    return ToolResult(ok=False, error_code="not_found", summary="Akte nicht gefunden",
                      error=f"Akte {akte_id} nicht gefunden. akte_id ist die Nummer der Akte (hier "
                            f"{AKTE_ID}), nicht das Aktenzeichen.")
