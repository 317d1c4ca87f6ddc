"""Reading the user's files: PDFs (pages, sections, sentences, metadata, the ones that give no text), full-text
splitting, BibTeX and RIS entries and the attached files a Zotero export names."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.library_files import (
    CROSSING,
    FINDING,
    PAPER_DOI,
    REFERENCE,
    blank_pdf,
    encrypted_pdf,
    malformed_pdf,
    paper_pdf,
    plain_pdf,
    reference_files,
)
from tools.documents.fulltext import heading, page_lines, place, read_full_text
from tools.documents.pdf_text import PdfProblem, find_doi, find_year, names, read_pdf
from tools.documents.references import ReferenceFileProblem, pdf_paths, read_references


def test_a_pdf_becomes_sentences_with_their_pages_and_sections(tmp_path: Path):
    text = read_pdf(paper_pdf(tmp_path)).text
    at = {s: (page, section) for s, page, section in zip(text.sentences, text.pages, text.sections, strict=True)}
    assert at[FINDING] == (2, "Results")
    assert at["Supplementation did not prevent fractures."] == (1, "Abstract")
    assert at[CROSSING] == (1, "Introduction")  # a sentence across a page break, on the page it starts on
    assert at["Participants received 800 IU of vitamin D or a placebo every day for five years."] == (2, "Methods")
    whole = " ".join(text.sentences)
    assert REFERENCE not in whole  # the references are left out
    assert "Journal of Bone Tests" not in whole  # the running header on every page
    assert "Ann Smith" not in whole  # the front matter before the abstract
    assert text.sections[0] == "Abstract" and not text.truncated


def test_metadata_comes_from_the_pdf_then_its_first_page(tmp_path: Path):
    paper = read_pdf(paper_pdf(tmp_path))
    assert paper.title == "Vitamin D and hip fractures: a trial"  # the PDF's own metadata
    assert paper.authors == ["Ann Smith", "Bob Jones"]
    assert paper.doi == PAPER_DOI and paper.year == 2019  # page 1
    plain = read_pdf(plain_pdf(tmp_path))
    assert plain.title == "Coffee drinking and sleep quality"  # the largest type on page 1
    assert plain.doi is None and plain.authors == [] and plain.year is None  # reportlab's "anonymous" author


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (encrypted_pdf, "it is encrypted (opens only with a password)"),
        (blank_pdf, "it has no text layer (a scanned PDF?)"),
        (malformed_pdf, "it is not a readable PDF"),
    ],
)
def test_a_pdf_that_gives_no_text_says_why(tmp_path: Path, make, why: str):
    with pytest.raises(PdfProblem) as e:
        read_pdf(make(tmp_path))
    assert str(e.value).startswith(why)
    if make is blank_pdf:
        assert "OCR" in str(e.value)


def test_headings():
    assert heading("2. Methods") == ("Methods", "")
    assert heading("RESULTS") == ("Results", "")
    assert heading("3.1 Materials and methods:") == ("Methods", "")
    assert heading("IV. Conclusions") == ("Conclusion", "")
    assert heading("Abstract: We tested it.") == ("Abstract", "We tested it.")
    assert heading("Results were mixed across sites.") is None
    assert heading("References") == ("References", "")


def test_running_headers_and_page_numbers_are_dropped():
    words = ["alpha", "beta", "gamma", "delta"]
    pages = [f"Heart Tests 2020; page {n}\nBody text {words[n - 1]}.\n{n}" for n in range(1, 5)]
    assert page_lines(pages) == [[f"Body text {w}."] for w in words]
    assert page_lines(["Header\nA.", "Header\nB."]) == [["Header", "A."], ["Header", "B."]]  # two pages: kept


def test_split_words_are_joined_and_back_matter_is_left_out():
    text = read_full_text(
        ["Introduction\nThe supple-\nmentation worked in older adults.", "Acknowledgements\nWe thank our funders."]
    )
    assert text.sentences == ["The supplementation worked in older adults."]
    assert read_full_text(["No heading at all. Two sentences."]).sections == ["", ""]


def test_place_is_the_section_label_and_the_position_within_it():
    sections = ["Abstract", "Abstract", "Results", "Results", "Results", "Discussion"]
    assert place(sections, 3) == "results; sentence 2 of 3"
    assert place(sections, 1) == "sentence 2 of 2"  # an abstract reads as an unstructured one
    assert place(sections, 5) == "conclusions; sentence 1 of 1"


def test_dois_years_and_bylines():
    assert find_doi("see doi:10.1000/XYZ-12.") == "10.1000/xyz-12"
    assert find_doi("no identifier") is None
    assert find_year("Received 3 May 2017; accepted 1 June 2018; published online 2 July 2018") == 2018
    assert names("Ann Smith1, Bob J. Jones* and Carl Lee") == ["Ann Smith", "Bob J. Jones", "Carl Lee"]
    assert names("Department of Medicine, University of Somewhere") == []


def test_bibtex_and_ris_entries(tmp_path: Path):
    bib, ris = reference_files(tmp_path)
    refs, problems = read_references(bib)
    assert problems == [] and [r.where for r in refs] == ["refs.bib: walk2020", "refs.bib: noabstract2018"]
    walk = refs[0]
    assert walk.title == "Walking and Blood Pressure: a Österreich cohort"  # LaTeX decoded, braces gone
    assert walk.authors == ["Weber, Anna", "Müller, Jan"] and walk.year == 2020 and walk.venue == "Heart Tests"
    assert walk.doi == "10.5555/walk.2020.7" and walk.abstract.startswith("We followed 5,000 adults")
    assert refs[1].abstract == ""
    refs, problems = read_references(ris)
    assert problems == [] and [r.title for r in refs] == ["Green tea and memory in older adults",
                                                          "An entry with no abstract"]
    assert refs[0].doi == "10.5555/tea.2017.3" and refs[0].year == 2017 and refs[0].venue == "Memory Tests"


def test_broken_reference_files(tmp_path: Path):
    bib = tmp_path / "broken.bib"
    bib.write_text("@article{ok, title={Fine}, abstract={Has one.}}\n@article{bad,\n  title = {Oops\n")
    refs, problems = read_references(bib)
    assert [r.where for r in refs] == ["broken.bib: ok"] and problems == ["the entry at line 2 could not be parsed"]
    ris = tmp_path / "cut.ris"
    ris.write_text("TY  - JOUR\nTI  - Whole\nER  - \n\nTY  - JOUR\nTI  - Cut off\n")
    refs, problems = read_references(ris)
    assert [r.title for r in refs] == ["Whole"] and problems == ["1 entry could not be read"]
    binary = tmp_path / "binary.ris"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ReferenceFileProblem, match="not UTF-8 text"):
        read_references(binary)
    empty = tmp_path / "empty.bib"
    empty.write_text("nothing to see here\n")
    with pytest.raises(ReferenceFileProblem, match="no BibTeX entries"):
        read_references(empty)


def test_attached_files_as_exports_name_them(tmp_path: Path):
    zotero = "Full Text PDF:files/12/Smith - 2019.pdf:application/pdf;Snapshot:files/12/page.html:text/html"
    assert pdf_paths(zotero, tmp_path) == [tmp_path / "files/12/Smith - 2019.pdf"]
    assert pdf_paths("/abs/a.pdf;/abs/b.PDF", tmp_path) == [Path("/abs/a.pdf"), Path("/abs/b.PDF")]
    assert pdf_paths("file:///home/ann/My%20Paper.pdf", tmp_path) == [Path("/home/ann/My Paper.pdf")]
    assert pdf_paths("files/3/notes.txt", tmp_path) == []
