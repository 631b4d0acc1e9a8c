"""The two halves of the upgrade test (tests/config/test_upgrade.py), each in a process of its own on
the database in DATABASE_URL, as a firm's old and new installation would see it:

- `python -m tests.config.upgrade_schritte alt`: migrate an empty database to exactly the previous
  release's migrations (tests/data/vorige_version.json) and fill it through the models *of that
  state* (the migration state's apps, not today's classes): users, an Akte with grants, Beteiligte,
  Fristen, a conversation with messages. Prints the ids as JSON.
- `python -m tests.config.upgrade_schritte neu USER_ID AKTE_ID`: after `manage.py migrate`, read it back
  through today's scoped selectors and print what a user would see, as JSON.

When a release changes these models, the next one updates the fields written in `alt` along with
the JSON file (a field the old state lacks cannot be written there).
"""

from __future__ import annotations

import json
import os
import sys
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

VORIGE = Path(__file__).resolve().parents[1] / "data" / "vorige_version.json"


def vorige_migrationen() -> list[tuple[str, str]]:
    """The previous release's newest migration of each app it had (an app it did not have is null)."""
    return sorted((app, name) for app, name in json.loads(VORIGE.read_text())["migrationen"].items() if name)


def alt() -> dict[str, int]:
    from django.contrib.auth.hashers import make_password
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor
    from django.utils import timezone

    targets = vorige_migrationen()
    MigrationExecutor(connection).migrate(targets)
    apps = MigrationExecutor(connection).loader.project_state(targets).apps
    user, akte_m = apps.get_model("akten", "User"), apps.get_model("akten", "Akte")
    anwalt = user.objects.create(username="anwalt-alt", password=make_password("pw"), role="ANWALT",
                                 first_name="Anna", last_name="Alt")
    praktikant = user.objects.create(username="praktikant-alt", password=make_password("pw"),
                                     role="PRAKTIKANT")
    akte = akte_m.objects.create(aktenzeichen="77/25", kurzrubrum="Weber ./. Baumarkt Nord GmbH",
                                 wegen="Gewährleistung", rechtsgebiet="kaufrecht", bundesland="HH",
                                 gegenstandswert=Decimal("8450.00"), anwalt=anwalt, tags=["alt", "Gewähr"])
    apps.get_model("akten", "AktenZugriff").objects.create(akte=akte, user=anwalt, gewaehrt_von=anwalt)
    beteiligter = apps.get_model("akten", "Beteiligter")
    beteiligter.objects.create(akte=akte, rolle="mandant", name="Petra Weber",
                               anschrift="Elbchaussee 1, Hamburg")
    beteiligter.objects.create(akte=akte, rolle="gegner", name="Baumarkt Nord GmbH")
    frist = apps.get_model("akten", "Frist")
    heute = timezone.localdate()
    frist.objects.create(akte=akte, bezeichnung="Klageerwiderung", datum=heute + timedelta(days=9),
                         vorfrist=heute + timedelta(days=2), ist_notfrist=True, verantwortlich=anwalt)
    frist.objects.create(akte=akte, bezeichnung="Mängelanzeige", datum=date(2025, 3, 3), erledigt=True)
    gespraech = apps.get_model("helena", "Conversation").objects.create(
        user=anwalt, akte=akte, context_type="akte", title="Nacherfüllung oder Rücktritt?")
    message = apps.get_model("helena", "Message")
    for role, text in (("user", "Welche Frist gilt für die Nacherfüllung?"),
                       ("assistant", "Eine angemessene Frist, § 323 BGB.")):
        message.objects.create(conversation=gespraech, role=role, text=text)
    return {"anwalt": anwalt.pk, "praktikant": praktikant.pk, "akte": akte.pk, "gespraech": gespraech.pk}


def neu(ids: dict[str, int]) -> dict[str, object]:
    from akten.models import User
    from akten.seiten.selectors import kopf
    from akten.selectors import akten_for, fristen_for, get_akte
    from config.errors import NotFound
    from helena.conversations.selectors import conversation_list

    anwalt, praktikant = User.objects.get(pk=ids["anwalt"]), User.objects.get(pk=ids["praktikant"])
    akte = get_akte(user=anwalt, akte_id=ids["akte"])
    k = kopf(user=anwalt, akte=akte)
    try:
        get_akte(user=praktikant, akte_id=ids["akte"])
        praktikant_sieht = True
    except NotFound:
        praktikant_sieht = False
    gespraeche = list(conversation_list(user=anwalt))
    return {
        "akten": [a.aktenzeichen for a in akten_for(user=anwalt)],
        "akte": [akte.kurzrubrum, akte.wegen, akte.rechtsgebiet, akte.bundesland, str(akte.gegenstandswert),
                 akte.tags],
        "mandanten": k.mandanten, "gegner": k.gegner,
        "naechste_frist": [k.naechste_frist.bezeichnung, k.naechste_frist.ist_notfrist],
        "fristen_alle": sorted(f.bezeichnung for f in fristen_for(user=anwalt, status="all")),
        "praktikant_sieht": praktikant_sieht,
        "gespraeche": [g.title for g in gespraeche],
        "nachrichten": [m.text for m in gespraeche[0].messages.order_by("id")] if gespraeche else [],
        "anmeldung": anwalt.check_password("pw"),
    }


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    if sys.argv[1] == "alt":
        print(json.dumps(alt()))
    else:
        print(json.dumps(neu(json.loads(sys.argv[2])), ensure_ascii=False))
