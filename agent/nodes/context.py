"""Neighbouring sentences (as in the supplementary-context paper): the sentences around each evidence sentence
(CONTEXT_WINDOW on each side, `neighbours`), the sentence before it that lets it stand alone (`context`, cut at
CONTEXT_CHARS), and where the sentence sits (`section`: its section in a structured abstract or a full text, its
position). The verifier reads the last two with the sentence (tools.text.premise). All of it is the paper's own text.

The judge reads these sentences, never the LLM's generated summary of each paper (agent.answer.supplement, the
`supplement` of a source): that one reads the whole abstract, costs one call per paper (30-50 s each with the
embedded model on a 2-core CPU), and is written after the answer, so that it never delays the verdict.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agent.nodes._timing import timed
from agent.state import ClaimState, Deps
from tools.documents.fulltext import place
from tools.text.premise import before, where


@timed("context")
def context(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    deps = runtime.context
    window = deps.settings.judge.context_window
    out = []
    for ev in state.get("evidence", []):
        doc = deps.index.docs[ev.doc_id]
        sentences = doc.sentences
        i = ev.sentence_index
        out.append(
            ev.model_copy(
                update={
                    "neighbours": sentences[max(0, i - window) : i] + sentences[i + 1 : i + 1 + window],
                    "context": before(sentences, i, deps.settings.judge.context_chars),
                    # a full text's own section (its position within it), else a structured abstract's heading
                    "section": place(doc.sections, i) if doc.sections else where(sentences, i),
                }
            )
        )
    return {"evidence": out}
