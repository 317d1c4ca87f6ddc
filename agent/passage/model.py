"""The result of checking a passage: one pydantic model, `PassageCheck`, whose `model_dump()` is the `claimtrace
check-text --json` object. Each claim holds its own `CheckResult`, the same model a single check gives."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from agent.provenance import RunInfo
from agent.result import CheckResult
from agent.state import Verdict


class CitationAudit(BaseModel):
    """Whether the paper a sentence cites, read alone, supports what the sentence says it does."""

    citation: str  # as written: "[12]", "[@smith2019]", "(Smith 2019)"
    doc_id: str | None = None  # the library document it was matched to (None: the library holds no such paper)
    title: str = ""
    matched_by: str = ""  # "doi", "key", "title" or "author and year"
    verdict: Verdict | None = None  # the judge's verdict on the claim from that paper alone
    finding: str = ""  # the paper's sentence that bears on the claim most, when one does
    outcome: Literal["supports", "contradicts", "does not address", "not in library"] = "not in library"


class PassageClaim(BaseModel):
    """One checkable sentence of the passage, as the claim that was checked."""

    n: int  # its row, from 1, in passage order
    claim: str  # standalone: frame removed, abbreviations written out, references resolved
    sentence: str  # as written in the passage, citations included
    asked: str = ""  # the user's own sentence when the passage was translated into English (agent.passage.foreign)
    start: int  # the sentence's span in the passage (characters)
    end: int
    citations: list[str] = Field(default_factory=list)  # as written
    rewritten_by: Literal["rules", "llm", "user"] = "rules"  # "user": edited in the chat before checking
    standalone: bool = True  # False: a word still refers back into the passage (`unresolved`)
    unresolved: str = ""
    same_as: int | None = None  # a near-duplicate of an earlier row, which holds the shared check
    provisional: Verdict | None = None  # the verifier's verdict, before the LLM reads direction
    result: CheckResult | None = None  # the full check (None until it ends, or when the row shares a check)
    audits: list[CitationAudit] = Field(default_factory=list)


class SkippedSentence(BaseModel):
    """A sentence of the passage that is not checked, with the reason the user sees."""

    sentence: str
    start: int
    end: int
    reason: str


class PassageCheck(BaseModel):
    text: str  # the passage as checked (after the length limit; in English when it came in another language)
    language: str = "en"  # the language the passage came in (ISO 639-1)
    asked: str = ""  # the sentences as the user wrote them, when ``text`` is their English
    claims: list[PassageClaim] = Field(default_factory=list)
    skipped: list[SkippedSentence] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    timings: dict[str, float] = Field(default_factory=dict)  # seconds: extract, provisional, answers, total
    run: RunInfo = Field(default_factory=RunInfo)

    def checked(self, row: PassageClaim) -> CheckResult | None:
        """The check a row shows: its own, or that of the row it duplicates."""
        if row.same_as is None:
            return row.result
        return next((c.result for c in self.claims if c.n == row.same_as), None)
