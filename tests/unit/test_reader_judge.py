"""The abstract reader in the judge (agent/judge/reader.py, agent/nodes/judge_sources.py): it reads the claim
against the whole abstract first and decides what it is sure of; a paper it finds bearing on the claim passes the
LLM's gate, and the LLM reads only its side; the LLM reads the whole of the papers it is unsure of, and nobody does
with JUDGE_DIRECTION=reader. With the scripted model, a rule reader and the tiny corpus."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from agent.judge.calibration import ReaderBand, load_calibration
from agent.judge.reader import Reading, decide
from agent.result import CheckResult
from agent.service import run_claim
from tests.conftest import direction_rules
from tools.models.verifier import VerifierResult
from tools.text.premise import whole_abstract

ALDH1_WORSE = "ALDH1 expression is associated with worse breast cancer outcomes."
VERIFIER = {"poor prognosis": "supports"}
BAND = load_calibration().reader_band


class RuleReader:
    """Test stand-in for the trained reader: fixed probabilities (supports, refutes, nei) for every abstract that
    contains a key, "does not bear" for the rest; it records what it read."""

    def __init__(self, rules: dict[str, tuple[float, float, float]]) -> None:
        self.rules = rules
        self.seen: list[tuple[str, str]] = []

    def predict(self, pairs: Sequence[tuple[str, str]], batch_size: int = 32) -> list[VerifierResult]:
        out = []
        for claim, abstract in pairs:
            self.seen.append((claim, abstract))
            ps, pr, pn = next((p for key, p in self.rules.items() if key in abstract), (0.01, 0.01, 0.98))
            label = max(zip(("supports", "contradicts", "nei"), (ps, pr, pn), strict=True), key=lambda t: t[1])[0]
            out.append(VerifierResult(label, ps, pr, pn))  # type: ignore[arg-type]
        return out


SURE_SUPPORT = (0.97, 0.02, 0.01)
SURE_REFUTE = (0.02, 0.97, 0.01)
UNSURE = (0.45, 0.05, 0.5)


def llm_read_anything(deps: Any) -> bool:
    """Whether the LLM was asked whether a paper bears on the claim, or which way it points."""
    asks = (f"Claim: {ALDH1_WORSE}\n\nDoes the evidence report", f"Statement A: {ALDH1_WORSE}")
    return any(a in str(c[-1].content) for c in deps.llm.calls for a in asks)


LABELS = ReaderBand(aside_below=0.2, decide_from=0.8, sure=0.8)  # a band where the reader labels what it is sure of
PASSES = ReaderBand(aside_below=0.0, decide_from=0.95, sure=None)  # one where it only passes papers past the gate


@pytest.fixture
def band(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> ReaderBand:
    """The judge's calibration with the test's reader band, with the LLM and alone (``LABELS`` unless the test is
    parametrized)."""
    chosen = getattr(request, "param", LABELS)
    with_band = replace(load_calibration(), reader_band=chosen, reader_alone_band=chosen)
    monkeypatch.setattr("agent.nodes.judge_sources.load_calibration", lambda *_: with_band)
    return chosen


def with_reader(make_deps: Any, rules: dict[str, tuple[float, float, float]], llm: list[dict[str, Any]],
                direction: str = "llm") -> Any:
    answer = [{"when": "<paper n=", "reply": "See [1]."}, *direction_rules("See.")]  # the answer's sentence kept
    deps = make_deps([*llm, *answer], VERIFIER)
    deps.reader = RuleReader(rules)
    deps.settings = deps.settings.with_values(judge={"direction": direction, "reader": True})
    return deps


def test_the_band_decides_aside_counts_and_unsure() -> None:
    band = LABELS
    assert decide(Reading(0.05, 0.05, 0.9), band) == "aside"
    assert decide(Reading(0.9, 0.05, 0.05), band) == "counts"
    assert decide(Reading(0.5, 0.45, 0.05), band) == "bears"  # it bears, but the side is a coin toss
    assert decide(Reading(0.45, 0.05, 0.5), band) == "unsure"  # it leans, but may not bear
    assert decide(Reading(0.99, 0.005, 0.005), PASSES) == "bears"  # however sure of the side
    assert decide(Reading(0.001, 0.001, 0.998), PASSES) == "unsure"  # nothing is set aside below 0
    assert Reading(0.3, 0.1, 0.6).p_claim == pytest.approx(0.75)


def test_a_paper_the_reader_is_sure_of_counts_without_the_llm(make_deps, band) -> None:
    deps = with_reader(make_deps, {"poor prognosis": SURE_REFUTE}, direction_rules(ALDH1_WORSE, supports=True))
    result = CheckResult.from_state(run_claim(ALDH1_WORSE, deps))
    (source,) = [a for a in result.assessments if a.doc_id == "103"]
    assert source.judged_by == "reader" and source.score < 0  # the reader's side, not the scripted LLM's
    assert "abstract reader" in source.explanation
    assert not llm_read_anything(deps)
    claim, abstract = deps.reader.seen[0]
    doc = deps.index.docs["103"]
    assert claim == ALDH1_WORSE and abstract == whole_abstract(doc.title, doc.sentences)  # the whole abstract


def test_a_paper_the_reader_finds_off_topic_is_set_aside_with_its_reason(make_deps, band) -> None:
    deps = with_reader(make_deps, {}, direction_rules(ALDH1_WORSE))
    result = CheckResult.from_state(run_claim(ALDH1_WORSE, deps))
    assert not any(a.doc_id == "103" for a in result.assessments)
    (aside,) = [s for s in result.silent if s.doc_id == "103"]
    assert "abstract reader" in aside.reason and aside.reason.startswith("Not counted")
    assert not llm_read_anything(deps)


def test_the_llm_reads_only_the_paper_the_reader_is_unsure_of(make_deps, band) -> None:
    deps = with_reader(make_deps, {"poor prognosis": UNSURE}, direction_rules(ALDH1_WORSE, supports=True))
    result = CheckResult.from_state(run_claim(ALDH1_WORSE, deps))
    (source,) = [a for a in result.assessments if a.doc_id == "103"]
    assert source.judged_by == "verifier+llm" and source.score > 0
    assert "reader was unsure" in source.explanation
    assert llm_read_anything(deps)


def test_the_reader_alone_never_asks_the_llm_and_lists_what_it_is_unsure_of(make_deps, band) -> None:
    deps = with_reader(make_deps, {"poor prognosis": UNSURE}, direction_rules(ALDH1_WORSE), direction="reader")
    result = CheckResult.from_state(run_claim(ALDH1_WORSE, deps))
    assert not llm_read_anything(deps)
    (aside,) = [s for s in result.silent if s.doc_id == "103"]
    assert aside.close and "unsure" in aside.reason
    assert result.verdict is not None and result.verdict.label == "Not enough evidence"


def test_the_reader_alone_decides_by_its_own_band(make_deps, monkeypatch) -> None:
    """With JUDGE_DIRECTION=reader the reader labels by ``reader_alone_band``: a band that only passes papers to the
    LLM (``reader_band``) would count nothing when nobody else reads a side."""
    cal = replace(load_calibration(), reader_band=PASSES, reader_alone_band=LABELS)
    monkeypatch.setattr("agent.nodes.judge_sources.load_calibration", lambda *_: cal)
    deps = with_reader(make_deps, {"poor prognosis": SURE_REFUTE}, direction_rules(ALDH1_WORSE), direction="reader")
    result = CheckResult.from_state(run_claim(ALDH1_WORSE, deps))
    (source,) = [a for a in result.assessments if a.doc_id == "103"]
    assert source.judged_by == "reader" and source.score < 0
    assert not llm_read_anything(deps)


def test_the_shipped_alone_band_lets_the_reader_label() -> None:
    alone = load_calibration().reader_alone_band
    assert 0.0 <= alone.aside_below <= alone.decide_from <= 1.0 and alone.sure is not None


def test_without_the_reader_the_llm_reads_every_paper(make_deps, band) -> None:
    deps = with_reader(make_deps, {"poor prognosis": SURE_REFUTE}, direction_rules(ALDH1_WORSE, supports=True))
    deps.settings = deps.settings.with_values(judge={"reader": False})
    result = CheckResult.from_state(run_claim(ALDH1_WORSE, deps))
    (source,) = [a for a in result.assessments if a.doc_id == "103"]
    assert source.judged_by == "verifier+llm" and not deps.reader.seen


@pytest.mark.parametrize("band", [PASSES], indirect=True)
def test_a_paper_the_reader_finds_bearing_passes_the_gate_and_the_llm_reads_only_its_side(make_deps, band) -> None:
    """The LLM's gate would set the paper aside (it answers "No" of the claim and of its opposite); the reader's word
    passes it, and the side is the LLM's, not the reader's."""
    bearing_question = f"Claim: {ALDH1_WORSE}\n\nDoes the evidence report"
    deps = with_reader(make_deps, {"poor prognosis": SURE_REFUTE},
                       direction_rules(ALDH1_WORSE, supports=True, bears=False))
    result = CheckResult.from_state(run_claim(ALDH1_WORSE, deps))
    (source,) = [a for a in result.assessments if a.doc_id == "103"]
    assert source.judged_by == "verifier+llm" and source.score > 0  # the LLM's side, though the reader refutes
    assert "reports a finding on the claim" in source.explanation and "read only its side" in source.explanation
    assert not any(bearing_question in str(c[-1].content) for c in deps.llm.calls)  # the gate was not asked
    assert llm_read_anything(deps)  # the side was


@pytest.mark.parametrize("band", [PASSES], indirect=True)
def test_with_the_llm_saying_no_a_paper_the_reader_is_unsure_of_is_set_aside(make_deps, band) -> None:
    """The same paper and the same LLM, but the reader below its pass mark: the gate decides, and sets it aside."""
    bearing_question = f"Claim: {ALDH1_WORSE}\n\nDoes the evidence report"
    deps = with_reader(make_deps, {"poor prognosis": UNSURE},
                       direction_rules(ALDH1_WORSE, supports=True, bears=False))
    result = CheckResult.from_state(run_claim(ALDH1_WORSE, deps))
    assert not any(a.doc_id == "103" for a in result.assessments)
    assert any(bearing_question in str(c[-1].content) for c in deps.llm.calls)


TWO_KEYS = ReaderBand(aside_below=0.2, decide_from=0.8, sure=None, gate_floor=0.1)  # the gate still reads


def lukewarm(p_yes: float) -> list[dict[str, Any]]:
    """The LLM answering the gate's question of the claim and of its opposite with P(Yes) ``p_yes``, and reading the
    evidence as supporting the claim."""
    yes = {"top_logprobs": {"Yes": p_yes, "No": 1 - p_yes}, "reply": "Yes" if p_yes >= 0.5 else "No"}
    return [{**rule, **yes} if "Does the evidence report" in rule["when"] else rule
            for rule in direction_rules(ALDH1_WORSE, supports=True)]


@pytest.fixture
def gate_reads_the_llm(monkeypatch: pytest.MonkeyPatch) -> None:
    """A gate that reads only the LLM's P(Yes) (its bearing is that P(Yes)), with its threshold at 0.35, so that the
    test says where the LLM's reading falls."""
    cal = replace(load_calibration(), reader_band=TWO_KEYS, gate_weights=(0.0, 0.0, 1.0), gate_threshold=0.35)
    monkeypatch.setattr("agent.nodes.judge_sources.load_calibration", lambda *_: cal)


