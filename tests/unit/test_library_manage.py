"""Kept documents taken out of the index and the library's files read again (real Chroma, BM25 and MiniLM on the tiny
corpus): a removal leaves BM25, Chroma and `live_docs.jsonl` together and survives a restart; a crash between its
writes is finished by the next open; an unknown id removes nothing; a removed fetched abstract is not fetched in
again; refresh reads changed files, drops gone ones and keeps the documents of a file it cannot read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tests.library_files import BIB, reference_files
from tools.corpus import Abstract, Origin
from tools.documents.library import add_to_library, plan
from tools.index.build import build_index
from tools.index.kept import UnknownDocument, choose, kept_documents, parse_day, refresh_library
from tools.index.live_docs import LIVE_DOCS, PENDING, pending_removal, removed_log
from tools.index.local import CorpusIndex

ROOT = Path(__file__).resolve().parents[2]
MINE = Abstract(
    doc_id="lib:10.5555/zinc.colds",
    title="Zinc lozenges and the duration of the common cold",
    sentences=["Zinc lozenges shortened the duration of cold symptoms by 2.6 days.", "Adverse effects were mild."],
    doi="10.5555/zinc.colds",
    source="library",
)
FETCHED = Abstract(
    doc_id="doi:10.5555/planted",
    title="Garlic cures influenza overnight",
    sentences=["Eating garlic cured influenza in every patient within one night."],
    doi="10.5555/planted",
    source="europepmc",
)


@pytest.fixture
def index_dir(tmp_path: Path) -> Path:
    out = tmp_path / "index"
    build_index(FIXTURES / "tiny_corpus.jsonl", out, progress=False)
    return out


def vectors(index: CorpusIndex, doc_id: str) -> list[str]:
    return list(index.collection.get(where={"doc_id": doc_id}, include=[])["ids"])


def test_a_removed_document_leaves_bm25_chroma_and_the_kept_copy(index_dir: Path):
    index = CorpusIndex(index_dir)
    index.add_abstracts([MINE, FETCHED])
    assert index.bm25("zinc lozenges cold", 3)[0].doc_id == MINE.doc_id and vectors(index, MINE.doc_id)
    assert index.docs[MINE.doc_id].origin and index.docs[MINE.doc_id].origin.added_at  # type: ignore[union-attr]

    removed = index.remove_docs([MINE.doc_id, "101"])  # a corpus id is left alone
    assert [r.doc_id for r in removed] == [MINE.doc_id] and "101" in index.docs
    assert MINE.doc_id not in index.docs and index.find_doc("10.5555/zinc.colds", None) is None
    assert MINE.doc_id not in [h.doc_id for h in index.bm25("zinc lozenges cold", 5)]
    assert vectors(index, MINE.doc_id) == [] and vectors(index, FETCHED.doc_id)
    assert MINE.doc_id not in (index_dir / LIVE_DOCS).read_text()
    assert not (index_dir / PENDING).exists() and removed_log(index_dir)[MINE.doc_id].title == MINE.title

    restarted = CorpusIndex(index_dir)
    assert MINE.doc_id not in restarted.docs and FETCHED.doc_id in restarted.docs
    assert [d.doc_id for d in kept_documents(index_dir)] == [FETCHED.doc_id]
    assert restarted.add_abstracts([MINE]) == [MINE.doc_id]  # a library document may be added again on purpose


def test_a_removed_fetched_abstract_is_not_fetched_in_again(index_dir: Path):
    index = CorpusIndex(index_dir)
    index.add_abstracts([FETCHED])
    index.remove_docs([FETCHED.doc_id])
    assert index.add_abstracts([FETCHED]) == [] and FETCHED.doc_id not in index.docs
    assert CorpusIndex(index_dir).add_abstracts([FETCHED]) == []


REMOVE = """
import sys
from pathlib import Path
from tools.index.local import CorpusIndex

CorpusIndex(Path(sys.argv[1])).remove_docs(sys.argv[2:])
"""


def test_an_open_index_notices_a_removal_made_by_another_process(index_dir: Path):
    """A running chat's index and a removal by another process (as `claimtrace library remove` makes it): the
    chat's next searches leave the removed documents out (its embedded Chroma still holds their vectors in memory,
    without their records), a check that found one before still reads its text (not stored in Chroma again), and a
    live source's refresh of a removed abstract does not write it back."""
    chat = CorpusIndex(index_dir)
    chat.add_abstracts([MINE, FETCHED])
    vec = chat.embed(["Zinc lozenges shorten the common cold."])[0]
    assert chat.bm25("zinc lozenges cold", 3)[0].doc_id == MINE.doc_id
    assert MINE.doc_id in [h.doc_id for h in chat.dense_sentences(vec, 5)]

    proc = subprocess.run([sys.executable, "-c", REMOVE, str(index_dir), MINE.doc_id, FETCHED.doc_id], cwd=ROOT,
                          capture_output=True)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert MINE.doc_id not in [h.doc_id for h in chat.bm25("zinc lozenges cold", 5)]
    assert MINE.doc_id not in [h.doc_id for h in chat.dense_sentences(vec, 5)]
    assert MINE.doc_id not in chat.docs and chat.docs[MINE.doc_id].title == MINE.title
    assert chat.sentence_vectors([MINE.doc_id])[MINE.doc_id].shape[0] == 2 and vectors(chat, MINE.doc_id) == []
    assert chat.add_abstracts([FETCHED.model_copy(update={"citation_count": 9})]) == []
    assert FETCHED.doc_id not in (index_dir / LIVE_DOCS).read_text() and FETCHED.doc_id not in chat.docs
    with pytest.raises(KeyError):
        chat.docs["never-indexed"]


