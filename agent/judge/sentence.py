"""The verdict in one sentence a fact-checker can repeat, written by code from the verdict's own figures, never by
the LLM: the label in words, the papers it counts on each side named by study design, its confidence, the papers
read that bear on neither side, and what leaves it provisional. "Refuted by 1 cohort study (confidence 0.89); 2 more
papers read bear on neither side."

It is the answer's first sentence (``summary``, which the MCP tool check_claim returns too), the chat's and the
terminal's verdict line and the "why?" reply's opening; the scores, the thresholds and the weights are the "why?"
reply's (agent.judge.reckoning) and the export's."""

from __future__ import annotations

from collections.abc import Sequence

from agent.judge.scoring import (
    CONTROVERSIAL,
    GRADE_SCORE,
    LEANING_REFUTED,
    LEANING_SUPPORTED,
    NOT_ENOUGH,
    REFUTED,
    SUPPORTED,
    UNDECIDED,
    WEAKLY_REFUTED,
    WEAKLY_SUPPORTED,
)
from agent.paper_counts import listing, papers
from agent.state import SilentSource, SourceAssessment, Verdict
from tools.documents.design import DESIGN_NAMES, DESIGN_PLURALS
from tools.text.i18n import decimal, speaking, t, t_n

# the directional labels, each as the words before "by" and the papers on its own side
DIRECTED = {
    SUPPORTED: ("Supported", 1),
    WEAKLY_SUPPORTED: ("Weakly supported", 1),
    REFUTED: ("Refuted", -1),
    WEAKLY_REFUTED: ("Weakly refuted", -1),
}
DISPUTED = {
    LEANING_SUPPORTED: "Disputed, leaning towards supported",
    LEANING_REFUTED: "Disputed, leaning towards refuted",
    CONTROVERSIAL: "Controversial",
}
# one paper of a design, where the design's name is no noun of its own ("design not stated")
SINGULAR = {**DESIGN_NAMES, "unclassified": "study with no stated design"}


def design_count(n: int, design: str) -> str:
    """ "1 cohort study", "2 randomised trials"."""
    return t_n(n, f"{{n}} {SINGULAR[design]}", f"{{n}} {DESIGN_PLURALS[design]}")


def by_design(side: Sequence[SourceAssessment], count: int) -> str:
    """The ``count`` papers of one side by study design, strongest design first: "2 randomised trials and 1 cohort
    study"; "no paper" for none; "3 papers" when the assessments at hand are not those the verdict counted."""
    designs = [a.reputation_inputs.get("design") for a in side]
    if len(side) != count or not count or not all(d in DESIGN_NAMES for d in designs):
        return papers(count) if count else t("no paper")
    return listing([design_count(n, d) for d in DESIGN_NAMES if (n := designs.count(d))])


def _both(pro: str, n_pro: int, con: str, n_con: int) -> str:
    """ "2 randomised trials support the claim and 1 cohort study contradicts it", or the one side that has papers."""
    supports = t_n(n_pro, "{papers} supports the claim", "{papers} support the claim", papers=pro)
    if n_pro and n_con:
        return t_n(n_con, "{first} and {papers} contradicts it", "{first} and {papers} contradict it",
                   first=supports, papers=con)
    return supports if n_pro else t_n(n_con, "{papers} contradicts the claim", "{papers} contradict the claim",
                                      papers=con)


def headline(label: str, pro: str, n_pro: int, con: str, n_con: int) -> str:
    """The label in words with the papers behind it: "Refuted by 1 cohort study", "Supported by 2 randomised trials,
    though 1 cohort study contradicts it", "Controversial: 1 ... supports the claim and 1 ... contradicts it"."""
    if label in DIRECTED:
        words, sign = DIRECTED[label]
        own, n_own, other, n_other = (pro, n_pro, con, n_con) if sign > 0 else (con, n_con, pro, n_pro)
        text = t("{label} by {papers}", label=t(words), papers=own)
        if n_other and sign > 0:
            text += t_n(n_other, ", though {papers} contradicts it", ", though {papers} contradict it", papers=other)
        elif n_other:
            text += t_n(n_other, ", though {papers} supports it", ", though {papers} support it", papers=other)
        return text
    return t("{label}: {counts}", label=t(DISPUTED.get(label, label)), counts=_both(pro, n_pro, con, n_con))


def _set_aside(zero: Sequence[SourceAssessment], n: int) -> str:
    """What ``n`` papers with a finding that weigh 0 are: "is retracted" when each of ``zero`` (those same papers,
    when at hand) is, else "weighs 0"."""
    if len(zero) == n and all(a.reputation_inputs.get("retracted") for a in zero):
        return t_n(n, "is retracted", "are retracted")
    return t_n(n, "weighs 0", "weigh 0")


