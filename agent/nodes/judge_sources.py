"""The judge's second part, reading each source the verifier did not rule out, in three steps: the abstract reader
(agent.judge.reader) sets aside the papers it finds off the claim, and passes those it finds bearing on it (labelling
them itself where its band says so); the gate asks the LLM, of the papers the reader is unsure of, whether their
evidence reports a finding on the claim at all (agent.judge.direction.bears; with the verifier's reading, the gate
of agent.judge.calibration), and for those past the gate or the reader which of the claim and its opposite the
evidence supports (agent.judge.direction.choose). An abstract below the gate is moved to the sources read that do
not count, with the reason; one past it gets the two-part judge's label (the grade of its calibrated direction).

The verdict before this node is provisional (the verifier's labels); the verdict after it is the judged one. Each
source is asked once per check (``bearings`` and ``directions`` keep the answers, so a later search round asks only
about new sources). When the LLM is down, or the check's time for it (DIRECTION_SECONDS) runs out while others wait
for the LLM (on an idle machine it reads every paper), the sources not yet read are listed as read and not counted,
with the verifier's reading and the reason, unless the verifier alone reaches the gate's precision
(agent.judge.calibration: ``verifier_stands_in``; on SciFact it does not); the verdict then says it is provisional. A
later search round reads them again. With JUDGE_DIRECTION=verifier the node does nothing.
"""

from __future__ import annotations

import time
from collections import defaultdict
from contextlib import nullcontext
from typing import Any

from langgraph.runtime import Runtime

from agent.judge.aside import below_the_gate, close_to_the_gate, listing_order, set_aside, unread_reading
from agent.judge.calibration import JudgeCalibration, load_calibration, stance_of
from agent.judge.direction import abstract_text, bears, choose, evidence_text, opposite_of
from agent.judge.reader import (
    ReaderDecisions,
    Reading,
    decide,
    read_abstracts,
    reader_decisions,
    reader_label,
    reader_note,
    same_side,
    sides_differ_reason,
)
from agent.judge.scoring import percent
from agent.llm.client import LLMUnavailableError, wait_loaded
from agent.llm.turns import TURNS
from agent.nodes._timing import timed
from agent.state import ClaimState, Deps, Evidence, SilentSource, SourceAssessment, Usage, numbered
from tools.text.i18n import written


def out_of_time(start: float, budget: float) -> bool:
    """Whether a check's reading, begun at ``start`` (time.perf_counter), is out of time: past its ``budget``
    (DIRECTION_SECONDS) while someone else waits for the LLM. With nobody waiting the reading goes on to the last
    paper, so that an idle machine leaves no paper unread for lack of time; the budget is a share of a busy LLM."""
    return time.perf_counter() - start >= budget and TURNS.others_waiting()


def source_key(doc_id: str, sentences: list[Evidence], opposite: str = "") -> str:
    key = f"{doc_id}|{','.join(str(ev.sentence_index) for ev in sentences)}"
    return f"{key}|{opposite}" if opposite else key


# which statement the two-part judge finds the evidence supports, by its stance
SIDE_READ = {"supports": "the claim", "contradicts": "its opposite", "nei": "neither statement clearly"}


def readers_of_the_side(cal: JudgeCalibration) -> str:
    """Who reads a paper's side in the two-part judge, in words."""
    return written("the LLM and the verifier") if cal.direction_reads_verifier else written("the LLM")


def directed(
    a: SourceAssessment, llm_p_claim: float, bearing: float, reading: list[float] | None = None, passed: bool = False,
    floor: float | None = None,
) -> SourceAssessment:
    """The assessment relabelled by the two-part judge, after the abstract reader gave its ``reading``: unsure of
    the paper, or sure that it bears on the claim (``passed``: the LLM read only its side, or, with the reader band's
    ``floor``, the paper counted from that floor of the gate's reading)."""
    cal = load_calibration()
    judged = cal.stance(llm_p_claim, a.verifier_p_claim)
    supported = written(SIDE_READ[judged.stance])
    readers = readers_of_the_side(cal)
    return a.model_copy(
        update={
            "label": judged.label,
            "score": judged.score,
            "p_claim": judged.p_claim,
            "stance_confidence": judged.confidence,
            "bearing": bearing,
            "judged_by": "verifier+llm",
            "explanation": written(
                "The evidence supports {supported}, as {readers} read it ({sure} sure of the side; {bears} likely to "
                "report a finding on the claim).", supported=supported, readers=readers,
                sure=percent(judged.confidence), bears=percent(bearing))
            + (reader_note(Reading(*reading), passed, floor, cal.gate_threshold) if reading else ""),
        }
    )


