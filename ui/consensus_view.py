"""The consensus view of a check result dump (agent.consensus): one line of text (the CLI, and the chat's text for
screen readers) and a small Plotly figure for the chat, two stacked horizontal bars, weighted and unweighted.

The figure carries only counts, shares and fixed words: no title, sentence or other source text enters it, so
nothing untrusted is drawn. plotly is imported when a figure is made, so the CLI does without it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from agent.consensus import SIDES, Consensus, tally
from agent.state import SilentSource, SourceAssessment

if TYPE_CHECKING:
    from plotly import graph_objects as go

SIDE_NAMES = {"supports": "support", "contradicts": "contradict", "no_evidence": "no evidence"}
# blue, red and grey: told apart with the common colour-vision deficiencies, and every bar is labelled too
SIDE_COLOURS = {"supports": "#2c7bb6", "contradicts": "#d7191c", "no_evidence": "#bababa"}
FIGURE_HEIGHT = 180


def consensus_of(result: Mapping[str, Any]) -> Consensus:
    """The consensus of a result dump (`CheckResult.model_dump()`); a dump without assessments has no sources."""
    return tally(
        [SourceAssessment.model_validate(a) for a in result.get("assessments") or []],
        [SilentSource.model_validate(s) for s in result.get("silent") or []],
    )


def _sources(n: int) -> str:
    return f"{n} source{'' if n == 1 else 's'}"


def _count(c: Consensus) -> str:
    verbs = {"supports": ("supports", "support"), "contradicts": ("contradicts", "contradict")}
    parts = [f"{c.side(s).count} {verbs[s][c.side(s).count != 1]}" for s in ("supports", "contradicts")]
    return ", ".join([*parts, f"{c.no_evidence.count} no evidence"])


def retracted_note(c: Consensus) -> str:
    if not c.retracted:
        return ""
    return f"{c.retracted} retracted source{'' if c.retracted == 1 else 's'} left out (weight 0)"


def consensus_line(c: Consensus) -> str:
    """"Consensus over 6 sources: 3 support, 1 contradicts, 2 no evidence (weighted 58% / 25% / 17%)", with the
    retracted sources left out said after it."""
    retracted = retracted_note(c)
    if not c.sources:
        return f"Consensus: no source to rest on; {retracted}" if retracted else "Consensus: no source was read"
    if c.weight > 0:
        weighted = "weighted " + " / ".join(f"{p}%" for p in c.percentages(weighted=True))
    else:
        weighted = "no weighted share: every source weighs 0"
    line = f"Consensus over {_sources(c.sources)}: {_count(c)} ({weighted})"
    return f"{line}; {retracted}" if retracted else line


def consensus_figure(c: Consensus) -> go.Figure:
    """Two stacked horizontal bars, weighted (by reputation) above unweighted (one vote per source): one trace per
    side, each segment labelled with its share and, on hover, its count."""
    from plotly import graph_objects as go

    rows = ["weighted", "unweighted"]
    weighted, unweighted = c.percentages(weighted=True), c.percentages(weighted=False)
    fig = go.Figure()
    for i, side in enumerate(SIDES):
        count = c.side(side).count
        shares = [weighted[i], unweighted[i]]
        fig.add_trace(
            go.Bar(
                name=f"{SIDE_NAMES[side]} ({count})",
                y=rows,
                x=shares,
                orientation="h",
                marker={"color": SIDE_COLOURS[side]},
                text=[f"{p}%" if p else "" for p in shares],
                textposition="inside",
                insidetextanchor="middle",
                customdata=[count, count],
                hovertemplate=f"{SIDE_NAMES[side]}: %{{customdata}} of {c.sources} · %{{x}}%<extra>%{{y}}</extra>",
            )
        )
    title = f"Consensus over {_sources(c.sources)}"
    if c.retracted:
        title += f" · {retracted_note(c)}"
    fig.update_layout(
        title={"text": title, "font": {"size": 14}, "x": 0, "xanchor": "left"},
        barmode="stack",
        height=FIGURE_HEIGHT,
        margin={"l": 80, "r": 10, "t": 36, "b": 10},
        xaxis={"range": [0, 100], "ticksuffix": "%", "fixedrange": True, "showgrid": False},
        yaxis={"autorange": "reversed", "fixedrange": True},
        legend={"orientation": "h", "traceorder": "normal", "yanchor": "top", "y": -0.15, "x": 0},
        showlegend=True,
        # no backgrounds and a mid grey for text: readable on the chat's light and dark themes
        paper_bgcolor="rgba(0,0,0,0)",
        plot_bgcolor="rgba(0,0,0,0)",
        font={"color": "#7f7f7f"},
    )
    return fig
