"""A training run that survives being stopped (``--state DIR``): what it has learnt so far, where it is, and (for a
run over cached lower layers) the cached states of the epoch it is in, kept in one folder.

The run saves a checkpoint every ``--checkpoint-minutes``, at the end of each epoch, and when it is sent SIGTERM or
SIGINT (it finishes the step or the cached batch it is in, saves and exits with ``STOPPED``). Started again with
the same arguments and the same folder, it loads the checkpoint and goes on from the next step: each epoch's
examples, premise variants and batch order come from random generators seeded by the epoch alone, so the resumed
epoch sees the same batches in the same order and skips the ones it has done. Only the trainable parameters
(adapters, head) are kept; the frozen base is rebuilt from its files."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import torch

STOPPED = 3  # the exit status of a run stopped by a signal after saving (start it again to go on)
CHECKPOINT = "checkpoint.pt"
PROGRESS = "progress.json"


class RunState:
    """The folder of one resumable run: checkpoint, a readable progress file and the current epoch's cache."""

    def __init__(self, folder: Path, every_s: float) -> None:
        self.folder = folder
        self.every_s = every_s
        self.last_save = time.monotonic()
        self.stop_asked = False
        folder.mkdir(parents=True, exist_ok=True)

    @classmethod
    def resume(cls, args: Any, tag: str, net: torch.nn.Module, opt: Any, sched: Any, selection: Any,
               log: list[dict[str, Any]]) -> tuple[RunState | None, int, int, float]:
        """The run's state folder when ``args.state`` names one, its checkpoint loaded and SIGTERM heard, with the
        (epoch, step, running loss) to go on from; (None, 1, 0, 0.0) for a run without one."""
        if not getattr(args, "state", None):
            return None, 1, 0, 0.0
        state = cls(args.state / tag, args.checkpoint_minutes * 60)
        epoch, step, run_loss = state.restore(net, opt, sched, selection, log)
        state.listen()
        if epoch > 1 or step:
            print(f"[{tag}] resumed at epoch {epoch}, step {step}", flush=True)
        return state, epoch, step, run_loss

    def listen(self) -> None:
        """SIGTERM and SIGINT ask the run to save and stop after its current step."""

        def ask(*_: object) -> None:
            self.stop_asked = True

        signal.signal(signal.SIGTERM, ask)
        signal.signal(signal.SIGINT, ask)

    def due(self) -> bool:
        return self.stop_asked or time.monotonic() - self.last_save >= self.every_s

    def save(self, net: torch.nn.Module, opt: Any, sched: Any, selection: Any, log: list[dict[str, Any]],
             epoch: int, step: int, run_loss: float) -> None:
        """The run after ``step`` steps of ``epoch`` (step 0 of the next epoch once an epoch is done)."""
        state = {
            "trainable": {n: p.detach().clone() for n, p in net.named_parameters() if p.requires_grad},
            "opt": opt.state_dict(),
            "sched": sched.state_dict(),
            "selection": (selection.best_f1, selection.best_epoch, selection.best_state),
            "log": log,
            "epoch": epoch,
            "step": step,
            "run_loss": run_loss,
            "torch_rng": torch.get_rng_state(),
        }
        tmp = self.folder / (CHECKPOINT + ".tmp")
        torch.save(state, tmp)
        tmp.replace(self.folder / CHECKPOINT)  # a run killed while saving keeps the checkpoint before
        progress = {"epoch": epoch, "step": step, "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S"), "log": log}
        (self.folder / PROGRESS).write_text(json.dumps(progress, indent=1))
        self.last_save = time.monotonic()

    def after_step(self, net: torch.nn.Module, opt: Any, sched: Any, selection: Any, log: list[dict[str, Any]],
                   epoch: int, step: int, run_loss: float, tag: str) -> None:
        """Called after each training step: saves the run when a checkpoint is due, and exits with ``STOPPED`` once
        saved if a stop was asked."""
        if not self.due():
            return
        self.save(net, opt, sched, selection, log, epoch, step, run_loss)
        if self.stop_asked:
            print(f"[{tag}] stopped at epoch {epoch}, step {step}; saved in {self.folder}", flush=True)
            raise SystemExit(STOPPED)

    def restore(self, net: torch.nn.Module, opt: Any, sched: Any, selection: Any, log: list[dict[str, Any]]
                ) -> tuple[int, int, float]:
        """Loads the checkpoint into the fresh run, if there is one; returns (epoch, step, running loss) to go on
        from, (1, 0, 0.0) for a new run."""
        path = self.folder / CHECKPOINT
        if not path.exists():
            return 1, 0, 0.0
        state = torch.load(path, weights_only=False)
        params = dict(net.named_parameters())
        missing = set(state["trainable"]) - {n for n, p in params.items() if p.requires_grad}
        if missing:
            raise ValueError(f"{path} holds parameters this run does not train ({sorted(missing)[:3]} …): "
                             "start it with the arguments it was started with, or with another --state folder")
        with torch.no_grad():
            for n, t in state["trainable"].items():
                params[n].copy_(t)
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        selection.best_f1, selection.best_epoch, selection.best_state = state["selection"]
        log[:] = state["log"]
        torch.set_rng_state(state["torch_rng"])
        return int(state["epoch"]), int(state["step"]), float(state["run_loss"])

    def cache_file(self, epoch: int) -> Path:
        return self.folder / f"cache_epoch{epoch}.pt"

    def load_cache(self, states: dict[tuple[str, str], torch.Tensor], epoch: int) -> None:
        """The lower-layer states kept in the folder: this epoch's, cached before the run stopped, or else the
        epoch before's, which holds the pairs every epoch repeats (rationales, augmentations)."""
        for kept in (self.cache_file(epoch), self.cache_file(epoch - 1)):
            if kept.exists():
                states.update(torch.load(kept, weights_only=False))
                return

    def save_cache(self, states: dict[tuple[str, str], torch.Tensor], pairs: list[tuple[str, str]], epoch: int
                   ) -> None:
        """This epoch's lower-layer states (those of ``pairs`` cached so far); the earlier epochs' files go."""
        tmp = self.cache_file(epoch).with_suffix(".tmp")
        torch.save({p: states[p] for p in set(pairs) if p in states}, tmp)
        tmp.replace(self.cache_file(epoch))
        for old in self.folder.glob("cache_epoch*.pt"):
            if old != self.cache_file(epoch):
                old.unlink()
