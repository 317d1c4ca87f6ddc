"""A pasted passage as text: its sentences with their character spans, the citations each carries ("[12]",
"[@smith2019]", "(Smith et al., 2019)"), and the reference list at its end.

Everything here reads the text as data: nothing in it is followed or opened."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tools.corpus import segmenter
from tools.text.citations import NUMBERED, citation_numbers

# pandoc/Markdown keys: "[@smith2019]", "[@a; @b, p. 4]"; LaTeX: "\cite{a,b}"
KEYED = re.compile(r"\[\s*(@[^\]]+)\]|\\cite[pt]?\{([^}]+)\}")
_KEY = re.compile(r"@?([\w:./-]+)")
# "(Smith, 2019)", "(Smith et al. 2019; Jones and Lee, 2020)": a surname and a year, inside parentheses
_AUTHOR_YEAR_GROUP = re.compile(r"\(([^()]*?\b(?:1[89]|20)\d\d[a-z]?[^()]*)\)")
_AUTHOR_YEAR = re.compile(
    r"([A-Z][\w'’\-]+)(?:\s+(?:et\s+al\.?|(?:and|&)\s+[A-Z][\w'’\-]+))?,?\s+((?:1[89]|20)\d\d)[a-z]?"
)
# a heading that opens the reference list: "References", "Bibliography", "Works cited" (with or without a colon)
_REFERENCES = re.compile(r"(?im)^\s*(?:#+\s*)?(references|bibliography|works cited|literature cited)\s*:?\s*")
_ENTRY = re.compile(r"(?:^|\s)\[?(\d{1,3})[\].]\s+")
_SPACE = re.compile(r"\s+")
# "hepatitis C. Sleep …", "vitamin D. The …": pysbd reads a capital letter and its full stop as an initial; after
# a lower-case word (an initial follows a capitalised surname: "Smith J.") it ends the sentence
_LETTER_END = re.compile(r"\b[a-z][a-z-]+ [A-Z]\.(?= +[A-Z][a-z])")
_LEADING = re.compile(r"^(?:\s*(?:\[[^\]]{1,80}\]|\\cite[pt]?\{[^}]*\})[\s.;,]*)+")


@dataclass(frozen=True)
class Citation:
    """One work a sentence cites: by its number in the reference list, its key, or its first author and year."""

    kind: str  # "number", "key" or "author_year"
    value: str  # "12", "smith2019", "Smith 2019"

    @property
    def label(self) -> str:
        return {"number": f"[{self.value}]", "key": f"[@{self.value}]"}.get(self.kind, f"({self.value})")


@dataclass
class Sentence:
    """One sentence of the passage: its text as written (citations included) and where it stands."""

    text: str
    start: int
    end: int
    citations: list[Citation] = field(default_factory=list)

    @property
    def bare(self) -> str:
        """The sentence without its citation markers."""
        return strip_citations(self.text)


@dataclass
class Passage:
    text: str
    sentences: list[Sentence]
    references: dict[str, str]  # reference number -> the entry's text
    body_end: int  # where the reference list begins (len(text) when there is none)


def citations(sentence: str) -> list[Citation]:
    """The works a sentence cites, in order, each once."""
    found: list[tuple[int, Citation]] = []
    for m in NUMBERED.finditer(sentence):
        found += [(m.start(), Citation("number", str(n))) for n in citation_numbers(m.group(1))]
    for m in KEYED.finditer(sentence):
        for part in re.split(r"[;,]", m.group(1) or m.group(2)):
            key = _KEY.match(part.strip())
            if key and (m.group(2) or part.strip().startswith("@")):
                found.append((m.start(), Citation("key", key.group(1).rstrip("."))))
    for m in _AUTHOR_YEAR_GROUP.finditer(sentence):
        for author, year in _AUTHOR_YEAR.findall(m.group(1)):
            found.append((m.start(), Citation("author_year", f"{author} {year}")))
    seen: dict[Citation, None] = {}
    for _, c in sorted(found, key=lambda x: x[0]):
        seen.setdefault(c, None)
    return list(seen)


def strip_citations(sentence: str) -> str:
    """The sentence without citation markers, its spacing and final punctuation tidied."""
    text = NUMBERED.sub("", sentence)
    text = KEYED.sub("", text)
    text = _AUTHOR_YEAR_GROUP.sub(lambda m: "" if _AUTHOR_YEAR.search(m.group(1)) else m.group(0), text)
    text = _SPACE.sub(" ", text).strip()
    return re.sub(r"\s+([.,;:!?])", r"\1", text)


def reference_list(text: str) -> tuple[int, dict[str, str]]:
    """Where the reference list begins and its numbered entries ({} and len(text) when the passage has none)."""
    heads = list(_REFERENCES.finditer(text))
    if not heads:
        return len(text), {}
    head = heads[-1]
    rest = text[head.end() :]
    marks = list(_ENTRY.finditer(rest))
    entries: dict[str, str] = {}
    for i, m in enumerate(marks):
        stop = marks[i + 1].start() if i + 1 < len(marks) else len(rest)
        entry = _SPACE.sub(" ", rest[m.end() : stop]).strip()
        if entry:
            entries.setdefault(m.group(1), entry)
    return head.start(), entries


def read_passage(text: str) -> Passage:
    """The passage's sentences (before its reference list) with spans and citations, and its references."""
    body_end, references = reference_list(text)
    sentences: list[Sentence] = []
    for span in segmenter(char_span=True).segment(text[:body_end]):
        raw = text[span.start : span.end]
        lead = len(raw) - len(raw.lstrip())
        stripped = raw.strip()
        if not stripped:
            continue
        start = span.start + lead
        sentences.append(Sentence(stripped, start, start + len(stripped), citations(stripped)))
    return Passage(
        text=text,
        sentences=_merge_citation_tails(_split_letter_ends(sentences, text), text),
        references=references,
        body_end=body_end,
    )


def _split_letter_ends(sentences: list[Sentence], text: str) -> list[Sentence]:
    """Each sentence cut after every `_LETTER_END`."""
    out: list[Sentence] = []
    for s in sentences:
        cuts = [s.start, *(s.start + m.end() for m in _LETTER_END.finditer(s.text)), s.end]
        for a, b in zip(cuts, cuts[1:], strict=False):
            piece = text[a:b].strip()
            start = a + text[a:b].index(piece[0])
            out.append(Sentence(piece, start, start + len(piece), citations(piece)))
    return out


def _merge_citation_tails(sentences: list[Sentence], text: str) -> list[Sentence]:
    """Citations at the start of a piece ("... safe. [1] Next") belong to the sentence before it."""
    out: list[Sentence] = []
    for s in sentences:
        lead = _LEADING.match(s.text)
        if out and lead and citations(lead.group(0)):
            prev, cut = out[-1], s.start + len(lead.group(0).rstrip())
            out[-1] = Sentence(text[prev.start : cut], prev.start, cut, citations(text[prev.start : cut]))
            rest = s.text[lead.end() :]
            if rest.strip():
                start = s.start + lead.end()
                out.append(Sentence(rest, start, s.end, citations(rest)))
        else:
            out.append(s)
    return out
