"""The one Markdown renderer of the project: Helena's drafts, Akte summaries and (later) the chat.

Text written by a model or pasted from outside is untrusted. markdown-it renders CommonMark
(plus tables and strikethrough) with raw HTML switched off, so `<script>` arrives as visible
text; nh3 then sanitises the result against an allow-list as a second, independent line of
defence (no scripts, styles, frames, event handlers, and links only to http/https/mailto).

Given the moment a text was written (`zitiert`), norm citations in it („§ 517 ZPO“) become links to
the statute page that carry that moment (helena/knowledge/zitate.py), so a reader sees there
whether the norm changed since. Those are the only links into our own site that survive.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

import nh3
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.token import Token

from helena.knowledge.zitate import verweise

__all__ = ["link_citations", "render_markdown"]

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
# A statute page as zitate.norm_url writes it; no dots, so no "../" can lead elsewhere.
_NORM_LINK_RE = re.compile(
    r"/wissen/normen/(?:[\w§-]|%[0-9A-F]{2})+/(?:[\w§-]|%[0-9A-F]{2})+/(?:\?zitiert=[\d:T-]{10,16})?")
_SCHEME_RE = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:")


def _only_norm_links(tag: str, attribute: str, value: str) -> str | None:
    """Relative links pass only as links to a statute page; absolute ones go on to the scheme check."""
    if tag != "a" or attribute != "href" or _SCHEME_RE.match(value):
        return value
    if _NORM_LINK_RE.fullmatch(value) and "%2E" not in value.upper():
        return value
    return None


_cleaner = nh3.Cleaner(
    tags=set(_ALLOWED_TAGS),
    clean_content_tags={"script", "style", "iframe", "object", "embed", "template", "noscript"},
    attributes=_ALLOWED_ATTRIBUTES,
    url_schemes={"http", "https", "mailto"},
    url_relative="pass_through",  # but only to a statute page: _only_norm_links drops any other
    attribute_filter=_only_norm_links,  # ("//host/x" and "/x" would point elsewhere unnoticed)
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


def _link_norms(tokens: list[Token], *, zitiert: datetime | date) -> None:
    """Citations in the text tokens (not inside a link or code) become links to their norm."""
    texts: list[tuple[list[Token], int]] = []
    for block in tokens:
        depth = 0
        for index, child in enumerate(block.children or []):
            depth += 1 if child.type == "link_open" else -1 if child.type == "link_close" else 0
            if child.type == "text" and depth == 0:
                texts.append((block.children, index))
    found = verweise([children[i].content for children, i in texts], zitiert=zitiert)
    for (children, index), links in reversed(list(zip(texts, found, strict=True))):
        if links:
            children[index:index + 1] = _split(children[index].content, links)


def _split(text: str, links: Sequence[Any]) -> list[Token]:
    parts: list[Token] = []
    position = 0
    for link in links:
        if text[position:link.start]:
            parts.append(Token("text", "", 0, content=text[position:link.start]))
        parts += [Token("link_open", "a", 1, attrs={"href": link.url}),
                  Token("text", "", 0, content=text[link.start:link.end]), Token("link_close", "a", -1)]
        position = link.end
    if text[position:]:
        parts.append(Token("text", "", 0, content=text[position:]))
    return parts


def render_markdown(text: str | None, *, zitiert: datetime | date | None = None) -> SafeString:
    """Markdown → sanitised HTML, safe to insert into any page or websocket card; with `zitiert`
    (when the text was written) its norm citations link to their statute page."""
    if not text:
        return mark_safe("")
    if zitiert is None:
        html = _md.render(str(text))
    else:
        env: dict[str, Any] = {}
        tokens = _md.parse(str(text), env)
        _link_norms(tokens, zitiert=zitiert)
        html = _md.renderer.render(tokens, _md.options, env)
    return mark_safe(_cleaner.clean(html))  # sanitised by nh3 just above


def link_citations(text: str | None, *, zitiert: datetime | date) -> SafeString:
    """Plain text (escaped) with its norm citations linked, for a text that is no Markdown."""
    if not text:
        return mark_safe("")
    text = str(text)
    parts: list[str] = []
    position = 0
    for link in verweise([text], zitiert=zitiert)[0]:
        parts += [escape(text[position:link.start]), f'<a href="{escape(link.url)}">',
                  escape(text[link.start:link.end]), "</a>"]
        position = link.end
    parts.append(escape(text[position:]))
    return mark_safe("".join(parts))  # every piece of the text escaped, the links ours
