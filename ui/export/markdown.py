"""A check as a Markdown report (`claimtrace export --format md`, the chat's Export button): the claim, the search
questions, the verdict and how it was computed, every source with its evidence and weight, the answer with its
checks and corrections, what the check ran with, and the references.

A pure function of a CheckResult and of the days on which its sources left the index, if any did (each such source
keeps its sentences and is marked "removed from the library on <day>"). Every text that comes from a source, the
user or the LLM goes through ui.shared.untrusted.md, so it reads as the literal text it is; the only links are
http(s) ones (ui.shared.untrusted.link)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agent.judge.consensus import consensus
from agent.judge.reckoning import side_words
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
    describe_reputation,
)
from agent.result import CheckResult, Source
from agent.state import AnswerSentence, Verdict
from tools.documents.design import DESIGN_NAMES
from tools.index.live_docs import removal_mark
from tools.text.i18n import english
from ui.export.references import Reference, references
from ui.shared.consensus import consensus_line
from ui.shared.notes import note_text
from ui.shared.papers import by_paper
from ui.shared.supplement import generated
from ui.shared.untrusted import link, md

SOURCE_COLUMNS = ("Source", "Title", "Year", "Stance (confidence)", "Label", "Weight", "Study design")


@english  # the exports are in English whatever the view that asks for them speaks
def report_markdown(result: CheckResult, removed: Mapping[str, str] | None = None) -> str:
    """The whole report. `removed` (doc id -> day) marks each source that has left the index since the check: its
    sentences stay as the check kept them, with "removed from the library on <day>"."""
    removed = removed or {}
    checked = result.run.checked_at or "an unrecorded date"
    parts = [
        "# claimtrace check",
        f"**Claim:** {md(result.claim)}",
        f"Checked on {md(checked)} (UTC).",
        _questions(result),
        _verdict(result),
        _sources(result, removed),
        _answer(result),
        _run(result),
        _references(references(result.sources), removed),
    ]
    return "\n\n".join(p for p in parts if p) + "\n"


def _questions(result: CheckResult) -> str:
    rows = "\n".join(f"{i}. {md(q)}" for i, q in enumerate(result.queries, start=1))
    return "## Search questions\n\n" + (rows or "None were recorded.")


def _threshold(result: CheckResult) -> str:
    value = result.run.settings.get("judge", {}).get("min_confidence")
    return f"{value:.2f}" if isinstance(value, int | float) else "the configured minimum"


PENDING = {
    "judgement": "the LLM had still to read which way each source points",
    "questions": "the search questions were still to be searched",
}


def _verdict(result: CheckResult) -> str:
    v: Verdict | None = result.verdict
    if v is None:
        return "## Verdict\n\nNone: no evidence was assessed."
    leaning = f", leaning {v.leaning}" if v.leaning else ""
    lines = [
        f"**{v.label}**{leaning}" + (f" (provisional: {PENDING.get(v.awaiting or 'questions')})"
                                     if v.provisional else ""),
        "",
        f"- Weighted score: {v.score:+.2f}; unweighted score: {v.unweighted_score:+.2f}",
        f"- Papers counted: {v.counted_sources} ({v.sides()})",
        f"- Confidence: {v.confidence:.2f}; below {_threshold(result)} the verdict is \u201c{UNDECIDED}\u201d",
    ]
    if result.opposite:
        lines.append(f"- Each source was read against the claim's opposite: \u201c{md(result.opposite)}\u201d")
    if v.weak_designs:
        names = ", ".join(DESIGN_NAMES.get(d, d) for d in v.weak_designs)
        lines.append(f"- Every source it counts has a weak study design: {names}")
    lines.append(f"- {consensus_line(consensus(result))}")
    return "## Verdict\n\n" + "\n".join(lines) + "\n\n" + _how_computed()


def _how_computed() -> str:
    grades = ", ".join(f"{name} {score:+g}" for name, score in GRADES)
    return (
        "### How the verdict is computed\n\n"
        f"Each abstract gets a label on a seven-grade scale from its evidence sentences ({grades}). Sources labelled "
        "No Evidence do not count. The weighted score is the mean of the other labels' scores, each weighted by its "
        "source's weight (study design, citations, venue, age; 0 when retracted); the unweighted score is their "
        f"plain mean. Sources on one side only give \u201c{SUPPORTED}\u201d or \u201c{REFUTED}\u201d at a weighted "
        f"score of at least 0.66 in size, else \u201c{WEAKLY_SUPPORTED}\u201d or \u201c{WEAKLY_REFUTED}\u201d. With "
        f"sources on both sides: 0.66 or more \u201c{SUPPORTED}\u201d, -0.66 or less \u201c{REFUTED}\u201d, between "
        f"0.33 and 0.66 \u201c{LEANING_SUPPORTED}\u201d, between -0.66 and -0.33 \u201c{LEANING_REFUTED}\u201d, "
        f"otherwise \u201c{CONTROVERSIAL}\u201d. With none counted: \u201c{NOT_ENOUGH}\u201d. The confidence is the "
        "share of the counted weight on the verdict's side times the mean stance confidence of those sources; below "
        f"the threshold the verdict is \u201c{UNDECIDED}\u201d and names the label it leans to."
    )


def _stance(src: Source) -> str:
    """The stance and its confidence; read against the opposite, which statement the evidence supports and how sure
    the reading is of it, in words (the JSON keeps the figures)."""
    if src.p_claim is not None:
        return f"{src.stance}: {side_words(src.p_claim)}"
    confidence = f" ({src.stance_confidence:.2f})" if src.stance_confidence is not None else ""
    return f"{src.stance}{confidence}"


def _weight(src: Source) -> str:
    return f"{src.reputation:.2f}" if src.reputation is not None else "not assessed"


BASIS = {  # what decided a source's design (tools.documents.design.Basis), as the report says it
    "publication type": "from its publication type",
    "MeSH": "from its MeSH headings",
    "text": "from its abstract's words",
    "none": "no design cue",
}


def _design(src: Source) -> str:
    return f"{DESIGN_NAMES.get(src.design, md(src.design))} ({BASIS.get(src.design_basis, md(src.design_basis))})"


def _gone(removed: Mapping[str, str], doc_id: str) -> str:
    """The mark after the title of a document that has left the index since the check; empty for the others."""
    return f" ({md(removal_mark(removed[doc_id]))})" if doc_id in removed else ""


def _sources(result: CheckResult, removed: Mapping[str, str]) -> str:
    # the papers read that do not count, with why: listed whether or not any paper counts
    silent = [
        f"- {md(s.title)}{_gone(removed, s.doc_id)} (weight {s.reputation:.2f})"
        + (f": {md(s.reason)}" if s.reason else "")
        for s in result.silent
    ]
    tail = "\n\n### Read, not counted\n\n" + "\n".join(silent) if silent else ""
    if not result.sources:
        return "## Sources\n\nNo source bears on the claim." + tail
    head = "| " + " | ".join(SOURCE_COLUMNS) + " |\n|" + "---|" * len(SOURCE_COLUMNS)
    papers = by_paper(result.sources, lambda s: s.n)  # one number per paper, its evidence sentences under it
    rows = [
        f"| [{s.n}] | {md(s.title)}{_gone(removed, s.doc_id)} | {s.year or ''} | {_stance(s)} | "
        f"{md(s.label or 'not labelled')} | {_weight(s)} | {_design(s)} |"
        for s in (p[0] for p in papers)
    ]
    explanations = {a.doc_id: a.explanation for a in result.assessments}
    details = [_source_detail(p, explanations.get(p[0].doc_id, ""), removed.get(p[0].doc_id)) for p in papers]
    return "## Sources\n\n" + head + "\n" + "\n".join(rows) + "\n\n" + "\n\n".join(details) + tail


def _source_detail(paper: list[Source], explanation: str, removed_on: str | None) -> str:
    src = paper[0]
    lines = [f"### Source {src.n}: {md(src.title)}", ""]
    if removed_on:
        lines += [f"**{md(removal_mark(removed_on).capitalize())}**: the index no longer holds it; this check keeps "
                  "the sentences it was judged on.", ""]
    if src.retracted:
        lines += ["**RETRACTED**: this paper was retracted; it weighs 0 in the verdict.", ""]
    if src.notices:
        lines += ["**Notices:** " + ", ".join(md(n) for n in src.notices), ""]
    for s in paper:
        lines.append(f"> {md(s.sentence)}")
        lines.append("")
        if s.context:
            lines.append(f"- The sentence before: {md(s.context)}")
        if s.section:
            lines.append(f"- Where: {md(s.section)}")
        lines.append("")
    if shown := generated([src.model_dump()]):
        lines += [f"- {shown[0]}: {md(shown[1])}", ""]
    lines.append(f"- Stance: {_stance(src)}; label: {md(src.label or 'not labelled')}")
    if explanation:
        lines.append(f"- Why this label: {md(explanation)}")
    lines.append(f"- Study design: {_design(src)}")
    weight = describe_reputation(src.reputation, src.reputation_inputs)
    lines.append(f"- Verdict {md(weight)}" if weight else "- Weight: not assessed")
    if src.reputation_inputs:
        inputs = ", ".join(f"{md(k)} {md(_value(v))}" for k, v in sorted(src.reputation_inputs.items()))
        lines.append(f"- Weight inputs: {inputs}")
    target = link(src.url) if src.url else None
    if target:
        lines.append(f"- Link: [{md(src.url)}]({target})")
    return "\n".join(lines)


def _value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _sentence(i: int, s: AnswerSentence) -> str:
    cites = f" [{', '.join(map(str, s.citations))}]" if s.citations else ""
    score = f", verifier score {s.score:+.2f}" if s.score is not None else ""
    line = f"{i}. {md(s.text)}{cites} \u2014 **{s.status}**{' (flagged)' if s.flagged else ''}{score}"
    if s.reason:
        line += f"\n   - Why: {md(s.reason)}"
    if s.invalid_citations:
        line += f"\n   - Removed citations to sources that do not exist: {', '.join(map(str, s.invalid_citations))}"
    if s.revision:
        line += f"\n   - Self-correction ({s.revision}) in place of: {md(s.original)}"
    return line


def _answer(result: CheckResult) -> str:
    lines = "\n".join(_sentence(i, s) for i, s in enumerate(result.sentences, start=1))
    said = [text for text in (md(result.summary) if result.summary else "", lines) if text]
    parts = ["## Answer", *(said or ["No answer was written."])]
    if result.corrections:
        rows = []
        for c in result.corrections:
            instead = f": \u201c{md(c.text)}\u201d" if c.text else ""
            rows.append(f"{c.position}. \u201c{md(c.original)}\u201d ({c.status}: {md(c.reason)}) \u2192 "
                        f"**{c.action}**{instead}")
        parts += ["### Self-correction", "\n".join(rows)]
    if result.original_answer:
        parts += ["### The answer as first written", md(result.original_answer)]
    if result.notes:
        parts += ["### Notes", "\n".join(f"- {md(note_text(n, settings=True))}" for n in result.notes)]
    return "\n\n".join(parts)


def _run(result: CheckResult) -> str:
    models = [f"- {md(role)}: {md(name)}" for role, name in sorted(result.run.models.items())]
    settings = []
    for group, fields in sorted(result.run.settings.items()):
        values = fields.items() if isinstance(fields, dict) else []
        settings.append(f"- {md(group)}: " + "; ".join(f"{md(k)} {md(_value(v))}" for k, v in sorted(values)))
    u = result.llm
    usage = (f"- LLM: {u.calls} call(s), {u.prompt_tokens} prompt + {u.completion_tokens} completion tokens, "
             f"{u.cut_replies} cut at the token limit")
    total = result.timings.get("total")
    took = [f"- Took {total:.1f} s"] if total is not None else []
    return "\n\n".join([
        "## How it was run",
        "### Models\n\n" + ("\n".join(models) or "Not recorded."),
        "### Settings\n\n" + ("\n".join(settings) or "Not recorded."),
        "### Usage\n\n" + "\n".join([usage, *took]),
    ])


def _references(refs: list[Reference], removed: Mapping[str, str]) -> str:
    if not refs:
        return ""
    rows = []
    for i, ref in enumerate(refs, start=1):
        parts = [md(ref.title)]
        parts += [md(ref.venue)] if ref.venue else []
        parts += [str(ref.year)] if ref.year else []
        parts += [f"doi {md(ref.doi)}"] if ref.doi else []
        parts += [f"PMID {md(ref.pmid)}"] if ref.pmid else []
        target = link(ref.url) if ref.url else None
        parts += [f"[{md(ref.url)}]({target})"] if target else []
        cited = ", ".join(f"[{n}]" for n in ref.evidence)
        rows.append(f"{i}. {'. '.join(parts)}. Evidence {cited}{' (RETRACTED)' if ref.retracted else ''}"
                    f"{_gone(removed, ref.doc_id)}")
    return "## References\n\n" + "\n".join(rows)
