"""Adding the user's files to a real index of the tiny corpus: what is planned, added, deduplicated and skipped,
and that the library survives a restart."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES
from tests.library_files import (
    FINDING,
    PAPER_DOI,
    blank_pdf,
    encrypted_pdf,
    malformed_pdf,
    paper_pdf,
    plain_pdf,
    reference_files,
    zotero_export,
)
from tools.documents.library import LIBRARY, LibraryStoreError, add_to_library, plan


@pytest.fixture
def index_dir(tmp_path: Path) -> Path:
    from tools.index.build import build_index
    from tools.index.embed_cache import EmbeddingCache

    out = tmp_path / "index"
    build_index(FIXTURES / "tiny_corpus.jsonl", out, progress=False, cache=EmbeddingCache(tmp_path / "emb.sqlite"))
    return out


def open_index(index_dir: Path) -> Any:
    from tools.index.local import CorpusIndex

    return CorpusIndex(index_dir)


def add(index: Any, *paths: Path) -> Any:
    items, problems = plan(list(paths))
    lines: list[str] = []
    report = add_to_library(index, items, problems, on_problem=lines.append, batch=2)
    report.lines = lines
    return report


def test_plan_reads_folders_recursively_and_an_attached_pdf_once(tmp_path: Path):
    export = zotero_export(tmp_path)
    loose = paper_pdf(tmp_path)
    reference_files(tmp_path)
    (tmp_path / "notes.txt").write_text("not a document")
    (tmp_path / ".hidden").mkdir()
    paper_pdf(tmp_path / ".hidden")
    items, problems = plan([tmp_path, tmp_path / "missing.pdf", tmp_path / "notes.txt"])
    whats = [i.what for i in items]
    # entries with attachments first, then loose PDFs, then abstracts; the attached PDF is not a loose one
    assert whats[:2] == ["Exported Items.bib: smith_vitamin_2019", "Exported Items.bib: lost_2015"]
    assert whats[2] == str(loose.resolve()) and len([w for w in whats if w.endswith(".pdf")]) == 1
    assert set(whats[3:]) == {"refs.bib: walk2020", "refs.bib: noabstract2018", "refs.ris: Green tea and memory "
                              "in older adults", "refs.ris: An entry with no abstract"}
    assert not any(".hidden" in w for w in whats) and str(export) not in whats
    assert problems == [
        (str(tmp_path / "missing.pdf"), "not found"),
        (str(tmp_path / "notes.txt"), "not a file claimtrace reads (it reads .pdf, .bib, .ris)"),
    ]


def test_good_files_are_added_and_each_bad_one_is_named(index_dir: Path, tmp_path: Path):
    files = tmp_path / "mine"
    files.mkdir()
    paper_pdf(files)
    for make in (malformed_pdf, encrypted_pdf, blank_pdf):
        make(files)
    reference_files(files)
    index = open_index(index_dir)
    report = add(index, files)
    assert sorted(report.added) == ["lib:10.5555/bones.2019.042", "lib:10.5555/tea.2017.3", "lib:10.5555/walk.2020.7"]
    assert report.full_texts == 1 and report.duplicates == []
    why = {Path(what).name if what.endswith(".pdf") else what: reason for what, reason in report.skipped}
    assert set(why) == {"broken.pdf", "locked.pdf", "scan.pdf", "refs.bib: noabstract2018",
                        "refs.ris: An entry with no abstract"}
    assert why["scan.pdf"].startswith("it has no text layer") and "encrypted" in why["locked.pdf"]
    assert why["refs.bib: noabstract2018"] == "it has no abstract and no readable PDF attached"
    assert len(report.lines) == 5 and all(line.startswith("skipped ") for line in report.lines)
    summary = report.summary()
    assert summary.startswith("3 document(s) added to your library (1 full text(s), 2 abstract(s)); 0 duplicate(s)")
    assert "5 skipped" in summary and "scan.pdf (it has no text layer" in summary
    paper = index.docs[f"lib:{PAPER_DOI}"]
    assert paper.source == LIBRARY and paper.doi == PAPER_DOI and paper.year == 2019
    assert len(paper.pages) == len(paper.sentences) == len(paper.sections) and paper.content_hash
    assert paper.pages[paper.sentences.index(FINDING)] == 2
    assert index.docs["lib:10.5555/walk.2020.7"].pages == []  # an abstract has no pages
    assert index.find_doc(PAPER_DOI, None) == f"lib:{PAPER_DOI}"
    assert "101" in index.docs  # the corpus is untouched


def test_duplicates_by_file_doi_and_abstract(index_dir: Path, tmp_path: Path):
    index = open_index(index_dir)
    first, plain = paper_pdf(tmp_path), plain_pdf(tmp_path)
    bib, _ = reference_files(tmp_path)
    assert len(add(index, first, plain, bib).added) == 3
    (tmp_path / "again").mkdir()
    copy = shutil.copy(plain, tmp_path / "again" / "same bytes, other name.pdf")
    other = paper_pdf(tmp_path / "again", "same DOI, other bytes.pdf")
    report = add(index, first, Path(copy), other, bib)
    assert report.added == [] and [what for what, _ in report.skipped] == ["refs.bib: noabstract2018"]
    no_doi = [d for d in index.docs.values() if d.source == LIBRARY and not d.doi]
    assert len(no_doi) == 1 and no_doi[0].doc_id == f"lib:{no_doi[0].content_hash[:16]}"
    assert sorted(report.duplicates) == sorted([
        (str(first.resolve()), f"lib:{PAPER_DOI}"),  # the same file
        (str(Path(copy).resolve()), no_doi[0].doc_id),  # the same bytes under another name
        (str(other.resolve()), f"lib:{PAPER_DOI}"),  # the same DOI
        ("refs.bib: walk2020", "lib:10.5555/walk.2020.7"),  # the same entry
    ])


def test_the_library_survives_a_restart(index_dir: Path, tmp_path: Path):
    add(open_index(index_dir), paper_pdf(tmp_path))
    again = open_index(index_dir)
    doc = again.docs[f"lib:{PAPER_DOI}"]
    assert doc.source == LIBRARY and doc.pages[doc.sentences.index(FINDING)] == 2
    assert f"lib:{PAPER_DOI}" in [h.doc_id for h in again.bm25("hip fractures incidence hazard ratio", 3)]
    assert add(again, paper_pdf(tmp_path, "copy.pdf")).duplicates  # same DOI: already there after the restart


def test_a_zotero_export_gives_full_texts_with_the_entries_metadata(index_dir: Path, tmp_path: Path):
    export = zotero_export(tmp_path)
    index = open_index(index_dir)
    report = add(index, export)
    assert report.skipped == [] and report.full_texts == 1 and len(report.added) == 2
    paper = index.docs[f"lib:{PAPER_DOI}"]  # the DOI from the PDF's first page, the rest from the entry
    assert paper.title == "Vitamin D supplementation and hip fractures: the ZOTERO trial"
    assert paper.venue == "Journal of Bone Tests" and paper.authors == ["Smith, Ann", "Jones, Bob"]
    assert FINDING in paper.sentences
    salt = next(d for d in index.docs.values() if d.title == "Salt and stroke")
    assert salt.sentences == ["Eating less salt lowered the risk of stroke."] and salt.pages == []
    assert report.notes == [
        f"Exported Items.bib: lost_2015: attached file {export / 'files/99/gone.pdf'} not found; its abstract is "
        "added instead"
    ]


def test_a_store_that_stops_taking_documents_is_one_error(tmp_path: Path):
    class Full:
        docs: dict[str, Any] = {}

        def add_abstracts(self, docs: Any) -> list[str]:
            raise OSError(28, "No space left on device")

    items, _ = plan([paper_pdf(tmp_path)])
    with pytest.raises(LibraryStoreError, match="stopped taking documents .*No space left on device.*0 were added"):
        add_to_library(Full(), items)