def outcome(state: ClaimState, judged: list[SourceAssessment], aside: list[SilentSource]) -> dict[str, Any]:
    """The state after the reading: the judged sources, their sentences (stance as read; the sentences of a source
    set aside leave the evidence, and the papers are numbered again) and the papers read and not counted."""
    stances = {a.doc_id: stance_of(a.score) for a in judged if a.judged_by != "verifier"}
    counted = {a.doc_id for a in judged}
    evidence = numbered(
        [ev.model_copy(update={"stance": stances.get(ev.doc_id, ev.stance)}) for ev in state.get("evidence", [])
         if ev.doc_id in counted]
    )
    return {"assessments": judged, "evidence": evidence, "silent": listing_order([*state.get("silent", []), *aside])}


def gate_reading(cal: JudgeCalibration, deps: Deps, doc_id: str, shown: list[Evidence], text: str, claim: str,
                 opposite: str) -> tuple[float, Usage]:
    """The LLM's P(Yes, the evidence bears on the claim) as the gate was fitted: on the shown sentences ``text`` or
    the abstract around them, with the same question of the opposite where the calibration asks it (the mean or the
    higher of the two, JudgeCalibration.llm_bears)."""
    read = abstract_text(deps, doc_id, shown) if cal.gate_reads == "context" else text
    first = bears(deps.llm, read, claim)
    if not cal.gate_asks_opposite:
        return first.p_bears, first.usage
    second = bears(deps.llm, read, opposite)
    return cal.llm_bears(first.p_bears, second.p_bears), first.usage + second.usage


def direction_text(cal: JudgeCalibration, deps: Deps, doc_id: str, shown: list[Evidence], text: str) -> str:
    """What the LLM's direction question reads, as its weights were fitted: the shown sentences (``text`` when the
    gate just read them, so the prompt cache holds them) or the abstract around them."""
    if cal.direction_reads == "context":
        return abstract_text(deps, doc_id, shown)
    return text or evidence_text(deps, doc_id, shown)


def reader_step(
    state: ClaimState, deps: Deps, assessments: list[SourceAssessment], cal: JudgeCalibration, titles: dict[str, str]
) -> tuple[dict[str, list[float]], ReaderDecisions]:
    """The abstract reader's step: its readings (each paper read once per check) and what it decides of each source;
    every source is left to the LLM when no reader reads (none installed, or ABSTRACT_READER=false)."""
    judge = deps.settings.judge
    readings = dict(state.get("readings", {}))
    reader = deps.reader if judge.reader or judge.direction == "reader" else None
    if reader is not None:
        new = [a.doc_id for a in assessments if a.doc_id not in readings]
        readings |= {d: r.as_list() for d, r in read_abstracts(reader, deps, state["claim"], new).items()}
    alone = judge.direction == "reader"
    band = cal.reader_alone_band if alone else cal.reader_band
    return readings, reader_decisions(assessments, readings, band, titles, alone)


def reading_notes(cal: JudgeCalibration, seconds: float, error: str, left: int, aside: list[SilentSource]) -> list[str]:
    """The notes of the reading: sources the LLM could not read (down, or out of time) and sources that do not
    count."""
    notes: list[str] = []
    if cal.verifier_stands_in:
        fate = written("{n} source(s) keep the verifier's reading", n=left)
    else:
        fate = written("{n} source(s) are listed as not read, not counted", n=left)
    if error:
        notes.append("judge_sources: " + written("the LLM is unavailable ({error})", error=error) + f"; {fate}")
    elif left:
        notes.append("judge_sources: " + written(
            "the LLM's time for reading direction (DIRECTION_SECONDS={seconds}) ran out while other checks waited",
            seconds=f"{seconds:g}") + f"; {fate}")
    off_topic = sum(1 for s in aside if not s.unread)
    if off_topic:
        notes.append("judge_sources: " + written("{n} source(s) read do not count: not about the claim", n=off_topic))
    return notes


