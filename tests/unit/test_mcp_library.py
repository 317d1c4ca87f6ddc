"""The MCP `library` tool's refusals (ui.mcp.library), each one message that names what to do: no index yet, an id
that names no kept document, nothing named; and the documents an accepted request names, once each. The tool as a
client calls it, with the real index and removal, is tests/integration/test_library_records.py."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.server.fastmcp.exceptions import ToolError

from agent.settings.app import Settings
from ui.mcp.library import chosen, listing

LISTED: dict[str, Any] = {
    "documents": [{"doc_id": "lib:a", "title": "A", "cited_by": []}, {"doc_id": "lib:b", "title": "B", "cited_by": []}],
    "notes": [],
}


def test_no_index_is_one_message(settings: Settings):
    with pytest.raises(ToolError, match=r"^no index at .*: run `claimtrace index` first$"):
        listing(settings)


@pytest.mark.parametrize(("ids", "message"), [
    pytest.param(["lib:a", "lib:nope"], "no document 'lib:nope' in your library or among the fetched abstracts "
                 "(the library tool, called without remove, lists them); nothing was removed", id="unknown_id"),
    pytest.param([], "name the documents to remove by their doc_id (the library tool, called without remove, lists "
                 "them)", id="nothing_named"),
])
def test_a_request_that_names_nothing_removable_is_refused(ids: list[str], message: str):
    with pytest.raises(ToolError) as refused:
        chosen(LISTED, ids)
    assert str(refused.value) == message


def test_the_named_documents_once_each_in_the_order_named():
    assert [d["doc_id"] for d in chosen(LISTED, ["lib:b", "lib:a", "lib:b"])] == ["lib:b", "lib:a"]
