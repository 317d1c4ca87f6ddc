"""The consensus view and the source badges as the chat and the CLI show them: the one-line text, the Plotly figure
(counts and shares only) when at least two papers count, design / retraction / notice badges, and the verdict line
that says when every paper it counts is indirect evidence."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from agent.judge.consensus import tally
from agent.state import SilentSource, SourceAssessment
from ui.chat.consensus_view import FIGURE_HEIGHT, consensus_figure
from ui.chat.render import answer_markdown, early_markdown, source_detail, verdict_badge
from ui.shared.badges import badges_md, badges_plain
from ui.shared.consensus import consensus_line, consensus_of
from ui.shared.untrusted import md


def assessment(doc_id: str, label: str, weight: float, **inputs: Any) -> dict[str, Any]:
    return SourceAssessment(doc_id=doc_id, label=label, score=0.0, reputation=weight, reputation_inputs=inputs,
                            explanation="").model_dump()


def silent(doc_id: str, weight: float, **inputs: Any) -> dict[str, Any]:
    return SilentSource(doc_id=doc_id, title="<b>Silent title</b>", reputation=weight,
                        reputation_inputs=inputs).model_dump()


def src(n: int, **extra: Any) -> dict[str, Any]:
    base = {"n": n, "doc_id": str(n), "title": f"Study {n}", "sentence": "S.", "sentence_index": 0, "context": "",
            "neighbours": [], "url": None, "year": None, "stance": "supports", "label": "True", "reputation": 0.5}
    return base | extra


VERDICT = {"label": "Weakly supported", "score": 0.5, "unweighted_score": 0.5, "counted_sources": 2,
           "confidence": 0.7, "supporting": 2, "contradicting": 0, "irrelevant": 1,
           "weak_designs": ["animal", "in_vitro"]}
# 3 support, 1 contradicts, 2 no evidence (one silent); one retracted source left out
RESULT: dict[str, Any] = {
    "claim": "X causes Y.",
    "sentences": [],
    "sources": [src(1, design="in_vitro"), src(2, design="rct", retracted=True, notices=["erratum"])],
    "assessments": [assessment("1", "True", 0.3), assessment("2", "Mostly True", 0.35),
                    assessment("3", "Somewhat True", 0.5), assessment("4", "False", 0.9),
                    assessment("5", "No Evidence", 0.6), assessment("6", "True", 0.0, retracted=True)],
    "silent": [silent("7", 0.35)],
    "verdict": VERDICT,
    "notes": [],
}


def test_the_line_names_counts_and_weighted_shares():
    line = consensus_line(consensus_of(RESULT))
    # weights: support 1.15, contradict 0.9, no evidence 0.95 of 3.0
    assert line == ("Consensus over 6 papers: 3 support, 1 contradicts, 2 no evidence (weighted 38% / 30% / 32%); "
                    "1 retracted source left out (weight 0)")


def test_the_line_with_one_of_each_and_with_none():
    one = tally([SourceAssessment.model_validate(assessment("1", "True", 1.0))], [])
    assert consensus_line(one) == (
        "Consensus over 1 paper: 1 supports, 0 contradict, 0 no evidence (weighted 100% / 0% / 0%)"
    )
    assert consensus_line(consensus_of({})) == "Consensus: no source was read"
    only_retracted = consensus_of({"silent": [silent("1", 0.0, retracted=True)]})
    assert consensus_line(only_retracted) == "Consensus: no source to rest on; 1 retracted source left out (weight 0)"
    weightless = consensus_of({"silent": [silent("1", 0.0), silent("2", 0.0)]})
    assert consensus_line(weightless).endswith("2 no evidence (no weighted share: every source weighs 0)")


def test_the_figure_has_two_stacked_bars_of_counts_and_shares_only():
    fig = consensus_figure(consensus_of(RESULT))
    assert fig.layout.barmode == "stack" and fig.layout.height == FIGURE_HEIGHT
    assert fig.layout.title.text == "Consensus over 6 papers · 1 retracted source left out (weight 0)"
    assert [t.name for t in fig.data] == ["support (3)", "contradict (1)", "no evidence (2)"]
    assert all(t.orientation == "h" and list(t.y) == ["weighted", "unweighted"] for t in fig.data)
    assert [list(t.x) for t in fig.data] == [[38, 50], [30, 17], [32, 33]]
    assert [list(t.customdata) for t in fig.data] == [[3, 3], [1, 1], [2, 2]]
    assert "of 6" in fig.data[0].hovertemplate
    shown = json.dumps(fig.to_plotly_json())
    assert "Silent title" not in shown and "Study" not in shown  # no source text enters the chart


def test_badges_beside_each_source_in_the_chat():
    md_text = answer_markdown(RESULT)
    assert "**[1]** _Study 1_ · `in vitro study` · True · supports" in md_text
    assert "**[2]** _Study 2_ · ⚠️ **RETRACTED** · ⚠️ erratum · `randomised trial` · True" in md_text
    assert md_text.split("\n\n")[1] == "**Consensus** " + md(consensus_line(consensus_of(RESULT))[10:])
    assert "⚠️ **RETRACTED**" in source_detail(RESULT["sources"][1], 3)  # the panel that opens the source
    assert "`in vitro study`" in early_markdown(VERDICT, RESULT["sources"])  # and the verdict shown before it


def test_the_verdict_says_when_it_rests_only_on_weak_designs():
    weak = {"verdict": VERDICT, "assessments": [assessment("1", "True", 0.3, design="animal"),
                                                 assessment("2", "True", 0.2, design="in_vitro")]}
    assert verdict_badge(weak) == (
        "**Verdict:** Weakly supported by 1 animal study and 1 in vitro study (confidence 0.70; indirect evidence "
        "only); 1 more paper read bears on neither side."
    )
    assert "indirect" not in verdict_badge({"verdict": {**VERDICT, "weak_designs": []}})
    assert verdict_badge({"verdict": None}) == "**Verdict:** none (no evidence was assessed)"


def test_a_source_without_a_recorded_design_gets_no_design_badge():
    assert badges_md(src(1)) == "" and badges_plain(src(1)) == ""
    assert badges_md(src(1, design="<b>new</b>")) == md("<b>new</b>")  # a code this version does not know
    assert badges_plain(src(1, design="unclassified")) == "[design not stated]"


@pytest.mark.parametrize("notice", ["<img src=x onerror=alert(1)>", "[a](javascript:x)", "\x1b[2Jcleared"])
def test_a_notice_is_untrusted_text(notice: str):
    assert badges_md(src(1, notices=[notice])) == f"⚠️ {md(notice)}"
    assert "\x1b" not in badges_plain(src(1, notices=[notice]))


def test_the_cli_prints_the_line_after_the_verdict_and_badges_beside_sources(capsys: pytest.CaptureFixture[str]):
    from ui.terminal.readable import print_readable

    print_readable({**RESULT, "corrections": [], "timings": {"total": 1.0},
                    "llm": {"calls": 1, "prompt_tokens": 1, "completion_tokens": 1}})
    lines = capsys.readouterr().out.splitlines()
    verdict = next(i for i, line in enumerate(lines) if line.startswith("Verdict: Weakly supported by "))
    assert "indirect evidence only" in lines[verdict]
    assert lines[verdict + 1] == consensus_line(consensus_of(RESULT))
    assert "  [1] Study 1 [in vitro study] — True · supports" in lines
    assert "  [2] Study 2 [RETRACTED] [erratum] [randomised trial] — True · supports" in lines


def test_the_chat_chart_has_no_mode_bar_and_none_is_made_without_sources():
    from chainlit.context import init_http_context

    from ui.chat.views import CHART, consensus_chart

    async def in_a_chat(result: dict[str, Any]) -> list[Any]:  # an element belongs to a chat's context
        init_http_context()
        return consensus_chart(result)

    charts = asyncio.run(in_a_chat(RESULT))  # answer_message attaches it to the answer
    assert len(charts) == 1 and charts[0].display == "inline" and charts[0].name == CHART
    figure = json.loads(charts[0].content)
    assert figure["config"]["displayModeBar"] is False and len(figure["data"]) == 3
    assert figure["layout"]["title"]["text"].startswith("Consensus over 6 papers")
    assert asyncio.run(in_a_chat({**RESULT, "assessments": [], "silent": []})) == []


def test_no_chart_and_no_consensus_line_unless_two_papers_count(capsys: pytest.CaptureFixture[str]):
    """With fewer than two papers counted, the two bars would only repeat the verdict's sentence: the chat and the
    terminal show that sentence alone."""
    from chainlit.context import init_http_context

    from ui.chat.views import consensus_chart
    from ui.terminal.readable import print_readable

    async def in_a_chat(result: dict[str, Any]) -> list[Any]:
        init_http_context()
        return consensus_chart(result)

    none_count = {**RESULT, "assessments": [assessment("5", "No Evidence", 0.6)],
                  "verdict": {**VERDICT, "label": "Not enough evidence", "supporting": 0, "counted_sources": 0,
                              "irrelevant": 2, "weak_designs": []}}  # fmt: skip
    one_counts = {**RESULT, "assessments": [assessment("4", "False", 0.9, design="cohort")],
                  "verdict": {**VERDICT, "label": "Generally refuted", "supporting": 0, "contradicting": 1,
                              "counted_sources": 1, "weak_designs": []}}  # fmt: skip
    for result in (none_count, one_counts):
        assert asyncio.run(in_a_chat(result)) == []
        assert "Consensus" not in answer_markdown(result)
        print_readable({**result, "corrections": [], "timings": {"total": 1.0},
                        "llm": {"calls": 1, "prompt_tokens": 1, "completion_tokens": 1}})
        assert "Consensus" not in capsys.readouterr().out
    assert answer_markdown(one_counts).startswith(
        "**Verdict:** Refuted by 1 cohort study (confidence 0.70); 1 more paper read bears on neither side."
    )
    assert answer_markdown(none_count).startswith(
        "**Verdict:** Not enough evidence: none of the 2 papers read states a finding for or against the claim."
    )
