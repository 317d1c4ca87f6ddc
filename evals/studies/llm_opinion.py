"""Does the embedded LLM, as a second opinion on not-enough-info, make the verifier better?

The LLM's opinion is the probability of "Yes" as the first token of its reply to "does this evidence report a
finding that supports or refutes the claim?" (prompts/bearing*.md), read from the reply's top log-probabilities,
beside the verifier.

    python -m evals.studies.llm_opinion [--artifact DIR] [--limit N] [--out DIR]

Each held-out and dev pair of the verifier trials (evals/training/data.py, the premise the run time reads) is asked
once; answers are kept in ``<out>/llm_opinion_cache.jsonl`` so an interrupted run resumes. Reported: the area under
the ROC curve for "bears on the claim" (supports or contradicts vs nei) of the LLM, of the verifier (1 - p_nei) and
of their combination, and the 3-way macro-F1 of the verifier alone and combined. The combination shifts the
verifier's nei logit by w * (log P(No) - log P(Yes)); w is chosen on the held-out slice and dev is read once.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import prompts
from agent.judge.direction import yes_share
from evals.experiments import REPO_ROOT, experiment_header, write_experiment
from evals.scifact.data import RESULTS_DIR
from evals.training.data import NEI, build_eval_pairs, load_data, split_heldout
from evals.training.label_metrics import metrics

DATA_DIR = REPO_ROOT.parent / "shared" / "data" / "scifact"
WEIGHTS = [round(0.1 * k, 1) for k in range(31)]


def p_yes(top_logprobs: Sequence[Mapping[str, Any]]) -> float:
    """P(Yes) / (P(Yes) + P(No)) over the first token's top alternatives, as the product reads it
    (agent.judge.direction.yes_share: any case, with or without a leading space); 0.5 when neither word is among
    them."""
    probs: dict[str, float] = defaultdict(float)
    for t in top_logprobs:
        probs[t["token"].strip()] += math.exp(t["logprob"])
    return yes_share(probs, "")


class Asker:
    """One first-token question per pair to an OpenAI-compatible server, answers cached on disk by prompt."""

    def __init__(self, client: Any, model: str, cache: Path) -> None:
        self.client, self.model, self.cache_path = client, model, cache
        self.cache: dict[str, dict[str, Any]] = {}
        if cache.is_file():
            for line in cache.read_text().splitlines():
                row = json.loads(line)
                self.cache[row["key"]] = row
        self.seconds, self.prompt_tokens, self.asked = 0.0, 0, 0

    def __call__(self, claim: str, premise: str) -> float:
        user = prompts.render("bearing", claim=claim, evidence=premise)
        key = hashlib.sha256(user.encode()).hexdigest()
        if key not in self.cache:
            t0 = time.perf_counter()
            reply = self.client.chat.completions.create(
                model=self.model,
                messages=[
                    {"role": "system", "content": prompts.load("bearing_system")},
                    {"role": "user", "content": user},
                ],
                max_tokens=1,
                temperature=0,
                logprobs=True,
                top_logprobs=10,
            )
            self.seconds += time.perf_counter() - t0
            self.prompt_tokens += reply.usage.prompt_tokens if reply.usage else 0
            self.asked += 1
            content = reply.choices[0].logprobs.content if reply.choices[0].logprobs else None
            top = [{"token": t.token, "logprob": t.logprob} for t in (content[0].top_logprobs if content else [])]
            row = {"key": key, "p_yes": p_yes(top), "top": top}
            self.cache[key] = row
            with self.cache_path.open("a") as f:
                f.write(json.dumps(row) + "\n")
        return float(self.cache[key]["p_yes"])


def auc(scores: Sequence[float] | np.ndarray, positive: Sequence[bool]) -> float:
    """Area under the ROC curve (the probability that a positive outranks a negative; ties count half)."""
    s, y = np.asarray(scores, dtype=float), np.asarray(positive, dtype=bool)
    pos, neg = s[y], s[~y]
    if not len(pos) or not len(neg):
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(greater / (len(pos) * len(neg)))


def combine(logits: np.ndarray, yes: np.ndarray, w: float) -> np.ndarray:
    """The verifier's logits with the nei logit moved by w * (log P(No) - log P(Yes))."""
    y = np.clip(yes, 1e-4, 1 - 1e-4)
    out = logits.copy()
    out[:, NEI] += w * (np.log(1 - y) - np.log(y))
    return out


