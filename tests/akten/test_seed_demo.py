"""`manage.py seed_demo`: idempotent demo Kanzlei with scoped access (PROTOCOL.md)."""

from __future__ import annotations

import io
import re
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pypdfium2
import pytest
from django.contrib import auth
from django.core.management import call_command
from django.test import Client, RequestFactory
from django.utils import timezone
from pypdf import PdfReader

from akten.demo import AKTEN, demo_tage, seed_demo_kanzlei
from akten.demo_frueher import FRUEHERE_INHALTE
from akten.dokumente.ausgabe import render
from akten.dokumente.ausgabe.kontext import datum_lang, heute
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
from akten.selectors import akten_for
from drafts.models import Draft
from tests.akten.test_dokument_ausgabe import pdf_text

pytestmark = pytest.mark.django_db

PW = "x-test-pw"
ROLES = {
    "admin": Role.ADMIN,
    "anwalt": Role.ANWALT,
    "sachbearbeiter": Role.SACHBEARBEITER,
    "sekretariat": Role.SEKRETARIAT,
    "praktikant": Role.PRAKTIKANT,
}
NON_ADMIN = [name for name in ROLES if name != "admin"]
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
MODELS = (User, Akte, AktenZugriff, Beteiligter, Frist, Dokument, Zeiterfassung, Notiz, Alert)


def authenticate(**credentials: str) -> object:
    """Django's authenticate as the login page calls it: with a request (the login throttle needs one)."""
    return auth.authenticate(RequestFactory().post("/konto/anmelden/"), **credentials)


@pytest.fixture(autouse=True)
def fast_hasher(settings) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def seed(password: str = PW) -> str:
    out = StringIO()
    call_command("seed_demo", password=password, stdout=out)
    return out.getvalue()


def counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in MODELS}


def visible(username: str) -> set[str]:
    return set(akten_for(user=User.objects.get(username=username)).values_list("aktenzeichen", flat=True))


def test_running_twice_gives_identical_counts() -> None:
    seed()
    first = counts()
    output = seed()
    assert counts() == first
    assert first["Akte"] >= 6
    assert all(n > 0 for n in first.values()), first
    assert "nichts neu angelegt" in output
    assert "Akten" in output and "praktikant" in output


def test_rerun_on_a_later_day_keeps_existing_rows() -> None:
    heute = timezone.localdate()
    seed_demo_kanzlei(password=PW, heute=heute)
    first = counts()
    fristen = dict(Frist.objects.values_list("pk", "datum"))
    summary = seed_demo_kanzlei(password=PW, heute=heute + timedelta(days=40))
    assert counts() == first
    assert dict(Frist.objects.values_list("pk", "datum")) == fristen
    assert summary.neu_angelegt == 0


def test_users_have_their_roles_and_can_log_in() -> None:
    seed()
    for username, role in ROLES.items():
        user = authenticate(username=username, password=PW)
        assert user is not None, username
        assert user.role == role
    admin = User.objects.get(username="admin")
    assert admin.is_superuser and admin.is_staff


def test_demo_users_log_in_with_the_password_alone() -> None:
    """docs/protocol.md: the demo keeps its password-only login, by the visible exemption from the
    second factor (ADMIN and ANWALT would need one by default)."""
    seed()
    for username in ROLES:
        assert User.objects.get(username=username).ohne_zweiten_faktor, username
        client = Client()
        response = client.post("/konto/anmelden/", {"username": username, "password": PW}, follow=True)
        assert response.redirect_chain[-1][0] == "/", username
        assert client.get("/akten/").status_code == 200, username
    assert client.get("/admin/").status_code == 302  # praktikant: not staff, the admin's own login
    admin = Client()
    admin.post("/konto/anmelden/", {"username": "admin", "password": PW})
    assert admin.get("/admin/").status_code == 200


