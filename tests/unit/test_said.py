"""The reasons the judge and the answer's checks write in English (tools.text.i18n.written) are said again in the
view's language (``said``): each template read back out of its English with its values, nested phrases and joined
clauses included; what no template wrote stays as it is."""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest

from agent.answer.compose import QUOTE_FRAMES
from agent.judge.aside import below_the_gate, unread_reading
from agent.judge.reader import Reading, aside_reason, reader_note, unsure_reason
from agent.judge.sources import SENTENCE_READS, no_finding_reason
from agent.state import SourceAssessment
from tools.text.i18n import catalog, said, speaking, written
from tools.text.language import ENGLISH, LANGUAGES
from ui.chat.render import read_not_counted, sentence_line
from ui.chat.uncounted import silent_detail
from ui.shared.untrusted import md

REPO = Path(__file__).resolve().parents[2]
LANGS = sorted(code for code in LANGUAGES if code != ENGLISH)


def written_templates() -> set[str]:
    """Every template the code writes a result's sentence from: the literal first arguments of written()."""
    found: set[str] = set()
    for folder in ("agent", "tools"):
        for path in (REPO / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "written":
                    first = node.args[0] if node.args else None
                    if isinstance(first, ast.Constant) and isinstance(first.value, str):
                        found.add(first.value)
    return found | set(SENTENCE_READS.values()) | set(QUOTE_FRAMES.values())


def test_a_reason_with_values_reads_back_in_german() -> None:
    reason = below_the_gate(0.3, 0.35)
    assert reason.startswith("Not counted, but close: the LLM cannot tell")
    with speaking("de"):
        assert said(reason) == (
            "Nicht gezählt, aber knapp: Das LLM kann nicht sagen, ob die gelesenen Sätze einen Befund zur Behauptung "
            "berichten (mit 30 % Wahrscheinlichkeit ein Befund zur Behauptung; Arbeiten zählen ab 35 %). Lesenswert."
        )
    assert said(reason) == reason  # an English view shows what was written


def test_nested_phrases_and_joined_sentences_are_said_too() -> None:
    a = SourceAssessment(doc_id="1", label="Mostly True", score=0.6, reputation=1.0, explanation="", bearing=0.5)
    why = written("it was unavailable")
    unread = unread_reading(a, _NeverStandsIn(), "A title", why)
    reading = Reading(0.7, 0.2, 0.1)
    explanation = no_finding_reason(0.4) + reader_note(reading, bears=False)
    unsure = unsure_reason(reading)
    with speaking("de"):
        assert said(unread.reason) == (  # type: ignore[union-attr]
            "Nicht vom LLM gelesen: es war nicht erreichbar. Dem Verifizierer allein wird das Zählen nicht zugetraut "
            "(er sieht die Arbeit auf der Seite der Behauptung, mit 50 % Wahrscheinlichkeit ein Befund zur Behauptung)."
        )
        german = said(explanation)
        assert german.startswith("Der Verifizierer findet keinen Satz") and german.endswith(
            "Der Abstract-Leser war unsicher (90 % sicher, dass sie einen Befund zur Behauptung berichtet).")
        assert said(unsure).startswith("Nicht gezählt, aber lesenswert: Der Abstract-Leser ist unsicher (er neigt zur "
                                       "Stützung der Behauptung, 78 % sicher")
        clauses = said("repeats [2], not what it cites; removed citation(s) to non-existent source(s) [5]")
        assert clauses == ("wiederholt [2], nicht die zitierte Quelle; "
                           "Zitat(e) nicht vorhandener Quelle(n) entfernt: [5]")
    with speaking("fr"):  # French sets a narrow no-break space before the semicolon
        assert "\u202f; " in said("repeats [2], not what it cites; removed citation(s) to non-existent source(s) [5]")


def test_what_no_template_wrote_stays_as_it_is() -> None:
    with speaking("fr"):
        for text in ("Connection refused by the server.", "Fever fell in 3 papers", "states nothing?", ""):
            assert said(text) == text
        assert said(aside_reason(Reading(0.05, 0.05, 0.9))).startswith("Non compt")  # but a template still is


class _NeverStandsIn:
    """A calibration whose verifier never stands in for the LLM."""

    verifier_stands_in = False

    def verifier_passes(self, bearing: float) -> bool:
        return False


@pytest.mark.parametrize("language", LANGS)
def test_every_written_template_reads_back_with_its_values(language: str) -> None:
    templates = written_templates()
    assert len(templates) > 40  # the scan finds the judge's and the checks' reasons
    kept = catalog(language)
    for template in sorted(templates):
        fields = sorted({f for _, f, _, _ in string.Formatter().parse(template) if f})
        values = {f: f"«value {k}»" for k, f in enumerate(fields)}
        english_text = template.format(**values)
        with speaking(language):
            assert said(english_text) == kept[template].format(**values), template


def test_the_chat_lists_reasons_in_german_and_keeps_a_quote_as_written() -> None:
    silent = [{"doc_id": "3", "title": "Cohort *study*", "reputation": 1.0, "reason": below_the_gate(0.05, 0.35)}]
    flagged = {"text": "Aspirin lowers fever.", "citations": [1], "status": "unsupported", "flagged": True,
               "score": 0.12, "reason": written("drops the negation of its source (“{words}”)", words="did not lower")}
    with speaking("de"):
        listed = read_not_counted(silent)
        panel = silent_detail(1, silent[0], None)
        line = sentence_line(1, flagged)
    assert md("Nicht gezählt: Das LLM liest in den gelesenen Sätzen keinen Befund") in listed
    assert "Not counted" not in listed and "Not counted" not in panel
    assert "_Gelesen, nicht gezählt:_ " + md("Nicht gezählt: Das LLM liest") in panel
    assert "Der Index enthält den Text dieser Arbeit nicht mehr." in panel
    assert md("lässt die Verneinung der Quelle weg („did not lower“)") in line and "drops the negation" not in line


def test_a_note_is_said_in_the_view_language_without_its_node_or_setting() -> None:
    from agent.nodes.judge_sources import reading_notes
    from ui.shared.notes import note_text

    class Calibration:
        verifier_stands_in = False

    notes = reading_notes(Calibration(), 15.0, "", 2, [])  # type: ignore[arg-type]
    assert notes == ["judge_sources: the LLM's time for reading direction (DIRECTION_SECONDS=15) ran out while other "
                     "checks waited; 2 source(s) are listed as not read, not counted"]
    assert note_text(notes[0]) == ("The LLM's time for reading direction ran out while other checks waited; "
                                   "2 source(s) are listed as not read, not counted")
    for language in LANGS:
        with speaking(language):
            shown, kept = note_text(notes[0]), note_text(notes[0], settings=True)
        assert "DIRECTION_SECONDS" not in shown and "(DIRECTION_SECONDS=15)" in kept, language
        assert "ran out" not in shown and "not counted" not in shown and shown[0].isupper() and "2" in shown, language
    with speaking("de"):  # a step outside the graph loses its name too, before the rest is said
        assert note_text("supplement: 1 paper(s) had their generated summary dropped: their abstract does not support "
                         "it").startswith("Bei 1 Arbeit(en) wurde die generierte Zusammenfassung verworfen")


def test_a_quoting_sentence_is_framed_in_the_view_language_and_quotes_the_paper() -> None:
    from agent.answer.compose import extractive_sentence
    from agent.state import Evidence
    from ui.shared.answer_sentence import shown_sentence

    ev = Evidence(n=2, doc_id="9", title="T", sentence="RESULTS: Fever fell in 3 days.", sentence_index=1, year=2019)
    quoting = extractive_sentence(ev).model_dump()
    assert quoting["text"] == 'A 2019 study reports: "Fever fell in 3 days."'
    written_by_llm = {"text": "A study reports that fever fell.", "citations": [2]}
    with speaking("de"):
        assert shown_sentence(quoting) == "Eine Studie von 2019 berichtet: „Fever fell in 3 days.“"
        assert shown_sentence(written_by_llm) == "A study reports that fever fell."  # only a quote's frame is said
        assert shown_sentence({**quoting, "translation": "Übersetzt."}) == "Übersetzt."
    assert shown_sentence(quoting) == quoting["text"]


def test_the_llms_failure_quoted_in_a_note_is_said_too() -> None:
    from agent.llm.calls import refusal
    from ui.shared.notes import note_text

    timeout = written("the LLM did not answer in time (LLM_TIMEOUT)")
    note = "reformulate: " + written("{error}: no second search round", error=timeout)
    unreachable = "reformulate: " + written("{error}: no second search round", error=written(
        "the LLM is unreachable ({cause})", cause="Connection refused"))
    assert note == "reformulate: the LLM did not answer in time (LLM_TIMEOUT): no second search round"
    with speaking("de"):
        assert note_text(note) == "Das LLM hat nicht rechtzeitig geantwortet: keine zweite Suchrunde"
        assert note_text(unreachable) == "Das LLM ist nicht erreichbar (Connection refused): keine zweite Suchrunde"
        assert said(refusal(503)) == "der LLM-Server ist ausgefallen (HTTP 503)"  # the server's own words
    with speaking("fr"):
        assert note_text(note, settings=True).startswith("Le LLM n'a pas répondu à temps (LLM_TIMEOUT)")
