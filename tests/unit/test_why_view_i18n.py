"""The "why?" reply in the chat's language (ui/chat/why_view.py, tools.text.i18n): its headers, sentences, grade
labels, numbers, weight words, side words and removal marks speak the view's language; the graph's English sentences
and the sources' titles show as they are, through ``md``; English reads exactly as it always has, and a reply that
carries only the words of a weight or a side still shows them."""

from __future__ import annotations

from typing import Any

import pytest

from agent.judge.reckoning import reckoning
from agent.provenance import RunInfo
from agent.result import CheckResult, Source
from agent.state import SilentSource, SourceAssessment, Verdict
from tools.text.i18n import said, signed, speaking
from ui.chat.why_view import removed, why_markdown
from ui.shared.untrusted import md

INPUTS = {"source": "openalex", "design": "animal", "design_basis": "text", "design_factor": 0.35,
          "citation_count": 12, "venue": "Annals | *x*", "venue_citedness": 2.1, "year": 2019}
LANGS = ["de", "es", "fr", "pt"]
STRUCTURED = ("reputation_inputs", "p_claim", "judged_by")


def assessment(doc_id: str, label: str, score: float, weight: float, **extra: Any) -> SourceAssessment:
    return SourceAssessment(doc_id=doc_id, label=label, score=score, reputation=weight, explanation="LLM *says* so",
                            **extra)


def checked() -> CheckResult:
    """Two papers counted (one read by the LLM, one by the verifier alone; the first since removed), one retracted,
    one the LLM cannot place, one read with no finding (since removed)."""
    return CheckResult(
        claim="X causes Y.",
        sources=[Source(n=n, doc_id=f"d{n}", title=title, sentence=f"Sentence {n}.", sentence_index=n)
                 for n, title in [(1, "Mice <b>study</b> | *x*"), (2, "Cohort"), (3, "Gone")]],
        assessments=[
            assessment("d1", "Mostly False", -0.66, 0.8312, reputation_inputs=INPUTS, p_claim=0.03,
                       stance_confidence=0.971, judged_by="verifier+llm"),
            assessment("d2", "Somewhat True", 0.33, 0.5, stance_confidence=0.7,
                       reputation_inputs={"design": "cohort", "design_factor": 0.7, "citation_count": 1}),
            assessment("d3", "False", -1.0, 0.0, reputation_inputs={"retracted": True}),
            assessment("d4", "No Evidence", 0.0, 0.4, p_claim=0.52, stance_confidence=0.52, judged_by="reader"),
        ],
        silent=[SilentSource(doc_id="d5", title="Silent _one_", reputation=0.4)],
        verdict=Verdict(label="Weakly refuted", score=-0.4521, unweighted_score=-0.2, counted_sources=2,
                        confidence=0.61, contradicting=1),
        run=RunInfo(settings={"judge": {"min_confidence": 0.5}}),
    )


def reply() -> dict[str, Any]:
    return reckoning(checked(), 0.5, {"d1": "2026-11-27", "d5": "2026-11-28"})


def words_only(why: dict[str, Any]) -> dict[str, Any]:
    """The reply without the figures behind its weight and side words: only their English words."""
    def strip(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in r.items() if k not in STRUCTURED} for r in rows]

    return {**why, "counted": strip(why["counted"]), "not_counted": strip(why["not_counted"])}


# the English view of this reply, word for word
ENGLISH = "\n".join([
    r"**How the verdict was reached**",
    "",
    r"Weakly refuted by 1 animal study \(confidence 0\.61\)\; 1 paper with a finding is retracted and "
    r"does not count\.",
    "",
    r"| paper | label | grade | stance confidence | weight | weight from | direction |",
    r"|---|---|---:|---:|---:|---|---|",
    r"| [1] Mice \<b\>study\<\/b\> \| \*x\* _(removed from the library on 2026\-11\-27)_ | Mostly "
    r"False | -0.66 | 0.97 | 0.83 | animal study ×0\.35\, 12 citations\, venue citedness 2\.1 of "
    r"Annals \| \*x\*\, 2019\, via openalex | the LLM is 97\% sure it supports the opposite |",
    r"| [2] Cohort | Somewhat True | +0.33 | 0.70 | 0.50 | cohort study ×0\.7\, 1 citation | read by "
    r"the verifier alone |",
    "",
    r"Weighted grade of the papers counted\: \(\-0\.66×0\.83 \+ \+0\.33×0\.50\) \/ 1\.33 \= \-0\.45\. Papers on "
    r"one side only\: “Generally …” at ±0\.66 or beyond\, else “Weakly …”\. Papers on both sides\: “Generally "
    r"…” beyond ±0\.66\, “Disputed but leaning …” between ±0\.33 and ±0\.66\, else “Generally "
    r"controversial”\.",
    "",
    r"Confidence 0\.61 against the threshold 0\.50\: at or above it\, so the verdict is “Weakly "
    r"refuted” rather than “Cannot decide”\.",
    "",
    r"_What would change it:_ A paper on the other side would make it disputed\; the confidence "
    r"falling below 0\.50 would make it “Cannot decide”\.",
    "",
    r"**Read but not counted**",
    r"- [3] Gone: its weight is 0 \(retracted\)",
    r"- – d4: the LLM cannot tell which way it points\: it is only 52\% sure it supports the claim",
    r"- – Silent \_one\_ _(removed from the library on 2026\-11\-28)_: no sentence bears on the claim",
    "",
    r"_A paper removed from the library since keeps its place: the verdict was reached with it._",
])


