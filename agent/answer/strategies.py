"""How the answer step writes its sentences (ANSWER_STRATEGY), all from the same numbered evidence:

* ``abstractive``: the LLM writes 1 to 3 sentences and chooses their citations (prompts/answer.md);
* ``per_paper``: the LLM sums up each paper the answer may report in one short sentence of its own words (8 to 20
  words), which the code gives that paper's number (prompts/answer_per_paper.md); the claim is not in the prompt,
  so it cannot be restated as a finding;
* ``extractive``: no LLM; each item quoted with its study's year and number (agent.answer.compose);
* ``hybrid``: one LLM sentence that sums up the findings, citing every item, then the quoted findings
  (prompts/answer_hybrid.md).

The LLM reads the evidence inside ``<evidence>`` tags, as ``<finding>`` items (``<paper>`` items for
``per_paper``), with no title (titles were copied into answers as if they were findings) and no example answer to
copy. Every strategy returns answer sentences whose citations name existing evidence only; verify and correct check
them afterwards.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

import prompts
from agent.answer.compose import extractive_answer
from agent.answer.text import findings_block, papers_block
from agent.llm.calls import chat
from agent.state import AnswerSentence, Deps, Evidence, Usage, Verdict
from tools.text.citations import ParsedSentence, parse_answer
from tools.text.i18n import written

Strategy = Literal["abstractive", "per_paper", "extractive", "hybrid"]
_NUMBERED = re.compile(r"^\s*(?:\[(\d+)\]\s*[:.)\-]?|(\d+)\s*[:.)\-])\s*(.+)$")  # "1: ..." or "[1] ..."


def answer_sentences(parsed: Sequence[ParsedSentence]) -> list[AnswerSentence]:
    """Answer sentences before verification; a stripped citation is recorded and stated as the reason."""
    return [
        AnswerSentence(
            text=p.text,
            citations=p.citations,
            invalid_citations=p.invalid,
            reason=written("removed citation(s) to non-existent source(s) {numbers}", numbers=p.invalid)
            if p.invalid
            else "",
        )
        for p in parsed
    ]


def _ask(name: str, values: dict[str, str], deps: Deps) -> tuple[str, Usage]:
    return chat(
        deps.llm,
        prompts.load("answer_system"),
        prompts.render(name, **values),
        max_tokens=deps.settings.answer.max_tokens,
    )


def abstractive(claim: str, evidence: Sequence[Evidence], verdict: Verdict | None, deps: Deps) -> tuple[Any, Usage]:
    values = {
        "claim": claim,
        "evidence": findings_block(evidence),
        "numbers": ", ".join(f"[{n}]" for n in dict.fromkeys(ev.n for ev in evidence)),
        "verdict": verdict.describe() if verdict else "unknown",
    }
    reply, usage = _ask("answer", values, deps)
    return answer_sentences(parse_answer(reply, {ev.n for ev in evidence})), usage


def per_paper(claim: str, evidence: Sequence[Evidence], verdict: Verdict | None, deps: Deps) -> tuple[Any, Usage]:
    """One short sentence per paper, in the model's words. The number that starts a line ("1: ...") decides the
    citation of the line's first sentence; a line without one (a model that ignores the asked-for form) gives each
    of its sentences that cites exactly one paper ("... [1].") to that paper. Lines numbered 1, 2, ... none of
    whose numbers names a paper (the papers shown are [3] and [5]) count the papers in the order shown. A number
    that names no paper, or a paper already answered, is ignored."""
    reply, usage = _ask("answer_per_paper", {"evidence": papers_block(evidence)}, deps)
    papers = list(dict.fromkeys(ev.n for ev in evidence))
    lines = [
        (int(m.group(1) or m.group(2)), m.group(3)) if (m := _NUMBERED.match(line)) else (None, line)
        for line in reply.splitlines()
    ]
    numbers = [n for n, _ in lines if n is not None]
    by_position = numbers == list(range(1, len(numbers) + 1)) and not set(papers) & set(numbers)
    found: list[tuple[int, ParsedSentence]] = []
    for n, text in lines:
        if n is not None:
            paper = papers[n - 1] if by_position and n <= len(papers) else n
            found += [(paper, p) for p in parse_answer(text, set())[:1]]
        else:
            found += [(p.citations[0], p) for p in parse_answer(text, set(papers)) if len(p.citations) == 1]
    out: list[AnswerSentence] = []
    for n, p in found:
        if n in papers and not any(s.citations == [n] for s in out):
            out.append(AnswerSentence(text=p.text, citations=[n]))
    return out, usage


def hybrid(claim: str, evidence: Sequence[Evidence], verdict: Verdict | None, deps: Deps) -> tuple[Any, Usage]:
    """One summing-up sentence citing every item it was given, then the quoted findings."""
    quoted = extractive_answer(evidence, verdict)
    reply, usage = _ask("answer_hybrid", {"claim": claim, "evidence": findings_block(evidence)}, deps)
    parsed = parse_answer(reply, set())
    cited = list(dict.fromkeys(ev.n for ev in evidence))
    summary = [AnswerSentence(text=parsed[0].text, citations=cited)] if parsed else []
    return summary + quoted, usage


def write(
    strategy: Strategy, claim: str, evidence: Sequence[Evidence], verdict: Verdict | None, deps: Deps
) -> tuple[list[AnswerSentence], Usage]:
    """The answer sentences of ``strategy`` (raises LLMUnavailableError for the strategies that need the LLM)."""
    if strategy == "extractive":
        return extractive_answer(evidence, verdict), Usage()
    write_with = {"abstractive": abstractive, "per_paper": per_paper, "hybrid": hybrid}[strategy]
    sentences, usage = write_with(claim, evidence, verdict, deps)
    return list(sentences), usage
