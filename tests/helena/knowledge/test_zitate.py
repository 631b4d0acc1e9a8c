"""Citations in Helena's texts as lawyers write them become links to the statute page
(helena/knowledge/zitate.py): Roman Absätze, „ff.“, „lit. b“, the SGB books in either numerals."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import Client

from helena.knowledge.zitate import verweise
from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db


@pytest.fixture
def gesetze() -> None:
    call_command("load_gesetze", "--only", "KSchG", "SGB V", "EGBGB", verbosity=0)


@pytest.mark.parametrize(("text", "zitat", "url"), [
    ("Nach § 1 I KSchG ist sie unwirksam.", "§ 1 I KSchG", "/wissen/normen/KSchG/1/"),
    ("Siehe §§ 1 ff. KSchG.", "§§ 1 ff. KSchG", "/wissen/normen/KSchG/1/"),
    ("§ 1 Abs. 2 Nr. 1 lit. b KSchG", "§ 1 Abs. 2 Nr. 1 lit. b KSchG", "/wissen/normen/KSchG/1/"),
    ("Das regelt § 35 SGB 5.", "§ 35 SGB 5", "/wissen/normen/SGB%20V/35/"),
    ("Das regelt § 35 SGB V.", "§ 35 SGB V", "/wissen/normen/SGB%20V/35/"),
    ("Art. 229 § 6 EGBGB", "Art. 229 § 6 EGBGB", "/wissen/normen/EGBGB/229%C2%A76/"),
])
def test_a_citation_as_lawyers_write_it_links_its_norm(gesetze: None, text: str, zitat: str,
                                                       url: str) -> None:
    links, = verweise([text], zitiert=None)
    assert [(text[v.start:v.end], v.url) for v in links] == [(zitat, url)]


def test_a_law_that_is_not_loaded_stays_text(gesetze: None) -> None:
    assert verweise(["§ 823 I BGB"], zitiert=None) == [[]]


def test_the_links_lead_to_the_pages(gesetze: None, kanzlei: Kanzlei) -> None:
    client = Client()
    client.force_login(kanzlei.users["praktikant"])
    for url in ("/wissen/normen/SGB%20V/35/", "/wissen/normen/EGBGB/229%C2%A76/"):
        assert client.get(url).status_code == 200, url
