"""The chat's page links nothing on another host: Chainlit's own index.html links Google Fonts and a KaTeX
stylesheet on a CDN, which ui.chat.offline_page drops; the page's own scripts and stylesheet stay."""

from __future__ import annotations

from pathlib import Path

import chainlit

from ui.chat.offline_page import without_off_site_links

INDEX = Path(chainlit.__file__).parent / "frontend" / "dist" / "index.html"


def test_chainlits_page_loses_its_off_site_links_and_keeps_its_own():
    html = INDEX.read_text()
    assert "fonts.googleapis.com" in html and "cdn.jsdelivr.net" in html  # what Chainlit 2.12 ships
    page = without_off_site_links(html)
    assert "https://" not in page and "//fonts" not in page
    assert '<script type="module" crossorigin src="/assets/' in page and 'href="/assets/' in page


def test_every_off_site_form_of_a_link_goes():
    for link in ['<link rel="stylesheet" href="https://x.org/a.css">', "<link href='http://x.org/a.css' rel=x />",
                 '<LINK rel="preconnect"\n  href="//x.org" crossorigin>', '<link rel="icon" href=https://x.org/i>']:
        own = '<link href="/favicon">'
        assert without_off_site_links(f"<head>{link}{own}</head>") == f"<head>{own}</head>"
