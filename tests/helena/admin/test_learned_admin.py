"""What Helena learned about a model, in the admin: the Modellstufen list shows it (what, since when,
from what) and „Vergessen“ drops it in every process; only who may change the tiers may do that."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from akten.models import Role, User
from helena.llm import learned
from helena.llm.dialects import profiles
from tests.conftest import zweiter_faktor_gegeben

pytestmark = pytest.mark.django_db

GEMMA = ("ollama", "http://modelle.kanzlei.local:11434", "gemma3:12b")
QWQ = ("ollama", "http://modelle.kanzlei.local:11434", "qwq:32b")
LIST = reverse("admin:helena_modeltier_changelist")
FORGET = reverse("admin:helena_modeltier_vergessen")


@pytest.fixture(autouse=True)
def facts() -> Iterator[None]:
    learned.forget_all()
    learned.learn(GEMMA, profiles.NO_TOOLS,
                  "Der Server lehnte Werkzeuge ab (HTTP 400 „does not support tools“)")
    learned.learn(QWQ, profiles.PREFILLED, "</think> ohne <think> in der Ausgabe")
    yield
    learned.forget_all()


def _client(user: User) -> Client:
    return zweiter_faktor_gegeben(user)


def test_the_list_shows_what_was_learned_and_one_fact_is_forgotten() -> None:
    chefin = _client(User.objects.create_superuser(username="chefin", password="pw", role=Role.ADMIN))
    page = chefin.get(LIST).content.decode()
    assert "Was Helena über die Modelle gelernt hat" in page
    assert "gemma3:12b" in page and "does not support tools" in page and "qwq:32b" in page

    response = chefin.post(FORGET, {"provider": GEMMA[0], "host": GEMMA[1], "model": GEMMA[2],
                                    "fact": profiles.NO_TOOLS}, follow=True)
    assert "1 gelernte Angabe(n) vergessen" in response.content.decode()
    assert [f.model for f in learned.learned_facts()] == ["qwq:32b"]  # the other stays
    assert profiles.learned(GEMMA) == set()  # the next call offers tools again


def test_forgetting_everything() -> None:
    chefin = _client(User.objects.create_superuser(username="chefin", password="pw", role=Role.ADMIN))
    response = chefin.post(FORGET, follow=True)
    assert "2 gelernte Angabe(n) vergessen" in response.content.decode()
    assert learned.learned_facts() == []
    assert "Helena hat über die eingestellten Modelle nichts dazugelernt" in chefin.get(LIST).content.decode()


def test_only_who_may_change_the_tiers_forgets() -> None:
    anwalt = _client(User.objects.create_user(username="anwalt", password="pw", role=Role.ANWALT))
    assert anwalt.post(FORGET).status_code == 302  # not staff: to the admin's login, nothing forgotten
    leser = User.objects.create_user(username="leser", password="pw", role=Role.ADMIN, is_staff=True)
    leser.user_permissions.add(Permission.objects.get(codename="view_modeltier"))
    assert _client(leser).post(FORGET).status_code == 403
    chefin = _client(User.objects.create_superuser(username="chefin", password="pw", role=Role.ADMIN))
    assert chefin.get(FORGET).status_code == 405
    assert len(learned.learned_facts()) == 2
