"""Checking a passage: its text read and limited, its claims extracted, then checked together.

Every claim runs through the same claim graph as a single check. The checks go in two passes, so the user sees
every verdict early: first each claim's retrieval and the verifier's provisional verdict (no LLM, about a second a
claim), then each full check (direction, questions, answer). A row that duplicates an earlier one shares its check.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

from agent.passage.audit import audit_claim
from agent.passage.extract import extract
from agent.passage.foreign import EnglishText, in_english_text
from agent.passage.model import PassageCheck, PassageClaim
from agent.provenance import RunInfo
from agent.result import CheckResult
from agent.service import RAW_FACTOR, InputError, mostly_latin, run_claim, translate_result, visible_text
from agent.stages import run_span
from agent.state import Deps
from tools.text.language import ENGLISH
from tools.text.passage import read_passage

Event = Literal["claim", "provisional", "result"]
OnEvent = Callable[[Event, PassageClaim], None]


def validate_passage(raw: str, max_chars: int) -> tuple[str, list[str]]:
    """The passage to check (at most ``max_chars`` characters, cut at a sentence's end) and notes for the user;
    raises InputError with one clear sentence. Line breaks are kept: they mark paragraphs and the reference list."""
    if len(raw) > RAW_FACTOR * 50 * max_chars:
        raise InputError(f"the text is {len(raw)} characters long; far beyond the limit of {max_chars}")
    text = visible_text(raw, "the text").strip()
    if not any(ch.isalpha() for ch in text):
        raise InputError("the text is empty; paste a paragraph, an abstract or a press release to check")
    notes: list[str] = []
    if len(text) > max_chars:
        cut = _sentence_end_before(text, max_chars)
        notes.append(
            f"the text is {len(text)} characters long; the limit is {max_chars} (MAX_PASSAGE_CHARS), so its first "
            f"{cut} characters are checked and the rest is not"
        )
        text = text[:cut].rstrip()
    if not mostly_latin(text):
        notes.append("the text is not in English: the claim rules read English, and the corpus is in English")
    return text, notes


def _sentence_end_before(text: str, limit: int) -> int:
    passage = read_passage(text[: limit + 1])
    ends = [s.end for s in passage.sentences if s.end <= limit]
    return ends[-1] if ends else limit


def extract_claims(
    text: str,
    deps: Deps,
    notes: list[str] | None = None,
    on_event: OnEvent | None = None,
    run: RunInfo | None = None,
    origin: EnglishText | None = None,
) -> PassageCheck:
    """The passage's claims (at most MAX_PASSAGE_CLAIMS) and the sentences skipped, nothing checked yet. ``origin``
    is the translation ``text`` comes from when the passage came in another language: each claim keeps its user's
    sentence."""
    emit: OnEvent = on_event or (lambda kind, row: None)
    t0 = time.perf_counter()
    out = PassageCheck(text=text, notes=list(notes or []), run=run or RunInfo())
    if origin is not None and origin.language != ENGLISH:
        out.language, out.asked = origin.language, " ".join(words for *_, words in origin.origins)
        out.notes += origin.notes
    claims, skipped, _, extract_notes = extract(read_passage(text), deps.llm, lambda row: emit("claim", row))
    if origin is not None:
        for row in claims:
            row.asked = origin.asked(row.start, row.end)
    out.skipped, out.notes = skipped, out.notes + extract_notes
    limit = deps.settings.answer.max_passage_claims
    if len(claims) > limit:
        out.notes.append(
            f"the text holds {len(claims)} checkable claims; the first {limit} are checked (MAX_PASSAGE_CLAIMS)"
        )
        claims = claims[:limit]
    out.claims = claims
    out.timings["extract"] = round(time.perf_counter() - t0, 3)
    if not claims:
        out.notes.append("no sentence of the text states a checkable finding; the reason for each is listed")
    return out


def provisional(row: PassageClaim, deps: Deps) -> None:
    """Pass 1 for one row: retrieval and the verifier's provisional verdict (no LLM)."""
    row.provisional = run_span({"claim": row.claim}, deps, "claim_queries", "verdict").get("verdict")


def finish(row: PassageClaim, check: PassageCheck, deps: Deps) -> None:
    """Pass 2 for one row: its full check (unless it shares an earlier row's) and its citations audited."""
    if row.same_as is None:
        row.result = CheckResult.from_state(run_claim(row.claim, deps), check.run)
        if check.language != ENGLISH:  # answered in the passage's language, as a claim typed in it is
            asked = row.result.model_copy(update={"language": check.language, "asked": row.asked})
            row.result = translate_result(asked, deps)
    row.audits = audit_claim(row, read_passage(check.text), deps)


def check_passage(
    text: str,
    deps: Deps,
    notes: list[str] | None = None,
    on_event: OnEvent | None = None,
    run: RunInfo | None = None,
) -> PassageCheck:
    """Extract the passage's claims and check them all: every provisional verdict first, then the full checks."""
    emit: OnEvent = on_event or (lambda kind, row: None)
    t0 = time.perf_counter()
    origin = in_english_text(deps.llm, text)
    out = extract_claims(origin.text, deps, notes, emit, run, origin)
    if not out.claims:
        return out
    own = [row for row in out.claims if row.same_as is None]
    for row in own:
        provisional(row, deps)
        emit("provisional", row)
    out.timings["provisional"] = round(time.perf_counter() - t0, 3)
    for row in own + [row for row in out.claims if row.same_as is not None]:  # a shared check exists first
        finish(row, out, deps)
        emit("result", row)
    out.timings["answers"] = out.timings["total"] = round(time.perf_counter() - t0, 3)
    return out
