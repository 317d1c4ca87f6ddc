"""The side panel's text of a paper a check read and did not count (ui.chat.panel's "Uncounted paper k"): why it
does not count, its weight and its text as the index holds it. Every text of it is the source's: ui.shared.untrusted
shows it as the literal text it is."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tools.text.i18n import said, t
from ui.chat.render import silent_name, weight_line, with_badges
from ui.shared.untrusted import link, md

if TYPE_CHECKING:
    from tools.corpus import Abstract

SILENT_CHARS = 4000  # the most of a paper read and not counted that its side panel shows (a full text is long)


def silent_detail(k: int, paper: dict[str, Any], doc: Abstract | None) -> str:
    """What opens for the ``k``-th paper read and not counted: its title, year, link, badges, why it does not count,
    its weight, and its text as the index holds it (``doc``, a tools.corpus.Abstract; None when the index no longer
    holds it). Every text of it is the source's: ``md``."""
    year = f" ({doc.year})" if doc is not None and doc.year else ""
    target = link(doc.link()) if doc is not None and doc.link() else None
    opens = f" · [link]({target})" if target else ""
    badges = with_badges({"retracted": doc is not None and doc.retracted, "notices": doc.notices if doc else [],
                          "design": (paper.get("reputation_inputs") or {}).get("design")})
    gone = f" · _{md(paper['removed'])}_" if paper.get("removed") else ""
    why = said(paper.get("reason") or "") or t("no sentence bears on the claim")
    parts = [f"**{silent_name(k)}** _{md(paper['title'])}_{year}{opens}{badges}{gone}",
             "_" + t("Read, not counted:") + "_ " + md(why)]
    if weight_line(paper):
        parts.append(weight_line(paper))
    if doc is None:
        parts.append("_" + t("The index no longer holds this paper's text.") + "_")
        return "\n\n".join(parts)
    whole = t("The full text") if doc.pages else t("The abstract")
    shown: list[str] = []
    used = 0
    for sentence in doc.sentences:
        used += len(sentence) + 1
        if shown and used > SILENT_CHARS:
            break
        shown.append(sentence)
    more = len(doc.sentences) - len(shown)
    parts.append(t("{whole}, its first {n} of {k} sentences:", whole=whole, n=len(shown), k=len(doc.sentences))
                 if more else f"{whole}:")
    parts.append(" ".join(map(md, shown)) + (" …" if more else ""))
    return "\n\n".join(parts)
