"""Files of a user's library that the tests make themselves: PDFs drawn with reportlab (a three-page paper with
headings, a DOI on page 1, a running header and references; a paper with neither metadata nor DOI; an encrypted
one; a blank one; random bytes named .pdf), BibTeX and RIS files with and without abstracts, and a Zotero-style
export folder."""

from __future__ import annotations

import random
from pathlib import Path

PAPER_DOI = "10.5555/bones.2019.042"
PAPER_TITLE = "Vitamin D supplementation and hip fractures in older adults"
FINDING = "Vitamin D supplementation did not reduce the incidence of hip fractures (hazard ratio 1.02)."
REFERENCE = "Smith A. Vitamin D prevents all fractures in everyone."
CROSSING = "The trial enrolled 2,400 adults aged seventy years or older, who were followed for five years."

# (page, kind, text): kind is "title", "byline", "heading" or "text"; every page also gets the running header and
# its page number
PAPER: list[tuple[int, str, str]] = [
    (1, "title", PAPER_TITLE),
    (1, "byline", "Ann Smith1, Bob J. Jones* and Carl Lee"),
    (1, "text", f"https://doi.org/{PAPER_DOI} Published online: 12 March 2019"),
    (1, "heading", "Abstract"),
    (1, "text", "Observational studies suggest that vitamin D prevents fractures. We tested this in a randomised"),
    (1, "text", "trial. Supplementation did not prevent fractures."),
    (1, "heading", "1. Introduction"),
    (1, "text", "Hip fractures are common and costly in older adults. The trial enrolled 2,400 adults aged"),
    (1, "text", "seventy years or older, who were"),
    (2, "text", "followed for five years."),
    (2, "heading", "2. Methods"),
    (2, "text", "Participants received 800 IU of vitamin D or a placebo every day for five years."),
    (2, "heading", "3. Results"),
    (2, "text", FINDING),
    (2, "text", "Falls were also unchanged between the two groups."),
    (3, "heading", "4. Discussion"),
    (3, "text", "Routine supplementation of community-dwelling older adults is not supported by this trial."),
    (3, "heading", "References"),
    (3, "text", REFERENCE),
]


def make_pdf(path: Path, lines: list[tuple[int, str, str]], *, title: str | None = None, author: str | None = None,
             header: str | None = "Journal of Bone Tests 2019; 12: 1-3", encrypt: str | None = None) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=A4, encrypt=encrypt)
    if title:
        c.setTitle(title)
    if author:
        c.setAuthor(author)
    fonts = {"title": ("Helvetica-Bold", 18), "heading": ("Helvetica-Bold", 12), "byline": ("Helvetica", 10)}
    last = max((p for p, _, _ in lines), default=1)
    for page in range(1, last + 1):
        if header:
            c.setFont("Helvetica", 8)
            c.drawString(72, 800, header)
            c.drawString(290, 30, str(page))
        y = 760
        for p, kind, text in lines:
            if p != page:
                continue
            c.setFont(*fonts.get(kind, ("Helvetica", 10)))
            c.drawString(72, y, text)
            y -= 24 if kind in ("title", "heading") else 14
        c.showPage()
    c.save()
    return path


def paper_pdf(folder: Path, name: str = "paper.pdf") -> Path:
    return make_pdf(folder / name, PAPER, title="Vitamin D and hip fractures: a trial", author="Ann Smith; Bob Jones")


def plain_pdf(folder: Path, name: str = "plain.pdf") -> Path:
    """A short paper without metadata or DOI: its title comes from the largest type on page 1."""
    lines = [
        (1, "title", "Coffee drinking and sleep quality"),
        (1, "text", "Small print from the publisher sits above the title."),
        (1, "heading", "Results"),
        (1, "text", "Drinking coffee after noon shortened sleep by forty minutes on average."),
        (2, "heading", "Conclusion"),
        (2, "text", "Coffee late in the day harms sleep."),
    ]
    return make_pdf(folder / name, lines, header=None)


