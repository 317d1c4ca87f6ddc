"""Re-checking a recorded answer (evals/studies/recheck.py): the shown sentences go through verify and correct again,
without the LLM, so a quote under the wrong number is re-cited and the faithfulness figures can be compared."""

from __future__ import annotations

from typing import Any

from agent.llm.scripted import ScriptedChatModel
from agent.result import CheckResult, Source
from agent.state import AnswerSentence, Deps
from evals.scifact.metrics import answer_faithfulness
from evals.studies.recheck import recheck
from tests.unit.test_nodes import counted_as
from tools.models.verifier import VerifierResult

FIRST = "Preoperative CRP levels as low as 3 mg/l were associated with increased long-term mortality."
SECOND = "We examined CRP levels for predicting hospital length of stay after bypass surgery."


class TopicVerifier:
    def predict(self, pairs: list[tuple[str, str]], batch_size: int = 32) -> list[VerifierResult]:
        return [VerifierResult("supports", 0.8, 0.1, 0.1) for _ in pairs]


def test_a_recorded_quote_under_the_wrong_number_is_recited_without_the_llm(settings: Any) -> None:
    sources = [
        Source(n=1, doc_id="1", title="CRP and mortality", sentence=FIRST, sentence_index=4),
        Source(n=2, doc_id="2", title="CRP and length of stay", sentence=SECOND, sentence_index=1),
    ]
    shown = AnswerSentence(text=FIRST, citations=[2], status="supported", flagged=False)
    recorded = CheckResult(claim="CRP predicts mortality after bypass surgery.", answer=f"{FIRST[:-1]} [2].",
                           sentences=[shown], sources=sources,
                           assessments=counted_as("Mostly True", *sources)).model_dump(mode="json")  # fmt: skip
    llm = ScriptedChatModel(rules=[])
    deps = Deps(settings=settings, llm=llm, index=None, verifier=TopicVerifier())  # type: ignore[arg-type]
    after = recheck(recorded, deps)
    assert not llm.calls
    assert [(s["citations"], s["revision"]) for s in after["sentences"]] == [([1], "recited")]
    assert after["answer"] == f"{FIRST[:-1]} [1]."
    before_rate = answer_faithfulness([recorded])["independent_support_rate"]
    after_rate = answer_faithfulness([after])["independent_support_rate"]
    assert (before_rate, after_rate) == (0.0, 1.0)  # the words of the sentence are in what it now cites