def _none_counts(k: int, zero: Sequence[SourceAssessment], n_zero: int, of: str) -> str:
    """Why none of the ``k`` papers (``of``: "read", or "other" after the ones the LLM did not read) counts: the
    ``n_zero`` with a finding weigh 0, the rest state no finding for or against the claim."""
    read = of == "read"
    if not n_zero and k == 1:
        one = t("the one paper read") if read else t("the other one")
        return t("{papers} states no finding for or against the claim", papers=one)
    if not n_zero:
        return (t("none of the {k} papers read states a finding for or against the claim", k=k) if read
                else t("none of the other {k} states a finding for or against the claim", k=k))
    what = _set_aside(zero, n_zero)
    if n_zero == k:
        if k == 1:
            return t("the one paper read {what}", what=what) if read else t("the other one {what}", what=what)
        return t("the {k} papers read {what}", k=k, what=what) if read else t("the other {k} {what}", k=k, what=what)
    rest = k - n_zero
    others = t("the one other states") if rest == 1 else t("the {n} others state", n=rest)
    if read:
        return t("{n} of the {k} papers read {what}, and {others} no finding for or against the claim", n=n_zero,
                 k=k, what=what, others=others)
    return t("{n} of the other {k} {what}, and {others} no finding for or against the claim", n=n_zero, k=k,
             what=what, others=others)


def not_enough(read: int, unread_listed: int, zero: Sequence[SourceAssessment], n_zero: int) -> str:
    """ "Not enough evidence": what was read, and why none of it counts."""
    if read == 0:
        return t("Not enough evidence: the search found no paper that addresses the claim.")
    if not unread_listed:
        return t("Not enough evidence: {why}.", why=_none_counts(read, zero, n_zero, "read"))
    if unread_listed == read:
        return t_n(read, "Not enough evidence so far (provisional): the LLM did not read the one paper found.",
                   "Not enough evidence so far (provisional): the LLM did not read the {n} papers found.")
    rest = _none_counts(read - unread_listed, zero, n_zero, "other")
    return t("Not enough evidence so far (provisional): the LLM did not read {unread} of the {read} papers found, "
             "and {rest}.", unread=unread_listed, read=read, rest=rest)


def verdict_sentence(
    v: Verdict, assessments: Sequence[SourceAssessment] = (), silent: Sequence[SilentSource] = (),
    language: str = "en",
) -> str:
    """The verdict in one sentence, from the verdict, the labelled papers and the papers read and not counted
    (without them the papers are counted by number, not named by design, and those the LLM did not read are taken
    as counted ones), in ``language`` (tools.text.i18n: English, or a translation kept in the repository)."""
    with speaking(language):
        return _sentence(v, assessments, silent)


def _sentence(v: Verdict, assessments: Sequence[SourceAssessment], silent: Sequence[SilentSource]) -> str:
    unread_listed = sum(1 for s in silent if s.unread)
    zero = [a for a in assessments if GRADE_SCORE[a.label] != 0 and a.reputation <= 0]
    n_zero = max(0, v.counted_sources - v.supporting - v.contradicting)  # papers with a finding that weigh 0
    read = v.supporting + v.contradicting + v.irrelevant + n_zero
    if v.label == NOT_ENOUGH:  # nothing counts, so every paper the LLM did not read is listed
        return not_enough(read, max(unread_listed, v.unread), zero, n_zero)
    weighing = [a for a in assessments if a.reputation > 0]
    pro = by_design([a for a in weighing if GRADE_SCORE[a.label] > 0], v.supporting)
    con = by_design([a for a in weighing if GRADE_SCORE[a.label] < 0], v.contradicting)
    confidence = decimal(v.confidence)
    if v.label == UNDECIDED:
        counts = _both(pro, v.supporting, con, v.contradicting)
        if v.leaning:
            text = t("Cannot decide: {counts}, but with too little confidence ({confidence}) to call it {leaning}",
                     counts=counts, confidence=confidence, leaning=t(v.leaning).lower())
        else:
            text = t("Cannot decide: {counts}, but with too little confidence ({confidence})", counts=counts,
                     confidence=confidence)
    else:
        line = headline(v.label, pro, v.supporting, con, v.contradicting)
        if v.weak_designs:
            text = t("{headline} (confidence {confidence}; indirect evidence only)", headline=line,
                     confidence=confidence)
        else:
            text = t("{headline} (confidence {confidence})", headline=line, confidence=confidence)
    neither = max(0, v.irrelevant - unread_listed)
    if neither:
        text += t_n(neither, "; {n} more paper read bears on neither side",
                    "; {n} more papers read bear on neither side")
    if n_zero:
        text += t_n(n_zero, "; {papers} with a finding {what} and does not count",
                    "; {papers} with a finding {what} and do not count", papers=papers(n_zero),
                    what=_set_aside(zero, n_zero))
    unread = []
    if v.unread > unread_listed:
        unread.append(t("{papers} it counts", papers=papers(v.unread - unread_listed)))
    if unread_listed:
        unread.append(t("{papers} more, listed, not counted", papers=papers(unread_listed)))
    if unread:
        text += t("; provisional: the LLM did not read {papers}", papers=listing(unread))
    return text + "."
