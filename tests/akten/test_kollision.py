"""Kollisionsprüfung (issue 32): the name key and the word rule, the search against the database,
what a hit means for the new role, the API (who may ask, what an Akte one may not see reveals) and the
admin's record of every check."""

from __future__ import annotations

import json

import pytest
from django.db import connection, transaction
from django.test import Client

from akten.kollision import pruefe
from akten.kollision.pruefung import (
    HOECHSTENS_JE_NAME,
    kandidaten,
    pruefung,
    schwelle_fuer,
    trigramm_schwelle,
)
from akten.models import Akte, Beteiligter, Kollisionspruefung, User
from akten.namen import gleicher_name, name_schluessel
from tests.conftest import Kanzlei

MANDANT, GEGNER = Beteiligter.Rolle.MANDANT, Beteiligter.Rolle.GEGNER

# (in the firm's records, as checked): the same person or company.
GLEICH = [
    ("Müller", "Mueller"),
    ("Weiß", "Weiss"),
    ("Bauer Logistik GmbH", "Bauer Logistik GmbH & Co. KG"),
    ("Hans Müller", "Müller, Hans"),
    ("Hans Müller", "Dr. Hans Müller"),
    ("Hans Müller", "Prof. Dr. med. Hans Mueller"),
    ("Hans Müller", "Hans Müler"),            # a letter left out
    ("Schmidt", "Schmitt"),                   # a letter replaced
    ("Hans Schmidt", "Hans Schmitt"),
    ("Meier", "Maier"),
    ("Hans Müller", "Hnas Müller"),           # two letters swapped
    ("José García", "Jose Garcia"),           # accents
    ("Çelik Yılmaz", "Celik Yilmaz"),
    ("Müller", "Mu\u0308ller"),               # ü written as u and a combining diaeresis
    ("Hans Müller", "H. Müller"),             # an initial
    ("Hans Müller", "Hans Peter Müller"),     # a second first name
    ("Hans Müller", "Hans Müller Bau e. K."),  # the sole trader's business
    ("Jan Kohl", "Jan Kohl Gebäudetechnik e. K."),  # … with a long word on top of a short name
    ("Ute Bock Sanitärtechnik", "Ute Bock"),
    ("Karl Schmidt", "Carl Schmidt"),
    ("Müller", "Müller GmbH"),                # a legal form tells nobody apart
    ("Sportverein Eintracht e. V.", "Eintracht Sportverein eV"),
    ("Grün & Partner UG (haftungsbeschränkt)", "Gruen Partner"),
]
# Different people or companies: must not be a hit.
VERSCHIEDEN = [
    ("Hans Müller", "Hans Meier"),            # the same first name, another surname
    ("Hans Müller", "Peter Müller"),          # the same surname, another first name
    ("Müller Bau GmbH", "Müller"),            # one word alone is no person: not every Müller
    ("Hans Müller", "Müller"),
    ("Jan Schulz", "Jana Schulz"),            # short words must be equal (no typo from 4 letters down)
    ("Ute Berg", "Uta Berg"),
    ("Bauer Logistik GmbH", "Bauer Spedition GmbH"),
    ("Hans Müller", "Hans Peter Müller-Lüdenscheidt"),  # two words more
    ("E. Müller", "H. Müller"),
    ("Hans Müller", "Hans Peter Müler"),      # one deviation at most: a word more or a typo
    ("Hans Müller", "Hanz Müler"),
    ("Lukas Schulz", "Frank Lukasz Scholz"),
    ("Hans Müller", "H. M."),                 # initials alone say too little
    ("Hans", "H"),
]


@pytest.mark.parametrize(("vorhanden", "neu"), GLEICH)
def test_same_name_whatever_the_spelling(vorhanden: str, neu: str) -> None:
    assert gleicher_name(name_schluessel(neu), name_schluessel(vorhanden))
    assert gleicher_name(name_schluessel(vorhanden), name_schluessel(neu))


@pytest.mark.parametrize(("vorhanden", "neu"), VERSCHIEDEN)
def test_different_names_are_no_hit(vorhanden: str, neu: str) -> None:
    assert not gleicher_name(name_schluessel(neu), name_schluessel(vorhanden))


