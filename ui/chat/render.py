"""Markdown for the chat: pure functions of a check result as JSON (`CheckResult.model_dump()`, the `claimtrace
ask --json` object) and of follow-up replies. Nothing here computes a result; it only shows one.

Every text that comes from a source, the user or the LLM (titles, sentences and their neighbours, venues, links,
answer sentences, generated summaries, reasons and notes that quote them) goes through ui.shared.untrusted, so it
shows as the literal text it is. The fixed words, the weight lines among them, are in the language the chat speaks
(tools.text.i18n), and so are the reasons the judge and the checks write (``said``: translated back from the
English templates they were written from); the notes stay in English."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent.judge.scoring import describe_reputation
from agent.state import CORRECTION_ACTIONS
from tools.text.i18n import said, t, t_n
from ui.shared.answer_sentence import shown_sentence
from ui.shared.badges import badges_md
from ui.shared.consensus import charted, consensus_line, consensus_of
from ui.shared.notes import note_text
from ui.shared.papers import by_paper
from ui.shared.supplement import GENERATED, generated
from ui.shared.untrusted import link, md
from ui.shared.wording import REVISED, stance_text, verdict_words

FLAG_LABEL = {
    "contradicted": "contradicted by its sources",
    "unsupported": "not supported by its sources",
    "uncited": "cites no source",
}


def cite(text: str, citations: list[int]) -> str:
    """A sentence (untrusted text, shown literally) with its [n] markers before the final punctuation."""
    if not citations:
        return md(text)
    end = text[-1] if text[-1:] in ".!?" else ""
    body = text[:-1] if end else text
    return f"{md(body)} [{', '.join(map(str, citations))}]{md(end)}"


def note_line(note: str) -> str:
    """A note as the chat shows it under an answer or a step."""
    return t("_Note: {note}_", note=md(note_text(note)))


ORIGINAL = "Original answer"  # the button that opens the answer before self-correction in the side panel
ENGLISH_ANSWER = "The checked English"  # the button that opens a translated answer's English sentences in the panel


def sentence_line(i: int, s: dict[str, Any]) -> str:
    """One numbered answer sentence; a flagged one is marked and carries the verifier's reason, a corrected one
    says how it was corrected. A translated sentence shows its translation (agent.translate.answer_in)."""
    line = f"{i}. {cite(shown_sentence(s), s['citations'])}"
    if s.get("revision") and not s.get("flagged"):
        return f"{line} ✅ " + t("_({how} in place of a flagged sentence)_", how=t(REVISED[s["revision"]]))
    if not s.get("flagged"):
        return f"{line} ✅"
    what = t(FLAG_LABEL.get(s["status"], "flagged"))
    if s.get("invalid_citations") and s["status"] == "supported":
        what = t("cited a source that does not exist")
    score = t(", verifier score {score}", score=f"{s['score']:+.2f}") if s.get("score") is not None else ""
    why = said(s.get("reason") or "") or what
    return f"{line}\\\n   ⚠️ " + t("**Flagged: {what}**", what=what) + f" — _{md(why)}{score}_"


def checked_english(sentences: Sequence[dict[str, Any]]) -> str:
    """The English sentences as checked, numbered as shown, for a view that shows their translation: the embedded
    LLM's translation misstates about half of them in some detail (docs/languages.md), so the English stays in view
    under it; "" when none was translated."""
    if not any(s.get("translation") for s in sentences):
        return ""
    checked = "\n".join(f"{i}. {cite(s['text'], s['citations'])}" for i, s in enumerate(sentences, 1))
    return t("_Translated by the LLM after the check; the sentences as checked, in English:_") + "\n" + checked


def verdict_badge(result: dict[str, Any]) -> str:
    """The verdict line: the verdict in one sentence (agent.judge.sentence), plain text of labels, designs and
    numbers."""
    verdict = result.get("verdict")
    if not verdict:
        return t("**Verdict:** none (no evidence was assessed)")
    return t("**Verdict:** {verdict}", verdict=verdict_words(verdict, result.get("assessments") or [],
                                                            result.get("silent") or []))


def early_markdown(
    verdict: dict[str, Any],
    evidence: list[dict[str, Any]],
    searching_again: bool = False,
    assessments: Sequence[dict[str, Any]] = (),
    silent: Sequence[dict[str, Any]] = (),
) -> str:
    """What the user reads while the LLM writes: the verdict (marked provisional while the LLM's search questions
    are still to be searched, or while a reformulated search runs) and the evidence sentences it rests on.
    ``assessments`` and ``silent``: the papers read so far, which the verdict's sentence names by design. The final
    answer replaces it."""
    line = verdict_words(verdict, assessments, silent)
    if searching_again:
        head = t("⏳ **So far:** {verdict}", verdict=line) + "\n\n" + t(
            "_The evidence is thin, so the search runs again with reformulated queries; the final verdict and answer "
            "replace this._"
        )
    elif verdict.get("awaiting") == "judgement":
        head = t("⏳ **Provisional:** {verdict}", verdict=line) + "\n\n" + t(
            "_From the verifier alone; the LLM is reading which way each source points (the claim or its "
            "opposite), and the judged verdict and the answer replace this._"
        )
    elif verdict.get("provisional"):
        head = t("⏳ **Provisional:** {verdict}", verdict=line) + "\n\n" + t(
            "_From the claim and its negation alone; the search questions are being written, and the final verdict "
            "and answer replace this._"
        )
    else:
        head = t("⏳ **Judged:** {verdict}", verdict=line) + "\n\n" + t(
            "_The answer is being written and checked; it replaces this._"
        )
    rows = [
        f"- **[{p[0]['n']}]** _{md(p[0]['title'])}_{with_badges(p[0])} — "
        + " · ".join(f"{t(e.get('stance', 'nei'))}: “{md(e['sentence'])}”" for e in p)
        for p in by_paper(evidence)
    ]
    if not rows:
        return head + "\n\n" + t("No source bears on it.")
    return head + "\n\n" + t("**Sources so far**") + "\n" + "\n".join(rows)


def open_name(n: int) -> str:
    """The label of the button that opens source [n] in the side panel (ui.chat.panel); the answer names it beside
    the source."""
    return t("Source {n}", n=n)


def with_badges(src: dict[str, Any]) -> str:
    """The source's design, retraction and notice badges after " · ", or ""."""
    shown = badges_md(src)
    return f" · {shown}" if shown else ""


