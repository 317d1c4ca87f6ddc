"""Markdown for the reply to "why is the verdict what it is?" (agent/followup/why.py): the reckoning behind a
verdict, with its figures, in the language the view speaks (tools.text.i18n).

The reply comes from the follow-up graph, which writes in English. The view's own words, the numbers, the grade
labels, what each weight came from (``reputation_inputs``), how each paper's side was read (``p_claim`` and
``judged_by``) and the removal marks are said here in the view's language; a reply that carries only the words of
a weight or a side shows those words. The verdict's sentence comes in each language in the reply (``summaries``);
the rule, the confidence, what would change it and why a paper does not count are the graph's English sentences,
written from the catalog's templates and said here in the view's language (``said``). Titles, reasons and the rule's
text quote sources or the graph and go through ui.shared.untrusted."""

from __future__ import annotations

from typing import Any

from agent.judge.reckoning import direction_words
from agent.judge.scoring import weight_in_words
from tools.index.live_docs import removal_mark
from tools.text.i18n import decimal, said, signed, spoken, t
from ui.shared.untrusted import md


def weight_from(row: dict[str, Any]) -> str:
    """What the paper's weight came from, in words of the spoken language (agent.judge.scoring.weight_in_words);
    the reply's own words where it carries no ``reputation_inputs``."""
    if "reputation_inputs" in row:
        return md(weight_in_words(row["reputation_inputs"]))
    return md(row["weight_inputs"])


def direction(row: dict[str, Any]) -> str:
    """How the paper's side was read, in words of the spoken language (agent.judge.reckoning.direction_words, which
    reads only ``p_claim`` and ``judged_by``); the reply's own words where it carries no ``judged_by``."""
    if "judged_by" not in row:
        return md(row["direction"])
    return md(direction_words(row.get("p_claim"), row["judged_by"]))


def removed(row: dict[str, Any]) -> str:
    """The paper's removal mark in the spoken language, from the day it left the library (``removed_on``); the
    reply's own words where it carries no day."""
    return removal_mark(row["removed_on"]) if row.get("removed_on") else str(row["removed"])


def why_markdown(reply: dict[str, Any]) -> str:
    """How the verdict was reached: the verdict in words, a table of the papers it counts (label, stance
    confidence, weight and what the weight came from), the rule with the figures put in, the confidence against
    the threshold, what would change it, and the papers read but not counted. Titles are source text: ``md``."""
    if reply.get("error"):
        return f"⚠️ {md(reply['error'])}"

    def numbers(row: dict[str, Any]) -> str:
        return " ".join(f"[{n}]" for n in row["numbers"]) or "–"

    def title(row: dict[str, Any]) -> str:
        return md(row["title"]) + (f" _({md(removed(row))})_" if row.get("removed") else "")

    summary = (reply.get("summaries") or {}).get(spoken(), reply["summary"])
    parts = [f"**{t('How the verdict was reached')}**\n\n{md(summary)}"]
    if reply["counted"]:
        head = (
            f"| {t('paper')} | {t('label')} | {t('grade')} | {t('stance confidence')} | {t('weight')} | "
            f"{t('weight from')} | {t('direction')} |\n"
            "|---|---|---:|---:|---:|---|---|"
        )
        rows = [
            f"| {numbers(r)} {title(r)} | {t(r['label'])} | {signed(r['grade'])} | {decimal(r['stance_confidence'])} | "
            f"{decimal(r['weight'])} | {weight_from(r)} | {direction(r)} |"
            for r in reply["counted"]
        ]
        parts.append("\n".join([head, *rows]))
    parts += [md(said(reply["rule"])), md(said(reply["confidence"])),
              f"_{t('What would change it:')}_ {md(said(reply['change']))}"]
    if reply["not_counted"]:
        left = ["- " + t("{paper}: {why}", paper=f"{numbers(r)} {title(r)}", why=md(said(r["why"])))
                for r in reply["not_counted"]]
        parts.append(f"**{t('Read but not counted')}**\n" + "\n".join(left))
    if any(r.get("removed") for r in [*reply["counted"], *reply["not_counted"]]):
        kept = t("A paper removed from the library since keeps its place: the verdict was reached with it.")
        parts.append(f"_{kept}_")
    return "\n\n".join(parts)
