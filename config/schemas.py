"""Types and OpenAPI pieces the JSON APIs share.

docs/protocol.md: ids are strings in answers and accepted as strings or integers in requests
(`"akte_id": 7` as well as `"akte_id": "7"`); a boolean or a fraction is not an id.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator


def _id_text(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


IdIn = Annotated[str, BeforeValidator(_id_text)]


def file_response(description: str, *mimes: str) -> dict[str, Any]:
    """`openapi_extra` of an operation that answers 200 with a download instead of JSON."""
    content = {mime: {"schema": {"type": "string", "format": "binary"}} for mime in mimes}
    return {"responses": {200: {"description": description, "content": content}}}