def test_the_key() -> None:
    assert name_schluessel("Müller, Hans") == name_schluessel("Dr. Hans Mueller") == "hans mueller"
    assert name_schluessel("Bauer Logistik GmbH & Co. KG") == "bauer logistik"
    assert name_schluessel("E. Müller") == "e mueller"  # the initial stays, only „e. V.“ goes
    assert name_schluessel("Łukasz Yılmaz") == "lukasz yilmaz"
    assert name_schluessel("Иван Петров") == "иван петров"  # other scripts are kept, not emptied
    assert name_schluessel("Co KG") == "co kg"
    assert name_schluessel("!!!") == ""


# ---------------------------------------------------------------------------------------------
# Against the database: the index offers the candidate, the word rule decides.


@pytest.fixture
def kanzlei_klein(db) -> tuple[User, Akte, Akte]:
    admin = User.objects.create_user(username="chefin", role="ADMIN", first_name="Clara", last_name="Chef")
    alt = Akte.objects.create(aktenzeichen="10/25", kurzrubrum="alt", anwalt=admin)
    neu = Akte.objects.create(aktenzeichen="11/26", kurzrubrum="neu")
    return admin, alt, neu


def _partei(akte: Akte, name: str, rolle: str = MANDANT) -> Beteiligter:
    b = Beteiligter(akte=akte, name=name, rolle=rolle)
    b.save()
    return b


@pytest.mark.parametrize(("vorhanden", "neu"), GLEICH)
def test_the_database_finds_each_variant(kanzlei_klein, vorhanden: str, neu: str) -> None:
    admin, alt, _ = kanzlei_klein
    _partei(alt, vorhanden)
    _partei(alt, "Irgendwer Anders")
    treffer = pruefe(namen=[neu], user=admin)
    assert [t.gefunden_als for t in treffer] == [vorhanden]


@pytest.mark.parametrize(("vorhanden", "neu"), VERSCHIEDEN)
def test_the_database_keeps_different_names_apart(kanzlei_klein, vorhanden: str, neu: str) -> None:
    admin, alt, _ = kanzlei_klein
    _partei(alt, vorhanden)
    assert pruefe(namen=[neu], user=admin) == []


def test_new_gegner_who_was_mandant_is_a_conflict(kanzlei_klein) -> None:
    admin, alt, _ = kanzlei_klein
    _partei(alt, "Hans Müller", MANDANT)
    [t] = pruefe(namen=["Müller, Hans"], user=admin, neue_rolle=GEGNER)
    assert t.konflikt and t.rolle == MANDANT and t.aktenzeichen == "10/25"
    assert "Mögliche Interessenkollision" in t.hinweis and "Gegner/in" in t.hinweis


def test_new_mandant_who_was_gegner_is_a_conflict(kanzlei_klein) -> None:
    admin, alt, _ = kanzlei_klein
    _partei(alt, "Bauer Logistik GmbH", GEGNER)
    [t] = pruefe(namen=["Bauer Logistik GmbH & Co. KG"], user=admin, neue_rolle=MANDANT)
    assert t.konflikt and t.rolle == GEGNER


def test_the_same_role_elsewhere_is_only_a_hint(kanzlei_klein) -> None:
    admin, alt, _ = kanzlei_klein
    _partei(alt, "Hans Müller", MANDANT)
    _partei(alt, "Bauer Logistik GmbH", GEGNER)
    [mandant] = pruefe(namen=["Hans Müller"], user=admin, neue_rolle=MANDANT)
    [gegner] = pruefe(namen=["Bauer Logistik"], user=admin, neue_rolle=GEGNER)
    [ohne_rolle] = pruefe(namen=["Hans Müller"], user=admin)
    assert not mandant.konflikt and not gegner.konflikt and not ohne_rolle.konflikt
    assert mandant.hinweis == "„Hans Müller“ ist oder war Mandant/in in der Akte 10/25."


def test_other_new_roles_are_no_conflict(kanzlei_klein) -> None:
    admin, alt, _ = kanzlei_klein
    _partei(alt, "Hans Müller", MANDANT)
    for rolle in (Beteiligter.Rolle.ZEUGE, Beteiligter.Rolle.GERICHT, "", "gibt-es-nicht"):
        [t] = pruefe(namen=["Hans Müller"], user=admin, neue_rolle=rolle)
        assert not t.konflikt


