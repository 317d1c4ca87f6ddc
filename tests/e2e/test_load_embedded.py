"""Load on the real thing: 20 chats at once against one `claimtrace ui` server that answers with the embedded LLM
(the local Qwen model, not the scripted one), then 200 requests at once for the sources behind a sentence (no LLM).

Every chat must be answered by the LLM, none lost, none failed; the chats beyond the server's check slots must be
told their place in the queue. p50/p95 are reported (CLAIMTRACE_E2E_RECORD=1 also writes
evals/results/ui_load_embedded.json, the committed measurement); speed is never asserted."""

from __future__ import annotations

import asyncio
import re
import shutil
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.chat_client import ChatSession, login_cookie
from tests.e2e.conftest import CLAIM, PASSWORD, USER
from tests.e2e.report import percentile, write_report
from tests.e2e.server import ChatServer
from tests.settings_env import BUILT_MODELS

CHATS = 20
SOURCE_REQUESTS_PER_CHAT = 10
SLOTS = 2
TIMEOUT_S = 1800.0
QUEUED = re.compile(r"Queued: number (\d+)")
ASK_SOURCES = "What are the sources behind sentence 1?"
# the reply to ASK_SOURCES: "**Sentence 1:** …", or "there is no sentence 1: …" when a chat's answer has no sentence
# (under load the LLM's reading can run out of time, and such a check's answer may have none)
SOURCES_REPLY = re.compile(r"(?i)\bsentence 1:")


@pytest.fixture(scope="module")
def embedded_server(chat_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChatServer]:
    """The chat server of the browser tests, on its own data dir (a copy of the tiny index) and the embedded LLM."""
    models = BUILT_MODELS  # the GGUF assembled by `make setup`
    assert any(models.glob("*.gguf")), f"no GGUF in {models}: run `make setup`"
    chat_data = Path(chat_env["DATA_DIR"])
    data = tmp_path_factory.mktemp("load_data")
    shutil.copytree(chat_data / "index", data / "index")
    if (chat_data / "cache").exists():
        shutil.copytree(chat_data / "cache", data / "cache")  # the exported CPU models, so the server need not export
    env = {k: v for k, v in chat_env.items() if k != "LLM_SCRIPT"}
    env.update(
        {
            "DATA_DIR": str(data),
            "MODELS_DIR": str(models),
            "LLM_PROVIDER": "embedded",
            "LLM_TIMEOUT": str(int(TIMEOUT_S)),
            "CLAIMTRACE_UI_CHECKS_AT_ONCE": str(SLOTS),
            # the load measured is the checks' (their verdicts and answers); each paper's generated context, written
            # after its answer, would add one embedded-LLM call per paper shown to every chat
            "GENERATED_CONTEXT": "false",
        }
    )
    srv = ChatServer(env, data / "server.log").start()
    yield srv
    srv.stop()


class Watcher(ChatSession):
    """A chat session that also remembers the queue places it was told and counts replies carrying a marker."""

    def __init__(self, url: str, cookie: str) -> None:
        super().__init__(url, cookie)
        self.places: list[int] = []
        self.arrivals: list[float] = []
        self.marker: re.Pattern[str] | None = None
        self.dropped: tuple[str, float] | None = None  # why and when (perf_counter) the socket went
        self.sio.on("update_message", self._on_update)
        self.sio.on("disconnect", self._on_disconnect)

    async def _on_disconnect(self, reason: object = None) -> None:
        self.dropped = (str(reason), time.perf_counter())

    async def _on_new(self, step: dict[str, Any]) -> None:
        await super()._on_new(step)
        self._seen(str(step.get("output") or ""))
        if self.errors and self._waiting and not self._waiting[1].done():  # fail at once, not at the timeout
            self._waiting[1].set_exception(AssertionError(f"the chat reported an error: {self.errors[-1]}"))

    async def _on_update(self, step: dict[str, Any]) -> None:
        self._seen(str(step.get("output") or ""))

    def _seen(self, output: str) -> None:
        self.places += [int(k) for k in QUEUED.findall(output)]
        if self.marker and self.marker.search(output):
            self.arrivals.append(time.perf_counter())

    async def burst(self, text: str, marker: re.Pattern[str], n: int, timeout: float) -> list[float]:
        """Send `n` copies of a message at once; seconds from sending to each matching reply, in arrival order."""
        self.marker, self.arrivals = marker, []
        t0 = time.perf_counter()
        for _ in range(n):
            await self.sio.emit("client_message", {"message": self.user_message(text), "fileReferences": None})
        deadline = t0 + timeout
        while len(self.arrivals) < n and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        return [a - t0 for a in self.arrivals[:n]]


