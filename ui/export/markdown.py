"""A check as a Markdown report (`claimtrace export --format md`, the chat's Export button): the claim, the search
questions, the verdict and how it was computed, every source with its evidence and weight, the answer with its
checks and corrections, what the check ran with, and the references. Its fixed words speak the language the claim came
in (CheckResult.language; tools.text.i18n), or the one asked for; the claim as checked, the papers' words, the
notes stay as the check kept them, in English; the judge's and the checks' reasons are said again in that language
(``said``).

A pure function of a CheckResult and of the days on which its sources left the index, if any did (each such source
keeps its sentences and is marked "removed from the library on <day>"). Every text that comes from a source, the
user or the LLM goes through ui.shared.untrusted.md, so it reads as the literal text it is; the only links are
http(s) ones (ui.shared.untrusted.link)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agent.judge.reckoning import side_words
from agent.judge.scoring import (
    describe_reputation,
)
from agent.result import CheckResult, Source
from agent.state import AnswerSentence
from tools.documents.design import DESIGN_NAMES
from tools.index.live_docs import removal_mark
from tools.text.i18n import decimal, said, signed, speaking, t
from tools.text.language import LANGUAGES
from ui.export.references import Reference, references
from ui.export.verdict_section import verdict_section
from ui.shared.notes import note_text
from ui.shared.papers import by_paper
from ui.shared.supplement import generated
from ui.shared.untrusted import link, md

SOURCE_COLUMNS = ("Source", "Title", "Year", "Stance (confidence)", "Label", "Weight", "Study design")


def report_markdown(
    result: CheckResult, removed: Mapping[str, str] | None = None, language: str | None = None
) -> str:
    """The whole report, in ``language`` (ISO 639-1; default: the language the claim came in). `removed` (doc id ->
    day) marks each source that has left the index since the check: its sentences stay as the check kept them, with
    "removed from the library on <day>"."""
    with speaking(language or result.language):
        return _report(result, removed or {})


def _report(result: CheckResult, removed: Mapping[str, str]) -> str:
    checked = result.run.checked_at or t("an unrecorded date")
    asked = (t("**As asked ({language}):** {asked}", language=t(LANGUAGES.get(result.language, result.language)),
               asked=md(result.asked)) if result.asked else "")
    parts = [
        t("# claimtrace check"),
        t("**Claim:** {claim}", claim=md(result.claim)),
        asked,
        t("Checked on {day} (UTC).", day=md(checked)),
        _questions(result),
        verdict_section(result),
        _sources(result, removed),
        _answer(result),
        _run(result),
        _references(references(result.sources), removed),
    ]
    return "\n\n".join(p for p in parts if p) + "\n"


def _questions(result: CheckResult) -> str:
    rows = "\n".join(f"{i}. {md(q)}" for i, q in enumerate(result.queries, start=1))
    return t("## Search questions") + "\n\n" + (rows or t("None were recorded."))


def _stance(src: Source) -> str:
    """The stance and its confidence; read against the opposite, which statement the evidence supports and how sure
    the reading is of it, in words (the JSON keeps the figures)."""
    if src.p_claim is not None:
        return f"{t(src.stance)}: {side_words(src.p_claim)}"
    confidence = f" ({decimal(src.stance_confidence)})" if src.stance_confidence is not None else ""
    return f"{t(src.stance)}{confidence}"


def _weight(src: Source) -> str:
    return decimal(src.reputation) if src.reputation is not None else t("not assessed")


BASIS = {  # what decided a source's design (tools.documents.design.Basis), as the report says it
    "publication type": "from its publication type",
    "MeSH": "from its MeSH headings",
    "text": "from its abstract's words",
    "none": "no design cue",
}


def _design(src: Source) -> str:
    basis = t(BASIS[src.design_basis]) if src.design_basis in BASIS else md(src.design_basis)
    name = t(DESIGN_NAMES[src.design]) if src.design in DESIGN_NAMES else md(src.design)
    return f"{name} ({basis})"


def _gone(removed: Mapping[str, str], doc_id: str) -> str:
    """The mark after the title of a document that has left the index since the check; empty for the others."""
    return f" ({md(removal_mark(removed[doc_id]))})" if doc_id in removed else ""


def _sources(result: CheckResult, removed: Mapping[str, str]) -> str:
    # the papers read that do not count, with why: listed whether or not any paper counts
    silent = [
        f"- {md(s.title)}{_gone(removed, s.doc_id)} " + t("(weight {weight})", weight=decimal(s.reputation))
        + (f": {md(said(s.reason))}" if s.reason else "")
        for s in result.silent
    ]
    tail = "\n\n" + t("### Read, not counted") + "\n\n" + "\n".join(silent) if silent else ""
    if not result.sources:
        return t("## Sources") + "\n\n" + t("No source bears on the claim.") + tail
    head = "| " + " | ".join(map(t, SOURCE_COLUMNS)) + " |\n|" + "---|" * len(SOURCE_COLUMNS)
    papers = by_paper(result.sources, lambda s: s.n)  # one number per paper, its evidence sentences under it
    rows = [
        f"| [{s.n}] | {md(s.title)}{_gone(removed, s.doc_id)} | {s.year or ''} | {_stance(s)} | "
        f"{md(t(s.label)) if s.label else t('not labelled')} | {_weight(s)} | {_design(s)} |"
        for s in (p[0] for p in papers)
    ]
    explanations = {a.doc_id: a.explanation for a in result.assessments}
    details = [_source_detail(p, explanations.get(p[0].doc_id, ""), removed.get(p[0].doc_id)) for p in papers]
    return t("## Sources") + "\n\n" + head + "\n" + "\n".join(rows) + "\n\n" + "\n\n".join(details) + tail


def _source_detail(paper: list[Source], explanation: str, removed_on: str | None) -> str:
    src = paper[0]
    lines = [t("### Source {n}: {title}", n=src.n, title=md(src.title)), ""]
    if removed_on:
        mark = removal_mark(removed_on)
        lines += [t("**{mark}**: the index no longer holds it; this check keeps the sentences it was judged on.",
                    mark=md(mark[:1].upper() + mark[1:])), ""]
    if src.retracted:
        lines += [t("**RETRACTED**: this paper was retracted; it weighs 0 in the verdict."), ""]
    if src.notices:
        lines += [t("**Notices:** {notices}", notices=", ".join(md(n) for n in src.notices)), ""]
    for s in paper:
        lines.append(f"> {md(s.sentence)}")
        lines.append("")
        if s.context:
            lines.append(t("- The sentence before: {context}", context=md(s.context)))
        if s.section:
            lines.append(t("- Where: {section}", section=md(s.section)))
        lines.append("")
    if shown := generated([src.model_dump()]):
        lines += [f"- {shown[0]}: {md(shown[1])}", ""]
    label = md(t(src.label)) if src.label else t("not labelled")
    lines.append(t("- Stance: {stance}; label: {label}", stance=_stance(src), label=label))
    if explanation:
        lines.append(t("- Why this label: {why}", why=md(said(explanation))))
    lines.append(t("- Study design: {design}", design=_design(src)))
    weight = describe_reputation(src.reputation, src.reputation_inputs, verdict=True)
    lines.append(f"- {md(weight)}" if weight else t("- Weight: not assessed"))
    if src.reputation_inputs:
        inputs = ", ".join(f"{md(k)} {md(_value(v))}" for k, v in sorted(src.reputation_inputs.items()))
        lines.append(t("- Weight inputs: {inputs}", inputs=inputs))
    target = link(src.url) if src.url else None
    if target:
        lines.append(t("- Link: {link}", link=f"[{md(src.url)}]({target})"))
    return "\n".join(lines)


def _value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _sentence(i: int, s: AnswerSentence) -> str:
    cites = f" [{', '.join(map(str, s.citations))}]" if s.citations else ""
    score = t(", verifier score {score}", score=signed(s.score)) if s.score is not None else ""
    flagged = f" ({t('flagged')})" if s.flagged else ""
    line = f"{i}. {md(s.text)}{cites} \u2014 **{t(s.status)}**{flagged}{score}"
    if s.translation:
        line += "\n   - " + t("Translated by the LLM after the check: {translation}", translation=md(s.translation))
    if s.reason:
        line += "\n   - " + t("Why: {why}", why=md(said(s.reason)))
    if s.invalid_citations:
        line += "\n   - " + t("Removed citations to sources that do not exist: {numbers}",
                              numbers=", ".join(map(str, s.invalid_citations)))
    if s.revision:
        line += "\n   - " + t("Self-correction ({how}) in place of: {original}", how=t(s.revision),
                              original=md(s.original))
    return line


def _answer(result: CheckResult) -> str:
    lines = "\n".join(_sentence(i, s) for i, s in enumerate(result.sentences, start=1))
    written = [text for text in (md(result.summary) if result.summary else "", lines) if text]
    parts = [t("## Answer"), *(written or [t("No answer was written.")])]
    if result.corrections:
        rows = []
        for c in result.corrections:
            instead = f": \u201c{md(c.text)}\u201d" if c.text else ""
            rows.append(f"{c.position}. \u201c{md(c.original)}\u201d ({t(c.status)}: {md(said(c.reason))}) \u2192 "
                        f"**{t(c.action)}**{instead}")
        parts += [t("### Self-correction"), "\n".join(rows)]
    if result.original_answer:
        parts += [t("### The answer as first written"), md(result.original_answer)]
    if result.notes:
        parts += [t("### Notes"), "\n".join(f"- {md(note_text(n, settings=True))}" for n in result.notes)]
    return "\n\n".join(parts)


def _run(result: CheckResult) -> str:
    models = [f"- {md(role)}: {md(name)}" for role, name in sorted(result.run.models.items())]
    settings = []
    for group, fields in sorted(result.run.settings.items()):
        values = fields.items() if isinstance(fields, dict) else []
        settings.append(f"- {md(group)}: " + "; ".join(f"{md(k)} {md(_value(v))}" for k, v in sorted(values)))
    u = result.llm
    usage = t("- LLM: {calls} call(s), {prompt} prompt + {completion} completion tokens, {cut} cut at the token limit",
              calls=u.calls, prompt=u.prompt_tokens, completion=u.completion_tokens, cut=u.cut_replies)
    total = result.timings.get("total")
    took = [t("- Took {seconds} s", seconds=decimal(total, 1))] if total is not None else []
    return "\n\n".join([
        t("## How it was run"),
        t("### Models") + "\n\n" + ("\n".join(models) or t("Not recorded.")),
        t("### Settings") + "\n\n" + ("\n".join(settings) or t("Not recorded.")),
        t("### Usage") + "\n\n" + "\n".join([usage, *took]),
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
        retracted = " " + t("(RETRACTED)") if ref.retracted else ""
        rows.append(f"{i}. {'. '.join(parts)}. " + t("Evidence {cited}", cited=cited) + retracted
                    + _gone(removed, ref.doc_id))
    return t("## References") + "\n\n" + "\n".join(rows)