def test_password_option_on_a_second_run_changes_the_password() -> None:
    seed("erstes-pw")
    seed("zweites-pw")
    for username in ROLES:
        assert authenticate(username=username, password="zweites-pw") is not None
        assert authenticate(username=username, password="erstes-pw") is None


def test_a_second_start_keeps_the_demo_users_logged_in() -> None:
    """make run seeds at every start: the same password must not be hashed anew (a new salt ends
    every session — a chat left open across a restart could not watch its run go on)."""
    seed()
    client = Client()
    client.force_login(User.objects.get(username="anwalt"))
    before = User.objects.get(username="anwalt").password
    seed()
    assert User.objects.get(username="anwalt").password == before
    assert client.get("/konto/").status_code == 200  # still logged in


def make_run_seed(password: str = "helena-demo") -> tuple[int, str]:
    """seed_demo as `make run` calls it at every start: its exit code and output."""
    out = StringIO()
    try:
        call_command("seed_demo", password=password, nur_demo_datenbank=True, stdout=out)
    except SystemExit as exc:
        return int(exc.code), out.getvalue()
    return 0, out.getvalue()


def test_make_run_seeds_an_empty_or_demo_database_as_before() -> None:
    code, output = make_run_seed("erstes-pw")  # a fresh checkout
    assert code == 0 and "Demo-Kanzlei bereit" in output
    first = counts()
    code, _ = make_run_seed("zweites-pw")  # the next start: the demo's passwords as given
    assert code == 0 and counts() == first
    assert authenticate(username="anwalt", password="zweites-pw") is not None


def test_make_run_leaves_a_firms_database_alone() -> None:
    """A firm's database (restored into `make run`'s): no demo Akte, no password, role or deactivation
    of its users undone; also when the firm kept the demo's user names."""
    seed("kanzlei-pw")
    admin = User.objects.get(username="admin")
    admin.set_password("eigenes-admin-pw")
    admin.save()
    User.objects.filter(username="praktikant").update(is_active=False, role=Role.SEKRETARIAT)
    Akte.objects.filter(aktenzeichen="106/26").delete()  # a demo Akte the firm deleted stays deleted
    User.objects.create_user(username="kmeier", password="meier-pw", role=Role.ANWALT)
    before = counts()
    code, output = make_run_seed()
    assert code == 3, output
    assert "Keine Demo-Daten angelegt" in output and "1 Benutzer" in output
    assert counts() == before and not Akte.objects.filter(aktenzeichen="106/26").exists()
    assert authenticate(username="admin", password="eigenes-admin-pw") is not None
    assert authenticate(username="anwalt", password="helena-demo") is None
    praktikant = User.objects.get(username="praktikant")
    assert not praktikant.is_active and praktikant.role == Role.SEKRETARIAT
    assert not User.objects.get(username="kmeier").ohne_zweiten_faktor  # never for the firm's own

    User.objects.filter(username="kmeier").delete()  # its own Akte is reason enough, too
    Akte.objects.filter(aktenzeichen="101/26").update(aktenzeichen="17/26")
    code, output = make_run_seed()
    assert code == 3 and "1 Akte," in output
    # and a user with a demo name the demo did not make (other e-mail address)
    Akte.objects.filter(aktenzeichen="17/26").update(aktenzeichen="101/26")
    User.objects.filter(username="sekretariat").update(email="buero@kanzlei.example")
    assert make_run_seed()[0] == 3
    assert authenticate(username="admin", password="eigenes-admin-pw") is not None


def test_every_non_admin_sees_some_but_not_all_akten() -> None:
    seed()
    total = Akte.objects.count()
    assert len(visible("admin")) == total
    for username in NON_ADMIN:
        assert 0 < len(visible(username)) < total, username
    assert 1 <= len(visible("praktikant")) <= 2
    assert len(visible("sekretariat")) >= 3


def test_at_least_one_akte_is_visible_to_anwalt_only() -> None:
    seed()
    others = set().union(*(visible(u) for u in NON_ADMIN if u != "anwalt"))
    assert visible("anwalt") - others


