"""The chat's "Your library" (ui.chat.library_view) on a real index (the tiny corpus built into the settings' data
folder, MiniLM, Chroma and BM25): `/library` is recognised and never checked as a claim; the list shows each kept
document newest first, where it came from and how many kept checks cite it, with one Remove button each; the
confirmation says what removing does; a confirmed removal takes the document out of the index the chat searches,
and a second one removes nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from agent.settings.app import Settings
from tests.conftest import FIXTURES
from tests.unit.test_library_manage import FETCHED, MINE
from tools.index.build import build_index
from tools.index.local import CorpusIndex
from ui.chat.library_view import (
    EMPTY,
    REMOVE,
    SHOWN,
    confirm_markdown,
    is_library_command,
    library_markdown,
    listing,
    remove_actions,
    remove_document,
)
from ui.shared.untrusted import md


@pytest.mark.parametrize(("text", "expected"), [
    ("/library", True), ("  Your   library ", True), ("/LIBRARY", True), ("your library?", True),
    ("my library has a paper on vitamin D", False), ("/library remove x", False), ("", False),
])
def test_the_command_is_recognised_and_nothing_else(text: str, expected: bool):
    assert is_library_command(text) is expected


@pytest.fixture
def index(settings: Settings) -> CorpusIndex:
    build_index(FIXTURES / "tiny_corpus.jsonl", settings.stores.index_dir, progress=False)
    return CorpusIndex(settings.stores.index_dir)


def test_an_empty_library_says_how_to_add_papers(index: CorpusIndex, settings: Settings):
    docs, notes = listing(settings)
    assert docs == [] and notes == [] and library_markdown(docs, notes) == EMPTY and remove_actions(docs) == []


def test_list_confirm_and_remove(index: CorpusIndex, settings: Settings):
    index.add_abstracts([MINE])
    index.add_abstracts([FETCHED])
    docs, notes = listing(settings)
    assert [d["doc_id"] for d in docs] == [FETCHED.doc_id, MINE.doc_id] and notes == []  # newest first
    shown = library_markdown(docs, notes)
    assert shown.startswith("**Your library**: 2 document(s)")
    assert md(MINE.title) in shown and md("a file (not recorded)") in shown and "cited by 0 kept check(s)" in shown
    buttons = remove_actions(docs)
    assert [(b.name, b.label, b.payload) for b in buttons] == [
        (REMOVE, "Remove 1", {"doc_id": FETCHED.doc_id}), (REMOVE, "Remove 2", {"doc_id": MINE.doc_id})]
    asked = confirm_markdown(docs[1])
    assert md(MINE.title) in asked and "No later check will find it" in asked and "0 kept check(s) cite it" in asked

    today = datetime.now(UTC).date().isoformat()
    assert remove_document(index, MINE.doc_id) == (f"Removed **{md(MINE.title)}** from the index on {md(today)}. "
                                                   "Checks that cite it keep their record.")
    assert MINE.doc_id not in index.docs and MINE.doc_id not in [h.doc_id for h in index.bm25("zinc lozenges", 5)]
    assert [d["doc_id"] for d in listing(settings)[0]] == [FETCHED.doc_id]
    assert remove_document(index, MINE.doc_id).endswith("is no longer in the index: nothing was removed.")
    assert remove_document(index, "101").endswith("nothing was removed.")  # the built corpus stays
    assert "101" in index.docs


def test_a_long_library_lists_the_newest_with_buttons_and_counts_the_rest():
    docs: list[dict[str, Any]] = [
        {"doc_id": f"lib:{i}", "title": f"Paper {i}", "from": "a file", "added_at": None, "cited_by": []}
        for i in range(SHOWN + 5)
    ]
    shown = library_markdown(docs, ["the store is down"])
    assert f"{SHOWN}. Paper {SHOWN - 1}" in shown and f"Paper {SHOWN}" not in shown
    assert "_5 more: `claimtrace library list` lists them all._" in shown and "added an unrecorded day" in shown
    assert len(remove_actions(docs)) == SHOWN