def encrypted_pdf(folder: Path) -> Path:
    return make_pdf(folder / "locked.pdf", PAPER, encrypt="secret")


def blank_pdf(folder: Path) -> Path:
    """One page and no text: what a scan without a text layer reads as."""
    return make_pdf(folder / "scan.pdf", [(1, "image", "")], header=None)


def malformed_pdf(folder: Path) -> Path:
    path = folder / "broken.pdf"
    path.write_bytes(random.Random(7).randbytes(4096))
    return path


BIB = r"""
@article{walk2020,
  title = {Walking and {B}lood Pressure: a {\"O}sterreich cohort},
  author = {Weber, Anna and M{\"u}ller, Jan},
  year = {2020},
  journal = {Heart Tests},
  doi = {https://doi.org/10.5555/WALK.2020.7},
  abstract = {We followed 5,000 adults for ten years. Daily walking lowered systolic blood pressure by 4 mmHg.},
}
@article{noabstract2018,
  title = {A paper without an abstract},
  author = {Nobody, N.},
  year = {2018},
}
"""

RIS = "\n".join([
    "TY  - JOUR",
    "TI  - Green tea and memory in older adults",
    "AU  - Tanaka, Yuki",
    "PY  - 2017",
    "DO  - 10.5555/tea.2017.3",
    "T2  - Memory Tests",
    "AB  - Green tea drinkers scored higher on memory tests. The effect was small.",
    "ER  - ",
    "",
    "TY  - JOUR",
    "TI  - An entry with no abstract",
    "PY  - 2016",
    "ER  - ",
    "",
])


def reference_files(folder: Path) -> tuple[Path, Path]:
    bib, ris = folder / "refs.bib", folder / "refs.ris"
    bib.write_text(BIB, encoding="utf-8")
    ris.write_text(RIS, encoding="utf-8")
    return bib, ris


def zotero_export(folder: Path) -> Path:
    """What Zotero writes when a collection is exported with its files: Exported Items.bib and files/<n>/<name>.pdf
    named relative to the export folder (one entry's PDF is missing, so its abstract is used)."""
    export = folder / "zotero"
    (export / "files" / "12").mkdir(parents=True)
    paper_pdf(export / "files" / "12", "Smith - 2019 - Vitamin D.pdf")
    (export / "Exported Items.bib").write_text(
        r"""
@article{smith_vitamin_2019,
  title = {Vitamin {D} supplementation and hip fractures: the {ZOTERO} trial},
  author = {Smith, Ann and Jones, Bob},
  year = {2019},
  journal = {Journal of Bone Tests},
  file = {Full Text PDF:files/12/Smith - 2019 - Vitamin D.pdf:application/pdf;Snapshot:files/12/page.html:text/html},
}
@article{lost_2015,
  title = {Salt and stroke},
  year = {2015},
  abstract = {Eating less salt lowered the risk of stroke.},
  file = {Full Text PDF:files/99/gone.pdf:application/pdf},
}
""",
        encoding="utf-8",
    )
    return export


def indexed_env(data: Path) -> dict[str, str]:
    """The environment of a CLI test on its own data folder ``data``: the tiny corpus indexed there and a scripted LLM
    that reads every paper as bearing on the claim and against it, answering with one cited sentence."""
    import json
    import os

    from tests.conftest import BEARS, CHOOSE_NOT, CONTEXT_RULE, FIXTURES
    from tests.integration.test_cli import run

    script = data / "script.json"
    rules = [BEARS, CHOOSE_NOT, CONTEXT_RULE,
             {"when": "<evidence>", "reply": "The trial found no fewer hip fractures [1]."}]
    script.write_text(json.dumps(rules))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "OPENAI_", "CHROMA_", "CORPUS_"))}
    env.update({"DATA_DIR": str(data), "LLM_PROVIDER": "scripted", "LLM_SCRIPT": str(script)})
    proc = run(["index", "--corpus", str(FIXTURES / "tiny_corpus.jsonl")], env)
    assert proc.returncode == 0, proc.stderr
    return env
