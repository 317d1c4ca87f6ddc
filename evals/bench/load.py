"""Twenty different claims at once against one chat server on the embedded defaults, then the same with a `kill -9`
of the server mid-load and a restart.

    python -m evals.bench.load [--chats 20] [--out evals/results]

The server is `claimtrace ui` as a user starts it, on a throwaway DATA_DIR holding a copy of the built SciFact
index (`make setup`), the embedded LLM and the exported CPU models. Each chat is a session of its own, as a browser
tab is (tests/e2e/chat_client.py, tests/e2e/test_crash_safety.py), and sends a different SciFact dev claim; the
chats start a quarter of a second apart.

Round 1 reports, per chat, seconds from sending to: its place in the queue (when it had to wait), its turn (the
check's first step shown), the first provisional verdict, the judged verdict and the answer, and the seconds from
its turn to each verdict; how many checks errored; and how many papers the LLM did not read because its time ran out
(the verdict says so). Round 2 sends as many other claims, kills the server with -9
once a few answers are in, restarts it on the same data and reopens every thread: each must come back with what it
had, and each check the kill interrupted must be offered again. Speed is reported, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from evals.experiments import REPO_ROOT, git_commit

USER, PASSWORD = "claimtrace", "load-bench-password"
TIMEOUT_S = 3600.0
QUEUED = re.compile(r"Queued: number (\d+)")
# "final": the answer message, whole (its verdict line, then "**Answer**" when the check wrote sentences: a check
# with no evidence has none, and no early "**Judged:**" message either, so its final verdict is its judged one)
MARKERS = {"provisional": "**Provisional:**", "judged": "**Judged:**", "answer": "**Answer**", "final": "**Verdict:**"}
# the name of the step a check opens when its turn comes (ui.chat.progress.PARENT; evals may not import ui)
CHECK_STARTS = "How this was checked"
UNREAD = re.compile(r"the LLM did not read (\d+|one|two|three|four|five|six)")
WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def dev_claims(n: int, skip: int = 0) -> list[str]:
    """The first ``n`` SciFact dev claims with evidence after the first ``skip`` of them."""
    path = REPO_ROOT.parent / "shared" / "data" / "scifact" / "claims_dev.jsonl"
    claims = [json.loads(line) for line in path.read_text().splitlines()]
    return [c["claim"] for c in claims if c.get("evidence")][skip : skip + n]


async def one_chat(url: str, cookie: str, claim: str, delay: float, record: dict[str, Any],
                   timeout_s: float = TIMEOUT_S) -> None:
    """One session (a browser tab of the signed-in user): send ``claim`` after ``delay`` s and note when each marker
    first shows, until the answer message or ``timeout_s``."""
    from tests.e2e.chat_client import ThreadSession

    await asyncio.sleep(delay)
    async with ThreadSession(url, cookie) as chat:
        record.update({"claim": claim, "thread_id": chat.thread_id})
        t0 = time.monotonic()
        await chat.sio.emit("client_message", {"message": chat.user_message(claim), "fileReferences": None})
        while "final" not in record and time.monotonic() - t0 < timeout_s:
            if CHECK_STARTS in chat.step_names and "started" not in record:
                record["started"] = round(time.monotonic() - t0, 2)  # its turn: the check's first step is shown
            for out in list(chat.outputs):
                if (m := QUEUED.search(out)) and "queued" not in record:
                    record["queued"], record["place"] = round(time.monotonic() - t0, 2), int(m.group(1))
                for name, marker in MARKERS.items():
                    if marker in out and name not in record:
                        record[name] = round(time.monotonic() - t0, 2)
                        if name == "final" and (u := UNREAD.search(out)):
                            record["unread_papers"] = WORDS.get(u.group(1)) or int(u.group(1))
            if "final" in record:
                record.setdefault("judged", record["final"])
            record["errors"] = list(chat.errors)
            if record["errors"] or not chat.sio.connected:  # an error, or the server is gone (round 2's kill)
                break
            await asyncio.sleep(0.2)


async def round_of(url: str, claims: list[str]) -> list[dict[str, Any]]:
    from tests.e2e.chat_client import login_cookie

    cookie = await login_cookie(url, USER, PASSWORD)
    records: list[dict[str, Any]] = [{} for _ in claims]
    await asyncio.gather(*(one_chat(url, cookie, c, 0.25 * k, records[k]) for k, c in enumerate(claims)),
                         return_exceptions=True)
    return records


async def reopen(url: str, cookie: str, thread_id: str, answered: bool) -> dict[str, Any]:
    """A thread reopened after the restart: what came back, and (for a check the kill interrupted) whether it is
    offered again."""
    from tests.e2e.chat_client import ThreadSession

    async with ThreadSession(url, cookie, thread_id) as chat:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (chat.restored and (answered or chat.actions)):
            await asyncio.sleep(0.2)
        steps = chat.restored.get("steps", [])
        return {
            "thread_id": thread_id,
            "restored": bool(steps),
            "claim_kept": any(s.get("type") == "user_message" for s in steps),
            "answer_kept": any(MARKERS["final"] in str(s.get("output") or "") for s in steps),
            # the notice of a check the stop interrupted, or of a message it left waiting, with its button
            "offered_again": bool(chat.actions) and any(
                "was interrupted" in o or "was waiting for its turn" in o for o in chat.outputs),
        }


async def reopen_all(url: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from tests.e2e.chat_client import login_cookie

    cookie = await login_cookie(url, USER, PASSWORD)
    return [await reopen(url, cookie, r["thread_id"], "final" in r) for r in records if r.get("thread_id")]


def spread(values: list[float]) -> dict[str, float | int]:
    if not values:
        return {"n": 0}
    qs = statistics.quantiles(values, n=20) if len(values) > 1 else [values[0]] * 19
    return {"n": len(values), "p50": round(statistics.median(values), 1), "p95": round(qs[18], 1)}


def summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "chats": len(records),
        "errored": sum(bool(r.get("errors")) for r in records),
        "unanswered": sum("final" not in r for r in records),
        "queued": sum("queued" in r for r in records),
        "seconds_to_place_in_queue": spread([r["queued"] for r in records if "queued" in r]),
        "seconds_waiting_for_its_turn": spread([r["started"] for r in records if "started" in r]),
        "seconds_from_its_turn_to_provisional_verdict": spread(
            [r["provisional"] - r["started"] for r in records if "provisional" in r and "started" in r]),
        "seconds_from_its_turn_to_judged_verdict": spread(
            [r["judged"] - r["started"] for r in records if "judged" in r and "started" in r]),
        "seconds_to_provisional_verdict": spread([r["provisional"] for r in records if "provisional" in r]),
        "seconds_to_judged_verdict": spread([r["judged"] for r in records if "judged" in r]),
        "seconds_to_answer": spread([r["final"] for r in records if "final" in r]),
        "checks_with_unread_papers": sum("unread_papers" in r for r in records),
        "unread_papers": sum(r.get("unread_papers", 0) for r in records),
    }


def main(argv: list[str] | None = None) -> int:
    from agent.settings.app import Settings
    from tests.e2e.server import ChatServer
    from tools.models.onnx_models import runtime_settings

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--chats", type=int, default=20)
    p.add_argument("--kill-after", type=int, default=4, help="answers in before the kill -9 of round 2")
    p.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results")
    args = p.parse_args(argv)
    stores = Settings().stores  # the index `make setup` built
    with tempfile.TemporaryDirectory(prefix="load-") as tmp:
        data = Path(tmp) / "data"
        shutil.copytree(stores.index_dir, data / "index")
        env = {**os.environ, "DATA_DIR": str(data), "MODELS_DIR": str(stores.model_dir),
               "ONNX_CACHE_DIR": str(runtime_settings().cache_dir), "CLAIMTRACE_UI_PASSWORD": PASSWORD,
               "LLM_PROVIDER": "embedded"}
        server = ChatServer(env, Path(tmp) / "server.log").start()
        try:
            first = asyncio.run(round_of(server.url, dev_claims(args.chats)))
            print(json.dumps(summary(first)), flush=True)
            second_claims = dev_claims(args.chats, skip=args.chats)

            async def until_kill() -> list[dict[str, Any]]:
                from tests.e2e.chat_client import login_cookie

                cookie = await login_cookie(server.url, USER, PASSWORD)
                records: list[dict[str, Any]] = [{} for _ in second_claims]
                tasks = [asyncio.create_task(one_chat(server.url, cookie, c, 0.25 * k, records[k]))
                         for k, c in enumerate(second_claims)]
                while sum("final" in r for r in records) < args.kill_after:
                    await asyncio.sleep(0.5)
                await asyncio.sleep(2)  # the answers' messages reach Chainlit's store
                server.kill9()
                await asyncio.gather(*tasks, return_exceptions=True)
                return records

            second = asyncio.run(until_kill())
            server.start()
            reopened = asyncio.run(reopen_all(server.url, second))
        finally:
            server.stop()
    answered = {r["thread_id"] for r in second if "final" in r}
    res: dict[str, Any] = {
        "command": "python -m evals.bench.load " + " ".join(sys.argv[1:] if argv is None else argv),
        "git_commit": git_commit(),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}",
        "round_1": {"summary": summary(first), "chats": first},
        "round_2_kill_9": {
            "answered_before_the_kill": len(answered),
            "threads_reopened": sum(r["restored"] for r in reopened),
            "claims_kept": sum(r["claim_kept"] for r in reopened),
            "answers_kept": sum(r["answer_kept"] for r in reopened if r["thread_id"] in answered),
            "interrupted_offered_again": sum(r["offered_again"] for r in reopened if r["thread_id"] not in answered),
            "interrupted": sum(r["thread_id"] not in answered for r in reopened),
            "threads": reopened,
        },
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "load_twenty_claims.json").write_text(json.dumps(res, indent=2) + "\n")
    print(json.dumps({k: v for k, v in res["round_2_kill_9"].items() if k != "threads"}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
