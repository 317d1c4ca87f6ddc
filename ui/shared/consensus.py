"""The consensus line of a check result dump (agent.judge.consensus): "Consensus over 6 sources: 3 support, 1
contradicts, 2 no evidence (weighted 58% / 25% / 17%)". When at least two papers count (``charted``) the terminal
prints it and the chat shows it (and its text for screen readers) beside the chart (ui.chat.consensus_view); the
Markdown report always quotes it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent.judge.consensus import Consensus, tally
from agent.paper_counts import papers
from agent.state import SilentSource, SourceAssessment


def consensus_of(result: Mapping[str, Any]) -> Consensus:
    """The consensus of a result dump (`CheckResult.model_dump()`); a dump without assessments has no sources."""
    return tally(
        [SourceAssessment.model_validate(a) for a in result.get("assessments") or []],
        [SilentSource.model_validate(s) for s in result.get("silent") or []],
    )


def _count(c: Consensus) -> str:
    verbs = {"supports": ("supports", "support"), "contradicts": ("contradicts", "contradict")}
    parts = [f"{c.side(s).count} {verbs[s][c.side(s).count != 1]}" for s in ("supports", "contradicts")]
    return ", ".join([*parts, f"{c.no_evidence.count} no evidence"])


def retracted_note(c: Consensus) -> str:
    if not c.retracted:
        return ""
    return f"{c.retracted} retracted source{'' if c.retracted == 1 else 's'} left out (weight 0)"


def charted(c: Consensus) -> bool:
    """Whether the consensus says more than the verdict's sentence: at least two papers count (support or
    contradict). The chat draws the chart, and the chat and the terminal show the consensus line, only then."""
    return c.supports.count + c.contradicts.count >= 2


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
    line = f"Consensus over {papers(c.sources)}: {_count(c)} ({weighted})"
    return f"{line}; {retracted}" if retracted else line
