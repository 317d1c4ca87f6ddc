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
from tools.text.i18n import t, t_n


def consensus_of(result: Mapping[str, Any]) -> Consensus:
    """The consensus of a result dump (`CheckResult.model_dump()`); a dump without assessments has no sources."""
    return tally(
        [SourceAssessment.model_validate(a) for a in result.get("assessments") or []],
        [SilentSource.model_validate(s) for s in result.get("silent") or []],
    )


def _count(c: Consensus) -> str:
    supports = t_n(c.supports.count, "{n} supports", "{n} support")
    contradicts = t_n(c.contradicts.count, "{n} contradicts", "{n} contradict")
    return ", ".join([supports, contradicts, t("{n} no evidence", n=c.no_evidence.count)])


def retracted_note(c: Consensus) -> str:
    if not c.retracted:
        return ""
    return t_n(c.retracted, "{n} retracted source left out (weight 0)", "{n} retracted sources left out (weight 0)")


def charted(c: Consensus) -> bool:
    """Whether the consensus says more than the verdict's sentence: at least two papers count (support or
    contradict). The chat draws the chart, and the chat and the terminal show the consensus line, only then."""
    return c.supports.count + c.contradicts.count >= 2


def consensus_line(c: Consensus) -> str:
    """"Consensus over 6 sources: 3 support, 1 contradicts, 2 no evidence (weighted 58% / 25% / 17%)", with the
    retracted sources left out said after it."""
    retracted = retracted_note(c)
    if not c.sources:
        if retracted:
            return t("Consensus: no source to rest on; {retracted}", retracted=retracted)
        return t("Consensus: no source was read")
    if c.weight > 0:
        weighted = t("weighted {shares}", shares=" / ".join(t("{n}%", n=p) for p in c.percentages(weighted=True)))
    else:
        weighted = t("no weighted share: every source weighs 0")
    line = t("Consensus over {papers}: {counts} ({weighted})", papers=papers(c.sources), counts=_count(c),
             weighted=weighted)
    return f"{line}; {retracted}" if retracted else line
