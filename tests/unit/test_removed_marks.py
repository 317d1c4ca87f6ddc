"""Past checks keep their record when a paper leaves the index: the removal log is read when a check is shown
(tools.index.live_docs.removed_days), the exports (Markdown, JSON, BibTeX, RIS) keep the removed paper's sentences
and mark it "removed from the library on <day>", and "why?" on such a check says so. Nothing stored is rewritten."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import bibtexparser
import pytest
import rispy

from agent.result import CheckResult
from tests.unit.test_export import hostile_result
from tests.unit.test_followup import CLAIM, thread
from tools.corpus import Abstract
from tools.index.live_docs import LIVE_DOCS, REMOVED, Removed, removal_mark, removed_days
from ui.chat.why_view import why_markdown
from ui.export.formats import export_text
from ui.shared.untrusted import md

DAY = "2026-11-27"
MARK = f"removed from the library on {DAY}"


def write_log(index_dir: Path, *entries: tuple[str, str]) -> None:
    """Append (doc id, removal time) lines to the index's removal log, as a finished removal writes them."""
    index_dir.mkdir(parents=True, exist_ok=True)
    with (index_dir / REMOVED).open("a", encoding="utf-8") as out:
        for doc_id, when in entries:
            out.write(Removed(doc_id=doc_id, title=f"title of {doc_id}", removed_at=when).model_dump_json() + "\n")


def test_removed_days_leave_out_what_was_added_again(tmp_path: Path):
    assert removed_days(tmp_path) == {}  # no log: nothing removed
    write_log(tmp_path, ("lib:a", f"{DAY}T09:00:00+00:00"), ("lib:b", "2026-11-01T10:00:00+00:00"),
              ("lib:b", "2026-11-20T10:00:00+00:00"), ("lib:c", "2026-11-02T10:00:00+00:00"))
    again = Abstract(doc_id="lib:c", title="Added again", sentences=["A sentence."], source="library")
    (tmp_path / LIVE_DOCS).write_text(again.model_dump_json() + "\nnot json\n", encoding="utf-8")
    assert removed_days(tmp_path) == {"lib:a": DAY, "lib:b": "2026-11-20"}  # the latest removal of an id
    assert removal_mark(DAY) == MARK


def test_an_unreadable_log_marks_nothing(tmp_path: Path):
    (tmp_path / REMOVED).write_bytes(b"\xff\xfe\x00garbage")
    assert removed_days(tmp_path) == {}


def test_exports_keep_a_removed_papers_sentences_and_mark_it():
    result = hostile_result()  # d1 gives evidence [1] and [2], d2 gives [3], d9 was read and not counted
    removed = {"d2": DAY, "d9": DAY, "not-cited": DAY}
    plain = export_text(result, "md")
    marked = export_text(result, "md", removed)
    assert md(MARK) not in plain.lower()
    # d2's table row, its section and its reference; d9 among those read and not counted (escaped as Markdown)
    assert marked.lower().count(md(MARK)) == 4
    d2 = marked.split("### Source 3:")[1].split("### ")[0]
    assert md("Removed from the library on 2026-11-27") in d2 and "Evidence sentence 3" in d2  # its sentence stays
    d1 = marked.split("### Source 1:")[1].split("### Source 3:")[0]
    assert md(MARK) not in d1.lower()

    data = json.loads(export_text(result, "json", removed))
    assert data["removed_from_library"] == {"d2": DAY, "d9": DAY}  # only what this check cites
    assert json.loads(export_text(result, "json"))["removed_from_library"] == {}
    assert CheckResult.model_validate(data) == result  # the result itself is not rewritten

    notes = {e.key: e.fields_dict["note"].value for e in bibtexparser.parse_string(export_text(result, "bib",
                                                                                                 removed)).entries}
    assert [MARK in n for n in notes.values()] == [False, True]
    records = rispy.loads(export_text(result, "ris", removed))
    assert [any(MARK in n for n in r["notes"]) for r in records] == [False, True]


