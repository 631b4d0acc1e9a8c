"""Every admin page an office manager opens renders (lists, search, filters, the Akte form with inlines)."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import reverse

from tests.conftest import Kanzlei

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("model", [m for m in admin.site._registry if m._meta.app_label == "akten"],
                         ids=lambda m: m.__name__)
def test_changelist_with_search_and_add_page(admin_client: Client, model) -> None:
    opts = model._meta
    changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
    assert admin_client.get(changelist).status_code == 200
    assert admin_client.get(changelist, {"q": "Meier"}).status_code == 200
    add = admin_client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_add"))
    assert add.status_code in (200, 403)  # API tokens are created by command only


def test_akte_change_page_shows_inlines_and_grants(admin_client: Client, kanzlei: Kanzlei) -> None:
    akte = kanzlei.akten["A"]
    response = admin_client.get(reverse("admin:akten_akte_change", args=[akte.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    for heading in ("Beteiligte", "Fristen", "Dokumente", "Zugriff"):
        assert heading in html
    assert "sachbearbeiter" in html  # the grant to sachbearbeiter is listed


def test_non_staff_cannot_open_admin(kanzlei: Kanzlei) -> None:
    client = Client()
    client.force_login(kanzlei.users["praktikant"])
    response = client.get(reverse("admin:akten_akte_changelist"))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