CRASH = """
import os, sys
from pathlib import Path
import tools.index.live_docs as live_docs
from tools.index.local import CorpusIndex

drop = live_docs._drop_lines
def drop_then_die(index_dir, ids):
    drop(index_dir, ids)
    os._exit(9)  # killed after the kept copy is rewritten and before Chroma is written
live_docs._drop_lines = drop_then_die
CorpusIndex(Path(sys.argv[1])).remove_docs([sys.argv[2]])
"""


def test_a_crash_between_the_two_writes_is_finished_by_the_next_open(index_dir: Path):
    index = CorpusIndex(index_dir)
    index.add_abstracts([MINE, FETCHED])
    proc = subprocess.run([sys.executable, "-c", CRASH, str(index_dir), MINE.doc_id], cwd=ROOT, capture_output=True)
    assert proc.returncode == 9, proc.stderr.decode()[-2000:]
    assert [e.doc_id for e in pending_removal(index_dir)] == [MINE.doc_id]
    assert MINE.doc_id not in [h.doc_id for h in index.bm25("zinc lozenges cold", 5)]  # an open index leaves it out
    assert MINE.doc_id not in (index_dir / LIVE_DOCS).read_text()
    assert MINE.doc_id not in [d.doc_id for d in kept_documents(index_dir)]

    reopened = CorpusIndex(index_dir)
    assert vectors(reopened, MINE.doc_id) == [] and vectors(reopened, FETCHED.doc_id)
    assert not (index_dir / PENDING).exists() and MINE.doc_id in removed_log(index_dir)
    assert MINE.doc_id not in reopened.docs and FETCHED.doc_id in reopened.docs


def test_an_unknown_or_corpus_id_removes_nothing():
    docs = [MINE, FETCHED]
    with pytest.raises(UnknownDocument, match=r"no document 'lib:nope' in your library .*library list"):
        choose(docs, [MINE.doc_id, "lib:nope"])
    with pytest.raises(UnknownDocument, match="101 is part of the built corpus"):
        choose(docs, ["101"], corpus_ids={"101"})
    assert choose(docs, source="europepmc") == [FETCHED]
    dated = MINE.model_copy(update={"origin": Origin(added_at="2024-05-01T10:00:00+00:00")})
    assert choose([dated, FETCHED], added_before=parse_day("2024-06-01")) == [dated]  # an undated one is not chosen


def test_refresh_reads_changed_files_drops_gone_ones_and_keeps_unreadable_ones(index_dir: Path, tmp_path: Path):
    folder = tmp_path / "papers"
    folder.mkdir()
    bib, ris = reference_files(folder)
    other = folder / "other.bib"
    other.write_text(BIB.replace("walk2020", "walk2").replace("10.5555/WALK.2020.7", "10.5555/other.1")
                     .replace("Daily walking", "Brisk walking"), encoding="utf-8")
    index = CorpusIndex(index_dir)
    items, problems = plan([folder])
    assert len(add_to_library(index, items, problems).added) == 3
    first = {d.doc_id: d for d in index.docs.values() if d.source == "library"}
    assert {Path(d.origin.file).name for d in first.values() if d.origin and d.origin.file} == {
        "refs.bib", "refs.ris", "other.bib"}

    assert refresh_library(index).summary() == (
        "0 changed file(s) read again, 0 gone, 3 unchanged: 0 document(s) removed, 0 added")

    bib.write_text(BIB.replace("lowered systolic blood pressure by 4 mmHg", "lowered it by 6 mmHg"), encoding="utf-8")
    ris.unlink()
    other.unlink()
    other.mkdir()  # a folder in its place: the path is there and cannot be read as a file, even by root
    said: list[str] = []
    report = refresh_library(index, on_problem=said.append)
    assert report.reread == [str(bib.resolve())] and report.gone == [str(ris.resolve())]
    assert said == [
        f"kept {other.resolve()}: it cannot be read (Is a directory); its 1 document(s) are kept",
        "skipped refs.bib: noabstract2018: it has no abstract and no readable PDF attached",  # as `add` says it
    ]
    walk = "lib:10.5555/walk.2020.7"
    assert "by 6 mmHg" in index.docs[walk].text and "lib:10.5555/tea.2017.3" not in index.docs
    assert "lib:10.5555/other.1" in index.docs  # the unreadable file's document stays
    restarted = {d.doc_id: d for d in kept_documents(index_dir)}
    assert set(restarted) == {walk, "lib:10.5555/other.1"} and "by 6 mmHg" in restarted[walk].text


def test_an_unreadable_line_of_the_kept_copy_outlives_a_removal(index_dir: Path):
    index = CorpusIndex(index_dir)
    index.add_abstracts([MINE, FETCHED])
    with (index_dir / LIVE_DOCS).open("a") as fh:
        fh.write("{not json\n")
    index.remove_docs([FETCHED.doc_id])
    lines = (index_dir / LIVE_DOCS).read_text().splitlines()
    assert lines[-1] == "{not json" and [json.loads(x)["doc_id"] for x in lines[:-1]] == [MINE.doc_id]
    assert os.listdir(index_dir).count(f".{LIVE_DOCS}.tmp") == 0
