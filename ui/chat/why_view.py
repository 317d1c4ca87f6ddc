"""Markdown for the reply to "why is the verdict what it is?" (agent/followup/why.py): the reckoning behind a
verdict, with its figures. Titles, reasons and the rule's text quote sources and go through ui.shared.untrusted."""

from __future__ import annotations

from typing import Any

from ui.shared.untrusted import md


def why_markdown(reply: dict[str, Any]) -> str:
    """How the verdict was reached: the verdict in words, a table of the papers it counts (label, stance
    confidence, weight and what the weight came from), the rule with the figures put in, the confidence against
    the threshold, what would change it, and the papers read but not counted. Titles are source text: ``md``."""
    if reply.get("error"):
        return f"⚠️ {md(reply['error'])}"

    def numbers(row: dict[str, Any]) -> str:
        return " ".join(f"[{n}]" for n in row["numbers"]) or "–"

    def title(row: dict[str, Any]) -> str:
        return md(row["title"]) + (f" _({md(row['removed'])})_" if row.get("removed") else "")

    parts = [f"**How the verdict was reached**\n\n{md(reply['summary'])}"]
    if reply["counted"]:
        head = (
            "| paper | label | grade | stance confidence | weight | weight from | direction |\n"
            "|---|---|---:|---:|---:|---|---|"
        )
        rows = [
            f"| {numbers(r)} {title(r)} | {r['label']} | {r['grade']:+.2f} | {r['stance_confidence']:.2f} | "
            f"{r['weight']:.2f} | {md(r['weight_inputs'])} | {md(r['direction'])} |"
            for r in reply["counted"]
        ]
        parts.append("\n".join([head, *rows]))
    parts += [md(reply["rule"]), md(reply["confidence"]), f"_What would change it:_ {md(reply['change'])}"]
    if reply["not_counted"]:
        left = [f"- {numbers(r)} {title(r)}: {md(r['why'])}" for r in reply["not_counted"]]
        parts.append("**Read but not counted**\n" + "\n".join(left))
    if any(r.get("removed") for r in [*reply["counted"], *reply["not_counted"]]):
        parts.append("_A paper removed from the library since keeps its place: the verdict was reached with it._")
    return "\n\n".join(parts)
