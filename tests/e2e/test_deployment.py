"""deploy/ as processes on this machine, in headless Chromium: Debian's PostgreSQL (DATABASE_URL), `chroma run` with
the tiny corpus indexed into it once by `claimtrace index --chroma-url` (a shared INDEX_DIR), one LLM server, two
`claimtrace ui` instances on their own ports and DATA_DIRs, and Debian's nginx on a copy of deploy/nginx.conf whose
upstreams are the two instances. Through nginx: a thread started on instance A is listed and continued on B; the
same user in two browsers, one on each instance, checks at once and both are answered; feedback given on A is read
by `claimtrace feedback export` with B's environment; `kill -9` of A in the middle of a check sends the user to B,
where the reopened thread offers the check again and re-runs it. Postgres then holds each message, thread, feedback
and result once, and no admission row is left.

The LLM server is a scripted OpenAI-compatible one on loopback (tests.fake_llm.ScriptedLLMServer; the instances use
LLM_PROVIDER=openai and LLM_BASE_URL, so their checks and LLM turns go through the shared admission queue in
Postgres): the embedded model takes a minute or more a check on this 2-core machine.
tests/integration/test_llm_server.py covers `claimtrace llm-server` on the real model.

Which instance served a browser is read from nginx's access log (the copy logs each request's sign-in cookie and
upstream). Skipped with a reason where nginx or PostgreSQL is not installed (`make test` installs both)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from playwright.sync_api import expect

from tests.conftest import FIXTURES, SURE_BEARS
from tests.e2e.conftest import CLAIM, SCRIPT, SECRETS, USER
from tests.e2e.server import ChatServer
from tests.e2e.test_chat_browser import answer_text, log_in, send
from tests.fake_llm import ScriptedLLMServer, scripted_llm_server
from tests.integration.pg_server import PostgresServer, find_bin
from tests.integration.test_chroma_server import chroma_server
from tests.integration.test_cli import run
from tests.ports import free_port
from tools.models.onnx_models import runtime_settings

REPO = Path(__file__).resolve().parents[2]
TIMEOUT_MS = 120_000
CLAIM_B = "MMR vaccination causes autism in children."
CLAIM_C = "Autism is caused by the MMR vaccine."  # new claims: a claim checked before reuses its search
CLAIM_KILLED = "The MMR vaccine is a cause of autism."
EARLY = "Judged:"  # the verdict and its sources, on screen while the LLM writes the answer
SLOW_S = 600  # the answer's delay while A is killed: far longer than the test waits
MEET_S = 60  # the longest a reading of one check waits for a reading of the other check to be in flight with it
FLAG = re.compile(r"^(Report sentence 1 as unsupported|Report the flag on sentence 1 as wrong)$")


def nginx_bin() -> str | None:
    found = shutil.which("nginx") or "/usr/sbin/nginx"
    return found if os.access(found, os.X_OK) else None


class Nginx:
    """Debian's nginx on deploy/nginx.conf with its upstreams rewritten to `upstreams` (loopback ports), listening on
    a free loopback port, in the foreground with its own prefix, pid, logs and temp folders. Its access log names,
    for each request, the sign-in cookie and the upstream that served it."""

    def __init__(self, exe: str, upstreams: list[int]) -> None:
        self.exe = exe
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="claimtrace-nginx-"))
        self.root.chmod(0o755)  # nginx's workers (nobody under root) write their temp files in it
        conf = (REPO / "deploy" / "nginx.conf").read_text()
        logs = (
            "http {\n"
            "    log_format upstreams '$cookie_access_token $upstream_addr $status \"$request\"';\n"
            f"    access_log {self.root}/access.log upstreams;\n"
            + "".join(f"    {kind}_temp_path {self.root}/{kind};\n" for kind in ("client_body", "proxy"))
        )
        for old, new in [
            ("server chat-a:8000", f"server 127.0.0.1:{upstreams[0]}"),
            ("server chat-b:8000", f"server 127.0.0.1:{upstreams[1]}"),
            ("listen 80;", f"listen 127.0.0.1:{self.port};"),
            ("http {\n", logs),
        ]:
            assert conf.count(old) == 1, f"deploy/nginx.conf no longer has {old!r} once: update this test"
            conf = conf.replace(old, new)
        (self.root / "nginx.conf").write_text(conf)
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Nginx:
        directives = f"daemon off; pid {self.root}/nginx.pid; error_log {self.root}/error.log;"
        self.proc = subprocess.Popen(
            [self.exe, "-p", str(self.root), "-c", str(self.root / "nginx.conf"), "-g", directives],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return self
            except OSError:
                error_log = self.root / "error.log"
                assert self.proc.poll() is None and time.monotonic() < deadline, (
                    f"nginx did not start: {error_log.read_text()[-2000:] if error_log.exists() else ''}"
                )
                time.sleep(0.2)

    def upstreams_of(self, token: str) -> list[str]:
        """The upstream addresses that served requests with this sign-in cookie, in order."""
        log = self.root / "access.log"
        lines = log.read_text().splitlines() if log.exists() else []
        return [addr for line in lines if line.startswith(token + " ") for addr in line.split(" ")[1:2]]

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)  # graceful: workers finish, then exit
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        shutil.rmtree(self.root, ignore_errors=True)


@dataclass
class Deployment:
    database: str
    llm: ScriptedLLMServer
    a: ChatServer
    b: ChatServer
    nginx: Nginx

    def port_of(self, server: ChatServer) -> str:
        return f"127.0.0.1:{server.port}"


def instance_env(data: Path, shared: dict[str, str]) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LLM_", "OPENAI_", "CHROMA_", "CORPUS_", "CHECKPOINT_", "CHAINLIT_", "CLAIMTRACE_UI"))
        and k not in ("DATA_DIR", "DATABASE_URL", "INDEX_DIR")
    }
    return {**env, **shared, "DATA_DIR": str(data)}


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    exe, pg_bin = nginx_bin(), find_bin()
    if exe is None:
        pytest.skip("no nginx found: `make test` installs Debian's nginx")
    if pg_bin is None:
        pytest.skip("no PostgreSQL server binaries (initdb, postgres) found: `make test` installs Debian's postgresql")
    from tools.models.verifier import get_verifier

    get_verifier()  # the committed artifact must load; its error says what is missing
    root = tmp_path_factory.mktemp("deployment")
    postgres = PostgresServer(pg_bin).start()
    started: list[Any] = []
    try:
        with psycopg.connect(postgres.url, autocommit=True) as conn:
            conn.execute("CREATE DATABASE claimtrace")
        database = postgres.url.rsplit("/", 1)[0] + "/claimtrace"
        with chroma_server(root / "chroma") as (_, chroma_url), scripted_llm_server(list(SCRIPT)) as llm:
            shared = {
                "DATABASE_URL": database,
                "CHROMA_URL": chroma_url,
                "INDEX_DIR": str(root / "index"),
                "LLM_PROVIDER": "openai",
                "LLM_BASE_URL": llm.url,
                "LLM_PARALLEL": "2",
                "CLAIMTRACE_UI_CHECKS_AT_ONCE": "2",
                "CLAIMTRACE_UI_USER": USER,
                **SECRETS,
                "OMP_WAIT_POLICY": "PASSIVE",
                "ONNX_CACHE_DIR": str(runtime_settings().cache_dir),  # the models exported once for the session
            }
            built = run(
                ["index", "--chroma-url", chroma_url, "--corpus", str(FIXTURES / "tiny_corpus.jsonl")],
                instance_env(root / "indexer", shared),
            )
            assert built.returncode == 0, built.stderr
            servers = [ChatServer({}, root / f"{name}.log") for name in ("a", "b")]
            nginx = Nginx(exe, [srv.port for srv in servers])
            shared["CLAIMTRACE_UI_ORIGINS"] = nginx.url  # the address users open: the proxy's
            for name, srv in zip(("a", "b"), servers, strict=True):
                srv.env = instance_env(root / name, shared)
            errors: list[BaseException] = []

            def start(srv: ChatServer) -> None:
                try:
                    srv.start()
                except BaseException as e:  # noqa: BLE001 - re-raised in the test's thread below
                    errors.append(e)

            threads = [threading.Thread(target=start, args=(srv,)) for srv in servers]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            started += [*servers, nginx]
            if errors:
                raise errors[0]
            nginx.start()
            yield Deployment(database, llm, servers[0], servers[1], nginx)
    finally:
        for part in reversed(started):
            part.stop()
        postgres.stop()


def pinned(browser: Any, deployment: Deployment, server: ChatServer) -> tuple[Any, Any]:
    """A browser signed in through nginx whose sign-in cookie nginx sends to `server`: each sign-in gets a new
    token (it carries its expiry, to the second), so a second later the hash may pick the other instance."""
    want = deployment.port_of(server)
    for _ in range(12):
        context = browser.new_context(viewport={"width": 1280, "height": 2000})
        page = context.new_page()
        log_in(page, deployment.nginx.url)
        token = next(c["value"] for c in context.cookies() if c["name"] == "access_token")
        deadline = time.monotonic() + 30
        while not (served := deployment.nginx.upstreams_of(token)):
            assert time.monotonic() < deadline, "nginx logged no request with the sign-in cookie"
            time.sleep(0.2)
        if set(served) == {want}:
            return context, page
        context.close()
        time.sleep(1.1)
    raise AssertionError(f"12 sign-ins and nginx never sent one to {want}")


def thread_id(page: Any) -> str:
    page.wait_for_url("**/thread/**", timeout=TIMEOUT_MS)
    return str(page.url.rstrip("/").rsplit("/", 1)[1])


def rows(database: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(database) as conn:
        return conn.execute(sql, args).fetchall()


def test_two_instances_behind_nginx(browser: Any, deployment: Deployment):
    d = deployment
    ctx_a, page_a = pinned(browser, d, d.a)
    ctx_b, page_b = pinned(browser, d, d.b)

    # a thread started on A, with feedback on its answer, is listed on B and continued there
    send(page_a, CLAIM)
    assert "Verdict:" in answer_text(page_a, settled=True)
    first = thread_id(page_a)
    page_a.get_by_role("button", name=FLAG).click()
    page_a.get_by_text("Thanks: recorded that on sentence 1").wait_for(timeout=TIMEOUT_MS)
    page_b.goto(d.nginx.url)
    listed = page_b.locator(f"a[href$='/thread/{first}']").first
    listed.wait_for(timeout=TIMEOUT_MS)
    listed.click()
    page_b.get_by_text("Verdict:").first.wait_for(timeout=TIMEOUT_MS)
    send(page_b, "what are the sources behind sentence 1?")
    page_b.get_by_text("It cites:").first.wait_for(timeout=TIMEOUT_MS)

    # feedback given on A, read by `claimtrace feedback export` with B's environment
    exported = run(["feedback", "export"], d.b.env)
    assert exported.returncode == 0, exported.stderr
    assert first in exported.stdout and len(exported.stdout.splitlines()) == 1, exported.stdout

    # the same user on both instances checks at once: both are answered, and the one LLM server answers them at once
    # (LLM_PARALLEL=2). The server holds each reading of a paper until a reading of the other check is in flight too,
    # so the overlap does not hang on how fast this machine runs the two checks; were the shared admission queue to
    # let one check in at a time, no reading would meet another: each waits its MEET_S and the answers time out
    for page in (page_a, page_b):
        page.goto(d.nginx.url)
        page.locator("#chat-input").wait_for(timeout=TIMEOUT_MS)
    meet = [CLAIM_B[:-1], CLAIM_C[:-1]]
    d.llm.rules = [{**r, "meet": meet, "delay_s": MEET_S} if r == SURE_BEARS else r for r in SCRIPT]
    send(page_a, CLAIM_B)
    send(page_b, CLAIM_C)
    assert "Verdict:" in answer_text(page_b) and "Verdict:" in answer_text(page_a)
    assert any(  # each instance's check was answered by the LLM server while the other's was
        any(CLAIM_B[:-1] in p for p in prompts) and any(CLAIM_C[:-1] in p for p in prompts)
        for prompts in d.llm.together
    ), d.llm.together
    d.llm.rules = list(SCRIPT)
    both = [thread_id(page_a), thread_id(page_b)]

    # kill -9 of A while it writes an answer: the user, sent to B by nginx, reopens the thread and re-runs the check
    d.llm.rules = [{**r, "delay_s": SLOW_S} if r["when"] == "<evidence>" else r for r in SCRIPT]
    page_a.goto(d.nginx.url)
    send(page_a, CLAIM_KILLED)
    page_a.locator(".message-content").filter(has_text=EARLY).last.wait_for(timeout=TIMEOUT_MS)
    killed = thread_id(page_a)
    deadline = time.monotonic() + 60
    while not rows(d.database, 'SELECT 1 FROM steps WHERE "threadId" = %s AND output LIKE %s', killed, f"%{EARLY}%"):
        assert time.monotonic() < deadline, "the early verdict never reached Postgres"
        time.sleep(0.2)
    d.a.kill9()
    d.llm.rules = list(SCRIPT)
    d.llm.release()  # the killed instance's answer request ends; nobody reads it
    page_a.goto(f"{d.nginx.url}/thread/{killed}")
    notice = page_a.locator(".message-content").filter(has_text="was interrupted").last
    notice.wait_for(timeout=TIMEOUT_MS)
    page_a.get_by_role("button", name="Re-run the check").last.click()
    expect(page_a.locator(".message-content").filter(has_text="Verdict:").last).to_contain_text(
        "Sources", timeout=TIMEOUT_MS
    )
    token_a = next(c["value"] for c in ctx_a.cookies() if c["name"] == "access_token")
    assert d.nginx.upstreams_of(token_a)[-1] == d.port_of(d.b)  # B served the user after the kill

    # nothing lost, nothing written twice
    threads = [first, *both, killed]
    assert len(set(threads)) == 4
    assert rows(d.database, "SELECT COUNT(*) FROM users") == [(1,)]
    assert rows(d.database, 'SELECT COUNT(*) FROM threads WHERE id = ANY(%s)', threads) == [(4,)]
    for thread, claims in zip(threads, [[CLAIM], [CLAIM_B], [CLAIM_C], [CLAIM_KILLED]], strict=True):
        sent = rows(d.database, 'SELECT output FROM steps WHERE "threadId" = %s AND type = %s', thread, "user_message")
        assert [o for (o,) in sent if o in claims] == claims, (thread, sent)
    assert rows(d.database, "SELECT COUNT(*) FROM feedback") == [(1,)]
    # A's slots went with it; the re-run's answer comes while it still holds its own slot, which it frees before
    # writing the papers' contexts (ui.chat.app.queued_turn): the empty table is waited for
    deadline = time.monotonic() + 60
    while rows(d.database, "SELECT COUNT(*) FROM claimtrace_admission") != [(0,)] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert rows(d.database, "SELECT COUNT(*) FROM claimtrace_admission") == [(0,)]
    from langgraph.checkpoint.postgres import PostgresSaver

    from agent.followup.graph import build_thread_graph

    with PostgresSaver.from_conn_string(d.database) as saver:
        graph = build_thread_graph(saver)
        for thread, claim in zip(threads, [CLAIM, CLAIM_B, CLAIM_C, CLAIM_KILLED], strict=True):
            state = graph.get_state({"configurable": {"thread_id": thread}})
            assert state.next == () and [r["claim"] for r in state.values["results"]] == [claim], thread
    ctx_a.close()
    ctx_b.close()