def test_english_reads_exactly_as_before_with_or_without_the_figures():
    why = reply()
    assert all(set(STRUCTURED) <= set(r) for r in why["counted"])
    assert why_markdown(why) == ENGLISH
    assert why_markdown(words_only(why)) == ENGLISH
    with speaking("en"):
        assert why_markdown(why) == ENGLISH


def test_german_headers_sentences_labels_and_decimal_commas():
    why = reply()
    with speaking("de"):
        shown = why_markdown(why)
    lines = shown.splitlines()
    assert lines[0] == "**Wie das Urteil zustande kam**"
    assert ("| Arbeit | Einstufung | Stufenwert | Haltungskonfidenz | Gewicht | Grundlagen des Gewichts | Richtung |"
            in lines)
    first = next(line for line in lines if line.startswith("| [1] "))
    assert "_(am 2026\\-11\\-27 aus der Bibliothek entfernt)_" in first
    assert "| Überwiegend falsch | -0,66 | 0,97 | 0,83 | " in first
    weight = "Tierstudie ×0,35, 12 Zitationen, Zitierrate 2,1 des Publikationsorts Annals | *x*, 2019, über openalex"
    assert md(weight) in first
    assert f"| {md('das LLM ist zu 97 % sicher: stützt das Gegenteil')} |" in first
    second = next(line for line in lines if line.startswith("| [2] "))
    assert "| Eher wahr | +0,33 | 0,70 | 0,50 | " in second and md("Kohortenstudie ×0,7, 1 Zitation") in second
    assert lines[2] == md("Schwach widerlegt durch 1 Tierstudie (Konfidenz 0,61); 1 Arbeit mit einem Befund ist "
                          "zurückgezogen und zählt nicht.")
    assert md("Gewichteter Wert der gezählten Arbeiten: (-0,66×0,83 + +0,33×0,50) / 1,33 = -0,45. Arbeiten auf nur "
              "einer Seite:") in shown
    assert md("Konfidenz 0,61 gegenüber dem Schwellenwert 0,50: auf oder über ihm, also lautet das Urteil „Schwach "
              "widerlegt“ statt „Keine Entscheidung möglich“.") in lines
    assert "_Was das Urteil ändern würde:_ " + md(
        "Eine Arbeit auf der anderen Seite würde es strittig machen; fiele die Konfidenz unter 0,50, lautete es "
        "„Keine Entscheidung möglich“.") in lines
    assert "**Gelesen, aber nicht gezählt**" in lines
    gone = md("am 2026-11-28 aus der Bibliothek entfernt")
    assert why["not_counted"][2]["why"] == "no sentence bears on the claim"  # written in English, said in German
    assert f"- – {md('Silent _one_')} _({gone})_: {md('kein Satz betrifft die Behauptung')}" in lines
    assert lines[-1] == (
        "_Eine seither aus der Bibliothek entfernte Arbeit behält ihren Platz: Das Urteil wurde mit ihr gefällt._")
    for english in ("How the verdict was reached", "stance confidence", "weight from", "animal study", "the LLM is",
                    "removed from the library", "Read but not counted", "What would change it", "keeps its place",
                    "Weighted grade", "Papers on one side", "against the threshold", "Cannot decide", "disputed"):
        assert english not in shown, english


def test_source_text_stays_verbatim_and_the_graph_sentences_are_said_in_every_language():
    why = reply()
    for language in LANGS:
        with speaking(language):
            shown = why_markdown(why)
            graph = [why[k] for k in ("rule", "confidence", "change")] + [r["why"] for r in why["not_counted"]]
            said_here = {english_text: said(english_text) for english_text in graph}
        assert md(why["summaries"][language]) in shown and md(why["summary"]) not in shown, language
        for title in (r["title"] for r in why["counted"]):
            assert md(title) in shown, (language, title)
        for english_text, text in said_here.items():  # said in the view's language: the template's, with its figures
            assert text != english_text and md(english_text) not in shown and md(text) in shown, language
        assert md("Annals | *x*") in shown and "<b>" not in shown  # a venue is the data's own, escaped
        assert "0,83" in shown and "0.83 |" not in shown and "paper |" not in shown, language


def test_a_reply_with_only_the_words_of_a_weight_or_a_side_shows_those_words():
    why = words_only(reply())
    with speaking("de"):
        shown = why_markdown(why)
    first = next(line for line in shown.splitlines() if line.startswith("| [1] "))
    assert f"| {md(why['counted'][0]['weight_inputs'])} | {md(why['counted'][0]['direction'])} |" in first
    assert "| Überwiegend falsch | -0,66 | 0,97 | 0,83 | " in first  # the labels and numbers still speak German


@pytest.mark.parametrize(("x", "english", "german"), [
    (0.33, "+0.33", "+0,33"), (-0.66, "-0.66", "-0,66"), (0.0, "+0.00", "+0,00"), (-0.001, "-0.00", "-0,00"),
])
def test_a_grade_keeps_its_sign(x: float, english: str, german: str):
    assert signed(x) == english == f"{x:+.2f}"
    with speaking("de"):
        assert signed(x) == german


def test_a_removal_mark_speaks_the_view_and_a_reply_without_its_day_keeps_its_words():
    row = {"removed": "removed from the library on 2026-11-27", "removed_on": "2026-11-27"}
    with speaking("fr"):
        assert removed(row) == "retiré de la bibliothèque le 2026-11-27"
        assert removed({"removed": "removed from the library on 2026-11-27"}) == (
            "removed from the library on 2026-11-27")
    assert removed(row) == "removed from the library on 2026-11-27"
