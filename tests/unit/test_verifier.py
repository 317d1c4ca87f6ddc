"""Stance verifier: loads the committed artifact offline; sensible on obvious hand-written pairs."""

from __future__ import annotations

import math

import pytest

from evals.training.probes import BY_NAME, PROBES, Probe
from tools.models.verifier import ARTIFACT_DIR, LABELS, Verifier, VerifierArtifactError, VerifierResult, get_verifier
from tools.text.premise import abstract_premise

SUPPORT, CONTRADICT, UNRELATED = (
    BY_NAME[n].pair() for n in ("reduced fever", "did not reduce fever", "unrelated abstract")
)


@pytest.fixture(scope="module")
def verifier() -> Verifier:
    return get_verifier()


def test_singleton(verifier: Verifier) -> None:
    assert get_verifier() is verifier


def test_shape_and_probabilities(verifier: Verifier) -> None:
    pairs = [SUPPORT, CONTRADICT, UNRELATED, ("", "")]
    res = verifier.predict(pairs, batch_size=2)
    assert len(res) == len(pairs)
    for r in res:
        assert isinstance(r, VerifierResult)
        assert r.label in LABELS
        probs = (r.p_supports, r.p_contradicts, r.p_nei)
        assert all(0.0 <= p <= 1.0 for p in probs)
        assert math.isclose(sum(probs), 1.0, abs_tol=1e-4)
        assert -1.0 <= r.score <= 1.0
        assert r.label == LABELS[max(range(3), key=lambda k: probs[k])]
    assert verifier.predict([]) == []


def test_order_is_kept_across_batches(verifier: Verifier) -> None:
    pairs = [UNRELATED, SUPPORT, CONTRADICT]
    one_by_one = [verifier.predict([p])[0] for p in pairs]
    batched = verifier.predict(pairs, batch_size=2)
    for a, b in zip(one_by_one, batched, strict=True):
        assert a.label == b.label
        assert math.isclose(a.p_supports, b.p_supports, abs_tol=1e-3)


# Probes the shipped verifier still gets wrong, by name, as the run time reads them (the fp32 graph; calibrated
# probabilities). evals/results/verifier_trials.md lists every trial's answers. Strict: when a better verifier gets
# one right, its name must leave this set.
KNOWN_MISSES: dict[str, str] = {
    "did not reduce fever": "the negated finding read as supports (p 0.73 vs contradicts 0.25)",
    "background concern is no finding": "a background statement of the concern read as supports (p 0.82)",
}
# The least a probe's label may win by (calibrated probability, fp32): far above the float rounding by which CPUs
# differ (about 1e-5, evals/results/cpu_portability.md), so each label asserted here is the same on any x86-64 CPU.
CLEAR_MARGIN = 0.02


def margin(probs: list[float]) -> float:
    top, second = sorted(probs, reverse=True)[:2]
    return top - second


@pytest.fixture(scope="module")
def probe_probs(verifier: Verifier) -> dict[str, list[float]]:
    return dict(zip(BY_NAME, verifier.predict_proba([p.pair() for p in PROBES]), strict=True))


def test_the_run_time_reads_the_verifier_in_fp32(verifier: Verifier) -> None:
    """The labels below are the fp32 network's: int8 would sway the pairs near a decision boundary by CPU."""
    assert verifier.variant == "onnx-fp32"


def test_probe_labels_are_clear_of_the_boundary(probe_probs: dict[str, list[float]]) -> None:
    """Every probe's label wins by CLEAR_MARGIN, so the probe tests read a decision, not a CPU's rounding. A
    retrained verifier that puts a probe on its boundary fails here: name that probe in the test instead."""
    close = {name: round(margin(p), 4) for name, p in probe_probs.items() if margin(p) < CLEAR_MARGIN}
    assert not close


@pytest.mark.parametrize("probe", PROBES, ids=[p.name for p in PROBES])
def test_contrast_probes(probe_probs: dict[str, list[float]], probe: Probe, request: pytest.FixtureRequest) -> None:
    """A finding and its opposite: the verifier must read the direction, not the topic (evals/training/probes.py)."""
    if probe.name in KNOWN_MISSES:
        request.applymarker(pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[probe.name]))
    probs = probe_probs[probe.name]
    assert LABELS[max(range(3), key=lambda k: probs[k])] == probe.expected


