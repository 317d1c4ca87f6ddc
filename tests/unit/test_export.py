"""Exports of a check (ui.export.formats): the JSON reads back as the same result, the Markdown report renders with the
structure it promises and shows hostile source text literally, and the BibTeX and RIS references read back with the
same fields."""

from __future__ import annotations

import json
from typing import Any

import bibtexparser
import pytest
import rispy
from bibtexparser.middlewares import LatexDecodingMiddleware
from markdown_it import MarkdownIt
from markdown_it.token import Token

from agent.judge.consensus import consensus
from agent.provenance import RunInfo, run_info
from agent.result import CheckResult, Source
from agent.service import run_claim
from agent.state import AnswerSentence, Correction, SilentSource, SourceAssessment, Verdict
from tests.conftest import decompose_rule, direction_rules
from ui.export.formats import FORMATS, bib_escape, bib_unescape, export_text, file_name
from ui.export.references import references
from ui.shared.consensus import consensus_line, consensus_of
from ui.shared.untrusted import md
from ui.terminal.export import FORMATS as CLI_FORMATS

HOSTILE = "Evil <script>alert(1)</script> | *bold* ](javascript:alert(1)) {braces} 50% & Café #1 a_b $5 x^2 ~ \\end"
CLAIM = "Vitamin D <b>prevents</b> fractures | *really*"


def source(n: int, doc_id: str, title: str, **extra: Any) -> Source:
    base: dict[str, Any] = {"sentence": f"Evidence sentence {n}.", "sentence_index": n, "year": 2019,
                            "stance": "contradicts", "label": "Mostly False", "reputation": 0.72,
                            "stance_confidence": 0.91}
    return Source(n=n, doc_id=doc_id, title=title, **{**base, **extra})


def hostile_result() -> CheckResult:
    return CheckResult(
        claim=CLAIM,
        queries=[CLAIM, "Does vitamin D reduce falls?"],
        answer="Vitamin D did not reduce fractures [1]. A study reports: \"x\" [3]",
        sentences=[
            AnswerSentence(text="Vitamin D did not reduce fractures.", citations=[1], status="supported",
                           flagged=False, score=0.8, reason="[1] supports this"),
            AnswerSentence(text="A study reports: \"x\"", citations=[3], status="supported", flagged=False,
                           revision="replaced", original="Vitamin D is <em>magic</em> [9]."),
        ],
        original_answer="Vitamin D did not reduce fractures [1]. Vitamin D is <em>magic</em> [9].",
        corrections=[Correction(position=2, original="Vitamin D is <em>magic</em> [9].", status="uncited",
                                reason="cites no existing source", action="replaced", text="A study reports: \"x\"")],
        sources=[
            source(1, "d1", HOSTILE, context="We <i>randomised</i> 2000 adults.", section="results; sentence 2 of 5",
                   url="javascript:alert(1)", doi="10.1000/ab_c", pmid="12345", venue="J. Bone & Mineral Res.",
                   design="rct", design_basis="text",
                   reputation_inputs={"design": "rct", "design_basis": "text", "design_factor": 0.9,
                                      "venue": "J <i>x</i>", "year": 2019}),
            source(2, "d1", HOSTILE, url="https://example.org/paper_(1)?a=1&b=2", doi="10.1000/ab_c", pmid="12345"),
            source(3, "d2", "Naïve Zürich cohort: 100% of } & more {", year=2021, retracted=True,
                   notices=["erratum"], stance="supports", label="True", reputation=0.0, pmid="777",
                   url="https://pubmed.ncbi.nlm.nih.gov/777/"),
        ],
        assessments=[SourceAssessment(doc_id="d1", label="Mostly False", score=-0.66, reputation=0.72,
                                      explanation="Sentence 1 contradicts the claim", stance_confidence=0.91)],
        silent=[SilentSource(doc_id="d9", title="Unrelated *x* <img src=x>", reputation=0.5)],
        verdict=Verdict(label="Cannot decide", leaning="Weakly refuted", score=-0.66, unweighted_score=-0.5,
                        counted_sources=1, confidence=0.4, contradicting=1, irrelevant=1, weak_designs=["animal"]),
        notes=["a note with <b>html</b>"],
        run=RunInfo(checked_at="2026-11-23T10:00:00+00:00", models={"llm": "scripted (scripted)"},
                    settings={"judge": {"min_confidence": 0.5, "weak_designs": ["animal"]}}),
    )


