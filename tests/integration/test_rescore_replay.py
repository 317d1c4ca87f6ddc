"""The held-out replay read again by a verifier (evals/training/rescore_replay.py): read by the shipped verifier, the
first claims' rows keep the LLM's answers and the verifier readings the replay recorded (all sentences are read now,
the retrieval's candidates then, so an abstract's strongest reading can only rise, and rarely does)."""

from __future__ import annotations

from evals.training.bearing_replay import read_replay
from evals.training.data import load_data
from evals.training.rescore_replay import rescore_row
from tests.conftest import SCIFACT
from tools.models.verifier import ARTIFACT_DIR, Verifier


def test_the_shipped_verifier_gives_back_what_the_replay_recorded() -> None:
    corpus, _, _ = load_data(SCIFACT)
    verifier = Verifier(ARTIFACT_DIR)
    rows = read_replay()[:4]
    pairs = [(d, e) for row in rows for d, e in zip(row["docs"], rescore_row(row, verifier, corpus)["docs"],
                                                     strict=True)]  # fmt: skip
    assert len(pairs) >= 10
    llm = ("llm_p_bears", "llm_p_claim", "llm_orders", "gold", "sentences")
    assert all(d[k] == e[k] for d, e in pairs for k in llm)
    assert all(e["bearing"] >= d["bearing"] - 1e-3 for d, e in pairs)
    same = [d for d, e in pairs
            if abs(e["bearing"] - d["bearing"]) < 1e-3 and e["verifier_label"] == d["verifier_label"]]  # fmt: skip
    assert len(same) >= 0.8 * len(pairs), (len(same), len(pairs))
