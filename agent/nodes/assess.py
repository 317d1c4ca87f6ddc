"""Assess each source (FRSC's local labels), the judge's first part: the independent verifier judges every candidate
sentence against the claim, and its gate screens each abstract (agent.judge.sources). With the LLM reading the sources
(agent/nodes/judge_sources.py), every abstract the verifier does not rule out (``ask_floor``) goes on to it, and only
those the verifier's gate passes alone count in the provisional verdict; without it, the verifier's gate decides.
Abstracts screened out are listed as read, with the reason, and never count. Each remaining abstract gets a local
label on the 7-grade scale from the verifier and a reputation weight, provisional while the LLM reads it.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agent.judge.scoring import reputation
from agent.judge.sources import judge_rule, judge_sources, premise
from agent.nodes._timing import timed
from agent.state import ClaimState, Deps
from tools.text.i18n import written


@timed("assess")
def assess(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    deps = runtime.context
    candidates = state.get("evidence", [])
    if not candidates:
        return {
            "evidence": [],
            "assessments": [],
            "silent": [],
            "no_stance_confidence": 1.0,
            "directed": False,
        }
    results = deps.verifier.predict([(state["claim"], premise(ev)) for ev in candidates])
    rule = judge_rule(deps.settings)
    hierarchy = deps.settings.judge.design_weights
    j = judge_sources(candidates, results, deps.index.docs, rule, weigh=lambda doc: reputation(doc, hierarchy))
    notes = []
    if j.silent:
        notes.append("assess: " + written("{n} retrieved abstract(s) had no sentence bearing on the claim",
                                          n=len(j.silent)))
    if j.unlabelled:
        notes.append("assess: " + written("{n} abstract(s) with weaker evidence left unlabelled (LABELLED_DOCS={k})",
                                          n=j.unlabelled, k=rule.labelled_docs))
    return {
        "evidence": j.evidence,
        "assessments": j.assessments,
        "silent": j.silent,
        "no_stance_confidence": j.no_stance,
        "directed": False,
        "notes": notes,
    }
