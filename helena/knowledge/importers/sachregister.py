"""The Sachregister keywords of a law (corpus/sachregister/), by norm number."""

from __future__ import annotations

import json
from pathlib import Path

from helena.knowledge.importers.common import nummer_of


def load_sachregister(directory: Path, abk: str) -> dict[str, str]:
    """The everyday and practice keywords for one law: nummer → keywords as one text.

    Files are `<abk>.json` or `<abk>_<teil>.json` (large laws are indexed in parts), each a JSON
    object {"§ 573c": ["Mieter kündigt", "Kündigungsfrist Wohnung", …], "Nr. 3100 VV": […]}. Bad entries are
    skipped, never fatal: the register only helps the search.
    """
    register: dict[str, list[str]] = {}
    stem = abk.lower()
    for path in sorted(directory.glob("*.json")) if directory.is_dir() else []:
        if path.stem != stem and not path.stem.startswith(stem + "_"):
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for bezeichnung, keywords in data.items() if isinstance(data, dict) else ():
            if isinstance(bezeichnung, str) and isinstance(keywords, list):
                words = [k.strip() for k in keywords if isinstance(k, str) and k.strip()]
                register.setdefault(nummer_of(bezeichnung), []).extend(words)
    return {nummer: " · ".join(words) for nummer, words in register.items() if words}