def test_the_same_person_on_both_sides_of_one_akte(kanzlei_klein) -> None:
    admin, _, neu = kanzlei_klein
    _partei(neu, "Hans Müller", MANDANT)
    [t] = pruefe(namen=["Hans Mueller"], user=admin, neue_rolle=GEGNER, fuer_akte=neu.pk)
    assert t.konflikt and t.akte_id == neu.pk
    assert t.hinweis.startswith("Interessenkollision in dieser Akte: „Hans Müller“ ist hier schon Mandant/in")
    assert pruefe(namen=["Hans Mueller"], user=admin, neue_rolle=GEGNER, ausser_akte=neu.pk) == []


def test_other_roles_are_not_compared(kanzlei_klein) -> None:
    admin, alt, _ = kanzlei_klein
    _partei(alt, "Amtsgericht Köln", Beteiligter.Rolle.GERICHT)
    _partei(alt, "Hans Müller", Beteiligter.Rolle.ZEUGE)
    assert pruefe(namen=["Amtsgericht Köln", "Hans Müller"], user=admin, neue_rolle=GEGNER) == []


def test_the_party_being_edited_is_not_its_own_hit(kanzlei_klein) -> None:
    admin, alt, _ = kanzlei_klein
    b = _partei(alt, "Hans Müller")
    assert pruefe(namen=["Hans Müller"], user=admin, ausser_beteiligter=b.pk) == []


def test_a_common_name_is_limited_conflicts_first(kanzlei_klein) -> None:
    admin, alt, _ = kanzlei_klein
    Beteiligter.objects.bulk_create(
        [Beteiligter(akte=alt, name="Hans Müller", rolle=MANDANT, name_schluessel="hans mueller")
         for _ in range(HOECHSTENS_JE_NAME + 10)]
        + [Beteiligter(akte=alt, name="Hans Mueller", rolle=GEGNER, name_schluessel="hans mueller")])
    ergebnis = pruefung(namen=["Hans Müller", "Müller, Hans"], user=admin, neue_rolle=MANDANT)
    assert len(ergebnis.treffer) == HOECHSTENS_JE_NAME  # the two spellings are one name, checked once
    assert ergebnis.weitere == 11
    assert ergebnis.treffer[0].konflikt and ergebnis.treffer[0].gefunden_als == "Hans Mueller"
    assert not any(t.konflikt for t in ergebnis.treffer[1:])


def test_the_threshold_follows_the_name() -> None:
    assert schwelle_fuer("mueller") == 0.3                       # one word with a typo: 0.33
    assert schwelle_fuer("hans mueller") == 0.38                  # at most 0.4, less a margin
    assert schwelle_fuer("jan kohl") == 0.34                      # a long word more keeps 9 of 25
    assert schwelle_fuer("bock sanitaertechnik ute") == 0.34      # its longest word missing: 9 of 25


