"""The one Markdown renderer of the project: Helena's drafts, Akte summaries and (later) the chat.

Text written by a model or pasted from outside is untrusted. markdown-it renders CommonMark
(plus tables and strikethrough) with raw HTML switched off, so `<script>` arrives as visible
text; nh3 then sanitises the result against an allow-list as a second, independent line of
defence (no scripts, styles, frames, event handlers, and links only to http/https/mailto).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import nh3
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.token import Token

__all__ = ["render_markdown"]

_ALLOWED_TAGS = frozenset({
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "del", "s", "code", "pre",
    "blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td",
})
_ALLOWED_ATTRIBUTES: dict[str, set[str]] = {
    "a": {"href", "title"},
    "ol": {"start"},
    "th": {"style"},  # markdown-it writes column alignment as style="text-align:…"
    "td": {"style"},
}
_LINK_REL = "noopener noreferrer nofollow"

_cleaner = nh3.Cleaner(
    tags=set(_ALLOWED_TAGS),
    clean_content_tags={"script", "style", "iframe", "object", "embed", "template", "noscript"},
    attributes=_ALLOWED_ATTRIBUTES,
    url_schemes={"http", "https", "mailto"},
    url_relative="deny",  # "//host/x" and "/x" would point into our own site or elsewhere unnoticed
    link_rel=_LINK_REL,
    filter_style_properties={"text-align"},
    strip_comments=True,
)


def _image_as_link(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    """Images become a plain link with their alt text: no external request leaves the browser
    just because a draft was opened (tracking pixels), and the reader still sees what was meant."""
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env) or "Bild"
    src = str(token.attrGet("src") or "")
    return f'<a href="{escape(src)}">{escape(alt)}</a>'


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.add_render_rule("image", _image_as_link)
    return md


_md = _parser()


def render_markdown(text: str | None) -> SafeString:
    """Markdown → sanitised HTML, safe to insert into any page or websocket card."""
    if not text:
        return mark_safe("")
    html = _md.render(str(text))
    return mark_safe(_cleaner.clean(html))  # sanitised by nh3 just above
