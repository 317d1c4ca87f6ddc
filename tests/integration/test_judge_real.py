"""The two-part judge with the real parts: the trained verifier, the embedded LLM and the shipped calibration, on the
contrast probes and on SciFact dev claims that come with their opposite. Slow: about two minutes on 2 cores.

Skips with a reason when ../shared/data/scifact is absent."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent.judge.scoring import verdict_sign
from evals.training.probes import PROBES, Probe
from tests.conftest import scifact_or_skip, write_scifact_slice
from tests.settings_env import BUILT_MODELS

pytestmark = pytest.mark.slow

# Probes the shipped judge still reads the wrong way (strict: one it gets right must leave this set).
KNOWN_MISSES: dict[str, str] = {
    "did not reduce fever": "'Aspirin reduces fever' against 'Aspirin does not reduce fever' on 'did not reduce "
    "fever': the 1.5B model leans to the claim",
}
# SciFact dev claims, the abstract each is judged on, and SciFact's label of that abstract for it: ALDH1 (51 is the
# reversal of 53) and macrolides (743 is the reversal of 742)
CLAIMS = [(51, "45638119", "CONTRADICT"), (53, "45638119", "SUPPORT"), (743, "32159283", "CONTRADICT"),
          (742, "32159283", "SUPPORT")]
# Claims whose evidence abstract the gate counts while the LLM cannot tell which way it points: its P(claim) is near
# 0.5, well inside No Evidence (0.42-0.58), so the paper is read, counted by the gate, and too weak to take a side
UNDECIDED: dict[int, str] = {}
CLAIM_MISSES = {
    743: "the gate leaves out the null finding 'No effect was found for previous use of macrolides': the LLM reads "
    "it as no finding on the claim or its opposite, and the mpnet verifier's logit, weighed less than MiniLM's, "
    "does not lift it (P(about the claim) 0.30 against the threshold 0.35)",
}


@pytest.fixture(scope="module")
def deps(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from agent.service import load_deps
    from agent.settings.app import Settings
    from tools.index.build import build_index

    root = scifact_or_skip()
    data = tmp_path_factory.mktemp("judge")
    corpus = write_scifact_slice(root, data, {d for _, d, _ in CLAIMS}, first=200)
    build_index(corpus, data / "index", progress=False)
    models = BUILT_MODELS  # the GGUF assembled by `make setup`
    settings = Settings(_env_file=None).with_values(  # type: ignore[call-arg]
        stores={"data_dir": data, "models_dir": models},
        llm={"provider": "embedded", "timeout": 300},
        live={"sources": "local"},
        judge={"direction_seconds": 120},  # what is measured is the reading, not the time it takes
    )
    return load_deps(settings)


DIRECTED = [p for p in PROBES if p.expected != "nei"]
# of the directed probes, at least this many are read on their side with a label that counts: today 6 of 8, each
# with its calibrated P(claim) at least 0.3 from 0.5, far from where another CPU's numerics could move it
DECIDED_AT_LEAST = 6


@pytest.fixture(scope="module")
def probe_readings(deps: Any) -> dict[str, Any]:
    """Each directed probe's label from the shipped judge: the LLM's choice and the verifier's reading, as the judge
    reads a source past the gate."""
    from agent.judge.calibration import load_calibration
    from agent.judge.direction import choose, opposite_of
    from agent.judge.sources import verifier_direction

    out = {}
    for probe in DIRECTED:
        claim, premise = probe.pair()
        opposite, _, _ = opposite_of(None, claim)
        llm = choose(deps.llm, premise.split(" | before:")[0], claim, opposite).p_claim
        verifier = verifier_direction(deps.verifier.predict([(claim, premise)])[0])
        out[probe.name] = (llm, verifier, load_calibration().stance(llm, verifier))
    return out


@pytest.mark.parametrize("probe", DIRECTED, ids=lambda p: p.name)
def test_no_contrast_probe_counts_on_the_wrong_side(probe_readings: dict[str, Any], probe: Probe,
                                                   request: Any) -> None:
    """A probe's paper counts on its own side or is too weak to count ("No Evidence"): the side of a reading at
    chance is not asserted, since a CPU's numerics can move it across 0.5."""
    if probe.name in KNOWN_MISSES:
        request.applymarker(pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[probe.name]))
    llm, verifier, stance = probe_readings[probe.name]
    assert stance.label == "No Evidence" or stance.stance == probe.expected, (llm, verifier, stance)


def test_most_contrast_probes_are_read_on_their_side(probe_readings: dict[str, Any]) -> None:
    expected = {p.name: p.expected for p in DIRECTED}
    decided = [name for name, (_, _, stance) in probe_readings.items()
               if stance.label != "No Evidence" and stance.stance == expected[name]]
    assert len(decided) >= DECIDED_AT_LEAST, probe_readings


@pytest.mark.parametrize(("claim_id", "doc_id", "expected"), CLAIMS, ids=[str(c[0]) for c in CLAIMS])
def test_dev_claims_and_their_reversals_are_read_the_right_way(
    deps: Any, claim_id: int, doc_id: str, expected: str, request: Any
) -> None:
    """Each claim runs through the product's stages; the abstract SciFact's annotators cite is read as supporting
    or contradicting it as they labelled it, and the verdict does not take the other side."""
    from agent import stages

    if claim_id in CLAIM_MISSES:
        request.applymarker(pytest.mark.xfail(strict=True, reason=CLAIM_MISSES[claim_id]))
    claims = {int(c["id"]): c for c in map(json.loads, (scifact_or_skip() / "claims_dev.jsonl").open())}
    claim = claims[claim_id]
    assert claim["evidence"][doc_id][0]["label"] == expected
    state = stages.judgement(stages.retrieval(claim["claim"], deps), deps)
    judged = {a.doc_id: a for a in state.get("assessments", [])}
    why = [s.reason for s in state.get("silent", []) if s.doc_id == doc_id]
    assert doc_id in judged, f"claim {claim_id}: the gate left out its evidence abstract: {why}"
    a = judged[doc_id]
    assert a.judged_by == "verifier+llm" and a.p_claim is not None
    if claim_id in UNDECIDED:  # the known weakness: counted, but no side (a reading that takes one ends this entry)
        assert a.label == "No Evidence", (UNDECIDED[claim_id], a)
    else:
        assert (a.p_claim > 0.5) == (expected == "SUPPORT"), a
    verdict = state["verdict"]
    assert verdict_sign(verdict.leaning or verdict.label) != (-1 if expected == "SUPPORT" else 1), verdict