def test_access_matches_the_documented_matrix() -> None:
    seed()
    for username in NON_ADMIN:
        assert visible(username) == {a.aktenzeichen for a in AKTEN if username in a.zugriff}


def test_there_are_upcoming_overdue_and_done_fristen() -> None:
    seed()
    heute = timezone.localdate()
    offen = Frist.objects.filter(erledigt=False)
    assert offen.filter(datum__gte=heute).count() >= 3
    assert offen.filter(datum__lt=heute).exists()
    assert Frist.objects.filter(erledigt=True, datum__lt=heute).exists()
    assert offen.filter(ist_notfrist=True, datum__gte=heute).exists()
    assert all(f.vorfrist <= f.datum for f in Frist.objects.exclude(vorfrist=None))


def test_akten_cover_the_main_rechtsgebiete_with_content() -> None:
    seed()
    gebiete = set(Akte.objects.values_list("rechtsgebiet", flat=True))
    assert {"arbeitsrecht", "mietrecht", "verkehrsrecht", "kaufrecht", "erbrecht", "familienrecht"} <= gebiete
    for akte in Akte.objects.all():
        assert akte.beteiligte.filter(rolle=Beteiligter.Rolle.MANDANT).exists(), akte
        assert akte.dokumente.exists() and akte.fristen.exists() and akte.zeiterfassungen.exists(), akte
    # Document templates are fully rendered (no "{name}" left over).
    assert not Dokument.objects.filter(inhalt__regex=r"\{[a-z_]+\}").exists()


def test_the_demo_kanzlei_has_the_letterhead_its_texts_use() -> None:
    """The Briefkopf carries the name and address the demo's own letters print (issue 31)."""
    seed()
    briefkopf = Briefkopf.current()
    assert briefkopf.pk and briefkopf.kanzlei == "Brandt & Hartmann Rechtsanwälte"
    assert (briefkopf.anschrift, briefkopf.ort) == ("Lindenallee 12\n50968 Köln", "Köln")
    assert briefkopf.telefon and briefkopf.email.endswith("@kanzlei-demo.de")
    klage = Dokument.objects.get(titel="Entwurf: Kündigungsschutzklage")
    assert "Brandt & Hartmann Rechtsanwälte, Lindenallee 12, 50968 Köln" in klage.inhalt

    # the Aktenvermerk of 101/26 as PDF: the Kanzlei on top, no court it would be addressed to
    vermerk = Dokument.objects.get(titel="Aktenvermerk: Erstberatung zur Kündigung")
    text = " ".join(pdf_text(render(dokument=vermerk, format="pdf").inhalt).split())
    kopf = text.split("In Sachen")[0]
    assert "Brandt & Hartmann Rechtsanwälte" in kopf and "Lindenallee 12" in kopf and "Tel. 0221" in kopf
    assert "Arbeitsgericht" not in kopf and "Unser Zeichen: 101/26" in kopf
    assert "Maximilian Hartmann" in text and "Rechtsanwältin / Rechtsanwalt" not in text

    # a letterhead the firm changed is kept on the next run, and there stays one
    Briefkopf.objects.update(kanzlei="Brandt Hartmann Partnerschaft")
    seed()
    assert list(Briefkopf.objects.values_list("kanzlei", flat=True)) == ["Brandt Hartmann Partnerschaft"]


