"""Parsers for the knowledge base sources; pure functions, no database access (one module a source).

- statutes as Markdown (bundestag/gesetze, bundled in corpus/gesetze/),
- statutes as official XML (gesetze-im-internet.de, one xml.zip per law, or a zip of several), so a
  firm can load current law,
- decisions as JSON lines (Open Legal Data dump).

Both statute parsers produce the same ParsedGesetz, so citation lookup (Norm.nummer) and the
Gliederung path look alike whatever the source was.
"""

from helena.knowledge.importers.common import (
    ImportFormatError,
    ImportProblem,
    ParsedGesetz,
    ParsedNorm,
    ParsedUrteil,
    canonical_abk,
    parse_stand_datum,
)
from helena.knowledge.importers.gii_xml import Kopf, law_heads, parse_gii_xml_files, parse_gii_xml_zip
from helena.knowledge.importers.markdown import parse_markdown_gesetz
from helena.knowledge.importers.sachregister import load_sachregister
from helena.knowledge.importers.urteile import html_to_text, parse_urteil, parse_urteile_jsonl

__all__ = [
    "ImportFormatError",
    "ImportProblem",
    "Kopf",
    "ParsedGesetz",
    "ParsedNorm",
    "ParsedUrteil",
    "canonical_abk",
    "html_to_text",
    "law_heads",
    "load_sachregister",
    "parse_gii_xml_files",
    "parse_gii_xml_zip",
    "parse_markdown_gesetz",
    "parse_stand_datum",
    "parse_urteil",
    "parse_urteile_jsonl",
]