@pytest.mark.usefixtures("gate_reads_the_llm")
@pytest.mark.parametrize(("reader", "p_yes", "counted"), [
    pytest.param(SURE_SUPPORT, 0.2, True, id="both-keys"),  # the reader sure it bears, the gate close: it counts
    pytest.param(UNSURE, 0.2, False, id="the-gate-alone-below-its-threshold"),
    pytest.param(SURE_SUPPORT, 0.05, False, id="the-gate-below-the-floor"),  # the reader's word is not enough
])  # fmt: skip
def test_with_two_keys_a_paper_counts_where_the_reader_bears_and_the_gate_reads_at_least_its_floor(
    make_deps: Any, reader: tuple[float, float, float], p_yes: float, counted: bool
) -> None:
    deps = with_reader(make_deps, {"poor prognosis": reader}, lukewarm(p_yes))
    result = CheckResult.from_state(run_claim(ALDH1_WORSE, deps))
    bearing_question = f"Claim: {ALDH1_WORSE}\n\nDoes the evidence report"
    assert any(bearing_question in str(c[-1].content) for c in deps.llm.calls)  # the gate read it in every case
    counts = [a for a in result.assessments if a.doc_id == "103"]
    assert bool(counts) == counted
    if counted:
        (source,) = counts
        assert source.judged_by == "verifier+llm" and source.score > 0  # the LLM's side, which is the reader's
        assert "counts from 10% likely to report a finding in the gate's reading, instead of 35%" in source.explanation
    else:
        (aside,) = [s for s in result.silent if s.doc_id == "103"]
        floor = "10%" if reader == SURE_SUPPORT else "35%"
        assert f"papers count from {floor}" in aside.reason