def test_the_demo_beteiligten_have_their_anrede() -> None:
    seed()

    def anrede(name: str) -> str:
        return Beteiligter.objects.filter(name=name).values_list("anrede", flat=True).first()

    assert anrede("Renate Hoffmann") == Beteiligter.Anrede.FRAU
    assert anrede("Thomas Müller") == Beteiligter.Anrede.HERR
    assert anrede("Bauer Logistik GmbH") == Beteiligter.Anrede.FIRMA
    assert anrede("Arbeitsgericht Köln") == ""
    assert not Beteiligter.objects.filter(anrede="").exclude(rolle=Beteiligter.Rolle.GERICHT).exists()
    # a demo seeded before there was an Anrede gets it; one the firm chose stays
    Beteiligter.objects.filter(name="Renate Hoffmann").update(anrede="")
    Beteiligter.objects.filter(name="Kevin Lorenz").update(anrede=Beteiligter.Anrede.DIVERS)
    seed()
    assert anrede("Renate Hoffmann") == Beteiligter.Anrede.FRAU
    assert anrede("Kevin Lorenz") == Beteiligter.Anrede.DIVERS


def _kopf(text: str) -> str:
    """What the PDF prints above „In Sachen …“: letterhead, address field, place and date, Zeichen."""
    return text.split("In Sachen")[0]


def test_every_demo_dokument_prints_as_one_letter_to_its_addressee(tmp_path, settings) -> None:
    """The demo's texts hold no letterhead, address, date or signature of their own: the PDF frame
    prints each once, addressed to whom the Dokument goes (the tenant, the insurer, the other side's
    lawyer, the court; a Vermerk to nobody) – and so does the demo conversation's letter."""
    settings.MEDIA_ROOT = tmp_path
    seed()
    client = Client()
    client.force_login(User.objects.get(username="anwalt"))
    entwurf = Draft.objects.get(kind=Draft.Kind.DOKUMENT, fields__titel__startswith="Erinnerung")
    assert entwurf.fields["empfaenger"] == "versicherung" and not entwurf.warnings
    assert client.post(f"/entwuerfe/{entwurf.pk}/freigeben/").status_code in (200, 302)

    specs = {(a.aktenzeichen, d.titel): d for a in AKTEN for d in a.dokumente}
    dokumente = list(Dokument.objects.select_related("akte", "akte__anwalt").order_by("pk"))
    assert len(dokumente) == len(specs) + 1
    seite1 = None
    for dokument in dokumente:
        spec = specs.get((dokument.akte.aktenzeichen, dokument.titel))
        assert dokument.empfaenger == (spec.empfaenger if spec else "versicherung"), dokument.titel
        assert dokument.empfaenger, dokument.titel  # stated for every one, never the old default
        an = list(dokument.akte.beteiligte.filter(rolle=dokument.empfaenger))
        assert an or dokument.empfaenger == NIEMAND, dokument.titel
        pdf = render(dokument=dokument, format="pdf").inhalt
        seiten = [page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages]
        text = "\n".join(seiten)
        kopf = _kopf(text)
        # the letterhead: once on top (the footer repeats the address on every page)
        assert text.count("Tel. 0221 4710-100") == 1, dokument.titel
        assert kopf.count("Brandt & Hartmann Rechtsanwälte") == 1, dokument.titel
        assert text.count("Brandt & Hartmann Rechtsanwälte · Lindenallee 12") == len(seiten), dokument.titel
        # greeting and signature at most once; no old signature line "Hartmann / Rechtsanwalt"
        assert text.count("Mit freundlichen Grüßen") <= 1, dokument.titel
        assert text.count("freundlichen") <= 1, dokument.titel
        assert text.count("Maximilian Hartmann") <= 1, dokument.titel
        assert "\nHartmann\n" not in text, dokument.titel
        assert text.count(datum_lang(heute())) == 1, dokument.titel
        assert not re.search(r"Köln, \d\d\.\d\d\.\d{4}", text), dokument.titel  # the old date line
        assert "**" not in text and "An das" not in text, dokument.titel
        # the address field: who the Dokument goes to, and no court unless it is the court
        for beteiligter in an:
            assert beteiligter.name.split()[-1] in kopf, (dokument.titel, beteiligter.name)
        if dokument.empfaenger != Beteiligter.Rolle.GERICHT:
            assert "gericht" not in kopf.casefold(), (dokument.titel, kopf)
        if dokument.titel == "Fristlose, hilfsweise ordentliche Kündigung des Mietverhältnisses":
            assert "Herrn Kevin Lorenz\nGlogauer Straße 19, 2. OG links\n10999 Berlin" in kopf
            assert text.index("Sehr geehrter Herr Lorenz,") > text.index("In Sachen")
            assert text.index("Mit freundlichen Grüßen") < text.index("Maximilian Hartmann\nRechtsanwalt")
            seite1 = pdf
        if dokument.empfaenger == Beteiligter.Rolle.VERSICHERUNG:
            assert "Ihr Zeichen:" in kopf and "Maximilian Hartmann" in text, dokument.titel
    assert seite1 is not None
    ARTIFACTS.mkdir(exist_ok=True)
    pypdfium2.PdfDocument(seite1)[0].render(scale=1.5).to_pil().save(ARTIFACTS / "demo_kuendigung_seite1.png")


