"""The Akte's activity feed, from the outside: the API and the Akte page show what happened,
newest first, and a user who may not see the Akte gets nothing (404)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from akten.erfassung.fristen import frist_erledigen
from akten.models import Dokument, Frist, Notiz
from tests.conftest import Kanzlei
from tests.drafts.test_drafts import _approve, _propose

pytestmark = pytest.mark.django_db


def test_the_feed_shows_what_happened_newest_first(kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["A"]
    anwalt = kanzlei.users["anwalt"]
    frist = Frist.objects.create(akte=akte, bezeichnung="Replik",
                                 datum=timezone.localdate() + timedelta(days=9))
    Dokument.objects.create(akte=akte, titel="Klageschrift", erstellt_von=anwalt)
    Notiz.objects.create(akte=akte, titel="Anruf Mandant", inhalt="Ruft morgen zurück.", verfasst_von=anwalt)
    data = _propose(kanzlei, "anwalt", "create_notiz", {"akte_id": str(akte.pk), "inhalt": "Termin verlegt"})
    assert _approve(kanzlei, "anwalt", data["draft_id"]).status_code == 200
    frist_erledigen(user=anwalt, akte_id=akte.pk, frist_id=frist.pk, vermerk="Schriftsatz eingereicht")

    rows = kanzlei.client("anwalt").get(f"/api/v1/akten/{akte.pk}/aktivitaet").json()
    arts = [r["art"] for r in rows]
    assert arts[0] == "frist_erledigt"
    assert {"frist_angelegt", "dokument_angelegt", "notiz_angelegt", "entwurf_vorgeschlagen",
            "entwurf_freigegeben"} <= set(arts)
    assert [r["zeit"] for r in rows] == sorted((r["zeit"] for r in rows), reverse=True)
    erledigt = rows[0]
    assert erledigt["text"].startswith("Frist „Replik“ zum") and erledigt["text"].endswith("erledigt")
    assert any(r["art"] == "entwurf_freigegeben" and r["wer"] for r in rows)

    assert kanzlei.client("praktikant").get(f"/api/v1/akten/{akte.pk}/aktivitaet").status_code == 404
    page = Client()
    page.force_login(anwalt)
    html = page.get(f"/akten/{akte.pk}/").content.decode()
    # the Akte's Aktivität: the Verlauf tells the Frist's Erledigt (with who and the Vermerk), the feed
    # beside it only what the Verlauf does not know — Helena's drafts and the Dokumente
    assert "Entwürfe und Dokumente" in html and "Klageschrift" in html
    assert "aktivitaet__eintrag--entwurf_freigegeben" in html
    assert "aktivitaet__eintrag--frist_erledigt" not in html and "Replik" in html


def test_a_users_feed_holds_only_the_akten_they_may_see(kanzlei: Kanzlei) -> None:
    a, b = kanzlei.akten["A"], kanzlei.akten["B"]
    Dokument.objects.create(akte=a, titel="Vertraulicher Vergleich")
    Dokument.objects.create(akte=b, titel="Räumungsklage")
    mine = kanzlei.client("anwalt").get("/api/v1/aktivitaet").json()
    assert {r["aktenzeichen"] for r in mine if r["art"] == "dokument_angelegt"} == {"1/26", "2/26"}
    praktikant = kanzlei.client("praktikant").get("/api/v1/aktivitaet").json()  # sees B only
    assert praktikant and all(r["aktenzeichen"] == "2/26" for r in praktikant)
    assert "Vertraulicher Vergleich" not in str(praktikant)
    page = Client()
    page.force_login(kanzlei.users["praktikant"])
    html = page.get("/aktivitaet/").content.decode()
    assert "Räumungsklage" in html and "Vertraulicher Vergleich" not in html
