"""The pages' one mapping of the error vocabulary (config.middleware.DomainErrorMiddleware)."""

from __future__ import annotations

import io
import logging

import pytest
from django.test import Client, RequestFactory

from akten.fristen import FristError
from config.middleware import DomainErrorMiddleware
from tests.conftest import Kanzlei


def test_an_akte_the_user_may_not_see_is_the_404_page(kanzlei: Kanzlei) -> None:
    client = Client()
    client.force_login(kanzlei.users["sekretariat"])  # no access to Akte A
    assert client.get(f"/akten/{kanzlei.akten['A'].pk}/").status_code == 404
    assert client.get("/akten/99999999/").status_code == 404
    assert client.post(f"/akten/{kanzlei.akten['A'].pk}/gespraech/").status_code == 404  # no chat on it
    assert client.get(f"/akten/{kanzlei.akten['B'].pk}/").status_code == 200


def test_a_conversation_of_someone_else_is_the_404_page(kanzlei: Kanzlei) -> None:
    from helena.conversations.services import create_conversation

    theirs = create_conversation(user=kanzlei.users["anwalt"])
    client = Client()
    client.force_login(kanzlei.users["sachbearbeiter"])
    assert client.get(f"/helena/gespraech/{theirs.pk}/").status_code == 404
    mine = create_conversation(user=kanzlei.users["sachbearbeiter"])
    assert client.get(f"/helena/gespraech/{mine.pk}/").status_code == 200


@pytest.mark.parametrize("path", ["/akten/1/", "/entwuerfe/"])
def test_any_other_domain_error_on_a_page_is_a_german_page_with_its_status(path: str) -> None:
    middleware = DomainErrorMiddleware(lambda request: None)  # type: ignore[arg-type,return-value]
    request = RequestFactory().get(path)
    response = middleware.process_exception(request, FristError("Das Datum <b>31.02.2026</b> gibt es nicht."))
    assert response is not None and response.status_code == 422
    page = response.content.decode()
    assert "Das Datum &lt;b&gt;31.02.2026&lt;/b&gt; gibt es nicht." in page  # escaped, never markup
    assert "Es wurde nichts gespeichert." in page and 'lang="de"' in page


def test_the_api_keeps_its_own_mapping() -> None:
    middleware = DomainErrorMiddleware(lambda request: None)  # type: ignore[arg-type,return-value]
    request = RequestFactory().get("/api/v1/akten/")
    assert middleware.process_exception(request, FristError("x")) is None
    assert middleware.process_exception(RequestFactory().get("/akten/"), ValueError("x")) is None


def test_a_refused_admin_page_is_logged_without_a_traceback(admin_client) -> None:
    handler = next(
        h
        for h in logging.getLogger().handlers
        if any(type(f).__name__ == "AblehnungOhneTraceback" for f in h.filters)
    )
    stream, handler.stream = handler.stream, io.StringIO()
    try:
        assert admin_client.get("/admin/helena/errorlog/add/").status_code == 403
        output = handler.stream.getvalue()
    finally:
        handler.stream = stream
    assert "Forbidden (Permission denied)" in output and "Traceback" not in output
