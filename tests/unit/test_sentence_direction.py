"""An answer sentence that says the opposite of what it cites, in words of its own, is flagged by the LLM's reading
of direction (agent.answer.sentence_direction), which the verifier (it reads topic) and the word rules of
tools.text.distortion (they see what a near copy changes) both pass. The scripted LLM reads direction as a careful
reader would: it chooses the statement that says "less advanced" fibrosis, or "better" rather than "worse", as the cited
finding does. ("more advanced" for "less advanced" is left to the word rules: tools.text.distortion sees the reversed
comparison.)"""

from __future__ import annotations

from typing import Any

from agent.nodes.correct import correct
from agent.nodes.verify import verify
from agent.state import AnswerSentence
from tests.unit.test_nodes import counted_as, ev, rt
from tools.text.distortion import distorted

FINDING = "In 1,200 patients with hepatitis C, daily coffee intake was associated with less advanced fibrosis."
CLAIM = "Coffee protects the liver in hepatitis C."
REVERSED = "Daily coffee intake was associated with worse fibrosis in patients with hepatitis C."
FAITHFUL = "Patients with hepatitis C who drank coffee daily had less advanced fibrosis."
READER = [
    {"when": "worse fibrosis", "choose": "better fibrosis"},
    {"when": "Which statement does the evidence support?", "choose": "less advanced"},
]
VERIFIER = {"fibrosis": "supports"}  # topic: the verifier passes every sentence on fibrosis


def _verify(deps: Any, *texts: str) -> list[AnswerSentence]:
    sentences = [AnswerSentence(text=t, citations=[1]) for t in texts]
    return list(verify({"claim": CLAIM, "evidence": [ev(1, "107", FINDING, 1)], "sentences": sentences},
                       rt(deps))["sentences"])  # fmt: skip


def _asked(deps: Any) -> list[str]:
    return [str(c[-1].content) for c in deps.llm.calls if "Statement A:" in str(c[-1].content)]


def test_a_reversed_paraphrase_passes_the_word_rules_but_not_the_llm(make_deps: Any) -> None:
    assert distorted(REVERSED, [FINDING]) is None  # what the checks before this one saw
    deps = make_deps(READER, VERIFIER)
    reversed_, faithful = _verify(deps, REVERSED, FAITHFUL)
    assert reversed_.status == "unsupported" and reversed_.flagged
    assert "reads the other way" in reversed_.reason and "better fibrosis" in reversed_.reason
    assert faithful.status == "supported" and not faithful.flagged
    assert len(_asked(deps)) == 4  # both orders, for each sentence
    assert all(FINDING in prompt for prompt in _asked(deps))  # the cited paper's evidence, as the direction stage reads


def test_the_flagged_sentence_is_corrected_and_never_shown_as_a_finding(make_deps: Any) -> None:
    rewrite = {"when": "A draft sentence says more", "reply": REVERSED}  # the rewrite repeats the error
    deps = make_deps([rewrite, *READER], VERIFIER)
    evidence = [ev(1, "107", FINDING, 1)]
    (flagged,) = _verify(deps, REVERSED)
    out = correct({"claim": CLAIM, "evidence": evidence, "sentences": [flagged],
                   "assessments": counted_as("True", *evidence)}, rt(deps))  # fmt: skip
    shown = [s.text for s in out["sentences"]]
    assert REVERSED not in shown and any("less advanced fibrosis" in t for t in shown)
    assert out["corrections"][0].action == "replaced"


def test_quotes_and_copies_are_not_asked_and_zero_turns_it_off(make_deps: Any) -> None:
    deps = make_deps(READER, VERIFIER)
    copy = "In 1,200 patients with hepatitis C, daily coffee intake was associated with less advanced fibrosis."
    quote = f'A study reports: "{FINDING}"'
    assert [s.status for s in _verify(deps, copy, quote)] == ["supported", "supported"]
    assert _asked(deps) == []
    off = make_deps(READER, VERIFIER)
    off.settings = off.settings.with_values(judge={"sentence_direction_below": 0.0})
    assert _verify(off, REVERSED)[0].status == "supported" and _asked(off) == []


def test_a_down_llm_or_spent_time_leaves_the_verifiers_reading_with_a_note(make_deps: Any, monkeypatch: Any) -> None:
    from agent.llm.client import LLMUnavailableError

    def down(*_: Any, **__: Any) -> Any:
        raise LLMUnavailableError("the LLM is unreachable (connection refused)")

    deps = make_deps(READER, VERIFIER)
    monkeypatch.setattr("agent.answer.sentence_direction.choose", down)
    sentences = [AnswerSentence(text=t, citations=[1]) for t in (REVERSED, FAITHFUL)]
    out = verify({"claim": CLAIM, "evidence": [ev(1, "107", FINDING, 1)], "sentences": sentences}, rt(deps))
    assert [s.status for s in out["sentences"]] == ["supported", "supported"]
    assert out["notes"] == [
        "verify: the LLM is unavailable (the LLM is unreachable (connection refused)); 2 sentence(s) keep the "
        "verifier's reading without the LLM's of direction"
    ]
    monkeypatch.undo()
    slow = make_deps(READER, VERIFIER)
    slow.settings = slow.settings.with_values(judge={"sentence_direction_seconds": 1e-9})
    out = verify({"claim": CLAIM, "evidence": [ev(1, "107", FINDING, 1)], "sentences": sentences}, rt(slow))
    assert "ran out" in out["notes"][0] and _asked(slow) == []