async def load(url: str) -> dict[str, Any]:
    cookie = await login_cookie(url, USER, PASSWORD)
    chats = [Watcher(url, cookie) for _ in range(CHATS)]
    for chat in chats:
        await chat.__aenter__()
    try:
        t0 = time.perf_counter()

        async def check(chat: Watcher) -> float:
            await chat.send(CLAIM, "Verdict:", TIMEOUT_S)
            return time.perf_counter() - t0

        answer_s = await asyncio.gather(*(check(c) for c in chats))
        wall = time.perf_counter() - t0
        sources_s = await asyncio.gather(
            *(c.burst(ASK_SOURCES, SOURCES_REPLY, SOURCE_REQUESTS_PER_CHAT, 300.0) for c in chats)
        )
        return {"chats": chats, "answer_s": list(answer_s), "wall_s": wall, "sources_s": sources_s, "t0": t0}
    finally:
        for chat in chats:
            await chat.__aexit__()


@pytest.mark.slow
def test_twenty_chats_on_the_embedded_llm(embedded_server: ChatServer, tmp_path: Path):
    run = asyncio.run(load(embedded_server.url))
    chats: list[Watcher] = run["chats"]
    answers = [next(o for o in c.outputs if "Verdict:" in o) for c in chats]
    assert all(not c.errors for c in chats), [c.errors for c in chats]
    assert len(answers) == CHATS
    # written by the LLM: no chat fell back to quoting the evidence because the LLM failed or timed out
    assert not [a for a in answers if "quotes the evidence instead" in a or "could not run" in a]
    queued = [c for c in chats if c.places]
    assert len(queued) >= CHATS - SLOTS - 1, "the chats beyond the check slots must be told their place"
    assert all(p >= 1 for c in queued for p in c.places)
    assert all(c.places == sorted(c.places, reverse=True) for c in queued), [c.places for c in queued]
    assert max(c.places[0] for c in queued) >= CHATS - SLOTS - 1  # places are counted, not all "1"
    sources = [s for per_chat in run["sources_s"] for s in per_chat]
    replies = zip(chats, run["sources_s"], strict=True)
    short = [(k, len(got), c.dropped and (c.dropped[0], round(c.dropped[1] - run["t0"], 1)), c.outputs[-2:])
             for k, (c, got) in enumerate(replies) if len(got) < SOURCE_REQUESTS_PER_CHAT]
    assert not short, (
        f"every sources request is answered; (chat, replies, socket dropped (why, s from the start), last outputs): "
        f"{short}; the checks ended at {run['wall_s']:.1f} s"
    )
    report = {
        "chats": CHATS,
        "answered": len(answers),
        "errors": 0,
        "check_slots": SLOTS,
        "chats_told_their_place": len(queued),
        "highest_place_told": max(c.places[0] for c in queued),
        "answer_p50_s": round(statistics.median(run["answer_s"]), 1),
        "answer_p95_s": round(percentile(run["answer_s"], 0.95), 1),
        "answer_max_s": round(max(run["answer_s"]), 1),
        "wall_s": round(run["wall_s"], 1),
        "sources_requests": len(sources),
        "sources_p50_s": round(statistics.median(sources), 3),
        "sources_p95_s": round(percentile(sources, 0.95), 3),
        "setup": "embedded LLM (Qwen2.5-Coder-1.5B Q4_K_M, llama.cpp, 2 threads), real index of "
        "tests/fixtures/tiny_corpus.jsonl, real verifier; one `claimtrace ui` server on 127.0.0.1; socket.io clients, "
        f"{CHATS} threads sending the same claim at once, then {SOURCE_REQUESTS_PER_CHAT} '{ASK_SOURCES}' each at once",
    }
    write_report("ui_load_embedded.json", report, "tests/e2e/test_load_embedded.py", tmp_path)
