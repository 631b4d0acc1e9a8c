"""The API's OpenAPI document is valid OpenAPI 3 (outside clients generate code from it; Swagger UI on
/api/v1/docs refuses a document with a key twice) and /api/v1/docs renders every operation in Chromium."""

from __future__ import annotations

import json
from pathlib import Path
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


def test_every_schema_name_is_one_schema() -> None:
    """The document names a schema by its class name, and a second class of the same name silently
    replaces the first (/suche's answer was declared as the Kollisionsprüfung's rows in CI, and
    /knowledge/search's rows as /suche's before): one name, one class, across the apps."""
    from collections import defaultdict

    from ninja import Schema

    openapi_document()  # every router is imported
    klassen: dict[str, set[str]] = defaultdict(set)

    def alle(oben: type) -> None:
        for klasse in oben.__subclasses__():
            if klasse.__module__.split(".")[0] in ("akten", "drafts", "helena", "config"):
                klassen[klasse.__name__].add(f"{klasse.__module__}.{klasse.__qualname__}")
            alle(klasse)

    alle(Schema)
    assert {name: orte for name, orte in klassen.items() if len(orte) > 1} == {}


def test_a_parameter_given_twice_is_refused_not_guessed(kanzlei) -> None:
    """Found by the API fuzz: `?gericht=a&gericht=b` was answered with the last value; a list
    parameter keeps taking several."""
    response = kanzlei.client("anwalt").get("/api/v1/fristen?typ=frist&typ=termin")
    assert response.status_code == 422
    assert response.json()["detail"] == "Diese Angabe darf nur einmal vorkommen: typ."
    assert kanzlei.client("anwalt").get("/api/v1/fristen?typ=frist").status_code == 200


def test_operations_keep_their_public_names() -> None:
    """Clients generated from the document call each operation by its operationId: moving a handler
    into another folder must not rename it (tests/data/openapi_operations.txt lists every operation;
    a new one is added there on purpose)."""
    document = openapi_document()
    now = sorted(f"{method.upper()} {path} {operation['operationId']}"
                 for path, item in document["paths"].items() for method, operation in item.items())
    listed = (Path(__file__).resolve().parents[1] / "data" / "openapi_operations.txt").read_text()
    listed = listed.splitlines()
    assert now == sorted(listed)