@pytest.mark.usefixtures("gate_reads_the_llm")
@pytest.mark.parametrize("band", [TWO_KEYS, replace(TWO_KEYS, sure=0.8)], ids=["llm-reads-the-side", "reader-labels"])
def test_with_two_keys_a_paper_the_gate_doubts_counts_only_where_the_reader_and_the_llm_read_one_side(
    make_deps: Any, band: ReaderBand, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader is sure the paper refutes the claim, the LLM reads it as supporting, and the gate's reading (0.2)
    is past the floor but below the threshold: neither side counts; the user is told why and to read it."""
    cal = replace(load_calibration(), reader_band=band, gate_weights=(0.0, 0.0, 1.0), gate_threshold=0.35)
    monkeypatch.setattr("agent.nodes.judge_sources.load_calibration", lambda *_: cal)
    deps = with_reader(make_deps, {"poor prognosis": SURE_REFUTE}, lukewarm(0.2))
    result = CheckResult.from_state(run_claim(ALDH1_WORSE, deps))
    assert not any(a.doc_id == "103" for a in result.assessments)
    (aside,) = [s for s in result.silent if s.doc_id == "103"]
    assert "do not read the same side" in aside.reason and "leaning to refuting the claim" in aside.reason
    assert any(f"Statement A: {ALDH1_WORSE}" in str(c[-1].content) for c in deps.llm.calls)  # the side was asked


@pytest.mark.parametrize("p_yes", [0.2, 0.6], ids=["the-gate-doubts", "the-gate-passes"])
def test_with_two_keys_the_reader_labels_what_it_is_sure_of_once_the_gate_lets_it(
    make_deps: Any, monkeypatch: pytest.MonkeyPatch, p_yes: float
) -> None:
    """Where the gate passes the paper on its own threshold, the reader labels it without the LLM's side; where the
    gate doubts it, the LLM reads the side too, and the paper counts because the two agree."""
    band = replace(TWO_KEYS, sure=0.8)
    cal = replace(load_calibration(), reader_band=band, gate_weights=(0.0, 0.0, 1.0), gate_threshold=0.35)
    monkeypatch.setattr("agent.nodes.judge_sources.load_calibration", lambda *_: cal)
    deps = with_reader(make_deps, {"poor prognosis": SURE_SUPPORT}, lukewarm(p_yes))
    (source,) = [a for a in CheckResult.from_state(run_claim(ALDH1_WORSE, deps)).assessments if a.doc_id == "103"]
    assert source.score > 0
    assert any(f"Claim: {ALDH1_WORSE}\n\nDoes the evidence report" in str(c[-1].content) for c in deps.llm.calls)
    side_asked = any(f"Statement A: {ALDH1_WORSE}" in str(c[-1].content) for c in deps.llm.calls)
    assert (source.judged_by, side_asked) == (("verifier+llm", True) if p_yes < 0.35 else ("reader", False))


def test_the_shipped_band_is_ordered() -> None:
    assert 0.0 <= BAND.aside_below <= BAND.decide_from <= 1.0
    assert BAND.sure is None or 0.5 <= BAND.sure <= 1.0
    assert BAND.gate_floor is None or 0.0 <= BAND.gate_floor <= load_calibration().gate_threshold


def test_alone_a_paper_whose_abstract_is_gone_is_listed_as_not_read(make_deps) -> None:
    """Nothing is lost: a source the reader cannot read (its abstract left the index) is listed, not dropped."""
    from agent.judge.reader import reader_decisions
    from agent.state import SourceAssessment

    a = SourceAssessment(doc_id="gone", label="True", score=1.0, reputation=1.0, explanation="")
    alone = reader_decisions([a], {}, BAND, {"gone": "A paper"}, alone=True)
    assert alone.judged == [] and alone.unsure == []
    (aside,) = alone.aside
    assert aside.unread and "could not read" in aside.reason
    assert reader_decisions([a], {}, BAND, {}, alone=False).unsure == [a]  # with the LLM, the LLM reads it
