"""Markdown for the live steps: one per pipeline node update (pure; input is the update as plain JSON). Text from
sources, the user or the LLM (queries, document ids, titles, sentences, answers, reasons, notes) goes through
ui.shared.untrusted and shows literally."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic_core import to_jsonable_python

from tools.text.i18n import decimal, said, t
from ui.chat.render import cite, note_line
from ui.shared.untrusted import md
from ui.shared.wording import verdict_words

Update = dict[str, Any]

STEP_NAMES = {
    "claim_queries": "The claim and its negation",
    "retrieve": "Searching",
    "fuse": "Sources found",
    "rerank": "Reranked by the verifier",
    "select_evidence": "Evidence sentences",
    "context": "Neighbouring sentences",
    "assess": "Assessment",
    "verdict": "Verdict",
    "judge_sources": "Whether each source bears on the claim, and which way (reader, gate, LLM)",
    "decompose": "Search questions (LLM)",
    "reformulate": "Searching again (LLM)",
    "answer": "Answer",
    "verify": "Verification",
    "correct": "Self-correction",
}
MAX_ROWS = 10


def as_json(update: Any) -> Update:
    """A node update (pydantic models inside) as plain JSON."""
    out = to_jsonable_python(update)
    return out if isinstance(out, dict) else {}


def _queries(u: Update) -> str:
    return "\n".join(f"- ({q['kind']}) {md(q['text'])}" for q in u.get("queries", []))


def _retrieve(u: Update) -> str:
    lists = u.get("ranked_lists", {})
    hits = {d for docs in lists.values() for d in docs}
    by = md(", ".join(sorted({key.split("|", 1)[0] for key in lists}))) or "no retriever"
    return f"{len(lists)} ranked list(s) (from {by}, per question), {len(hits)} distinct abstract(s)."


def _fuse(u: Update) -> str:
    rows = u.get("candidates", [])[:MAX_ROWS]
    return "Top abstracts after reciprocal rank fusion:\n" + "\n".join(
        f"- doc {md(c['doc_id'])} · RRF {c['score']:.4f} · found by {md(', '.join(c['found_by']))}" for c in rows
    )


def _rerank(u: Update) -> str:
    rows = [c for c in u.get("candidates", []) if c.get("evidence_score") is not None][:MAX_ROWS]
    if not rows:
        return "Reranking is off (RERANK_TOP=0): the fused order is kept."
    return "Top abstracts after the verifier read their sentences closest to the claim:\n" + "\n".join(
        f"- doc {md(c['doc_id'])} · evidence {c['evidence_score']:.2f} · RRF {c['score']:.4f}" for c in rows
    )


def _evidence(u: Update) -> str:
    rows = u.get("evidence", [])[:MAX_ROWS]
    return "\n".join(f"- _{md(e['title'])}_ — “{md(e['sentence'])}”" for e in rows) or "No evidence sentence."


def _context(u: Update) -> str:
    rows = u.get("evidence", [])[:MAX_ROWS]
    return "\n".join(
        f"- “{md(e['sentence'])}”\n  > sentence before: {md(e['context']) or '(opens its abstract)'}" for e in rows
    )


def _assess(u: Update) -> str:
    rows = u.get("assessments", [])
    kept = "\n".join(
        f"- doc {md(a['doc_id'])}: **{a['label']}** ("
        + t("stance confidence {confidence}, verdict weight {weight}",
            confidence=decimal(a.get("stance_confidence", 0.0)), weight=decimal(a["reputation"]))
        + f") — {md(said(a['explanation']))}"
        for a in rows
    )
    return kept or "No source bears on the claim."


def _judge_sources(u: Update) -> str:
    opposite = f"Each source was read against the opposite: “{md(u['opposite'])}”\n" if u.get("opposite") else ""
    rows = "\n".join(
        f"- doc {md(a['doc_id'])}: **{a['label']}** — {md(said(a['explanation']))}"
        for a in u.get("assessments", [])
        if a.get("judged_by") in ("verifier+llm", "reader")
    )
    return opposite + rows


def _verdict(u: Update) -> str:
    v = u.get("verdict") or {}
    return verdict_words(v, u.get("assessments") or [], u.get("silent") or []) if v else "none"


def _reformulate(u: Update) -> str:
    rows = u.get("round_queries", [])
    if not rows:
        return ""  # the note says why there is no new round
    return "The evidence was thin, so the search runs again with:\n" + "\n".join(f"- {md(q)}" for q in rows)


def _answer(u: Update) -> str:
    return md(u.get("answer", ""))


def _verify(u: Update) -> str:
    return "\n".join(
        f"{i}. {cite(s['text'], s['citations'])} → **{s['status']}** ({md(said(s['reason']))})"
        for i, s in enumerate(u.get("sentences", []), start=1)
    )


def _correct(u: Update) -> str:
    rows = u.get("corrections", [])
    if not rows:
        return "Every sentence is supported by what it cites: nothing to correct."
    return "\n".join(
        f"{c['position']}. {c['action']}: “{md(c['original'])}” ({c['status']}: {md(said(c['reason']))})"
        + (f" → “{md(c['text'])}”" if c["text"] else "")
        for c in rows
    )


RENDERERS: dict[str, Callable[[Update], str]] = {
    "claim_queries": _queries,
    "retrieve": _retrieve,
    "fuse": _fuse,
    "rerank": _rerank,
    "select_evidence": _evidence,
    "context": _context,
    "assess": _assess,
    "verdict": _verdict,
    "judge_sources": _judge_sources,
    "decompose": _queries,
    "reformulate": _reformulate,
    "answer": _answer,
    "verify": _verify,
    "correct": _correct,
}


def step_markdown(node: str, update: Update) -> str:
    """What the step of `node` shows; notes the node added are appended."""
    body = RENDERERS[node](update) if node in RENDERERS else ""
    notes = "\n".join(note_line(n) for n in update.get("notes", []))
    return "\n\n".join(p for p in (body, notes) if p)
