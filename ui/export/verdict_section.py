"""The Markdown report's verdict: its label, scores, counts and confidence, the consensus line, and how the verdict
is computed, in words, in the spoken language (tools.text.i18n)."""

from __future__ import annotations

from agent.judge.consensus import consensus
from agent.judge.scoring import (
    CONTROVERSIAL,
    GRADES,
    LEANING_REFUTED,
    LEANING_SUPPORTED,
    NOT_ENOUGH,
    REFUTED,
    SUPPORTED,
    UNDECIDED,
    WEAKLY_REFUTED,
    WEAKLY_SUPPORTED,
)
from agent.result import CheckResult
from agent.state import Verdict
from tools.documents.design import DESIGN_NAMES
from tools.text.i18n import decimal, signed, t
from ui.shared.consensus import consensus_line
from ui.shared.untrusted import md


def _threshold(result: CheckResult) -> str:
    value = result.run.settings.get("judge", {}).get("min_confidence")
    return decimal(value) if isinstance(value, int | float) else t("the configured minimum")


PENDING = {
    "judgement": "the LLM had still to read which way each source points",
    "questions": "the search questions were still to be searched",
}


def verdict_section(result: CheckResult) -> str:
    v: Verdict | None = result.verdict
    if v is None:
        return t("## Verdict") + "\n\n" + t("None: no evidence was assessed.")
    leaning = t(", leaning {label}", label=t(v.leaning)) if v.leaning else ""
    pending = t(PENDING.get(v.awaiting or "questions", PENDING["questions"]))
    lines = [
        f"**{t(v.label)}**{leaning}" + (t(" (provisional: {why})", why=pending) if v.provisional else ""),
        "",
        t("- Weighted score: {score}; unweighted score: {unweighted}", score=signed(v.score),
          unweighted=signed(v.unweighted_score)),
        t("- Papers counted: {n} ({sides})", n=v.counted_sources, sides=v.sides()),
        t("- Confidence: {confidence}; below {threshold} the verdict is \u201c{undecided}\u201d",
          confidence=decimal(v.confidence), threshold=_threshold(result), undecided=t(UNDECIDED)),
    ]
    if result.opposite:
        lines.append(t("- Each source was read against the claim's opposite: \u201c{opposite}\u201d",
                       opposite=md(result.opposite)))
    if v.weak_designs:
        names = ", ".join(t(DESIGN_NAMES[d]) if d in DESIGN_NAMES else d for d in v.weak_designs)
        lines.append(t("- Every source it counts has a weak study design: {names}", names=names))
    lines.append(f"- {consensus_line(consensus(result))}")
    return t("## Verdict") + "\n\n" + "\n".join(lines) + "\n\n" + _how_computed()


def _how_computed() -> str:
    grades = ", ".join(f"{t(name)} {signed(score)}" for name, score in GRADES)
    labels = {name: t(label) for name, label in (
        ("supported", SUPPORTED), ("refuted", REFUTED), ("weakly_supported", WEAKLY_SUPPORTED),
        ("weakly_refuted", WEAKLY_REFUTED), ("leaning_supported", LEANING_SUPPORTED),
        ("leaning_refuted", LEANING_REFUTED), ("controversial", CONTROVERSIAL), ("not_enough", NOT_ENOUGH),
        ("undecided", UNDECIDED))}
    return t("### How the verdict is computed") + "\n\n" + t(HOW_COMPUTED, grades=grades, **labels)


# how the verdict is computed, in words, with the verdict's labels as {names}
HOW_COMPUTED = (
    "Each abstract gets a label on a seven-grade scale from its evidence sentences ({grades}). Sources labelled "
    "No Evidence do not count. The weighted score is the mean of the other labels' scores, each weighted by its "
    "source's weight (study design, citations, venue, age; 0 when retracted); the unweighted score is their "
    "plain mean. Sources on one side only give \u201c{supported}\u201d or \u201c{refuted}\u201d at a weighted "
    "score of at least 0.66 in size, else \u201c{weakly_supported}\u201d or \u201c{weakly_refuted}\u201d. With "
    "sources on both sides: 0.66 or more \u201c{supported}\u201d, -0.66 or less \u201c{refuted}\u201d, between "
    "0.33 and 0.66 \u201c{leaning_supported}\u201d, between -0.66 and -0.33 \u201c{leaning_refuted}\u201d, "
    "otherwise \u201c{controversial}\u201d. With none counted: \u201c{not_enough}\u201d. The confidence is the "
    "share of the counted weight on the verdict's side times the mean stance confidence of those sources; below "
    "the threshold the verdict is \u201c{undecided}\u201d and names the label it leans to."
)