def source_heading(src: dict[str, Any]) -> str:
    """A source's number, title, year, page, link, badges and stance, and the removal mark of a paper that has left
    the index since the check (`removed`: tools.index.live_docs.with_removal_marks)."""
    gone = f" · _{md(src['removed'])}_" if src.get("removed") else ""
    year = f" ({src['year']})" if src.get("year") else ""
    # a full text's page (the user's library)
    page = " · " + t("p. {page}", page=int(src["page"])) if src.get("page") else ""
    target = link(src["url"]) if src.get("url") else None
    opens = f" · [{t('link')}]({target})" if target else ""
    return f"**[{src['n']}]** _{md(src['title'])}_{year}{page}{opens}{with_badges(src)} · {stance_text(src)}{gone}"


def weight_line(src: dict[str, Any]) -> str:
    """How much the source counts in the verdict, and why (empty before assessment); the venue's name in it is the
    source's."""
    text = describe_reputation(src.get("reputation"), src.get("reputation_inputs"), verdict=True)
    return f"_{md(text)}_" if text else ""


def paper_line(paper: list[dict[str, Any]]) -> str:
    """One paper: its heading and the name that opens it, its verdict weight, then each of its evidence sentences
    highlighted after the sentence before it, then its generated summary once written."""
    src = paper[0]
    weight = f"\n  {weight_line(src)}" if weight_line(src) else ""
    quotes = "\n  >\n".join(
        f"  > {md(s['context']) + ' ' if s.get('context') else ''}**{md(s['sentence'])}**" for s in paper
    )
    shown = generated(paper)
    written = f"\n\n  _{t(shown[0])}:_ {md(shown[1])}" if shown and shown[0] == GENERATED else ""
    return f"- {source_heading(src)} · {open_name(src['n'])}{weight}\n{quotes}{written}"


def papers_lines(sources: list[dict[str, Any]]) -> str:
    return "\n".join(paper_line(p) for p in by_paper(sources))


def split_neighbours(src: dict[str, Any], window: int) -> tuple[list[str], list[str]]:
    """The neighbours before and after the evidence sentence (the graph stores them as one list)."""
    before = min(src["sentence_index"], window)
    return src["neighbours"][:before], src["neighbours"][before:]


def paper_detail(paper: list[dict[str, Any]], window: int) -> str:
    """What opens for one paper [n]: each of its evidence sentences within its neighbouring sentences, then its
    generated summary, or why it has none."""
    shown = generated(paper)
    written = f"\n\n---\n\n_{t(shown[0])}:_ {md(shown[1])}" if shown else ""
    return "\n\n---\n\n".join(source_detail(src, window) for src in paper) + written


READ_IN_BOLD = "the sentence read in bold"  # how the side panel says which sentence is the evidence
READ_BEFORE = "The sentence before, as the verifier read it"  # the source's `context`: not the LLM's summary