# Probes whose label the int8 graph (VERIFIER_PRECISION=int8) reads otherwise than fp32, with the reason; their
# probabilities may move by more than the bound. Not strict: a CPU's int8 kernels can move a label either way.
INT8_CHANGES = {
    "poor prognosis vs better outcomes": "fp32 reads contradicts 0.64; int8 reads supports 0.52, the drop that "
    "the onnx_quality study measured on dev (macro-F1 0.632 -> 0.599)",
}


def test_int8_keeps_the_fp32_labels_of_the_probes(probe_probs: dict[str, list[float]]) -> None:
    int8 = Verifier(precision="int8")
    assert int8.variant == "onnx-int8"
    changed = set()
    for (name, fp32), q in zip(probe_probs.items(), int8.predict_proba([p.pair() for p in PROBES]), strict=True):
        if max(range(3), key=lambda k: q[k]) != max(range(3), key=lambda k: fp32[k]):
            changed.add(name)
        elif name not in INT8_CHANGES:
            assert max(abs(a - b) for a, b in zip(fp32, q, strict=True)) < 0.25, name
    assert changed <= set(INT8_CHANGES)


def test_a_finding_outscores_its_negation(verifier: Verifier) -> None:
    """The aspirin pair read as the run time reads it: the supporting sentence scores above the one that says the
    opposite, and an unrelated abstract is nei."""
    sup, con, unr = verifier.predict([SUPPORT, CONTRADICT, UNRELATED])
    assert sup.label == "supports" and sup.score > 0.5
    assert con.score < sup.score - 0.3 and con.p_contradicts > sup.p_contradicts
    assert unr.label == "nei" and unr.p_nei > sup.p_nei


def test_more_obvious_pairs(verifier: Verifier) -> None:
    cohort = "We followed a cohort of 50,000 adults for ten years."
    findings = (
        "Current smokers had a markedly higher incidence of lung cancer than never smokers.",
        "Smoking was not associated with lung cancer incidence.",
    )
    claim = "Smoking increases the risk of lung cancer."
    pairs = [(claim, abstract_premise("Tobacco and lung cancer", (cohort, f), [1])) for f in findings]
    sup, con = verifier.predict(pairs)
    assert sup.label == "supports"
    assert con.score < sup.score


def test_probabilities_are_the_logits_over_the_artifacts_temperature(verifier: Verifier) -> None:
    """The probabilities are softmax(logits / T), T read from the artifact's config. The claim verifier's T is 1: the
    judge is fitted on its probabilities as they are (the sentence verifier's T = 2.0 is tested with it)."""
    import json

    config = json.loads((ARTIFACT_DIR / "verifier_config.json").read_text())
    assert verifier.temperature == config["temperature"]
    logits = verifier.logits([SUPPORT])[0]
    scaled = [math.exp(x / verifier.temperature) for x in logits]
    want = [x / sum(scaled) for x in scaled]
    assert verifier.predict_proba([SUPPORT])[0] == pytest.approx(want, abs=1e-5)


def test_missing_artifact_is_a_clear_error(tmp_path: object) -> None:
    with pytest.raises(VerifierArtifactError, match="artifact missing"):
        Verifier(artifact_dir=tmp_path)  # type: ignore[arg-type]


def test_head_is_stored_in_full() -> None:
    """A head delta against a random init cannot be rebuilt at load time (it gave a random head per load)."""
    from safetensors import safe_open

    with safe_open(str(ARTIFACT_DIR / "verifier_delta.safetensors"), framework="numpy") as f:
        keys = set(f.keys())
    assert {"full.head.weight", "full.head.bias"} <= keys
    assert not any(k.startswith("delta.head.") for k in keys)


def test_loading_is_deterministic(verifier: Verifier) -> None:
    again = Verifier()
    for a, b in zip(verifier.predict([SUPPORT, CONTRADICT]), again.predict([SUPPORT, CONTRADICT]), strict=True):
        assert math.isclose(a.p_supports, b.p_supports, abs_tol=1e-5)
        assert math.isclose(a.p_contradicts, b.p_contradicts, abs_tol=1e-5)
