"""Claims from a passage: its checkable sentences (tools.text.claim_rules), each rewritten as a claim that stands alone.

The rules pick the sentences and make each a claim at once (no LLM): the frame "These results suggest that" goes,
abbreviations the passage defines are written out. Only a claim that still points back into the passage ("It
lowers ...", "these patients ...") is sent to the LLM, with the text before it, to name what it refers to. A
rewrite is kept only when it resolves the reference, draws its words from the passage, keeps the sentence's own
words and changes no negation or number (tools.text.distortion); otherwise the rule claim stands, marked as not
standing alone. The LLM sees at most ``CONTEXT_SENTENCES`` sentences before the one it rewrites, so a long text is
read in windows of that size.

Rows whose claims state the same finding in other word forms or order (`same_finding`) share one check.
"""

from __future__ import annotations

from collections.abc import Callable

from langchain_core.language_models import BaseChatModel

import prompts
from agent.llm.calls import chat, parse_json_object
from agent.llm.client import LLMUnavailableError
from agent.passage.model import PassageClaim, SkippedSentence
from agent.state import Usage
from tools.text.claim_rules import abbreviations, checkable, expanded, frame_removed, unresolved
from tools.text.distortion import distortion, negation_changed, negations, numbers
from tools.text.overlap import content_stems, support_share
from tools.text.passage import Passage, Sentence

CONTEXT_SENTENCES = 6  # sentences before a claim that the LLM reads to resolve it
REWRITE_TOKENS = 120
FROM_TEXT = 0.9  # share of the rewrite's content words found in the sentence and the text before it
KEEPS = 0.8  # share of the sentence's own content words the rewrite keeps


def rule_claim(sentence: Sentence, defined: dict[str, str]) -> str:
    """The sentence as a claim by rules: citations and reporting frame removed, abbreviations written out."""
    claim = expanded(frame_removed(sentence.bare), defined)
    return claim if claim.endswith((".", "!")) else f"{claim.rstrip(' ;:,')}."


def acceptable(rewrite: str, sentence: str, context: str) -> bool:
    """Whether an LLM rewrite only resolved references: it stands alone, its words come from the text, it keeps
    the sentence's words, and it changes no negation or number."""
    if not rewrite or unresolved(rewrite):
        return False
    if (support_share(rewrite, [sentence, context]) or 0.0) < FROM_TEXT:
        return False
    if (support_share(sentence, [rewrite]) or 1.0) < KEEPS:
        return False
    if any(n not in numbers(f"{sentence} {context}") for n in numbers(rewrite)):
        return False
    return negation_changed(rewrite, sentence) is None and distortion(rewrite, sentence) is None


def resolve(llm: BaseChatModel, claim: str, word: str, context: str) -> tuple[str | None, Usage]:
    """The LLM's standalone rewrite of ``claim`` when it passes `acceptable`, else None. Raises LLMUnavailableError."""
    reply, usage = chat(
        llm,
        prompts.load("standalone_system"),
        prompts.render("standalone", context=context, sentence=claim, word=word),
        json_mode=True,
        max_tokens=REWRITE_TOKENS,
    )
    obj = parse_json_object(reply) or {}
    rewrite = obj.get("claim")
    if not isinstance(rewrite, str):
        return None, usage
    rewrite = " ".join(rewrite.split())
    return (rewrite if acceptable(rewrite, claim, context) else None), usage


def extract(
    passage: Passage, llm: BaseChatModel | None, on_claim: Callable[[PassageClaim], None] | None = None
) -> tuple[list[PassageClaim], list[SkippedSentence], Usage, list[str]]:
    """The passage's claims (in order, near-duplicates marked), the sentences skipped with their reasons, the
    LLM's usage and notes for the user. Without an LLM (or when it fails) unresolved claims stay as the rules made
    them, marked."""
    defined = abbreviations(passage.text[: passage.body_end])
    claims: list[PassageClaim] = []
    skipped: list[SkippedSentence] = []
    usage, notes = Usage(), []
    for i, s in enumerate(passage.sentences):
        ok, why = checkable(s.bare)
        if not ok:
            skipped.append(SkippedSentence(sentence=s.text, start=s.start, end=s.end, reason=why))
            continue
        claim = rule_claim(s, defined)
        row = PassageClaim(
            n=len(claims) + 1,
            claim=claim,
            sentence=s.text,
            start=s.start,
            end=s.end,
            citations=[c.label for c in s.citations],
        )
        word = unresolved(claim)
        if word and llm is not None and i > 0:
            context = " ".join(p.bare for p in passage.sentences[max(0, i - CONTEXT_SENTENCES) : i])
            try:
                rewrite, used = resolve(llm, claim, word, context)
                usage += used
            except LLMUnavailableError as e:
                notes.append(f"{e}: claims that refer back into the text are checked as written")
                llm, rewrite = None, None
            if rewrite:
                row.claim, row.rewritten_by, word = rewrite, "llm", None
        if word:
            row.standalone, row.unresolved = False, word
        row.same_as = _duplicate_of(row.claim, claims)
        claims.append(row)
        if on_claim is not None:
            on_claim(row)
    return claims, skipped, usage, notes


def reworded(row: PassageClaim, claim: str) -> PassageClaim:
    """The row with the user's own wording of its claim (the chat lets the user edit a claim before checking)."""
    word = unresolved(claim)
    return row.model_copy(update={"claim": claim, "rewritten_by": "user", "standalone": word is None,
                                  "unresolved": word or ""})


def renumbered(rows: list[PassageClaim]) -> list[PassageClaim]:
    """The rows the user kept, numbered again from 1 and their near-duplicates marked again: a row whose earlier
    twin was dropped or reworded gets its own check."""
    out: list[PassageClaim] = []
    for k, row in enumerate(rows, start=1):
        out.append(row.model_copy(update={"n": k, "same_as": _duplicate_of(row.claim, out)}))
    return out


def _duplicate_of(claim: str, earlier: list[PassageClaim]) -> int | None:
    """The earlier row (holding its own check) whose claim states the same finding: the same content words up to
    their endings, the same negation and the same numbers. A claim that differs in any word that carries meaning
    ("causing" and "delaying" neuron degeneration) is checked on its own."""
    for row in earlier:
        if row.same_as is None and same_finding(claim, row.claim):
            return row.n
    return None


def same_finding(a: str, b: str) -> bool:
    return (
        content_stems(a) == content_stems(b)
        and sorted(numbers(a)) == sorted(numbers(b))
        and negations(a) == negations(b)
    )
