"""The shipped judge and its verifier-vote variant on the held-out replay read again by each verifier: the in-context
study's judges (evals/studies/in_context.py), five folds of claims, with each verifier's readings in place of the
replay's own (evals/training/rescore_replay.py). A readout for issue 54; nothing is fitted on dev.

    python evals/results/verifier_mpnet_all_lora/gate/judges_by_verifier.py NAME=RESCORED_REPLAY ...
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))

from agent.settings.app import get_settings  # noqa: E402
from evals.studies.in_context import ANSWERS, DIRECTION, JUDGES, SHOWN, VOTES, with_beside  # noqa: E402
from evals.studies.replay_folds import joined, judges_compared, side_aucs  # noqa: E402

NAMES = ("gate on the shown sentences, of the claim and its opposite, the higher",
         "the same, with the verifier's vote in the direction")  # fmt: skip


def main() -> None:
    out = {}
    for arg in sys.argv[1:]:
        name, path = arg.split("=", 1)
        rows = with_beside(joined(ANSWERS, Path(path)), ANSWERS, SHOWN, DIRECTION)
        docs = [d for r in rows for d in r["docs"]]
        judges = {k: JUDGES[k] for k in NAMES}
        evidence = [d for d in docs if d["gold"] is not None]
        # the verifier's direction on each evidence abstract's first shown sentence, right when it leans to SciFact's
        right = {side: [sum((d["verifier_p_claim"] > 0.5) == (gold == 0) for d in evidence if d["gold"] == gold),
                        sum(d["gold"] == gold for d in evidence)] for side, gold in (("supporting", 0),
                                                                                     ("contradicting", 1))}
        out[name] = {"claims": len(rows), "verifier_auc": side_aucs(docs, lambda d: d["bearing"]),
                     "verifier_direction_right": right,
                     "judges": judges_compared(rows, judges, get_settings().judge.min_confidence, VOTES)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
