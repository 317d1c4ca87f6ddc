"""Untrusted text on screen: titles, venues, abstract sentences and links of sources (a live source can carry
anything), the user's claim, and whatever the LLM writes.

``md`` shows such text literally inside the chat's Markdown. Every ASCII punctuation character is
backslash-escaped (CommonMark lets any of them be escaped, and the backslash itself is not shown), and every
Markdown construct starts with one (HTML and autolinks ``<``, links and images ``[``, emphasis ``*`` ``_``, code
`````, headings ``#``, lists ``-`` ``+`` ``1.``, quotes ``>``, entities ``&``, tables ``|``, directives ``:``),
so none can start inside the text, whether or not the renderer lets HTML through. The chat's renderer also turns
a bare URL or e-mail address into a link after escapes are read (GFM's literal autolinks), so an invisible word
joiner (U+2060) goes between "http"/"https" and ":", "www" and ".", and before "@". ``md_more`` escapes a
streamed token so that the stream reads as ``md`` of the whole text. ``plain`` is the text for a terminal. Both
drop control characters (terminal escape sequences), bidirectional overrides (text shown in another order than it
is read) and the zero-width space (the chat's streaming-cursor placeholder), and show line breaks as spaces, so
the text stays within the line it is put in. ``link`` keeps only an http(s) URL, percent-encoded so it cannot end
the Markdown link around it."""

from __future__ import annotations

import re
import string
from urllib.parse import quote, urlsplit

_HIDDEN = "\u200b\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_BREAKS = "\t\n\v\f\r\x85\u2028\u2029"
_CONTROLS = "".join(map(chr, [*range(0x20), *range(0x7F, 0xA0)]))  # Unicode category Cc
_PLAIN = str.maketrans({**{ch: None for ch in _CONTROLS + _HIDDEN}, **{ch: " " for ch in _BREAKS}})
_MARKDOWN = str.maketrans({ch: "\\" + ch for ch in string.punctuation})  # string.punctuation: CommonMark's set
_AUTOLINK = re.compile(r"(?i)(?<=https)(?=:)|(?<=http)(?=:)|(?<=www)(?=\.)|(?=@)")
_JOINER = "\u2060"
_URL_SAFE = "-._~:/?#@!$&*+,;=%"  # everything else (brackets, parentheses, quotes, spaces) is percent-encoded


def plain(text: object) -> str:
    """The text with no control or direction characters and with line breaks as spaces."""
    return str(text).translate(_PLAIN)


def md(text: object) -> str:
    """The text as Markdown that shows it literally."""
    return _AUTOLINK.sub(_JOINER, plain(text)).translate(_MARKDOWN)


def md_more(shown: str, more: str) -> str:
    """What follows ``md(shown)`` so that together they read ``md(shown + more)``: escaping decides a word joiner
    at the boundary only from the characters around it, so ``md(shown)`` is always the start of the whole."""
    return md(shown + more)[len(md(shown)) :]


def link(url: object) -> str | None:
    """An http(s) URL as a Markdown link target, or None for any other scheme (javascript:, data:, ...) or a URL
    without a host."""
    raw = plain(url).strip()
    try:
        parts = urlsplit(raw)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return quote(raw, safe=_URL_SAFE)
