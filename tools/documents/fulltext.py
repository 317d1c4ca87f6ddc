"""A full text as sentences: the text of each page (tools.documents.pdf_text reads it) without its running headers and
page numbers, cut into sections at their headings (Abstract, Introduction, Methods, Results, Discussion, Conclusion,
References, ...) and into sentences (tools.corpus.split_sentences), each sentence keeping its page and section.

The references and the back matter (acknowledgements, funding, competing interests, author contributions, data
availability) are left out: none of their sentences is a finding. When the text has an Abstract heading, what comes
before it (title, authors, affiliations) is left out too. The text is data, never instructions."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from tools.corpus import split_sentences

MAX_SENTENCES = 3000  # a book-length PDF keeps its first ones

_HEADINGS: dict[str, tuple[str, ...]] = {
    "Abstract": ("abstract", "summary"),
    "Introduction": ("introduction",),
    "Background": ("background",),
    "Methods": (
        "methods", "method", "materials and methods", "methods and materials", "patients and methods",
        "methodology", "study design", "experimental procedures", "experimental section", "experimental",
    ),
    "Results": ("results", "findings", "results and discussion"),
    "Discussion": ("discussion", "general discussion"),
    "Conclusion": ("conclusion", "conclusions", "concluding remarks"),
    "References": ("references", "bibliography", "literature cited", "works cited", "reference list"),
    "Acknowledgements": ("acknowledgements", "acknowledgments", "acknowledgement", "acknowledgment"),
    "Funding": ("funding", "funding sources", "financial support"),
    "Competing interests": (
        "competing interests", "conflict of interest", "conflicts of interest", "declaration of competing interest",
        "disclosures",
    ),
    "Author contributions": ("author contributions", "authors' contributions", "contributors"),
    "Data availability": ("data availability", "data availability statement"),
    "Appendix": ("appendix", "supplementary material", "supplementary materials", "supplementary information"),
}
HEADINGS = {text: section for section, texts in _HEADINGS.items() for text in texts}
DROPPED = frozenset({"References", "Acknowledgements", "Funding", "Competing interests", "Author contributions",
                     "Data availability"})
# The section labels the stance verifier knows from structured abstracts (tools.text.premise).
PREMISE_LABELS = {
    "Introduction": "background",
    "Background": "background",
    "Methods": "methods",
    "Results": "results",
    "Discussion": "conclusions",
    "Conclusion": "conclusions",
}

_NUMBERING = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[IVX]+\.|[A-H]\.)\s*")
_RUN_IN = re.compile(r"^(Abstract|ABSTRACT|Summary|SUMMARY)\s*[:.\u2014\u2013-]?\s+(?=\S)")
_PAGE_NUMBER = re.compile(r"^(?:page\s*)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?$", re.IGNORECASE)
_LETTER = re.compile(r"[^\W\d_]")


@dataclass
class FullText:
    sentences: list[str] = field(default_factory=list)
    pages: list[int] = field(default_factory=list)  # 1-based, one per sentence
    sections: list[str] = field(default_factory=list)  # "" before the first heading
    truncated: bool = False  # more than MAX_SENTENCES sentences: the rest is left out


def heading(line: str) -> tuple[str, str] | None:
    """(section, the text after the heading) when the line opens a section: "2. Methods", "RESULTS",
    "Abstract: We ..."; None for any other line."""
    text = _NUMBERING.sub("", line.strip()).strip()
    key = " ".join(text.rstrip(":.").split()).lower()
    if key in HEADINGS:
        return HEADINGS[key], ""
    run_in = _RUN_IN.match(line.strip())
    if run_in:
        return "Abstract", line.strip()[run_in.end() :]
    return None


def page_lines(pages: Sequence[str]) -> list[list[str]]:
    """The non-empty lines of each page, without page numbers and without the running headers and footers (a line
    on at least 3 pages and 60% of them, digits aside)."""
    lines = [[ln.strip() for ln in page.splitlines() if ln.strip()] for page in pages]

    def key(line: str) -> str:
        return re.sub(r"\d+", "#", line.lower())

    counts = Counter(k for page in lines for k in {key(ln) for ln in page})
    floor = max(3, 0.6 * len(pages))
    repeated = {k for k, n in counts.items() if n >= floor}
    return [[ln for ln in page if key(ln) not in repeated and not _PAGE_NUMBER.match(ln)] for page in lines]


def _join(lines: Sequence[tuple[int, str]]) -> tuple[str, list[tuple[int, int]]]:
    """One text from (page, line) pairs, and (offset, page) where each line starts. A word hyphenated at a line end
    ("supple-" + "mentation") is joined again."""
    text = ""
    starts: list[tuple[int, int]] = []
    for page, line in lines:
        if text.endswith("-") and len(text) > 1 and text[-2].isalpha() and line[:1].islower():
            text = text[:-1]
        elif text:
            text += " "
        starts.append((len(text), page))
        text += line
    return text, starts


def _blocks(pages: Sequence[str]) -> list[tuple[str, list[tuple[int, str]]]]:
    """(section, its (page, line) pairs) in reading order."""
    blocks: list[tuple[str, list[tuple[int, str]]]] = [("", [])]
    for number, lines in enumerate(page_lines(pages), start=1):
        for line in lines:
            found = heading(line)
            if found is None:
                blocks[-1][1].append((number, line))
                continue
            blocks.append((found[0], [(number, found[1])] if found[1] else []))
    if any(section == "Abstract" for section, _ in blocks):
        blocks = blocks[1:]  # the front matter before the abstract: title, authors, affiliations
    return [(section, lines) for section, lines in blocks if lines and section not in DROPPED]


def read_full_text(pages: Sequence[str]) -> FullText:
    """The sentences of a text given page by page, with their pages and sections."""
    out = FullText()
    for section, lines in _blocks(pages):
        text, starts = _join(lines)
        cursor = 0
        for sentence in split_sentences(text):
            found = text.find(sentence, cursor)
            cursor = found if found >= 0 else cursor
            if len(_LETTER.findall(sentence)) < 2:
                continue
            if len(out.sentences) >= MAX_SENTENCES:
                out.truncated = True
                return out
            out.sentences.append(sentence)
            out.pages.append(next(page for offset, page in reversed(starts) if offset <= cursor))
            out.sections.append(section)
    return out


def place(sections: Sequence[str], i: int) -> str:
    """Where sentence ``i`` of a full text sits, as the verifier reads it: the section label a structured abstract
    would give ("results") and the sentence's position within its section: "results; sentence 3 of 12"."""
    section = sections[i]
    start, end = i, i
    while start > 0 and sections[start - 1] == section:
        start -= 1
    while end + 1 < len(sections) and sections[end + 1] == section:
        end += 1
    position = f"sentence {i - start + 1} of {end - start + 1}"
    label = PREMISE_LABELS.get(section)
    return f"{label}; {position}" if label else position
