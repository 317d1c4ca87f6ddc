"""Corpus model and loaders (SciFact jsonl with sentence-split abstracts, BEIR jsonl with plain text).

Malformed lines are reported with their line number and skipped; loading never crashes on one bad record.
"""

from __future__ import annotations

import json
import logging
import shutil
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import httpx
from pydantic import BaseModel, Field, ValidationError

from tools.files import sha256_file

log = logging.getLogger(__name__)

SCIFACT_CORPUS_SHA256 = "b8d6c89624cb2ed74dee8938effc4f5d8bd2086887880af8110d64be4ceade62"


class Origin(BaseModel):
    """Where a document that is not part of the built corpus came from, and when it entered the index
    (`claimtrace library list` shows it; `claimtrace library refresh` compares the file's sha256)."""

    added_at: str | None = None  # ISO 8601, UTC
    file: str | None = None  # the user's file it was read from (a PDF, or the reference file of its entry)
    file_sha256: str | None = None  # that file's sha256 when it was read
    query: str | None = None  # the search that fetched it from a live source


class Abstract(BaseModel):
    """One abstract, split into sentences. Source text is data, never instructions."""

    doc_id: str
    title: str
    sentences: list[str] = Field(min_length=1)
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    pmid: str | None = None
    url: str | None = None
    citation_count: int | None = None
    retracted: bool = False
    venue_citedness: float | None = None  # the venue's 2-year mean citedness (OpenAlex), when a source gives it
    source: str | None = None  # the live source it was fetched from (europepmc, pubmed, ...), "library"; None = corpus
    publication_types: list[str] = Field(default_factory=list)  # as the source names them (PubMed's vocabulary)
    mesh_terms: list[str] = Field(default_factory=list)  # MeSH descriptor names, when the source gives them
    # published notices about the paper other than a retraction: "erratum", "expression of concern"
    notices: list[str] = Field(default_factory=list)
    # A document of the user's own library (tools.documents.library) read from a full text: each sentence's page
    # (1-based) and section heading, in sentence order; empty for an abstract. Its authors, and the sha256 it is
    # deduplicated by.
    pages: list[int] = Field(default_factory=list)
    sections: list[str] = Field(default_factory=list)
    authors: list[str] = Field(default_factory=list)
    content_hash: str | None = None
    cite_key: str | None = None  # a library document's citation key in the user's reference file
    origin: Origin | None = None  # None for a document of the built corpus, or a kept record that does not say

    @property
    def text(self) -> str:
        return " ".join(self.sentences)

    def link(self) -> str | None:
        if self.url:
            return self.url
        if self.doi:
            return f"https://doi.org/{self.doi}"
        if self.pmid:
            return f"https://pubmed.ncbi.nlm.nih.gov/{self.pmid}/"
        return None


@dataclass
class LoadReport:
    path: Path
    loaded: int = 0
    problems: list[str] = field(default_factory=list)

    def add_problem(self, line_no: int, why: str) -> None:
        msg = f"{self.path.name}:{line_no}: skipped malformed line ({why})"
        self.problems.append(msg)
        log.warning(msg)


class CorpusError(RuntimeError):
    """The corpus cannot be found, fetched or read."""