def test_the_cli_offers_every_format():
    assert tuple(FORMATS) == CLI_FORMATS


def test_json_reads_back_as_the_same_result_with_the_consensus():
    result = hostile_result()
    data = json.loads(export_text(result, "json"))
    assert CheckResult.model_validate(data) == result
    assert data["consensus"] == consensus(result).model_dump(mode="json")
    assert data["consensus"]["sources"] == len(result.assessments) + len(result.silent) > 0


def tokens(markdown: str) -> list[Token]:
    parser = MarkdownIt("commonmark").enable("table")
    flat: list[Token] = []
    for tok in parser.parse(markdown):
        flat.append(tok)
        flat.extend(tok.children or [])
    return flat


def test_markdown_report_structure():
    result = hostile_result()
    toks = tokens(export_text(result, "md"))
    headings = [toks[i + 1].content for i, t in enumerate(toks) if t.type == "heading_open"]
    for wanted in ("claimtrace check", "Search questions", "Verdict", "How the verdict is computed", "Sources",
                   "Answer", "Self-correction", "The answer as first written", "How it was run", "Models",
                   "Settings", "References"):
        assert wanted in headings, (wanted, headings)
    assert sum(h.startswith("Source ") for h in headings) == len(result.sources)
    assert [t.type for t in toks].count("table_open") == 1
    body = toks[[t.type for t in toks].index("tbody_open"):[t.type for t in toks].index("tbody_close")]
    assert sum(t.type == "tr_open" for t in body) == len(result.sources)
    assert sum(t.type == "td_open" for t in body) == 7 * len(result.sources)  # a `|` in a title splits no cell
    assert not [t for t in toks if t.type.startswith("html")]
    hrefs = [str(t.attrs["href"]) for t in toks if t.type == "link_open"]
    assert hrefs and all(h.startswith(("http://", "https://")) for h in hrefs)
    assert not any("javascript" in h for h in hrefs)


def test_markdown_report_lists_the_papers_read_when_none_counts():
    """A check where no paper counts still says which papers were read and why each does not count."""
    result = hostile_result().model_copy(
        update={
            "sources": [],
            "assessments": [],
            "silent": [SilentSource(doc_id="d9", title="Statins and cancer", reputation=0.6,
                                    reason="Not counted: the LLM reads no finding on the claim")],
        }
    )
    text = export_text(result, "md")
    assert "No source bears on the claim." in text
    headings = [t for t in tokens(text) if t.type == "inline"]
    assert any(h.content == "Read, not counted" for h in headings)
    assert "Statins and cancer (weight 0.60): Not counted" in text and "the LLM reads no finding on the claim" in text


def test_markdown_report_shows_untrusted_text_literally():
    result = hostile_result()
    markdown = export_text(result, "md")
    text = "".join(t.content for t in tokens(markdown) if t.type == "text")
    for literal in (HOSTILE, CLAIM, "We <i>randomised</i> 2000 adults.", "Unrelated *x* <img src=x>",
                    "note with <b>html</b>", "Vitamin D is <em>magic</em> [9]."):  # a note starts with a capital
        assert literal in text, literal
    html = MarkdownIt("commonmark").enable("table").render(markdown)
    assert "<script>" not in html and "<img" not in html and "&lt;script&gt;" in html


def test_markdown_report_says_how_the_verdict_was_computed():
    markdown = export_text(hostile_result(), "md")
    for part in ("Weighted score: -0.66; unweighted score: -0.50",
                 "Papers counted: 1 (0 papers support the claim and 1 contradicts it; 1 more bears on neither side)",
                 "Confidence: 0.40; below 0.50 the verdict is “Cannot decide”",
                 "leaning Weakly refuted", "weak study design: animal study", "**RETRACTED**", "erratum",
                 "randomised trial (from its abstract's words)", "contradicts (0.91)", "Mostly False",
                 "design\\_factor 0\\.9",
                 "**replaced**", "scripted \\(scripted\\)", "min\\_confidence 0\\.5"):
        assert part in markdown, part


