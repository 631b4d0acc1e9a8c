"""Input types the JSON APIs share.

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
