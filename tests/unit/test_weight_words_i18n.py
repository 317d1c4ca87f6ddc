"""A source's weight line in the user's language (agent.judge.scoring.describe_reputation, tools.text.i18n): the
words, the design's name and the numbers translate; venues, sources and notices stay the data's own; English reads
as it always has. The chat's "Verdict weight" line, its live step, the Markdown report and the removal mark of a
paper that has left the library speak the view's language too."""

from __future__ import annotations

import pytest

from agent.judge.scoring import describe_reputation, weight_in_words
from tests.unit.test_export import hostile_result
from tools.documents.design import DESIGN_NAMES
from tools.index.live_docs import removal_mark
from tools.text.i18n import speaking, t
from ui.chat.render import weight_line
from ui.chat.steps import step_markdown
from ui.export.markdown import report_markdown
from ui.shared.untrusted import md

FULL = {"source": "openalex", "design": "animal", "design_basis": "text", "design_factor": 0.35,
        "citation_count": 12, "venue": "Annals", "venue_citedness": 2.1, "year": 2019, "notices": ["erratum"]}
ENGLISH = "weight 0.83 (ERRATUM, animal study ×0.35, 12 citations, venue citedness 2.1 of Annals, 2019, via openalex)"
LANGS = ["de", "es", "fr", "pt"]


def test_english_reads_as_before_and_one_citation_is_singular():
    assert describe_reputation(0.83, FULL) == ENGLISH
    assert describe_reputation(0.83, FULL, verdict=True) == "Verdict " + ENGLISH
    assert describe_reputation(1.0, {}) == "weight 1.00 (no metadata: full weight)"
    assert describe_reputation(0.0, {"retracted": True, "design_factor": 1, "design": "rct"}) == (
        "weight 0.00 (RETRACTED, randomised trial ×1)")
    assert weight_in_words({"citation_count": 1, "venue_citedness": 12.0}) == "1 citation, venue citedness 12"
    assert weight_in_words({"citation_count": 0}) == "0 citations"


def test_german_translates_the_words_and_writes_decimal_commas():
    with speaking("de"):
        assert describe_reputation(0.83, FULL) == (
            "Gewicht 0,83 (ERRATUM, Tierstudie ×0,35, 12 Zitationen, Zitierrate 2,1 des Publikationsorts Annals, "
            "2019, über openalex)")
        assert describe_reputation(0.83, FULL, verdict=True).startswith("Gewicht im Urteil 0,83 (")
        assert describe_reputation(1.0, {}) == "Gewicht 1,00 (keine Metadaten: volles Gewicht)"
        assert describe_reputation(0.0, {"retracted": True}) == "Gewicht 0,00 (ZURÜCKGEZOGEN)"
        assert weight_in_words({"citation_count": 1, "venue_citedness": 12.0}) == (
            "1 Zitation, Zitierrate des Publikationsorts 12")


@pytest.mark.parametrize("language", LANGS)
def test_every_language_translates_the_weight_line(language: str):
    with speaking(language):
        said = describe_reputation(0.83, FULL, verdict=True)
        names = {t(name) for name in DESIGN_NAMES.values()}
    assert "0,83" in said and "×0,35" in said and "2,1" in said, said
    assert "Annals" in said and "openalex" in said and "ERRATUM" in said  # the data's own words
    for english in ("Verdict", "weight", "animal study", "venue citedness"):
        assert english not in said, (language, said)
    assert len(names) == len(DESIGN_NAMES) and not names & set(DESIGN_NAMES.values())


def test_the_chats_weight_line_and_live_step_speak_the_view():
    src = {"reputation": 0.83, "reputation_inputs": FULL}
    assert weight_line(src) == f"_{md('Verdict ' + ENGLISH)}_"
    step = {"assessments": [{"doc_id": "7", "label": "True", "stance_confidence": 0.9, "reputation": 0.83,
                             "explanation": "why"}]}
    assert "(stance confidence 0.90, verdict weight 0.83)" in step_markdown("assess", step)
    with speaking("de"):
        assert weight_line(src).startswith(f"_{md('Gewicht im Urteil 0,83 (ERRATUM, Tierstudie ×0,35')}")
        assert "(Haltungskonfidenz 0,90, Gewicht im Urteil 0,83)" in step_markdown("assess", step)


def test_the_removal_mark_and_the_report_speak_the_view():
    assert removal_mark("2026-11-27") == "removed from the library on 2026-11-27"
    with speaking("de"):
        assert removal_mark("2026-11-27") == "am 2026-11-27 aus der Bibliothek entfernt"
    result = hostile_result()  # d2 is a randomised trial with a weight
    english = report_markdown(result, {"d2": "2026-11-27"}, "en")
    german = report_markdown(result, {"d2": "2026-11-27"}, "de")
    assert "- Verdict weight 0" in english and md("Removed from the library on 2026-11-27") in english
    assert "- Gewicht im Urteil 0\\," in german and "randomisierte Studie" in german
    assert md("Am 2026-11-27 aus der Bibliothek entfernt") in german  # its nouns keep their capitals
    assert "Verdict weight" not in german and "removed from the library" not in german.lower()


def test_badges_speak_the_view_and_reference_notes_stay_english():
    from ui.export.formats import export_text
    from ui.shared.badges import badges_md, badges_plain

    src = {"retracted": True, "notices": ["erratum"], "design": "rct"}
    with speaking("de"):
        assert badges_md(src) == "⚠️ **ZURÜCKGEZOGEN** · ⚠️ erratum · `randomisierte Studie`"
        assert badges_plain(src) == "[ZURÜCKGEZOGEN] [erratum] [randomisierte Studie]"
    assert badges_plain(src) == "[RETRACTED] [erratum] [randomised trial]"
    result = hostile_result()
    gone = {result.sources[0].doc_id: "2026-11-30"}
    with speaking("de"):
        bib = export_text(result, "bib", gone)
    assert "removed from the library on 2026-11-30" in bib
    assert "entfernt" not in bib