def test_one_reference_per_abstract_with_stable_unique_keys():
    result = hostile_result()
    twin = result.model_copy(update={"sources": [*result.sources, source(4, "d3", HOSTILE)]})
    refs = references(twin.sources)
    assert [r.doc_id for r in refs] == ["d1", "d2", "d3"]
    assert refs[0].evidence == (1, 2) and refs[0].url == "https://example.org/paper_(1)?a=1&b=2"  # http(s) only
    assert [r.key for r in refs] == ["evil2019", "naive2021", "evil2019b"]
    assert export_text(twin, "bib") == export_text(twin, "bib")


def test_bibtex_reads_back_with_the_same_fields():
    result = hostile_result()
    library = bibtexparser.parse_string(export_text(result, "bib"))
    assert not library.failed_blocks
    entries = {e.key: e for e in library.entries}
    assert set(entries) == {"evil2019", "naive2021"} and all(e.entry_type == "article" for e in entries.values())
    first = entries["evil2019"]
    assert bib_unescape(first["title"]) == HOSTILE
    assert (first["year"], bib_unescape(first["journal"]), first["doi"], first["pmid"]) == (
        "2019", "J. Bone & Mineral Res.", "10.1000/ab_c", "12345")
    assert first["url"] == "https://example.org/paper_(1)?a=1&b=2"
    second = entries["naive2021"]
    assert bib_unescape(second["title"]) == "Naïve Zürich cohort: 100% of } & more {"
    assert "RETRACTED" in second["note"] and "doi" not in second.fields_dict


def test_bibtex_escapes_read_as_the_text_by_a_latex_reader():
    title = "Naïve 50% & #1 Ångström"
    lib = bibtexparser.parse_string(f"@article{{k, title = {{{bib_escape(title)}}}}}",
                                    append_middleware=[LatexDecodingMiddleware()])
    assert lib.entries[0]["title"] == title
    assert bib_unescape(bib_escape(HOSTILE)) == HOSTILE
    assert bib_escape("{").count("{") == bib_escape("{").count("}")  # balanced: BibTeX counts braces


def test_ris_reads_back_with_the_same_fields():
    records = rispy.loads(export_text(hostile_result(), "ris"))
    assert len(records) == 2
    first, second = records
    assert first["type_of_reference"] == "JOUR" and first["id"] == "evil2019"
    assert (first["title"], first["year"], first["journal_name"], first["secondary_title"]) == (
        HOSTILE, "2019", "J. Bone & Mineral Res.", "J. Bone & Mineral Res.")
    assert (first["doi"], first["accession_number"], first["urls"]) == (
        "10.1000/ab_c", "12345", ["https://example.org/paper_(1)?a=1&b=2"])
    assert second["title"] == "Naïve Zürich cohort: 100% of } & more {" and second["accession_number"] == "777"
    assert not export_text(hostile_result(), "ris").startswith("1.")


def test_a_line_break_in_a_title_cannot_start_a_record():
    result = hostile_result()
    broken = result.model_copy(update={"sources": [source(1, "d1", "Title\nER  - \nTY  - JOUR\nTI  - forged")]})
    records = rispy.loads(export_text(broken, "ris"))
    assert len(records) == 1 and "forged" in records[0]["title"]
    assert len(bibtexparser.parse_string(export_text(broken, "bib")).entries) == 1


def test_file_names_and_unknown_formats():
    result = hostile_result()
    assert file_name(result, "bib") == "claimtrace-vitamin-d-b-prevents-b-fractures-2026-11-23.bib"
    with pytest.raises(ValueError, match="unknown export format"):
        export_text(result, "pdf")


