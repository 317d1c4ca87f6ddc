"""A follow-up answered from the evidence already held: citations parsed and checked against the evidence list,
then every sentence verified by the independent verifier and self-corrected, exactly like the main answer (the
verification stage). A follow-up asked in another language gets its sentences translated into it after they were
checked, as the main answer does (agent.translate.answer_in)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agent import stages
from agent.answer.strategies import answer_sentences
from agent.followup.deps import deps_of
from agent.followup.state import ThreadState, current
from agent.result import CheckResult
from agent.state import ClaimState, Evidence
from agent.translate import answer_in
from tools.text.citations import parse_answer
from tools.text.language import language_of


def answer(state: ThreadState, runtime: Runtime[Any]) -> dict[str, Any]:
    result = CheckResult.model_validate(current(state))
    evidence: list[Evidence] = list(result.sources)
    drafted = answer_sentences(parse_answer(state["draft"], {ev.n for ev in evidence}))
    # no assessments: a follow-up may report any evidence held, not only the papers the verdict counts
    held: ClaimState = {"claim": result.claim, "evidence": evidence}
    deps = deps_of(runtime)
    checked = stages.verification({**held, "sentences": drafted}, deps)
    language = language_of(state["message"])
    translated, _, note = answer_in(deps.llm, list(checked.get("sentences", [])), language)
    reply = {
        "kind": "answer",
        "sentences": [s.model_dump(mode="json") for s in translated],
        "language": language,
        "notes": [f"translation: {note}"] if note else [],
        "evidence_count": len(evidence),
        "original_answer": checked.get("original_answer", ""),
        "corrections": [c.model_dump(mode="json") for c in checked.get("corrections", [])],
    }
    return {"reply": reply}
