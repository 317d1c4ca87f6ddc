"""A follow-up answered from the evidence already held: citations parsed and checked against the evidence list,
then every sentence verified by the independent verifier, exactly like the main answer (agent.nodes.verify)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agent.followup.deps import deps_of
from agent.followup.route import evidence_of
from agent.followup.state import ThreadState
from agent.nodes.answer import answer_sentences
from agent.nodes.verify import verify
from agent.service import to_json
from agent.state import ClaimState
from tools.citations import parse_answer


def answer(state: ThreadState, runtime: Runtime[Any]) -> dict[str, Any]:
    result = state["results"][-1]
    evidence = evidence_of(result)
    drafted = answer_sentences(parse_answer(state["draft"], {ev.n for ev in evidence}))
    checked: ClaimState = {"claim": result["claim"], "evidence": evidence, "sentences": drafted}
    verified = verify(checked, Runtime(context=deps_of(runtime)))["sentences"]
    shown = to_json({**checked, "sentences": verified})
    return {"reply": {"kind": "answer", "sentences": shown["sentences"], "evidence_count": len(evidence)}}
