"""The long verifier run (evals/training): LoRA adapters on the top layers train only what they should, and the
artifact that stores their factors rebuilds the trained network; a run stopped part-way and started again, with
its lower layers cached or not, ends where an unstopped run ends."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
import torch
from safetensors.numpy import load_file

from evals.training import frozen
from evals.training import train as train_module
from evals.training.data import Claim, Doc
from evals.training.frozen import train_cached
from evals.training.layers import add_lora, freeze_below
from evals.training.run_state import STOPPED, RunState
from evals.training.train import train
from tools.models.verifier_artifact import DELTA_FILE
from tools.models.verifier_net import build_base_net, load_net, save_artifact

CORPUS = {
    1: Doc("Aspirin and fever", ["Aspirin was given to 200 adults.", "Aspirin significantly reduced fever.",
                                 "Side effects were rare."]),
    2: Doc("Statins and stroke", ["We followed 5,000 patients.", "Statins did not change the risk of stroke.",
                                  "No association was found."]),
    3: Doc("Coffee and sleep", ["Coffee was measured by diary.", "Coffee delayed sleep onset.",
                                "Older adults slept less."]),
}
CLAIMS = [
    Claim(1, "Aspirin reduces fever.", {1: [([1], 0)]}, [1]),
    Claim(2, "Statins reduce the risk of stroke.", {2: [([1, 2], 1)]}, [2]),
    Claim(3, "Coffee delays sleep.", {3: [([1], 0)]}, [3]),
    Claim(4, "Tea cures colds.", {}, [3]),
]


def run_args(state: Path | None) -> argparse.Namespace:
    return argparse.Namespace(
        seed=3, base=None, init_head=None, train_layers=2, lora_rank=4, premise_style="placed", joint=False,
        negation_aug=False, premise_flips=False, claim_flips=False, self_pairs=False, climate_fever=None,
        pubmedqa=None, nli_mix=None, lr=1e-3, head_lr=1e-3, batch_size=2, max_len=48, state=state,
        checkpoint_minutes=60.0, bf16=False,
    )  # fmt: skip


def stops_at_step(n: int) -> type[RunState]:
    """A run state that is sent SIGTERM after the ``n``-th step of the run that uses it."""
    calls = {"n": 0}

    class StopsOnce(RunState):
        def due(self) -> bool:
            calls["n"] += 1
            self.stop_asked = self.stop_asked or calls["n"] == n
            return super().due()

    return StopsOnce


def trained(net: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {n: p.detach().clone() for n, p in net.named_parameters() if p.requires_grad}


def test_lora_trains_only_adapters_of_the_top_layers_and_the_artifact_rebuilds_the_net(tmp_path: Path) -> None:
    torch.manual_seed(0)
    net, tok = build_base_net()
    base_state = {n: p.detach().clone() for n, p in net.named_parameters()}
    freeze_below(net, 2)
    adapters = add_lora(net, 2, rank=4)
    learn = {n for n, p in net.named_parameters() if p.requires_grad}
    assert adapters and learn == {n for n, _ in net.named_parameters() if "lora_" in n} | {"head.weight", "head.bias"}
    assert all(".layer.4." in n or ".layer.5." in n for n in learn if "lora_" in n)
    with torch.no_grad():  # LoRA's B starts at zero: give the adapters something to store
        for p in adapters:
            p.add_(torch.randn_like(p) * 0.05)
    net.eval()
    enc = tok(["Aspirin reduces fever.", "Statins reduce stroke."],
              ["Aspirin significantly reduced fever.", "No association was found."], padding=True, return_tensors="pt")
    with torch.no_grad():
        trained_logits = net(enc["input_ids"], enc["attention_mask"], enc.get("token_type_ids"))
    save_artifact(net, base_state, tmp_path, {"train_layers": 2, "lora_rank": 4})
    stored = set(load_file(str(tmp_path / DELTA_FILE)))
    query = "encoder.encoder.layer.5.attention.self.query.weight"
    assert {f"lora_a.{query}", f"lora_b.{query}"} <= stored  # the factors, not the rebuilt [384, 384] delta
    assert not [k for k in stored if k.startswith("delta4.")]
    assert not [k for k in stored if "layer.3." in k]  # the layers below were not trained
    rebuilt, _, _, _ = load_net(tmp_path)
    with torch.no_grad():
        rebuilt_logits = rebuilt(enc["input_ids"], enc["attention_mask"], enc.get("token_type_ids"))
    assert torch.allclose(trained_logits, rebuilt_logits, atol=2e-3), (trained_logits, rebuilt_logits)
    assert not torch.allclose(trained_logits, torch.zeros_like(trained_logits))


def test_a_stopped_run_started_again_ends_where_an_unstopped_run_ends(tmp_path: Path, monkeypatch) -> None:
    torch.set_num_threads(1)
    whole, _, _, _ = train_cached(CLAIMS, CORPUS, {}, run_args(tmp_path / "whole"), 2, None, [], "t")

    monkeypatch.setattr(frozen, "RunState", stops_at_step(3))
    with pytest.raises(SystemExit) as stopped:
        train_cached(CLAIMS, CORPUS, {}, run_args(tmp_path / "split"), 2, None, [], "t")
    assert stopped.value.code == STOPPED
    progress = json.loads((tmp_path / "split" / "t" / "progress.json").read_text())
    assert (progress["epoch"], progress["step"]) == (1, 3)
    assert list((tmp_path / "split" / "t").glob("cache_epoch1.pt"))  # the epoch's lower-layer states were kept

    log: list[dict[str, object]] = []
    resumed, _, _, _ = train_cached(CLAIMS, CORPUS, {}, run_args(tmp_path / "split"), 2, None, log, "t")
    assert [e["epoch"] for e in log] == [1, 2]
    a, b = trained(whole), trained(resumed)
    assert a.keys() == b.keys() and a
    assert all(torch.allclose(a[n], b[n], atol=1e-6) for n in a), [n for n in a if not torch.allclose(a[n], b[n])]


def test_a_run_stopped_while_caching_stops_at_once_and_ends_where_an_unstopped_run_ends(
    tmp_path: Path, monkeypatch
) -> None:
    torch.set_num_threads(1)
    whole, _, _, _ = train_cached(CLAIMS, CORPUS, {}, run_args(tmp_path / "whole"), 1, None, [], "t")

    class StoppedAtOnce(RunState):
        def listen(self) -> None:  # a SIGTERM before the first batch is cached
            self.stop_asked = True

    monkeypatch.setattr(frozen, "RunState", StoppedAtOnce)
    with pytest.raises(SystemExit) as stopped:
        train_cached(CLAIMS, CORPUS, {}, run_args(tmp_path / "split"), 1, None, [], "t")
    assert stopped.value.code == STOPPED
    assert torch.load(tmp_path / "split" / "t" / "cache_epoch1.pt", weights_only=False) == {}  # nothing was cached
    assert not (tmp_path / "split" / "t" / "checkpoint.pt").exists()  # nor trained
    monkeypatch.undo()
    resumed, _, _, _ = train_cached(CLAIMS, CORPUS, {}, run_args(tmp_path / "split"), 1, None, [], "t")
    a, b = trained(whole), trained(resumed)
    assert a and all(torch.allclose(a[n], b[n], atol=1e-6) for n in a)


def test_a_run_resumed_at_an_epoch_start_reuses_the_states_the_epoch_before_kept(tmp_path: Path) -> None:
    state = RunState(tmp_path, every_s=600)
    kept = {("claim", "premise a"): torch.ones(3, 4), ("claim", "premise b"): torch.zeros(2, 4)}
    state.save_cache(kept, [("claim", "premise a"), ("claim", "premise b")], epoch=1)
    loaded: dict[tuple[str, str], torch.Tensor] = {}
    state.load_cache(loaded, epoch=2)  # no file of epoch 2 yet: epoch 1's states come back
    assert loaded.keys() == kept.keys() and torch.equal(loaded[("claim", "premise a")], torch.ones(3, 4))
    state.save_cache(loaded, [("claim", "premise a")], epoch=2)  # epoch 2 keeps what it reads; epoch 1's file goes
    assert [p.name for p in tmp_path.glob("cache_epoch*.pt")] == ["cache_epoch2.pt"]
    again: dict[tuple[str, str], torch.Tensor] = {}
    state.load_cache(again, epoch=2)
    assert list(again) == [("claim", "premise a")]


@pytest.mark.parametrize("bf16", [False, True])
def test_the_uncached_trainer_learns_adapters_on_every_layer_and_leaves_the_base_as_it_was(
    bf16: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The recipe of a lent GPU (``--device cuda``, no cached layers), here on the CPU: LoRA on all six layers, in
    fp32 and in bf16 autocast (``--bf16``)."""
    autocast, enabled = torch.autocast, []

    def recorded(*a: Any, **kw: Any) -> Any:  # the autocast each training step asks for
        enabled.append(kw.get("enabled", True))
        return autocast(*a, **kw)

    monkeypatch.setattr(torch, "autocast", recorded)
    torch.set_num_threads(1)
    args = argparse.Namespace(**{**vars(run_args(None)), "train_layers": 6, "device": "cpu", "bf16": bf16})
    log: list[dict[str, object]] = []
    net, _, base_state, _ = train(CLAIMS, CORPUS, {}, args, 2, None, log, "t")
    assert enabled and set(enabled) == {bf16}  # every step's forward pass in bf16 exactly when asked
    assert [e["epoch"] for e in log] == [1, 2] and all(float(str(e["train_loss"])) > 0 for e in log)
    learnt = {n for n, p in net.named_parameters() if p.requires_grad}
    assert {n.split(".")[3] for n in learnt if "lora_B" in n} == {str(k) for k in range(6)}
    assert any(p.abs().sum() > 0 for n, p in net.named_parameters() if "lora_B" in n)  # B starts at zero
    params = {n.replace(".base_layer.", "."): p for n, p in net.named_parameters()}  # peft's wrapped maps
    assert all(torch.equal(params[n].detach(), base_state[n]) for n in base_state if not n.startswith("head."))


