"""Is a message typed after a check routed as the user meant it: a new claim checked as typed, a question about the
check answered from it?

    python -m evals.studies.followup_routing [--out evals/results]

One real check with the embedded defaults ("Vitamin D supplementation reduces the risk of fractures."), then each
message of ``evals/followup_routing/messages.jsonl`` (new claims, questions about the verdict, about a sentence,
about a paper, requests for more, chit-chat; each with the routes that serve it) routed after it by the thread
graph's route node (agent.followup.route) and by the route before new claims were recognised (the same rules without
``states_claim``, every other message to the LLM router). The LLM is asked once per message; a message both routes
send to it gets the same answer. Reported: routing accuracy per kind of message, and every new claim's route.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evals.experiments import REPO_ROOT, experiment_header, write_experiment

MESSAGES = REPO_ROOT / "evals" / "followup_routing" / "messages.jsonl"
CLAIM = "Vitamin D supplementation reduces the risk of fractures."


def outcome(turn: Mapping[str, Any], message: str) -> str:
    """The route a turn took, as the messages file names them."""
    if turn["action"] == "check":
        return "check" if turn["query"] == message else "check-rewritten"
    return str(turn["action"])


def before(choice: Mapping[str, Any], message: str) -> dict[str, Any]:
    """The route node's turn from the LLM router's choice (as agent.followup.route builds it)."""
    turn: dict[str, Any] = {"action": "check", "query": message}
    if choice.get("action") == "answer" and str(choice.get("answer", "")).strip():
        return {**turn, "action": "answer"}
    return {**turn, "query": str(choice.get("claim") or "").strip() or message}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results")
    args = p.parse_args(argv)

    from langgraph.runtime import Runtime

    from agent.followup import route as routing
    from agent.followup.intent import states_claim
    from agent.result import CheckResult
    from agent.service import load_deps, run_claim
    from agent.settings.app import get_settings

    deps = load_deps(get_settings().with_values(live={"sources": "local"}))
    held = CheckResult.from_state(run_claim(CLAIM, deps)).model_dump(mode="json")
    runtime = Runtime(context=deps)
    rows = []
    for line in MESSAGES.read_text().splitlines():
        m = json.loads(line)
        text = m["message"]
        now = routing.route({"message": text, "results": [held]}, runtime)
        # the route before sent a new claim to the LLM router too; every other message it routed as now
        asked = states_claim(text)
        then = before(routing.decide(deps, CheckResult.model_validate(held), text), text) if asked else now
        rows.append({
            **m,
            "before": outcome(then, text), "before_query": then.get("query", ""),
            "now": outcome(now, text), "now_query": now.get("query", ""),
        })
    res: dict[str, Any] = experiment_header("evals.studies.followup_routing", argv, "messages", [])
    res["held_claim"] = CLAIM
    res["held_verdict"] = (held.get("verdict") or {}).get("label")
    res["messages"] = len(rows)
    kinds: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        kinds[r["kind"]].append(r)
    res["accuracy"] = {
        name: {
            "messages": len(of),
            "before": round(sum(r["before"] in r["expected"] for r in of) / len(of), 4),
            "now": round(sum(r["now"] in r["expected"] for r in of) / len(of), 4),
        }
        for name, of in [("all", rows), *kinds.items()]
    }
    res["rows"] = rows
    write_experiment(args.out, "followup_routing", res, markdown)
    return 0


def markdown(res: Mapping[str, Any]) -> str:
    lines = [
        "# Messages typed after a check: routed as meant?",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}. Held check: \"{res['held_claim']}\" "
        f"({res['held_verdict']}), embedded defaults. {res['messages']} messages "
        "(`evals/followup_routing/messages.jsonl`, each with the routes that serve it). \"check\" is a new check of "
        "the message as typed; \"check-rewritten\" one of the router's rewording.",
        "",
        "| messages | n | before | now |",
        "|---|---:|---:|---:|",
    ]
    for name, a in res["accuracy"].items():
        lines.append(f"| {name} | {a['messages']} | {a['before']:.2f} | {a['now']:.2f} |")
    lines += ["", "| message | kind | expected | before | now |", "|---|---|---|---|---|"]
    for r in res["rows"]:
        shown = {k: r[k] + (f" ({r[k + '_query']})" if r[k] == "check-rewritten" else "") for k in ("before", "now")}
        lines.append(f"| {r['message']} | {r['kind']} | {', '.join(r['expected'])} | {shown['before']} | "
                     f"{shown['now']} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
