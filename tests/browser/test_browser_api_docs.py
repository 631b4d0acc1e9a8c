"""The interactive API docs as a Kanzlei's IT admin opens them: /api/v1/docs in Chromium renders every
operation of the OpenAPI document (Swagger UI, served from here, no CDN) and no parser error.
Screenshot: tests/artifacts/api-docs.png."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.test_browser import _orm_beside_playwright, browser, new_context, screenshot
from tests.config.test_openapi_document import openapi_document, operations

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
__all__ = ["_orm_beside_playwright", "browser", "new_context"]  # the fixtures this module uses


def test_the_api_docs_render_every_operation(new_context: Any) -> None:
    expected = operations(openapi_document())
    page = new_context().new_page()
    page.goto("/api/v1/docs")
    blocks = page.locator(".opblock")
    expect(blocks.first).to_be_visible()
    expect(blocks).to_have_count(len(expected))
    expect(page.get_by_text("Parser error")).to_have_count(0)
    expect(page.locator(".errors-wrapper")).to_have_count(0)
    shown = {(block.get_attribute("class").split("opblock-")[-1].split()[0],
              block.locator(".opblock-summary-path").get_attribute("data-path"))
             for block in blocks.all()}
    assert shown == set(expected)
    datei = page.locator('[data-path="/api/v1/dokumente/{dokument_id}/datei"]')
    page.locator(".opblock-get", has=datei).click()
    expect(page.get_by_text("Die Datei (Original, DOCX oder PDF) als Download")).to_be_visible()
    screenshot(page, "api-docs")