def test_export_of_a_real_check(make_deps):
    deps = make_deps(
        [decompose_rule([], "The MMR vaccine does not cause autism."),
         *direction_rules("The MMR vaccine causes autism.", supports=False),
         {"when": "<evidence>", "reply": "Large studies found no link between MMR and autism [1]."}],
        verifier_rules={"not associated": "contradicts", "no relationship": "contradicts"},
    )
    result = CheckResult.from_state(run_claim("The MMR vaccine causes autism.", deps), run_info(deps.settings,
                                                                                                deps.llm))
    assert result.sources
    text = "".join(t.content for t in tokens(export_text(result, "md")) if t.type == "text")
    assert result.claim in text and all(s.title in text for s in result.sources)
    assert CheckResult.model_validate_json(export_text(result, "json")) == result
    assert len(bibtexparser.parse_string(export_text(result, "bib")).entries) == len({s.doc_id for s in
                                                                                     result.sources})


def test_the_report_says_the_consensus_under_the_verdict():
    result = hostile_result()
    report = export_text(result, "md")
    verdict = report.split("## Verdict", 1)[1].split("### How the verdict is computed", 1)[0]
    assert f"- {consensus_line(consensus(result))}" in verdict and "Consensus over" in verdict


def test_markdown_report_says_the_llms_reading_and_the_notes_in_words():
    """A source the LLM read says which statement it supports and how sure the LLM is, in words, and a note has no
    pipeline node's name in front; the JSON keeps the figures and the notes as written."""
    result = hostile_result()
    read = result.sources[0].model_copy(update={"p_claim": 0.03, "stance_confidence": 0.97})
    result = result.model_copy(update={"sources": [read, *result.sources[1:]],
                                       "notes": ["judge_sources: 2 source(s) read do not count: not about the claim"]})
    markdown = export_text(result, "md")
    assert "| contradicts: 97% sure it supports the opposite |" in markdown
    assert "- Stance: contradicts: 97% sure it supports the opposite; label: Mostly False" in markdown
    assert "P(claim)" not in markdown and "direction:" not in markdown
    assert f"- {md('2 source(s) read do not count: not about the claim')}" in markdown
    data = json.loads(export_text(result, "json"))
    assert data["sources"][0]["p_claim"] == 0.03 and data["notes"] == result.notes


def test_the_report_speaks_the_language_the_claim_came_in_whatever_the_chat_speaks():
    """An English check's report is English even from a chat that speaks German; a German check's report has German
    fixed words, the user's words beside the claim as checked, and the papers' and the answer's English as kept;
    `claimtrace export --lang en` (``language``) asks for English."""
    from tools.text.i18n import speaking

    english = export_text(hostile_result(), "md")
    with speaking("de"):
        assert export_text(hostile_result(), "md") == english
        assert consensus_line(consensus_of(hostile_result().model_dump())).startswith("Konsens")  # speaks German
    assert "Cannot decide" in english and "Keine Entscheidung" not in english

    sentences = [hostile_result().sentences[0].model_copy(update={"translation": "Vitamin D senkte keine Brüche."}),
                 hostile_result().sentences[1]]
    german = hostile_result().model_copy(update={"language": "de", "asked": "Vitamin D verhindert Brüche.",
                                                 "sentences": sentences})
    report = export_text(german, "md")
    for heading in ("# claimtrace-Prüfung", "## Urteil", "## Quellen", "## Antwort", "## Literatur"):
        assert f"\n{heading}\n" in f"\n{report}"
    assert "## Sources" not in report and "## Verdict" not in report
    assert f"**Behauptung:** {md(CLAIM)}" in report  # the claim as checked, in English
    assert f"**Wie gefragt (Deutsch):** {md('Vitamin D verhindert Brüche.')}" in report
    assert "**Keine Entscheidung möglich**, Tendenz Schwach widerlegt" in report and "Konfidenz: 0,40" in report
    assert f"1. {md('Vitamin D did not reduce fractures.')} [1] — **" in report  # the sentence that was checked
    assert f"   - Vom LLM nach der Prüfung übersetzt: {md('Vitamin D senkte keine Brüche.')}" in report
    assert "| Quelle | Titel | Jahr | Haltung (Konfidenz) | Einstufung | Gewicht | Studiendesign |" in report
    assert export_text(german, "md", language="en").startswith("# claimtrace check\n")
