"""The consensus chart of a check result dump (agent.judge.consensus) in the chat: a small Plotly figure, two stacked
horizontal bars, weighted and unweighted, beside the consensus line (ui.shared.consensus) that says the same in text.

The figure carries only counts, shares and fixed words: no title, sentence or other source text enters it, so
nothing untrusted is drawn. plotly is imported when a figure is made, not when the chat starts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.judge.consensus import SIDES, Consensus
from agent.paper_counts import papers
from ui.shared.consensus import retracted_note

if TYPE_CHECKING:
    from plotly import graph_objects as go

SIDE_NAMES = {"supports": "support", "contradicts": "contradict", "no_evidence": "no evidence"}
# blue, red and grey: told apart with the common colour-vision deficiencies, and every bar is labelled too
SIDE_COLOURS = {"supports": "#2c7bb6", "contradicts": "#d7191c", "no_evidence": "#bababa"}
FIGURE_HEIGHT = 180


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
    title = f"Consensus over {papers(c.sources)}"
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
