"""From `git clone` to the chat and to a first answer, as a newcomer lives it: for each revision, a fresh clone with
../shared beside it, a throwaway virtual environment (`make run` makes it) and a throwaway DATA_DIR, then `make run`
on the embedded defaults; the minutes until the chat answers on its port, and until the first claim typed into it
gets its judged answer.

    python -m evals.bench.newcomer --rev BEFORE --rev AFTER [--out evals/results]

Revisions run one after the other, on the same machine. Packages come from this machine's package indexes (the pip
cache and local wheels warm, as every run here has them): the figure is a floor for a machine that downloads them.
The chat is driven over its socket as the browser drives it (tests/e2e/chat_client.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from evals.experiments import REPO_ROOT, git_commit

CLAIM = "Vitamin D supplementation prevents hip fractures in older adults."
USER, PASSWORD = "claimtrace", "newcomer-bench-password"
PORT = 8000  # what `make run` serves on
ANSWERED = "**Verdict:**"  # the judged answer (the provisional one says "Provisional:")


def chat_open(proc: subprocess.Popen[bytes], deadline: float) -> bool:
    """Waits until the chat's port answers (True), or the process ends or the deadline passes (False)."""
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(f"http://127.0.0.1:{PORT}/", timeout=2).status_code < 500:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(1)
    return False


async def first_answer(timeout: float) -> str:
    from tests.e2e.chat_client import ChatSession, login_cookie

    url = f"http://127.0.0.1:{PORT}"
    cookie = await login_cookie(url, USER, PASSWORD)
    async with ChatSession(url, cookie) as chat:
        return await chat.send(CLAIM, ANSWERED, timeout)


def measure(rev: str, root: Path, timeout: float) -> dict[str, Any]:
    work = root / rev[:12]
    subprocess.run(["git", "clone", "-q", str(REPO_ROOT), str(work / "main")], check=True)
    subprocess.run(["git", "-C", str(work / "main"), "checkout", "-q", rev], check=True)
    (work / "shared").symlink_to(REPO_ROOT.parent / "shared")
    env = {**os.environ, "DATA_DIR": str(work / "data"), "CLAIMTRACE_UI_PASSWORD": PASSWORD}
    env.pop("VIRTUAL_ENV", None)
    log = (work / "make_run.log").open("wb")
    t0 = time.monotonic()
    proc = subprocess.Popen(["make", "run"], cwd=work / "main", env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    out: dict[str, Any] = {"rev": rev, "log": str(work / "make_run.log")}
    try:
        if not chat_open(proc, t0 + timeout):
            out["error"] = f"the chat did not open (make run exited {proc.poll()})"
            return out
        out["chat_open_minutes"] = round((time.monotonic() - t0) / 60, 2)
        reply = asyncio.run(first_answer(timeout))
        out["first_answer_minutes"] = round((time.monotonic() - t0) / 60, 2)
        out["first_answer_notes_keyword_only"] = "this search used keywords" in reply  # the note, escaped
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()
    return out


def markdown(res: dict[str, Any]) -> str:
    lines = [
        "# From git clone to the chat and to a first answer",
        "",
        f"`{res['command']}` at commit {res['git_commit']}; {res['machine']}. Each revision: a fresh clone, a "
        "throwaway venv and DATA_DIR, `make run` (packages from this machine's indexes, warm), then the claim "
        f"\"{res['claim']}\" typed into the chat.",
        "",
        "| revision | chat open (min) | first judged answer (min) | first answer searched by keyword only |",
        "|---|---:|---:|---|",
    ]
    for r in res["runs"]:
        if "error" in r:
            lines.append(f"| {r['rev']} | {r['error']} | | |")
        else:
            keyword = "yes" if r["first_answer_notes_keyword_only"] else "no"
            lines.append(f"| {r['rev']} | {r['chat_open_minutes']} | {r['first_answer_minutes']} | {keyword} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rev", action="append", required=True, help="a revision to measure (repeat; in order)")
    p.add_argument("--timeout", type=float, default=1800.0, help="seconds each step may take")
    p.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results")
    args = p.parse_args(argv)
    runs = []
    with tempfile.TemporaryDirectory(prefix="newcomer-") as tmp:
        for rev in args.rev:
            runs.append(measure(rev, Path(tmp), args.timeout))
            print(json.dumps(runs[-1]), flush=True)
    res = {
        "command": "python -m evals.bench.newcomer " + " ".join(sys.argv[1:] if argv is None else argv),
        "git_commit": git_commit(),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()} (the Makefile's choice in each clone)",
        "claim": CLAIM,
        "runs": runs,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "newcomer.json").write_text(json.dumps(res, indent=2) + "\n")
    (args.out / "newcomer.md").write_text(markdown(res))
    return 0 if all("error" not in r for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
