"""JSON API for the knowledge base (any logged-in role; the corpus is not client data) and, with
kind=akten, for the firm's own files — only those of the Akten the caller may see."""

from __future__ import annotations

from typing import Literal

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema

from akten.lesezugriffe.services import Weg, speichern
from config.errors import NOT_BLANK, errors
from helena.knowledge import query, selectors
from helena.knowledge.aktensuche.search import lesungen, rows, search_akten

router = Router(tags=["Wissen"])


class WissenSucheFilter(Schema):
    q: str = Field(..., max_length=query.MAX_QUERY_CHARS, pattern=NOT_BLANK,
                   description="Frage, Stichworte oder Zitat (z. B. „§ 626 BGB“)")
    kind: Literal["gesetz", "urteil", "muster", "akten"] | None = Field(
        None, description="nur eine Art; „akten“ durchsucht die Akten, Dokumente und Notizen, die du sehen "
                          "darfst (ohne kind: Gesetze, Entscheidungen und Muster)")
    gesetz: str | None = None
    gericht: str | None = None
    kategorie: str | None = None
    limit: int = Field(10, ge=1, le=selectors.MAX_LIMIT)


class AkteRef(Schema):
    id: str
    aktenzeichen: str
    kurzrubrum: str


class DokumentRef(Schema):
    id: str
    titel: str


class WissenTrefferOut(Schema):
    kind: str
    id: str
    title: str
    citation: str
    snippet: str
    score: float
    source: str
    stand: str | None = Field(None, description="der Stand des Gesetzes, wie der amtliche Text ihn "
                                                "angibt (z. B. „zuletzt geändert durch Art. 1 G v. 29.3.2026 "
                                                "I Nr. 83“); leer bei Entscheidungen und Mustern, fehlt bei "
                                                "kind=akten")
    akte: AkteRef | None = Field(None, description="nur bei kind=akten: die Akte des Treffers")
    dokument: DokumentRef | None = Field(None, description="nur bei kind=akten: das Dokument, falls eines")
    fundstelle: str | None = Field(None, description="nur bei kind=akten: wo getroffen (z. B. dokument_text)")
    seite: int | None = Field(None, description="nur bei kind=akten: die Seite eines hochgeladenen Dokuments")
    semantisch: bool | None = Field(None, description="nur bei kind=akten: dem Sinn nach gefunden, nicht "
                                                      "am Wortlaut")


class NormOut(Schema):
    citation: str
    gesetz: str
    gesetz_titel: str
    bezeichnung: str
    titel: str
    gliederung: str
    text: str
    source: str
    stand: str = Field(description="der Stand des Gesetzes, wie der amtliche Text ihn angibt (z. B. „zuletzt "
                                   "geändert durch Art. 1 G v. 29.3.2026 I Nr. 83“)")


@router.get("/knowledge/search", response=list[WissenTrefferOut], exclude_none=True,
            summary="Gesetze, Entscheidungen, Muster – oder die eigenen Akten – suchen")
def knowledge_search(request: HttpRequest, filters: Query[WissenSucheFilter]) -> list[dict]:
    if filters.kind == "akten":
        suche = search_akten(user=request.user, query=filters.q, limit=filters.limit)
        # the passages quoted are reads of their Akten: one INSERT for the whole answer
        speichern(user=request.user, lesungen=lesungen(suche, limit=filters.limit), weg=Weg.API)
        return rows(suche, limit=filters.limit)
    hits = selectors.search(
        query=filters.q, kind=filters.kind, gesetz=filters.gesetz, gericht=filters.gericht,
        kategorie=filters.kategorie, limit=filters.limit,
    )
    return [{**hit.as_dict(), "id": str(hit.id)} for hit in hits]


@router.get("/knowledge/normen/{gesetz}/{bezeichnung}", response={200: NormOut, **errors(404)},
             summary="Volltext einer Norm")
def knowledge_norm(request: HttpRequest, gesetz: str, bezeichnung: str) -> dict:
    norm = selectors.get_norm(gesetz=gesetz, bezeichnung=bezeichnung)
    return {
        "citation": norm.citation,
        "gesetz": norm.gesetz.abk,
        "gesetz_titel": norm.gesetz.titel,
        "bezeichnung": norm.bezeichnung,
        "titel": norm.titel,
        "gliederung": norm.gliederung,
        "text": norm.text,
        "source": norm.gesetz.source_label,
        "stand": selectors.gesetz_stand(norm.gesetz),
    }