@timed("judge_sources")
def judge_sources(state: ClaimState, runtime: Runtime[Deps]) -> dict[str, Any]:
    deps = runtime.context
    judge = deps.settings.judge
    assessments = state.get("assessments", [])
    if judge.direction == "verifier" or not assessments:
        return {"directed": True}
    if judge.direction == "reader" and deps.reader is None:
        note = "judge_sources: " + written("JUDGE_DIRECTION=reader, but no abstract reader is installed; the "
                                           "sources keep the verifier's reading")
        return {"directed": True, "notes": [note]}
    cal = load_calibration() if judge.gate else JudgeCalibration(ask_floor=0.0, verifier_threshold=0.0)
    claim = state["claim"]
    titles = {ev.doc_id: ev.title for ev in state.get("evidence", [])}
    readings, by_reader = reader_step(state, deps, assessments, cal, titles)
    if judge.direction == "reader":
        return {"readings": readings, **outcome(state, by_reader.judged, by_reader.aside), "directed": True}
    # past the gate on the reader's word: the LLM reads only the side; with the band's gate_floor the gate reads them
    # too, and they pass from that floor of its reading instead of its threshold
    passed = {a.doc_id for a in by_reader.bears}
    floor = cal.reader_band.gate_floor
    assessments = [*by_reader.bears, *by_reader.unsure]
    usage = Usage()
    update: dict[str, Any] = {}
    opposite = state.get("opposite", "")
    if not opposite:
        opposite, source, used = opposite_of(None, claim)
        update |= {"opposite": opposite, "opposite_source": source}
        usage = usage + used
    sentences: dict[str, list[Evidence]] = defaultdict(list)
    for ev in state.get("evidence", []):
        sentences[ev.doc_id].append(ev)
    bearings, asked = dict(state.get("bearings", {})), dict(state.get("directions", {}))
    judged: list[SourceAssessment] = list(by_reader.judged)
    aside: list[SilentSource] = list(by_reader.aside)
    left = 0
    error = state.get("llm_error", "")
    # one check reads with the LLM at a time in this process, each with its whole DIRECTION_SECONDS from when its
    # turn comes, and other LLM work waits meanwhile (agent.llm.turns): the LLM answers one request at a time; a
    # check whose every paper the reader decided takes no turn
    with TURNS.reading() if assessments else nullcontext():
        if not error:
            try:  # the budget is for reading, not for loading the model in a fresh process
                wait_loaded(deps.settings)
            except LLMUnavailableError as e:
                error = str(e)
        start, budget = time.perf_counter(), judge.direction_seconds
        for k, a in enumerate(assessments, start=1):
            shown = sentences[a.doc_id]
            about, key = source_key(a.doc_id, shown), source_key(a.doc_id, shown, opposite)
            text = ""
            reader_passed = a.doc_id in passed
            skips_gate = reader_passed and floor is None
            # the chat shows which paper the LLM reads while the judged verdict is pending
            progress = {"reading": {"paper": k, "of": len(assessments), "title": titles.get(a.doc_id, a.doc_id)}}
            try:
                gate_asks = judge.gate and not skips_gate and about not in bearings
                if gate_asks and not error and not out_of_time(start, budget):
                    runtime.stream_writer(progress)
                    text = evidence_text(deps, a.doc_id, shown)
                    p_bears, used = gate_reading(cal, deps, a.doc_id, shown, text, claim, opposite)
                    bearings[about] = p_bears
                    usage = usage + used
                if skips_gate or about in bearings or not judge.gate:
                    if skips_gate:
                        bearing = Reading(*readings[a.doc_id]).bears
                    else:
                        bearing = cal.bearing(a.verifier_bearing or 0.5, bearings[about]) if judge.gate else 1.0
                    bar = floor if reader_passed and floor is not None else cal.gate_threshold
                    if not skips_gate and judge.gate and bearing < bar:
                        aside.append(
                            set_aside(
                                a,
                                titles.get(a.doc_id, a.doc_id),
                                bearing,
                                below_the_gate(bearing, bar),
                                close=close_to_the_gate(bearing, bar),
                            )
                        )
                        continue
                    reading = Reading(*readings[a.doc_id]) if reader_passed else None
                    # passed on the reader's word below the gate's threshold: counts only where the sides agree
                    doubted = reading is not None and not skips_gate and judge.gate and bearing < cal.gate_threshold
                    if reading is not None and not doubted and decide(reading, cal.reader_band) == "counts":
                        judged.append(reader_label(a, reading))  # its own side, now that the gate let it pass
                        continue
                    # a source whose bearing was just read is read to the end: its evidence is in the prompt cache
                    if key not in asked and not error and (text or not out_of_time(start, budget)):
                        if reader_passed:
                            runtime.stream_writer(progress)
                        choice = choose(deps.llm, direction_text(cal, deps, a.doc_id, shown, text), claim, opposite)
                        asked[key] = choice.p_claim
                        usage = usage + choice.usage
                    if key in asked:
                        got = directed(a, asked[key], bearing, readings.get(a.doc_id), reader_passed,
                                       None if skips_gate else floor)
                        if doubted and reading is not None and not same_side(reading, got.score):
                            why = sides_differ_reason(reading, readers_of_the_side(cal))
                            aside.append(set_aside(a, titles.get(a.doc_id, a.doc_id), bearing, why, close=True))
                        else:
                            judged.append(got)
                        continue
            except LLMUnavailableError as e:
                error = str(e)
            left += 1
            why = written("it was unavailable") if error else written(
                "the time allowed for its reading ({seconds} s) ran out while other checks waited for it, before it "
                "reached this paper", seconds=f"{judge.direction_seconds:g}")
            kept = unread_reading(a, cal, titles.get(a.doc_id, a.doc_id), why)
            if isinstance(kept, SilentSource):
                aside.append(kept)
            else:
                judged.append(kept)
    if error:
        update["llm_error"] = error
    notes = reading_notes(cal, judge.direction_seconds, error, left, aside)
    return {
        **update,
        **outcome(state, judged, aside),
        "readings": readings,
        "bearings": bearings,
        "directions": asked,
        "directed": True,
        "usage": usage,
        "notes": notes,
    }
