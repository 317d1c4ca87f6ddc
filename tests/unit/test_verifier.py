"""Stance verifier: loads the committed artifact offline; sensible on obvious hand-written pairs."""

from __future__ import annotations

import math

import pytest

from tools.verifier import ARTIFACT_DIR, LABELS, Verifier, VerifierArtifactError, VerifierResult, get_verifier

SUPPORT = (
    "Aspirin reduces fever.",
    "Aspirin: In a randomized trial, aspirin significantly reduced fever compared with placebo.",
)
CONTRADICT = (
    "Aspirin reduces fever.",
    "Aspirin: In a randomized trial, aspirin did not reduce fever compared with placebo; "
    "body temperature was unchanged.",
)
UNRELATED = (
    "Aspirin reduces fever.",
    "Soil microbiology: Nitrogen-fixing bacteria were sampled from twelve wheat fields in Kansas.",
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


KNOWN_WEAKNESS = pytest.mark.xfail(
    strict=True,
    reason="verifier v3 misses negation inside the evidence (dev macro-F1 0.548, contradicts F1 0.28; "
    "evals/results/verifier_dev.md). Strict: when a better model passes, this marker must go.",
)


@KNOWN_WEAKNESS
def test_obvious_pairs(verifier: Verifier) -> None:
    sup, con, unr = verifier.predict([SUPPORT, CONTRADICT, UNRELATED])
    assert sup.label == "supports"
    assert sup.score > 0.5
    assert con.score < sup.score - 0.3
    assert con.p_contradicts > sup.p_contradicts
    assert unr.label == "nei"
    assert unr.p_nei > sup.p_nei


@KNOWN_WEAKNESS
def test_more_obvious_pairs(verifier: Verifier) -> None:
    pairs = [
        (
            "Smoking increases the risk of lung cancer.",
            "Tobacco and lung cancer: In this cohort of 50,000 adults, current smokers had a markedly higher "
            "incidence of lung cancer than never smokers.",
        ),
        (
            "Smoking increases the risk of lung cancer.",
            "Tobacco and lung cancer: In this cohort of 50,000 adults, smoking was not associated with lung "
            "cancer incidence.",
        ),
    ]
    sup, con = verifier.predict(pairs)
    assert sup.label == "supports"
    assert con.score < sup.score


def test_missing_artifact_is_a_clear_error(tmp_path: object) -> None:
    with pytest.raises(VerifierArtifactError, match="artifact missing"):
        Verifier(artifact_dir=tmp_path)  # type: ignore[arg-type]


def test_artifact_is_small() -> None:
    size = sum(p.stat().st_size for p in ARTIFACT_DIR.iterdir() if p.is_file())
    assert size < 25_000_000


def test_head_is_stored_in_full() -> None:
    """A head delta against a random init cannot be rebuilt at load time (it gave a random head per load)."""
    from safetensors import safe_open

    with safe_open(str(ARTIFACT_DIR / "verifier_delta.safetensors"), framework="pt") as f:
        keys = set(f.keys())
    assert {"full.head.weight", "full.head.bias"} <= keys
    assert not any(k.startswith("delta.head.") for k in keys)


def test_loading_is_deterministic(verifier: Verifier) -> None:
    again = Verifier()
    for a, b in zip(verifier.predict([SUPPORT, CONTRADICT]), again.predict([SUPPORT, CONTRADICT]), strict=True):
        assert math.isclose(a.p_supports, b.p_supports, abs_tol=1e-5)
        assert math.isclose(a.p_contradicts, b.p_contradicts, abs_tol=1e-5)