def test_an_uncached_run_stopped_and_started_again_ends_where_an_unstopped_run_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    torch.set_num_threads(1)

    def all_layers(state: Path) -> argparse.Namespace:  # every layer learns: the trainer of a long all-layer run
        return argparse.Namespace(**{**vars(run_args(state)), "train_layers": 6})

    whole, _, _, _ = train(CLAIMS, CORPUS, {}, all_layers(tmp_path / "whole"), 2, None, [], "t")
    split_args = all_layers(tmp_path / "split")
    monkeypatch.setattr(train_module, "RunState", stops_at_step(3))
    with pytest.raises(SystemExit) as stopped:
        train(CLAIMS, CORPUS, {}, split_args, 2, None, [], "t")
    assert stopped.value.code == STOPPED
    progress = json.loads((tmp_path / "split" / "t" / "progress.json").read_text())
    assert (progress["epoch"], progress["step"]) == (1, 3)
    monkeypatch.undo()

    log: list[dict[str, object]] = []
    resumed, _, _, _ = train(CLAIMS, CORPUS, {}, split_args, 2, None, log, "t")
    assert [e["epoch"] for e in log] == [1, 2]
    a, b = trained(whole), trained(resumed)
    assert a.keys() == b.keys() and any(".layer.0." in n for n in a)
    assert all(torch.allclose(a[n], b[n], atol=1e-6) for n in a), [n for n in a if not torch.allclose(a[n], b[n])]
