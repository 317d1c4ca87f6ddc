"""Twenty different claims against two chat instances sharing one LLM server and one PostgreSQL, beside the same
claims against one instance, in one invocation on one machine (issue 55, must-have 6).

The real run (tens of minutes on a 2-core machine; nothing else should run beside it):

    .venv/bin/python -m evals.bench.load_instances --chats 20 --out evals/results

Each phase gets its own fresh parts: `claimtrace llm-server --parallel N` (the embedded GGUF behind llama.cpp's
OpenAI-compatible server, as deploy/compose.yaml runs it), a database of its own in one throwaway PostgreSQL
(tests/integration/pg_server.py: Debian's `initdb` and `postgres`, which `make test` installs), and `claimtrace ui`
instances, each on its own DATA_DIR holding a copy of the built SciFact index (`make setup`), with
DATABASE_URL, LLM_PROVIDER=openai, LLM_BASE_URL, LLM_PARALLEL=N and CLAIMTRACE_UI_CHECKS_AT_ONCE (default 2) as
docs/deploy.md sets them. The phases differ in the number of instances only: one, then two. The one-instance
baseline uses the same LLM server kind and the same Postgres admission queue, so the comparison is of instances,
not of LLM servers; evals/bench/load.py measures one instance on the in-process embedded LLM.

The chats are those of evals/bench/load.py's first round (the first `--chats` SciFact dev claims with evidence, a
quarter of a second apart, each a session of its own); with two instances, chat k goes straight to instance k mod 2
(no proxy: nginx's sticky hashing would split the chats by sign-in cookie, not evenly). The report gives, per phase,
p50/p95 of the seconds waiting for the turn and to the judged verdict, the answered and errored counts, and the
per-instance split; GENERATED_CONTEXT is left at the product default and the report says which it was.

`--llm-url URL` uses a running OpenAI-compatible server for both phases instead of starting
`claimtrace llm-server` (tests/fake_llm.py's ScriptedLLMServer checks the code path in seconds a chat, see
tests/integration/test_load_instances.py). Speed is reported, never asserted."""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evals.bench.load import PASSWORD, TIMEOUT_S, USER, dev_claims, one_chat, summary
from evals.experiments import REPO_ROOT, cpu_name, git_commit, write_experiment

NAME = "load_two_instances"
LLM_START_S = 600.0
# settings each instance takes from this bench, never from the caller's environment
OWN = ("LLM_", "OPENAI_", "CHROMA_", "CORPUS_", "CHECKPOINT_", "CHAINLIT_", "CLAIMTRACE_UI")
OWN_NAMES = ("DATA_DIR", "DATABASE_URL", "INDEX_DIR", "GENERATED_CONTEXT")


def generated_context_default() -> bool:
    """GENERATED_CONTEXT's product default (agent.settings.judge): the bench leaves it unset."""
    from agent.settings.judge import JudgeSettings

    return bool(JudgeSettings.model_fields["supplement"].default)


@contextmanager
def llm_server(parallel: int, log: Path, models_dir: Path) -> Iterator[str]:
    """`claimtrace llm-server --parallel N` on a free loopback port until it answers /health; yields its /v1 URL and
    stops it with SIGTERM afterwards. Run by module name: evals does not import ui."""
    import httpx

    from tests.ports import free_port

    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(OWN)} | {"MODELS_DIR": str(models_dir)}
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "ui.terminal.cli", "llm-server", "--port", str(port), "--parallel", str(parallel)],
            cwd=REPO_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + LLM_START_S
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"claimtrace llm-server exited with {proc.returncode}: {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"claimtrace llm-server did not answer in {LLM_START_S} s")
            time.sleep(1)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