def side(logits: np.ndarray, yes: np.ndarray, labels: Sequence[int], w: float) -> dict[str, Any]:
    """One set measured: AUCs of bearing and the 3-way metrics at weight w."""
    bears = [lab != NEI for lab in labels]
    probs = np.exp(logits - logits.max(1, keepdims=True))
    probs /= probs.sum(1, keepdims=True)
    combined = combine(logits, yes, w)
    cprobs = np.exp(combined - combined.max(1, keepdims=True))
    cprobs /= cprobs.sum(1, keepdims=True)
    return {
        "n": len(labels),
        "auc_bearing_llm": round(auc(yes, bears), 4),
        "auc_bearing_verifier": round(auc(1 - probs[:, NEI], bears), 4),
        "auc_bearing_combined": round(auc(1 - cprobs[:, NEI], bears), 4),
        "verifier": metrics(labels, [int(k) for k in logits.argmax(1)]),
        "combined": metrics(labels, [int(k) for k in combined.argmax(1)]),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifact", type=Path, default=None, help="verifier artifact (default: the committed one)")
    p.add_argument("--data-dir", type=Path, default=DATA_DIR)
    p.add_argument("--limit", type=int, default=0, help="first N pairs of each set (0: all)")
    p.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = p.parse_args(argv)

    import openai

    from agent.llm.client import EmbeddedServer
    from agent.settings.app import Settings
    from tools.models.verifier import Verifier

    corpus, train_claims, dev_claims = load_data(args.data_dir)
    _, held = split_heldout(train_claims, 0.15, 13)
    sets = {"heldout": build_eval_pairs(held, corpus)[:2], "dev": build_eval_pairs(dev_claims, corpus)[:2]}
    if args.limit:
        sets = {k: (ps[: args.limit], ls[: args.limit]) for k, (ps, ls) in sets.items()}
    verifier = Verifier(args.artifact) if args.artifact else Verifier()
    server = EmbeddedServer.get(Settings())
    server.wait_ready()
    args.out.mkdir(parents=True, exist_ok=True)
    client = openai.OpenAI(base_url=server.base_url, api_key="embedded", timeout=120)
    ask = Asker(client, "qwen2.5-coder-1.5b-instruct", args.out / "llm_opinion_cache.jsonl")
    logits, yes = {}, {}
    for name, (pairs, _) in sets.items():
        logits[name] = np.asarray(verifier.logits(pairs))
        answers = []
        for k, (claim, premise) in enumerate(pairs):
            answers.append(ask(claim, premise))
            if (k + 1) % 50 == 0:
                print(f"{name}: {k + 1}/{len(pairs)} asked, {ask.seconds:.0f} s in the LLM", flush=True)
        yes[name] = np.asarray(answers)
    held_labels = sets["heldout"][1]
    w = max(
        WEIGHTS,
        key=lambda x: metrics(held_labels, [int(k) for k in combine(logits["heldout"], yes["heldout"], x).argmax(1)])[
            "macro_f1"
        ],
    )
    res = {
        **experiment_header("evals.studies.llm_opinion", argv, "heldout + dev", []),
        "verifier": str(args.artifact or "tools/models/verifier"),
        "weight": w,
        "sets": {name: side(logits[name], yes[name], sets[name][1], w) for name in sets},
        "llm": {
            "asked": ask.asked,
            "seconds": round(ask.seconds, 1),
            "seconds_per_pair": round(ask.seconds / ask.asked, 2) if ask.asked else None,
            "prompt_tokens_per_s": round(ask.prompt_tokens / ask.seconds, 1) if ask.seconds else None,
        },
    }
    write_experiment(args.out, "llm_opinion", res, markdown)
    return 0


def markdown(res: Mapping[str, Any]) -> str:
    lines = [
        "# The embedded LLM as a second opinion on not-enough-info",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}. Verifier: `{res['verifier']}`.",
        "",
        "Pairs: the verifier trials' held-out and dev pairs (each gold rationale, up to 3 sentences of the same "
        "abstracts in no rationale). LLM: P(Yes) of the first token (prompts/bearing.md). Combined: the verifier's "
        f"nei logit moved by w * (log P(No) - log P(Yes)), w = {res['weight']} chosen by held-out macro-F1.",
        "",
        "| set | pairs | AUC bearing: LLM | verifier | combined | macro-F1 verifier | combined | nei F1 verifier "
        "| combined |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, m in res["sets"].items():
        v, c = m["verifier"], m["combined"]
        lines.append(
            f"| {name} | {m['n']} | {m['auc_bearing_llm']:.3f} | {m['auc_bearing_verifier']:.3f} | "
            f"{m['auc_bearing_combined']:.3f} | {v['macro_f1']:.3f} | {c['macro_f1']:.3f} | "
            f"{v['per_class']['nei']['f1']:.3f} | {c['per_class']['nei']['f1']:.3f} |"
        )
    llm = res["llm"]
    lines += [
        "",
        f"LLM cost: {llm['asked']} questions asked in this run, {llm['seconds_per_pair']} s each "
        f"({llm['prompt_tokens_per_s']} prompt tokens/s).",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