def source_detail(src: dict[str, Any], window: int) -> str:
    """What opens for one [n]: the evidence sentence, in bold, within its +-window neighbouring sentences, then the
    sentence before it as the verifier read it (cut at CONTEXT_CHARS)."""
    before, after = split_neighbours(src, window)
    body = " ".join([*map(md, before), f"**{md(src['sentence'])}**", *map(md, after)])
    where = ("Sentence {n} of the full text, with its neighbours ({bold}):" if src.get("page")
             else "Sentence {n} of the abstract, with its neighbours ({bold}):")
    parts = [source_heading(src), t(where, n=src["sentence_index"] + 1, bold=t(READ_IN_BOLD)), body]
    if weight_line(src):
        parts.insert(1, weight_line(src))
    if src.get("context"):
        parts.append(f"_{t(READ_BEFORE)}:_ {md(src['context'])}")
    return "\n\n".join(parts)


def corrections_line(corrections: list[dict[str, Any]]) -> str:
    """One line saying that self-correction changed the answer, naming the button that opens the original."""
    if not corrections:
        return ""
    # "1 replaced" and "{n} replaced" are two keys: the participle agrees with the count in Spanish, French and
    # Portuguese ("2 sustituidas")
    counts = {a: sum(c["action"] == a for c in corrections) for a in CORRECTION_ACTIONS}
    actions = ", ".join(t_n(n, f"1 {a}", f"{{n}} {a}") for a, n in counts.items() if n)
    return t("_Self-correction changed {n} sentence(s) of the first answer ({actions}): {original}._",
             n=len(corrections), actions=actions, original=t(ORIGINAL))


def original_detail(result: dict[str, Any]) -> str:
    """What opens for the original answer: the answer as first written, and each change with its reason."""
    rows = []
    for c in result.get("corrections", []):
        instead = " → " + (t("shown instead: “{text}”", text=md(c["text"])) if c["text"] else t("not shown"))
        rows.append(
            f"{c['position']}. “{md(c['original'])}” — {t(c['status'])}: _{md(said(c['reason']))}_; "
            f"**{t(c['action'])}**"
            + instead
        )
    return "\n\n".join(
        [
            t("**The answer as first written**"),
            md(result.get("original_answer") or ""),
            t("**What was changed, and why**"),
            "\n".join(rows),
        ]
    )


def consensus_markdown(result: dict[str, Any]) -> str:
    """The consensus line (the text version of the chart under the answer), its first word in bold."""
    head, _, rest = consensus_line(consensus_of(result)).partition(" ")
    return f"**{head}** {md(rest)}"


def silent_name(k: int) -> str:
    """The label of the button that opens the ``k``-th paper read and not counted (1-based, in the listed order) in
    the side panel (ui.chat.panel); the answer names it beside the paper."""
    return t("Uncounted paper {k}", k=k)


def read_not_counted(silent: list[dict[str, Any]]) -> str:
    """The papers read that do not count, each with why (not about the claim, or no finding the verifier reads) and
    the name of the button that opens it."""
    rows = [
        f"- _{md(s['title'])}_" + (f" — {md(said(s['reason']))}" if s.get("reason") else "") + f" · {silent_name(k)}"
        for k, s in enumerate(silent, start=1)
    ]
    return t("**Read, not counted**") + "\n" + "\n".join(rows)


def answer_markdown(result: dict[str, Any]) -> str:
    """The full answer view: the verdict line (the answer's ``summary`` in its own words, so the answer shows the
    rest of its sentences), the consensus line when the chart goes with it, numbered sentences with flags,
    sources."""
    parts = [verdict_badge(result)]
    if result.get("opposite"):
        parts.append(t("_Each source was read against the claim's opposite: “{opposite}”_",
                       opposite=md(result["opposite"])))
    if "assessments" in result and charted(consensus_of(result)):  # a hand-made dump may have no assessments
        parts.append(consensus_markdown(result))
    if result["sentences"]:
        parts.append(t("**Answer**"))
        if any(s.get("translation") for s in result["sentences"]):
            parts.append(t("_Translated by the LLM after the check; the sentences were checked in English: {english}._",
                           english=t(ENGLISH_ANSWER)))
        parts.append("\n".join(sentence_line(i, s) for i, s in enumerate(result["sentences"], start=1)))
        if english := checked_english(result["sentences"]):
            parts.append(english)
    flagged = sum(1 for s in result["sentences"] if s.get("flagged"))
    if flagged:
        parts.append(t("_{flagged} of {n} sentence(s) flagged by the verifier._", flagged=flagged,
                       n=len(result["sentences"])))
    if result.get("corrections"):
        parts.append(corrections_line(result["corrections"]))
    if result["sources"]:
        parts.append(t("**Sources**") + "\n" + papers_lines(result["sources"]))
    if result.get("silent"):
        parts.append(read_not_counted(result["silent"]))
    parts.extend(note_line(note) for note in result.get("notes", []))
    return "\n\n".join(parts)
