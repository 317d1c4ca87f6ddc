"""Checking one claim end to end: input rules, wiring of the dependencies, and the run itself."""

from __future__ import annotations

import re
import time
import unicodedata
from collections.abc import Callable
from typing import Any

from agent.answer.supplement import Supplement, supplemented
from agent.graph import build_graph
from agent.result import CheckResult
from agent.settings.app import Settings
from agent.state import ClaimState, Deps
from agent.translate import answer_in
from tools.text.claim_rules import checkable
from tools.text.i18n import written
from tools.text.passage import read_passage


class InputError(ValueError):
    """The user's input cannot be checked; the message says why."""


EXAMPLE = "'Vitamin D reduces fractures'"
# Invisible formatting characters (Unicode category Cf: zero-width spaces and joiners, the byte-order mark, soft
# hyphens, direction embeddings, overrides and isolates) are removed, so that what is checked is what the user sees.
# The three direction marks are kept: they only set the direction of neutral characters in right-to-left text.
KEPT_FORMAT = frozenset("\u200e\u200f\u061c")
# Far above the limit: refused from its length alone, before any character is inspected (a pasted file).
RAW_FACTOR = 4
_URL = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
_IDENTIFIER = re.compile(
    r"(?:doi:?\s*|https?://(?:dx\.)?doi\.org/)?10\.\d{4,9}/\S+"  # a DOI, bare, doi:-prefixed or as a link
    r"|(?:pmid|pubmed(?:\s*id)?)\s*:?\s*\d+|pmc\d+|arxiv:\s*\S+",
    re.IGNORECASE,
)


def visible_text(raw: str, what: str) -> str:
    """``raw`` without invisible formatting characters; raises InputError, naming ``what``, for text that is not
    valid UTF-8 or holds binary control characters (tabs and line breaks are text)."""
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in raw):
        raise InputError(f"{what} is not valid UTF-8 text")
    if any(unicodedata.category(ch) == "Cc" and ch not in "\t\n\r" for ch in raw):
        raise InputError(f"{what} contains binary control characters; send plain text")
    return "".join(ch for ch in raw if ch in KEPT_FORMAT or unicodedata.category(ch) != "Cf")


def validate_claim(raw: str, max_chars: int) -> tuple[str, list[str]]:
    """The claim, normalised, and notes for the user; raises InputError with one clear sentence.

    The text is kept as typed otherwise: Markdown, HTML, quotes and shell or SQL characters are searched as words
    and shown as literal text, never interpreted."""
    if len(raw) > RAW_FACTOR * max_chars:
        raise InputError(f"the claim is {len(raw)} characters long; the limit is {max_chars}")
    claim = " ".join(visible_text(raw, "the claim").split())
    if not claim.strip("".join(KEPT_FORMAT)):
        raise InputError(f"the claim is empty; type a scientific claim such as {EXAMPLE}")
    if len(claim) > max_chars:
        raise InputError(f"the claim is {len(claim)} characters long; the limit is {max_chars}")
    bare = claim.strip(" .,;<>()[]\"'")
    if _IDENTIFIER.fullmatch(bare):
        raise InputError(
            "a DOI or PubMed id names a paper, not a claim; paste the claim itself as a sentence, such as " + EXAMPLE
        )
    if _URL.fullmatch(bare):
        raise InputError(
            f"a link alone cannot be checked (links are not opened); paste the claim itself, such as {EXAMPLE}"
        )
    if not any(ch.isalpha() for ch in claim):
        raise InputError(f"the claim has no words; type it as a sentence, such as {EXAMPLE}")
    return claim, claim_notes(claim)


def mostly_latin(text: str) -> bool:
    """Whether at least 60 % of the text's letters are ASCII: the rough test of English that the notes use (the
    text must hold a letter)."""
    letters = [ch for ch in text if ch.isalpha()]
    return sum(ch.isascii() for ch in letters) / len(letters) >= 0.6


def findings(text: str) -> int:
    """How many sentences of the text state a checkable finding (tools.text.claim_rules, no LLM): two or more make it
    a passage, whose claims are checked one by one."""
    return sum(checkable(s.bare)[0] for s in read_passage(text).sentences)