def instance_env(data: Path, shared: Mapping[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(OWN) and k not in OWN_NAMES}
    return {**env, **shared, "DATA_DIR": str(data)}


def start_all(servers: list[Any]) -> None:
    """Start the instances at once, as a deployment does (each waits for the other's Postgres setup)."""
    errors: list[BaseException] = []

    def start(srv: Any) -> None:
        try:
            srv.start()
        except BaseException as e:  # noqa: BLE001 - re-raised below, in the caller's thread
            errors.append(e)

    threads = [threading.Thread(target=start, args=(srv,)) for srv in servers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


async def split_round(urls: list[str], claims: list[str], timeout_s: float) -> list[dict[str, Any]]:
    """Chat k sends claim k to instance k mod len(urls), 0.25 k s after the first; each record names its instance."""
    from tests.e2e.chat_client import login_cookie

    cookies = [await login_cookie(url, USER, PASSWORD) for url in urls]
    records: list[dict[str, Any]] = [{"instance": k % len(urls)} for k in range(len(claims))]
    await asyncio.gather(
        *(one_chat(urls[k % len(urls)], cookies[k % len(urls)], c, 0.25 * k, records[k], timeout_s)
          for k, c in enumerate(claims)),
        return_exceptions=True,
    )
    return records


def phase(instances: int, claims: list[str], *, pg_url: str, llm_url: str, index_dir: Path, root: Path,
          shared: Mapping[str, str], timeout_s: float) -> dict[str, Any]:
    """One phase: a fresh database, `instances` chat servers on it, the claims split between them."""
    import psycopg

    from tests.e2e.server import ChatServer

    db = f"load_{instances}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {db}")
    env = {**shared, "DATABASE_URL": pg_url.rsplit("/", 1)[0] + f"/{db}", "LLM_BASE_URL": llm_url}
    servers = []
    for k in range(instances):
        data = root / f"{instances}-{k}"
        shutil.copytree(index_dir, data / "index")
        servers.append(ChatServer(instance_env(data, env), root / f"{instances}-{k}.log"))
    t0 = time.monotonic()
    try:
        start_all(servers)
        started_s = round(time.monotonic() - t0, 1)
        t0 = time.monotonic()
        records = asyncio.run(split_round([s.url for s in servers], claims, timeout_s))
        wall_s = round(time.monotonic() - t0, 1)
    finally:
        for s in servers:
            s.stop()
    return {
        "instances": instances,
        "seconds_to_start": started_s,
        "seconds_for_all_chats": wall_s,
        "summary": summary(records),
        "per_instance": [summary([r for r in records if r["instance"] == k]) for k in range(instances)],
        "chats": records,
    }


ROWS = [
    ("answered", lambda s: s["chats"] - s["unanswered"]),
    ("errored", lambda s: s["errored"]),
    ("queued", lambda s: s["queued"]),
    ("wait for its turn, p50 s", lambda s: s["seconds_waiting_for_its_turn"].get("p50", "-")),
    ("wait for its turn, p95 s", lambda s: s["seconds_waiting_for_its_turn"].get("p95", "-")),
    ("judged verdict, p50 s", lambda s: s["seconds_to_judged_verdict"].get("p50", "-")),
    ("judged verdict, p95 s", lambda s: s["seconds_to_judged_verdict"].get("p95", "-")),
    ("turn to judged verdict, p50 s", lambda s: s["seconds_from_its_turn_to_judged_verdict"].get("p50", "-")),
    ("turn to judged verdict, p95 s", lambda s: s["seconds_from_its_turn_to_judged_verdict"].get("p95", "-")),
    ("answer, p50 s", lambda s: s["seconds_to_answer"].get("p50", "-")),
    ("answer, p95 s", lambda s: s["seconds_to_answer"].get("p95", "-")),
    ("checks with unread papers", lambda s: s["checks_with_unread_papers"]),
]


def markdown(res: Mapping[str, Any]) -> str:
    one, two = res["one_instance"], res["two_instances"]
    st = res["settings"]
    lines = [
        f"# {res['chats']} different claims: two chat instances beside one, one LLM server",
        "",
        f"`{res['command']}` — {res['date']}, commit {res['git_commit']}, on {res['machine']} "
        f"({res['cpus']} CPUs).",
        "",
        f"LLM: {st['llm_server']}; LLM_PARALLEL={st['LLM_PARALLEL']}, "
        f"CLAIMTRACE_UI_CHECKS_AT_ONCE={st['CLAIMTRACE_UI_CHECKS_AT_ONCE']} (all instances together, admission in "
        f"Postgres); GENERATED_CONTEXT unset, so the product default: {st['GENERATED_CONTEXT']}. Each instance has "
        "its own DATA_DIR with a copy of the SciFact index; each phase a fresh database"
        + (" and LLM server" if st["llm_server_per_phase"] else "") + ". Seconds are from sending the claim; a "
        "check's judged verdict is its early `Judged:` message, or its answer when it had none (no evidence); with "
        "two instances chat k went to instance k mod 2.",
        "",
        "| | one instance | two instances |",
        "|---|---:|---:|",
        *(f"| {name} | {get(one['summary'])} | {get(two['summary'])} |" for name, get in ROWS),
        f"| seconds for all chats | {one['seconds_for_all_chats']} | {two['seconds_for_all_chats']} |",
        f"| seconds to start the instance(s) | {one['seconds_to_start']} | {two['seconds_to_start']} |",
        "",
        "Two instances, each one's share:",
        "",
        "| | instance A | instance B |",
        "|---|---:|---:|",
        *(f"| {name} | " + " | ".join(str(get(s)) for s in two["per_instance"]) + " |" for name, get in ROWS[:7]),
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from agent.settings.app import Settings
    from tests.integration.pg_server import PostgresServer, find_bin
    from tools.models.onnx_models import runtime_settings

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--chats", type=int, default=20)
    p.add_argument("--parallel", type=int, default=2,
                   help="the LLM server's requests at once and LLM_PARALLEL (deploy/compose.yaml's 2)")
    p.add_argument("--checks-at-once", type=int, default=2, help="CLAIMTRACE_UI_CHECKS_AT_ONCE (its default 2)")
    p.add_argument("--llm-url", help="an OpenAI-compatible server to use instead of starting claimtrace llm-server")
    p.add_argument("--timeout", type=float, default=TIMEOUT_S, help="seconds a chat waits for its answer")
    p.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results")
    args = p.parse_args(argv)
    pg_bin = find_bin()
    if pg_bin is None:
        p.error("no PostgreSQL server binaries (initdb, postgres): `make test` installs Debian's postgresql")
    stores = Settings().stores  # the index and models `make setup` built
    claims = dev_claims(args.chats)
    shared = {
        "LLM_PROVIDER": "openai",
        "LLM_PARALLEL": str(args.parallel),
        "CLAIMTRACE_UI_CHECKS_AT_ONCE": str(args.checks_at_once),
        "CLAIMTRACE_UI_PASSWORD": PASSWORD,
        "CHAINLIT_AUTH_SECRET": secrets.token_urlsafe(32),  # one sign-in secret for every instance
        "MODELS_DIR": str(stores.model_dir),
        "ONNX_CACHE_DIR": str(runtime_settings().cache_dir),
    }
    phases: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="load-instances-") as tmp:
        root = Path(tmp)
        postgres = PostgresServer(pg_bin).start()
        try:
            for key, n in (("one_instance", 1), ("two_instances", 2)):
                with (llm_server(args.parallel, root / f"llm-{n}.log", stores.model_dir) if args.llm_url is None
                      else nullcontext(args.llm_url)) as llm_url:
                    phases[key] = phase(n, claims, pg_url=postgres.url, llm_url=llm_url, index_dir=stores.index_dir,
                                        root=root, shared=shared, timeout_s=args.timeout)
                print(key, phases[key]["summary"], flush=True)
        finally:
            postgres.stop()
    res: dict[str, Any] = {
        "command": "python -m evals.bench.load_instances " + " ".join(sys.argv[1:] if argv is None else argv),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "machine": cpu_name(),
        "cpus": os.cpu_count(),
        "chats": args.chats,
        "settings": {
            "llm_server": args.llm_url or f"claimtrace llm-server --parallel {args.parallel} (the embedded GGUF)",
            "llm_server_per_phase": args.llm_url is None,
            "LLM_PARALLEL": args.parallel,
            "CLAIMTRACE_UI_CHECKS_AT_ONCE": args.checks_at_once,
            "GENERATED_CONTEXT": generated_context_default(),
            "chat_timeout_s": args.timeout,
        },
        **phases,
    }
    write_experiment(args.out, NAME, res, markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
