"""The chat's page loads nothing from another host. Chainlit 2.12's index.html links the Inter font from Google Fonts
(with preconnects to fonts.googleapis.com and fonts.gstatic.com) and KaTeX's stylesheet from cdn.jsdelivr.net; the
chat shows no LaTeX (`latex = false`), and without the font the page uses the browser's sans-serif. Offline, a
render-blocking stylesheet on a host that cannot be reached holds the first paint until the browser gives up, so
every <link> to an http(s) URL is dropped from the page. Everything else the page uses (its scripts, the plotly.js
that draws the consensus chart) Chainlit serves itself."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

OFF_SITE_LINK = re.compile(r"""<link\b[^>]*\bhref\s*=\s*["']?(?:https?:)?//[^>]*>\s*""", re.IGNORECASE)


def without_off_site_links(html: str) -> str:
    return OFF_SITE_LINK.sub("", html)


def serve_offline() -> None:
    """Make Chainlit's index route serve the page without off-site links (its route looks the template up in
    chainlit.server at each request)."""
    from chainlit import server

    template: Callable[..., str] = server.get_html_template
    if getattr(template, "offline", False):
        return

    def offline_template(*args: Any, **kwargs: Any) -> str:
        return without_off_site_links(template(*args, **kwargs))

    offline_template.offline = True  # type: ignore[attr-defined]
    server.get_html_template = offline_template
