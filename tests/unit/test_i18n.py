"""The fixed strings in the user's language (tools/text/i18n.py, tools/text/catalogs/): every string the code asks
for is in every catalog with the same {names}, no catalog keeps a string nobody asks for, English is the key itself,
and the verdict's sentence, the chat's view and the terminal's speak German where they are asked to."""

from __future__ import annotations

import ast
import json
import string
from pathlib import Path

import pytest

from agent.answer.compose import QUOTE_FRAMES
from agent.earlier.matches import EarlierCheck
from agent.judge import scoring
from agent.judge.sentence import DIRECTED, DISPUTED, SINGULAR, verdict_sentence
from agent.judge.sources import SENTENCE_READS
from agent.nodes.judge_sources import SIDE_READ
from agent.state import CORRECTION_ACTIONS, SourceAssessment, Verdict
from tools.documents.design import DESIGN_NAMES, DESIGN_PLURALS
from tools.text.i18n import CATALOGS, catalog, decimal, english, speaking, spoken, t, t_n
from tools.text.language import ENGLISH, LANGUAGES
from ui.chat.answer_stream import TRANSLATING, WRITING
from ui.chat.guard import TOO_MANY_TEXT
from ui.chat.launch import PLACEHOLDER
from ui.chat.notices import ReadingNotice
from ui.chat.panel import GONE
from ui.chat.render import ENGLISH_ANSWER, FLAG_LABEL, ORIGINAL, READ_BEFORE, READ_IN_BOLD
from ui.chat.views import FEEDBACK_TIPS
from ui.export.markdown import BASIS, SOURCE_COLUMNS
from ui.export.verdict_section import HOW_COMPUTED, PENDING
from ui.shared.supplement import GENERATED, NONE
from ui.shared.wording import REVISED

REPO = Path(__file__).resolve().parents[2]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def literal_keys() -> set[str]:
    """Every string literal the code passes to t() or written() (first argument) or t_n() (second and third)."""
    keys: set[str] = set()
    for folder in ("agent", "tools", "ui"):
        for path in (REPO / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                asks = isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                if asks and node.func.id in ("t", "t_n", "written"):
                    args = node.args[1:3] if node.func.id == "t_n" else node.args[:1]
                    keys |= {a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
    return keys


def named_keys() -> set[str]:
    """The strings the code asks for by name: labels, designs, stances, constants passed to t()."""
    labels = {v for k, v in vars(scoring).items() if k.isupper() and isinstance(v, str)} | set(scoring.GRADE_SCORE)
    designs = {f"{{n}} {SINGULAR[d]}" for d in SINGULAR} | {f"{{n}} {p}" for p in DESIGN_PLURALS.values()}
    return (
        labels
        | designs
        | set(DESIGN_NAMES.values())
        | {words for words, _ in DIRECTED.values()}
        | set(DISPUTED.values())
        | set(FLAG_LABEL.values())
        | {"flagged"}
        | set(REVISED.values())
        | set(FEEDBACK_TIPS.values())
        | {READ_IN_BOLD, READ_BEFORE, ORIGINAL, ENGLISH_ANSWER, GONE, GENERATED, NONE, PLACEHOLDER, TOO_MANY_TEXT}
        | {TRANSLATING, WRITING, HOW_COMPUTED}
        | set(BASIS.values()) | set(PENDING.values()) | set(SOURCE_COLUMNS)
        | {ReadingNotice.READING, ReadingNotice.CHECKING}
        | {LANGUAGES[code] for code in LANGUAGES if code != ENGLISH}
        | {"supports", "contradicts", "nei", "supported", "contradicted", "unsupported", "uncited"}
        | set(CORRECTION_ACTIONS)
        | {f"1 {a}" for a in CORRECTION_ACTIONS} | {f"{{n}} {a}" for a in CORRECTION_ACTIONS}
        | set(MONTHS)
        | set(SENTENCE_READS.values()) | set(SIDE_READ.values()) | set(QUOTE_FRAMES.values())
    )


def names(template: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(template) if field}


LANGS = sorted(code for code in LANGUAGES if code != ENGLISH)


def test_every_language_but_english_has_a_catalog_and_nothing_else_does() -> None:
    assert sorted(p.stem for p in CATALOGS.glob("*.json")) == LANGS


@pytest.mark.parametrize("language", LANGS)
def test_a_catalog_translates_every_string_asked_for_with_the_same_names(language: str) -> None:
    wanted = literal_keys() | named_keys()
    kept = json.loads((CATALOGS / f"{language}.json").read_text(encoding="utf-8"))
    assert sorted(wanted - set(kept)) == []  # missing: they would show in English
    assert sorted(set(kept) - wanted) == []  # kept for nothing
    for key, value in kept.items():
        assert isinstance(value, str) and value.strip(), key
        assert names(value) == names(key), (key, value)


def test_english_is_the_key_and_a_missing_language_falls_back_to_it() -> None:
    assert t("{n} paper", n=1) == "1 paper" and catalog(ENGLISH) == {}
    with speaking("xx"):  # not a language claimtrace speaks
        assert spoken() == ENGLISH and t_n(2, "{n} paper", "{n} papers") == "2 papers"
    with speaking("de"):
        assert t_n(1, "{n} paper", "{n} papers") == "1 Arbeit" and decimal(0.894) == "0,89"
        assert english(spoken)() == ENGLISH  # the graph's nodes speak English inside any view
        assert spoken() == "de"


def refuted_by_one_cohort() -> tuple[Verdict, list[SourceAssessment]]:
    v = Verdict(label=scoring.REFUTED, score=-0.9, unweighted_score=-0.9, confidence=0.89, contradicting=1,
                irrelevant=2, counted_sources=1)
    cohort = SourceAssessment(doc_id="7", label="False", score=-1.0, reputation=1.0, explanation="",
                              reputation_inputs={"design": "cohort"})
    return v, [cohort]


def test_the_verdict_sentence_in_each_language() -> None:
    v, sources = refuted_by_one_cohort()
    assert verdict_sentence(v, sources) == (
        "Refuted by 1 cohort study (confidence 0.89); 2 more papers read bear on neither side."
    )
    assert verdict_sentence(v, sources, language="de") == (
        "Widerlegt durch 1 Kohortenstudie (Konfidenz 0,89); 2 weitere gelesene Arbeiten stützen keine der beiden "
        "Seiten."
    )
    for language in LANGS:
        said = verdict_sentence(v, sources, language=language)
        assert "0,89" in said and "cohort study" not in said and "Refuted by" not in said, (language, said)


def test_an_earlier_check_is_described_in_the_language_spoken() -> None:
    e = EarlierCheck(check_id="c", thread_id="t", claim="Vaccines cause autism.", verdict=scoring.REFUTED,
                     papers_read=3, checked_at="2026-11-28T10:00:00+00:00", checked_by="alice", relation="same",
                     similarity=0.99, p_same=0.99, p_opposite=0.0, same_words=True)
    assert e.describe() == "Checked on 28 Nov 2026 by alice: Generally refuted (3 papers read)."
    with speaking("de"):
        assert e.describe() == "Geprüft am 28. Nov. 2026 von alice: Weitgehend widerlegt (3 Arbeiten gelesen)."