def test_an_older_demo_database_gets_the_texts_without_the_frame() -> None:
    """A demo Dokument whose text is still exactly as an earlier run seeded it (letterhead, address,
    date, signature in the text; no addressee) gets the current text with its own dates and its
    addressee; one the user edited stays as it is."""
    erster_tag = timezone.localdate() - timedelta(days=20)
    seed_demo_kanzlei(password=PW, heute=erster_tag)
    alte_tage = {a.aktenzeichen: demo_tage(a.aktenzeichen, heute=erster_tag) for a in AKTEN}

    def alt(aktenzeichen: str, titel: str) -> str:
        vorlage = FRUEHERE_INHALTE.get((aktenzeichen, titel)) or next(
            d.inhalt for a in AKTEN if a.aktenzeichen == aktenzeichen
            for d in a.dokumente if d.titel == titel)
        return vorlage.format_map({n: t.strftime("%d.%m.%Y") for n, t in alte_tage[aktenzeichen].items()})

    for (aktenzeichen, titel) in FRUEHERE_INHALTE:
        Dokument.objects.filter(akte__aktenzeichen=aktenzeichen, titel=titel).update(
            inhalt=alt(aktenzeichen, titel), empfaenger="")
    Dokument.objects.filter(titel__startswith="Vergleich im Gütetermin").update(empfaenger="")
    bearbeitet = alt("104/26", "Mängelrüge mit Fristsetzung zur Nacherfüllung") + "\nPS: telefonisch vorab."
    Dokument.objects.filter(titel="Mängelrüge mit Fristsetzung zur Nacherfüllung").update(inhalt=bearbeitet)
    assert "Hartmann\nRechtsanwalt" in Dokument.objects.get(titel__startswith="Fristlose").inhalt

    seed_demo_kanzlei(password=PW)  # today: twenty days later
    kuendigung = Dokument.objects.get(titel__startswith="Fristlose")
    assert kuendigung.empfaenger == Beteiligter.Rolle.GEGNER
    assert kuendigung.inhalt.startswith("**Mietverhältnis") and "Hartmann" not in kuendigung.inhalt
    raeumung = alte_tage["102/26"]["raeumungsfrist"].strftime("%d.%m.%Y")
    assert f"bis zum {raeumung} zu räumen" in kuendigung.inhalt  # the first run's day, not today's
    anspruch = Dokument.objects.get(titel__startswith="Schadensanzeige")
    assert anspruch.empfaenger == Beteiligter.Rolle.VERSICHERUNG and "Postfach" not in anspruch.inhalt
    assert Dokument.objects.get(titel__startswith="Vergleich im Gütetermin").empfaenger == NIEMAND
    maengelruege = Dokument.objects.get(titel="Mängelrüge mit Fristsetzung zur Nacherfüllung")
    assert (maengelruege.inhalt, maengelruege.empfaenger) == (bearbeitet, "")
    assert not Dokument.objects.filter(empfaenger="").exclude(pk=maengelruege.pk).exists()