@pytest.mark.django_db
def test_the_threshold_is_set_for_the_search_only() -> None:
    """Inside a transaction of the caller (a service saving a party) the session's own pg_trgm
    threshold comes back after the check, and the check uses its own."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL pg_trgm.similarity_threshold = 0.7")
        with trigramm_schwelle() as schwelle:
            schwelle(0.35)
            cursor.execute("SHOW pg_trgm.similarity_threshold")
            assert float(cursor.fetchone()[0]) == 0.35
        cursor.execute("SHOW pg_trgm.similarity_threshold")
        assert float(cursor.fetchone()[0]) == 0.7


@pytest.mark.django_db
def test_the_search_can_use_the_trigram_index() -> None:
    """The query's shape is one the GIN index answers (bench/kollision.py shows the plan on 100,000
    parties; a few rows here would be read without it, so the table scan is switched off)."""
    with trigramm_schwelle() as schwelle, connection.cursor() as cursor:
        schwelle(schwelle_fuer("hans mueller"))
        cursor.execute("SET LOCAL enable_seqscan = off")
        sql, params = kandidaten("hans mueller").values_list("pk").query.sql_with_params()
        cursor.execute("EXPLAIN " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "beteiligter_schluessel_trgm" in plan, plan


# ---------------------------------------------------------------------------------------------
# POST /api/v1/kollisionspruefung


URL = "/api/v1/kollisionspruefung"


@pytest.fixture
def parteien(kanzlei: Kanzlei) -> Kanzlei:
    """Hans Müller is Mandant in 2/26 (the Sekretariat sees it) and in 3/26 (it does not; Anna Berger
    is its lawyer); the Bauer Logistik GmbH is Gegner in 4/26, which no one but the admin sees and
    which has no lawyer."""
    anwalt = kanzlei.users["anwalt"]
    anwalt.first_name, anwalt.last_name = "Anna", "Berger"
    anwalt.save()
    akte_c = kanzlei.akten["C"]
    akte_c.anwalt = anwalt
    akte_c.save()
    _partei(kanzlei.akten["B"], "Hans Müller", MANDANT)
    _partei(akte_c, "Dr. Hans Mueller", MANDANT)
    _partei(kanzlei.akten["D"], "Bauer Logistik GmbH", GEGNER)
    return kanzlei


def _post(kanzlei: Kanzlei, user: str, body: object) -> tuple[int, dict]:
    response = kanzlei.client(user).post(URL, json.dumps(body), content_type="application/json")
    return response.status_code, response.json()


@pytest.mark.django_db
def test_api_hits_with_aktenzeichen_only_where_the_caller_may_look(parteien: Kanzlei) -> None:
    status, body = _post(parteien, "sekretariat", {"namen": ["Müller, Hans", "Bauer Logistik GmbH & Co. KG"],
                                                  "rolle": "gegner"})
    assert status == 200, body
    assert body["konflikt"] is True and body["weitere"] == 0
    # of an Akte the caller may not see: not its Aktenzeichen, not how the name is written there, and
    # no hit at all where it is no conflict (that someone is a party elsewhere is that Akte's secret)
    sichtbar = next(t for t in body["treffer"] if "akte_id" in t)
    assert sichtbar == {"name": "Müller, Hans", "gefunden_als": "Hans Müller", "rolle": "mandant",
                        "akte_id": str(parteien.akten["B"].pk), "aktenzeichen": "2/26", "konflikt": True,
                        "hinweis": "Mögliche Interessenkollision: „Hans Müller“ ist oder war Mandant/in in "
                                   "der Akte 2/26, soll hier aber Gegner/in sein."}
    verborgen = [t for t in body["treffer"] if "akte_id" not in t]
    assert verborgen == [{
        "name": "Müller, Hans", "gefunden_als": "Müller, Hans", "rolle": "mandant", "konflikt": True,
        "hinweis": "Mögliche Interessenkollision: „Müller, Hans“ ist oder war Mandant/in in einer Akte, die "
                   "du nicht sehen darfst, soll hier aber Gegner/in sein. Bitte frag Anna Berger, bevor du "
                   "weitermachst."}]
    assert "Dr. Hans Mueller" not in json.dumps(body, ensure_ascii=False)
    assert "Bauer Logistik" not in json.dumps([t["gefunden_als"] for t in body["treffer"]])
    text = json.dumps(body, ensure_ascii=False)
    for key in ("C", "D"):  # neither the Aktenzeichen nor the id of a hidden Akte, anywhere
        assert parteien.akten[key].aktenzeichen not in text
        assert f'"{parteien.akten[key].pk}"' not in text and f": {parteien.akten[key].pk}," not in text


@pytest.mark.django_db
def test_api_the_admin_sees_every_akte(parteien: Kanzlei) -> None:
    status, body = _post(parteien, "admin", {"namen": ["Hans Müller"]})
    assert status == 200
    assert sorted(t["aktenzeichen"] for t in body["treffer"]) == ["2/26", "3/26"]
    assert body["konflikt"] is False


@pytest.mark.django_db
def test_api_no_hit(parteien: Kanzlei) -> None:
    assert _post(parteien, "anwalt", {"namen": ["Hans Meier"], "rolle": "mandant"}) == (
        200, {"treffer": [], "konflikt": False, "weitere": 0})
    pruefung_ = Kollisionspruefung.objects.get()
    assert pruefung_.entscheidung == Kollisionspruefung.Entscheidung.KEINE_TREFFER


@pytest.mark.django_db
def test_api_every_question_is_recorded_with_all_hits(parteien: Kanzlei) -> None:
    _post(parteien, "sekretariat", {"namen": [" Hans Müller ", "Hans Müller"], "rolle": "gegner"})
    pruefung_ = Kollisionspruefung.objects.get()
    assert pruefung_.anlass == Kollisionspruefung.Anlass.ABFRAGE
    assert pruefung_.user == parteien.users["sekretariat"] and pruefung_.akte is None
    assert pruefung_.namen == ["Hans Müller"]
    assert pruefung_.entscheidung == Kollisionspruefung.Entscheidung.OFFEN
    # the record is the firm's: it keeps the hidden Akte too
    assert sorted(t["aktenzeichen"] for t in pruefung_.treffer) == ["2/26", "3/26"]


@pytest.mark.django_db
def test_api_refuses_the_praktikant(parteien: Kanzlei) -> None:
    status, body = _post(parteien, "praktikant", {"namen": ["Hans Müller"]})
    assert status == 403 and body["code"] == "forbidden"
    assert "außer Praktikantinnen und Praktikanten" in body["detail"]
    assert "Müller" not in json.dumps(body, ensure_ascii=False)
    assert not Kollisionspruefung.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("user", ["admin", "anwalt", "sachbearbeiter", "sekretariat"])
def test_api_every_other_role_may_ask(parteien: Kanzlei, user: str) -> None:
    assert _post(parteien, user, {"namen": ["Hans Müller"]})[0] == 200


@pytest.mark.django_db
def test_api_anonymous_is_401(parteien: Kanzlei) -> None:
    response = Client().post(URL, json.dumps({"namen": ["Hans Müller"]}), content_type="application/json")
    assert response.status_code == 401


@pytest.mark.django_db
@pytest.mark.parametrize("body", [
    {},
    {"namen": []},
    {"namen": "Hans Müller"},
    {"namen": ["Name"] * 51},
    {"namen": ["x" * 201]},
    {"namen": ["   "]},
    {"namen": ["!!!"]},
    {"namen": [42]},
    {"namen": ["Hans Müller"], "rolle": "chef"},
    ["Hans Müller"],
])
def test_api_bad_input_is_a_german_422_and_nothing_recorded(parteien: Kanzlei, body: object) -> None:
    status, answer = _post(parteien, "anwalt", body)
    assert status == 422, answer
    assert answer["code"] == "invalid_input" and answer["detail"]
    assert "x" * 100 not in json.dumps(answer)
    assert not Kollisionspruefung.objects.exists()


@pytest.mark.django_db
def test_api_fifty_names_and_two_hundred_characters_are_fine(parteien: Kanzlei) -> None:
    namen = [f"Person Nummer{i}" for i in range(49)] + ["Müller " + "x" * 193]
    assert _post(parteien, "anwalt", {"namen": namen})[0] == 200


@pytest.mark.django_db
def test_api_is_declared_in_openapi(kanzlei: Kanzlei) -> None:
    document = Client().get("/api/v1/openapi.json").json()
    operation = document["paths"]["/api/v1/kollisionspruefung"]["post"]
    assert {"200", "401", "403", "422"} <= set(operation["responses"])
    schemas = document["components"]["schemas"]
    eingabe = schemas["KollisionspruefungIn"]["properties"]
    assert eingabe["namen"]["maxItems"] == 50 and eingabe["namen"]["description"]
    treffer = schemas["KollisionTrefferOut"]["properties"]
    assert all(treffer[feld].get("description") for feld in treffer)


# ---------------------------------------------------------------------------------------------
# The admin: every check, read only.


@pytest.mark.django_db
def test_admin_lists_checks_read_only(parteien: Kanzlei, admin_client: Client) -> None:
    _post(parteien, "sekretariat", {"namen": ["Hans Müller"], "rolle": "gegner"})
    pruefung_ = Kollisionspruefung.objects.get()
    liste = admin_client.get("/admin/akten/kollisionspruefung/")
    assert liste.status_code == 200
    html = liste.content.decode()
    for text in ("Kollisionsprüfungen", "Hans Müller", "Abfrage", "noch nicht entschieden", "Entscheidung",
                 "Anlass", "Begründung"):
        assert text in html, text
    gefiltert = admin_client.get("/admin/akten/kollisionspruefung/?entscheidung__exact=fortgesetzt")
    assert "Hans Müller" not in gefiltert.content.decode().split("<tbody>")[-1]
    detail = admin_client.get(f"/admin/akten/kollisionspruefung/{pruefung_.pk}/change/")
    assert detail.status_code == 200
    assert "3/26" in detail.content.decode() and "Kollision" in detail.content.decode()
    assert admin_client.get("/admin/akten/kollisionspruefung/add/").status_code == 403
    assert admin_client.post(f"/admin/akten/kollisionspruefung/{pruefung_.pk}/delete/").status_code == 403