def claim_notes(claim: str) -> list[str]:
    """What the user should know about a claim that is checked anyway."""
    notes: list[str] = []
    if claim.rstrip(" .\u200e\u200f\u061c").endswith(("?", "\uff1f", "\u061f")):
        notes.append(written("this reads as a question; it is checked as a claim, and stating it as one (such as "
                             "{example}) gives a clearer verdict", example=EXAMPLE))
    if not mostly_latin(claim):
        notes.append(written("the corpus is in English; a claim in another language may find little evidence"))
    if (count := findings(claim)) > 1:
        notes.append(written("this text states {n} findings and is checked as one claim, which blurs them: check "
                             "them one at a time, or each on its own with `claimtrace check-text`", n=count))
    return notes


def use_settings(settings: Settings) -> None:
    """The settings the CPU models run with from now on (their ``models`` group): the tools read no environment of
    their own while the application runs."""
    from tools.models.onnx_models import use_runtime

    use_runtime(settings.models)


def finish_dense_index(
    deps: Deps, on_progress: Callable[[int, int], None] | None = None, pause: Callable[[], None] | None = None
) -> bool:
    """Embeds the rest of a dense index built keyword-first (`claimtrace index --keyword-first`) into the index the
    checks search, so that later checks search by meaning too, without a restart; ``pause``, called between
    batches, may hold the build (tools.index.build.embed_sentences). False when there was nothing to finish."""
    from tools.index.build import finish_dense
    from tools.index.local import CorpusIndex

    if not isinstance(deps.index, CorpusIndex) or deps.index.dense_building() is None:
        return False
    finish_dense(deps.index, on_progress, pause=pause)
    return True


def load_deps(settings: Settings) -> Deps:
    """Index, the two verifiers, the abstract reader and LLM for a session.
    Raises IndexMissingError / LLMUnavailableError."""
    from agent.llm.client import make_chat_model
    from tools.index.local import CorpusIndex
    from tools.models.verifier import get_reader, get_sentence_verifier, get_verifier

    use_settings(settings)
    index = CorpusIndex(settings.stores.index_dir, settings.stores.chroma_url)
    return Deps(
        settings=settings,
        llm=make_chat_model(settings),
        index=index,
        verifier=get_verifier(),
        sentence_verifier=get_sentence_verifier(),
        reader=get_reader(),
    )


def run_claim(
    claim: str, deps: Deps, graph: Any = None, on_update: Callable[[str, dict[str, Any]], None] | None = None
) -> ClaimState:
    """The final state of the claim graph; `CheckResult.from_state` turns it into the result. `on_update(node,
    update)` is called as each node finishes (the CLI shows the verdict before the answer is written)."""
    graph = graph or build_graph()
    t0 = time.perf_counter()
    state: ClaimState = {"claim": claim}
    for mode, data in graph.stream({"claim": claim}, context=deps, stream_mode=["updates", "values"]):
        if mode == "values":
            state = data
        elif on_update is not None:
            for node, update in data.items():
                on_update(node, update)
    state["timings"] = {**state.get("timings", {}), "total": round(time.perf_counter() - t0, 3)}
    return state


def supplement_result(
    result: CheckResult, deps: Deps, on_paper: Callable[[int, Supplement], None] | None = None
) -> CheckResult:
    """The check with each paper's generated summary (agent.answer.supplement), written after its answer, with the
    LLM's usage, notes and seconds added; the check as it is when GENERATED_CONTEXT is off or it has no sources."""
    if not deps.settings.judge.supplement or not result.sources:
        return result
    t0 = time.perf_counter()
    sources, usage, notes = supplemented(result.sources, deps, on_paper)
    return result.model_copy(
        update={
            "sources": sources,
            "llm": result.llm + usage,
            "notes": [*result.notes, *notes],
            "timings": {**result.timings, "supplement": round(time.perf_counter() - t0, 3)},
        }
    )


def translate_result(result: CheckResult, deps: Deps) -> CheckResult:
    """The check with its answer's sentences translated into the language the claim came in (agent.translate), made
    after the check, with the LLM's usage, a note when a sentence stays in English, and the seconds; the check as it
    is for an English claim."""
    if result.language == "en" or not result.sentences:
        return result
    t0 = time.perf_counter()
    sentences, usage, note = answer_in(deps.llm, result.sentences, result.language)
    return result.model_copy(
        update={
            "sentences": sentences,
            "llm": result.llm + usage,
            "notes": [*result.notes, *([f"translation: {note}"] if note else [])],
            "timings": {**result.timings, "translate": round(time.perf_counter() - t0, 3)},
        }
    )
