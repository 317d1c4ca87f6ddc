"""The verifier artifact's compact delta: 4-bit groups that rebuild each delta closely, files a quarter the size."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tools.models.verifier_artifact import (
    ARTIFACT_DIR,
    CONFIG_FILE,
    DELTA_FILE,
    GROUP,
    SENTENCE_ARTIFACT_DIR,
    VerifierArtifactError,
    pack_delta,
    read_delta,
    unpack_delta,
    write_delta,
)


def test_a_delta_comes_back_within_half_a_step_of_its_group() -> None:
    rng = np.random.default_rng(0)
    delta = rng.normal(0, 0.002, size=(8, 4 * GROUP)).astype(np.float32)
    delta[3, :GROUP] = 0.0  # an all-zero group keeps its zeros
    packed, scale = pack_delta(delta)
    assert packed.dtype == np.uint8 and packed.shape == (8, 2 * GROUP)
    assert scale.dtype == np.float16 and scale.shape == (8, 4)
    back = unpack_delta(packed, scale)
    step = np.repeat(scale.astype(np.float32), GROUP, axis=1)
    assert np.all(np.abs(back - delta) <= step / 2 + 1e-7)
    assert np.all(back[3, :GROUP] == 0.0)
    # the largest value of each group is kept to fp16 precision
    i = np.abs(delta[0, :GROUP]).argmax()
    assert back[0, i] == pytest.approx(delta[0, i], rel=2e-3)


def test_write_and_read_keep_every_kind_of_tensor(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    tensors = {
        "delta.layer.weight": rng.normal(0, 0.01, size=(4, GROUP)).astype(np.float32),
        "delta.layer.bias": rng.normal(0, 0.01, size=(4,)).astype(np.float32),
        "delta.odd.weight": rng.normal(0, 0.01, size=(4, 10)).astype(np.float32),  # no whole group: fp16
        "full.head.weight": rng.normal(0, 0.1, size=(3, 8)).astype(np.float32),
    }
    write_delta(tmp_path / DELTA_FILE, tensors)
    back = read_delta(tmp_path / DELTA_FILE)
    assert set(back) == set(tensors)
    for key, t in tensors.items():
        assert back[key].dtype == np.float32 and back[key].shape == t.shape
        # 4-bit groups: within half a step (largest magnitude / 14); fp16 elsewhere
        tolerance = np.abs(t).max() / 14 + 1e-6 if key == "delta.layer.weight" else 1e-4
        assert np.abs(back[key] - t).max() <= tolerance


def test_int8_lora_factors_rebuild_the_delta_within_their_row_steps(tmp_path: Path) -> None:
    """The reader's LoRA factors stored as int8 with a scale per row: the rebuilt delta B @ A stays within what a
    half step of each factor's rows can move it, and the file holds int8 factors (evals.training.pack_lora8)."""
    from safetensors.numpy import load_file

    from evals.training.pack_lora8 import repack

    rng = np.random.default_rng(2)
    a = rng.normal(0, 0.05, size=(4, 32)).astype(np.float32)
    b = rng.normal(0, 0.01, size=(24, 4)).astype(np.float32)
    (tmp_path / "src").mkdir()
    write_delta(tmp_path / "src" / DELTA_FILE, {"lora_a.m.weight": a, "lora_b.m.weight": b})
    (tmp_path / "src" / CONFIG_FILE).write_text('{"delta_dtype": "fp16 LoRA factors"}')
    repack(tmp_path / "src", tmp_path)
    raw = load_file(str(tmp_path / DELTA_FILE))
    assert raw["lora_a.m.weight"].dtype == np.int8 and raw["lora_b_scale.m.weight"].shape == (24, 1)
    back = read_delta(tmp_path / DELTA_FILE)["delta.m.weight"]
    step_a, step_b = np.abs(a).max(axis=1) / 127, np.abs(b).max(axis=1) / 127
    bound = (np.abs(b) @ np.broadcast_to(step_a[:, None], a.shape) + step_b[:, None] * np.abs(a).sum(0)) / 2
    assert np.all(np.abs(back - b @ a) <= bound + 1e-6)
    assert not np.allclose(back, 0.0)


def test_an_unknown_tensor_kind_is_refused(tmp_path: Path) -> None:
    from safetensors.numpy import save_file

    save_file({"lora.layer.weight": np.zeros((2, 2), dtype=np.float16)}, str(tmp_path / DELTA_FILE))
    with pytest.raises(VerifierArtifactError, match="unexpected tensor"):
        read_delta(tmp_path / DELTA_FILE)


@pytest.mark.parametrize(("artifact", "want"), [
    (ARTIFACT_DIR, {"lora_a", "lora_b", "full"}),  # mpnet: LoRA factors of all 12 layers' matrices, the head
    (SENTENCE_ARTIFACT_DIR, {"delta4", "delta4_scale", "delta", "full"}),  # MiniLM: 4-bit deltas
], ids=["claim", "sentence"])  # fmt: skip
def test_the_shipped_deltas_are_compact(artifact: Path, want: set[str]) -> None:
    from safetensors import safe_open

    with safe_open(str(artifact / DELTA_FILE), framework="numpy") as f:
        kinds = {k.split(".", 1)[0] for k in f.keys()}  # noqa: SIM118 (safe_open is not a mapping)
    assert kinds == want
    assert (artifact / DELTA_FILE).stat().st_size < 6_000_000