@lru_cache(maxsize=2)
def segmenter(char_span: bool = False) -> Any:
    """The one sentence segmenter of abstracts, answers and passages (pysbd, English, text left as it is); with
    ``char_span`` it gives each sentence's character span."""
    import pysbd

    return pysbd.Segmenter(language="en", clean=False, char_span=char_span)


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, stripped, none empty."""
    return [s.strip() for s in segmenter().segment(text) if s.strip()]


def _parse_scifact(rec: dict) -> Abstract:
    sentences = [str(s).strip() for s in rec["abstract"] if str(s).strip()]
    return Abstract(doc_id=str(rec["doc_id"]), title=str(rec.get("title") or "").strip(), sentences=sentences)


def _parse_beir(rec: dict) -> Abstract:
    meta = rec.get("metadata") or {}
    return Abstract(
        doc_id=str(rec["_id"]),
        title=str(rec.get("title") or "").strip(),
        sentences=split_sentences(str(rec["text"])),
        year=meta.get("year"),
        doi=meta.get("doi"),
        pmid=meta.get("pmid"),
        url=meta.get("url"),
    )


def _parse_native(rec: dict) -> Abstract:
    return Abstract.model_validate(rec)


def _detect(rec: dict) -> str:
    if "abstract" in rec and "doc_id" in rec:
        return "scifact"
    if "_id" in rec and "text" in rec:
        return "beir"
    if "sentences" in rec and "doc_id" in rec:
        return "native"
    raise KeyError("neither SciFact (doc_id, abstract) nor BEIR (_id, text) fields")


_PARSERS = {"scifact": _parse_scifact, "beir": _parse_beir, "native": _parse_native}


def iter_corpus(path: Path, report: LoadReport | None = None) -> Iterator[Abstract]:
    """Yield abstracts from a SciFact, BEIR or claimtrace jsonl file, skipping malformed lines."""
    report = report or LoadReport(path)
    fmt: str | None = None
    seen: set[str] = set()
    with path.open("rb") as fh:
        for line_no, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw.decode("utf-8"))
                if not isinstance(rec, dict):
                    raise TypeError("not a JSON object")
                fmt = fmt or _detect(rec)
                abstract = _PARSERS[fmt](rec)
            except (
                UnicodeDecodeError,
                json.JSONDecodeError,
                KeyError,
                TypeError,
                ValueError,
                ValidationError,
            ) as e:
                report.add_problem(line_no, f"{type(e).__name__}: {str(e).splitlines()[0][:120]}")
                continue
            if abstract.doc_id in seen:
                report.add_problem(line_no, f"duplicate doc_id {abstract.doc_id}")
                continue
            seen.add(abstract.doc_id)
            report.loaded += 1
            yield abstract


def load_corpus(path: Path, limit: int | None = None) -> tuple[list[Abstract], LoadReport]:
    report = LoadReport(path)
    docs: list[Abstract] = []
    for doc in iter_corpus(path, report):
        docs.append(doc)
        if limit is not None and len(docs) >= limit:
            break
    if not docs:
        raise CorpusError(f"no usable abstracts in {path}")
    return docs, report


def _corpus_file_in(folder: Path) -> Path | None:
    for candidate in (folder / "corpus.jsonl", folder / "beir" / "corpus.jsonl"):
        if candidate.is_file():
            return candidate
    return None


def resolve_corpus_path(configured: Path | None, mirror: Path, download_dir: Path, url: str) -> Path:
    """Where the corpus comes from: the configured path, else the local mirror, else a one-time download."""
    if configured is not None:
        found = configured if configured.is_file() else _corpus_file_in(configured)
        if found is None:
            raise CorpusError(f"corpus not found at {configured}")
        return found
    found = _corpus_file_in(mirror)
    if found is not None:
        return found
    cached = download_dir / "scifact" / "corpus.jsonl"
    if cached.is_file() and sha256_file(cached) == SCIFACT_CORPUS_SHA256:
        return cached
    return download_scifact(url, cached)


def download_scifact(url: str, target: Path) -> Path:
    """Download the official SciFact release once; keep corpus.jsonl only if its sha256 matches."""
    target.parent.mkdir(parents=True, exist_ok=True)
    log.info("downloading SciFact from %s", url)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            archive = Path(tmp) / "data.tar.gz"
            with httpx.stream("GET", url, timeout=60, follow_redirects=True) as resp:
                resp.raise_for_status()
                with archive.open("wb") as out:
                    for chunk in resp.iter_bytes():
                        out.write(chunk)
            with tarfile.open(archive) as tar:
                member = next((m for m in tar.getmembers() if m.name.endswith("corpus.jsonl")), None)
                if member is None:
                    raise CorpusError("the SciFact archive holds no corpus.jsonl")
                src = tar.extractfile(member)
                if src is None:
                    raise CorpusError("cannot read corpus.jsonl from the SciFact archive")
                extracted = Path(tmp) / "corpus.jsonl"
                with extracted.open("wb") as out:
                    shutil.copyfileobj(src, out)
            digest = sha256_file(extracted)
            if digest != SCIFACT_CORPUS_SHA256:
                raise CorpusError(f"downloaded corpus has sha256 {digest}, expected {SCIFACT_CORPUS_SHA256}")
            shutil.move(str(extracted), target)
    except httpx.HTTPError as e:
        raise CorpusError(
            f"no local corpus and the SciFact download failed ({e}); set CORPUS_PATH to a corpus.jsonl"
        ) from e
    return target