def test_why_on_a_check_whose_paper_was_removed_says_so(make_deps: Any):
    graph, deps, cfg = thread(make_deps)
    first = graph.invoke({"message": CLAIM}, cfg, context=deps)["results"][0]
    counted = next(a["doc_id"] for a in first["assessments"] if a["label"] != "No Evidence")
    before = graph.invoke({"message": "Why is the verdict what it is?"}, cfg, context=deps)["reply"]
    assert all(r["removed"] is None for r in [*before["counted"], *before["not_counted"]])
    assert md(MARK) not in why_markdown(before)

    write_log(deps.settings.stores.index_dir, (counted, f"{DAY}T12:00:00+00:00"))
    after = graph.invoke({"message": "Why is the verdict what it is?"}, cfg, context=deps)["reply"]
    marks = {r["title"]: r["removed"] for r in after["counted"]}
    assert MARK in marks.values() and sum(m is not None for m in marks.values()) == 1
    assert {k: v for k, v in after.items() if k not in ("counted", "not_counted")} == {
        k: v for k, v in before.items() if k not in ("counted", "not_counted")}  # the figures stay the check's own
    shown = why_markdown(after)
    assert md(MARK) in shown and "keeps its place" in shown  # the chat's Markdown, escaped as all source text is


def test_the_chats_export_button_marks_a_removed_paper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The Export button's files read the removal log of the configured DATA_DIR, as `claimtrace export` does."""
    from chainlit.context import init_http_context

    from agent.settings.app import get_settings
    from ui.chat.export_chat import export_files

    async def in_a_chat() -> dict[str, bytes]:  # an element belongs to a chat's context
        init_http_context()
        return {f.name.rsplit(".", 1)[1]: f.content for f in export_files(hostile_result())
                if isinstance(f.content, bytes)}

    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    try:
        assert not any(MARK.encode() in content for content in asyncio.run(in_a_chat()).values())
        write_log(tmp_path / "index", ("d2", f"{DAY}T08:00:00+00:00"))
        files = asyncio.run(in_a_chat())
    finally:
        get_settings.cache_clear()
    assert json.loads(files["json"])["removed_from_library"] == {"d2": DAY}
    assert all(MARK.encode() in files[fmt] for fmt in ("bib", "ris")) and md(MARK).encode() in files["md"]


def test_a_reopened_threads_source_panel_and_sentence_sources_mark_a_removed_paper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """What the chat shows of a past check on demand (the side panel of Source n, the reply to "sources behind
    sentence k") reads the removal log of the configured DATA_DIR when it is shown: the removed paper keeps its
    sentences and says the day it left; a paper still in the index is not marked."""
    from chainlit.context import init_http_context

    from agent.followup.sources import sources_behind
    from agent.settings.app import get_settings
    from ui.chat.panel import source_panel
    from ui.chat.views import sources_message

    result = hostile_result()  # d1 gives [1] and [2], cited by sentence 1; d2 gives [3], cited by sentence 2
    stored = result.model_dump(mode="json")

    async def shown() -> tuple[str, str, str, str]:
        init_http_context()  # a message belongs to a chat's context
        panel, other = source_panel(stored, 3), source_panel(stored, 1)
        assert panel is not None and other is not None and source_panel(stored, 9) is None
        return panel[1], other[1], sources_message(sources_behind(result, 2), 0).content, \
            sources_message(sources_behind(result, 1), 0).content

    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    try:
        assert not any(md(MARK) in text for text in asyncio.run(shown()))
        write_log(tmp_path / "index", ("d2", f"{DAY}T08:00:00+00:00"))
        panel, other, cites_d2, cites_d1 = asyncio.run(shown())
    finally:
        get_settings.cache_clear()
    d2 = next(s for s in result.sources if s.doc_id == "d2")
    assert md(MARK) in panel and md(d2.sentence) in panel  # its sentence is kept, under the mark
    assert md(MARK) in cites_d2 and md(d2.sentence) in cites_d2
    assert md(MARK) not in other and md(MARK) not in cites_d1
