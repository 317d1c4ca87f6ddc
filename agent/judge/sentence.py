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


def _s(n: int, verb: str) -> str:
    """The verb agreeing with ``n`` papers: "supports" for 1, "support" for more."""
    return f"{verb}s" if n == 1 else verb


def by_design(side: Sequence[SourceAssessment], count: int) -> str:
    """The ``count`` papers of one side by study design, strongest design first: "2 randomised trials and 1 cohort
    study"; "no paper" for none; "3 papers" when the assessments at hand are not those the verdict counted."""
    designs = [a.reputation_inputs.get("design") for a in side]
    if len(side) != count or not count or not all(d in DESIGN_NAMES for d in designs):
        return papers(count) if count else "no paper"
    names = [f"{n} {SINGULAR[d] if n == 1 else DESIGN_PLURALS[d]}" for d in DESIGN_NAMES if (n := designs.count(d))]
    return listing(names)


def _both(pro: str, n_pro: int, con: str, n_con: int) -> str:
    """ "2 randomised trials support the claim and 1 cohort study contradicts it", or the one side that has papers."""
    if n_pro and n_con:
        return f"{pro} {_s(n_pro, 'support')} the claim and {con} {_s(n_con, 'contradict')} it"
    return f"{pro} {_s(n_pro, 'support')} the claim" if n_pro else f"{con} {_s(n_con, 'contradict')} the claim"


def headline(label: str, pro: str, n_pro: int, con: str, n_con: int) -> str:
    """The label in words with the papers behind it: "Refuted by 1 cohort study", "Supported by 2 randomised trials,
    though 1 cohort study contradicts it", "Controversial: 1 ... supports the claim and 1 ... contradicts it"."""
    if label in DIRECTED:
        words, sign = DIRECTED[label]
        own, n_own, other, n_other = (pro, n_pro, con, n_con) if sign > 0 else (con, n_con, pro, n_pro)
        text = f"{words} by {own}"
        if n_other:
            text += f", though {other} {_s(n_other, 'contradict' if sign > 0 else 'support')} it"
        return text
    return f"{DISPUTED.get(label, label)}: {_both(pro, n_pro, con, n_con)}"


def _set_aside(zero: Sequence[SourceAssessment], n: int) -> str:
    """What ``n`` papers with a finding that weigh 0 are: "is retracted" when each of ``zero`` (those same papers,
    when at hand) is, else "weighs 0"."""
    if len(zero) == n and all(a.reputation_inputs.get("retracted") for a in zero):
        return "is retracted" if n == 1 else "are retracted"
    return "weighs 0" if n == 1 else "weigh 0"


def _none_counts(k: int, zero: Sequence[SourceAssessment], n_zero: int, of: str) -> str:
    """Why none of the ``k`` papers (``of``: "read", or "other" after the ones the LLM did not read) counts: the
    ``n_zero`` with a finding weigh 0, the rest state no finding for or against the claim."""
    the = f"the {k} papers {of}" if of == "read" else f"the other {k}"
    one = "the one paper read" if of == "read" else "the other one"
    if not n_zero and k == 1:
        return f"{one} states no finding for or against the claim"
    if not n_zero:
        return f"none of {the} states a finding for or against the claim"
    if n_zero == k:
        return f"{one if k == 1 else the} {_set_aside(zero, n_zero)}"
    rest = k - n_zero
    others = "the one other states" if rest == 1 else f"the {rest} others state"
    return f"{n_zero} of {the} {_set_aside(zero, n_zero)}, and {others} no finding for or against the claim"


def not_enough(read: int, unread_listed: int, zero: Sequence[SourceAssessment], n_zero: int) -> str:
    """ "Not enough evidence": what was read, and why none of it counts."""
    if read == 0:
        return "Not enough evidence: the search found no paper that addresses the claim."
    if not unread_listed:
        return f"Not enough evidence: {_none_counts(read, zero, n_zero, 'read')}."
    head = "Not enough evidence so far (provisional): the LLM did not read"
    if unread_listed == read:
        return f"{head} {'the one paper' if read == 1 else f'the {read} papers'} found."
    rest = _none_counts(read - unread_listed, zero, n_zero, "other")
    return f"{head} {unread_listed} of the {read} papers found, and {rest}."


def verdict_sentence(
    v: Verdict, assessments: Sequence[SourceAssessment] = (), silent: Sequence[SilentSource] = ()
) -> str:
    """The verdict in one sentence, from the verdict, the labelled papers and the papers read and not counted
    (without them the papers are counted by number, not named by design, and those the LLM did not read are taken
    as counted ones)."""
    unread_listed = sum(1 for s in silent if s.unread)
    zero = [a for a in assessments if GRADE_SCORE[a.label] != 0 and a.reputation <= 0]
    n_zero = max(0, v.counted_sources - v.supporting - v.contradicting)  # papers with a finding that weigh 0
    read = v.supporting + v.contradicting + v.irrelevant + n_zero
    if v.label == NOT_ENOUGH:  # nothing counts, so every paper the LLM did not read is listed
        return not_enough(read, max(unread_listed, v.unread), zero, n_zero)
    weighing = [a for a in assessments if a.reputation > 0]
    pro = by_design([a for a in weighing if GRADE_SCORE[a.label] > 0], v.supporting)
    con = by_design([a for a in weighing if GRADE_SCORE[a.label] < 0], v.contradicting)
    if v.label == UNDECIDED:
        called = f" to call it {v.leaning.lower()}" if v.leaning else ""
        text = (
            f"Cannot decide: {_both(pro, v.supporting, con, v.contradicting)}, but with too little confidence "
            f"({v.confidence:.2f}){called}"
        )
    else:
        indirect = "; indirect evidence only" if v.weak_designs else ""
        text = f"{headline(v.label, pro, v.supporting, con, v.contradicting)} (confidence {v.confidence:.2f}{indirect})"
    neither = max(0, v.irrelevant - unread_listed)
    if neither:
        text += f"; {neither} more {'paper read bears' if neither == 1 else 'papers read bear'} on neither side"
    if n_zero:
        does = "does" if n_zero == 1 else "do"
        text += f"; {papers(n_zero)} with a finding {_set_aside(zero, n_zero)} and {does} not count"
    unread = []
    if v.unread > unread_listed:
        unread.append(f"{papers(v.unread - unread_listed)} it counts")
    if unread_listed:
        unread.append(f"{papers(unread_listed)} more, listed, not counted")
    if unread:
        text += f"; provisional: the LLM did not read {' and '.join(unread)}"
    return text + "."
