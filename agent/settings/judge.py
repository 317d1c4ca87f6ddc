"""The judge group of the settings (agent/settings/app.py): which evidence candidates are read, how a source's stance
and label are decided (the evidence gate, who reads direction), when the verdict abstains, and how study design
weighs a source. Each field reads the environment variable of its name (`TOP_DOCS`), or the alias it names."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from tools.config import SettingsGroup
from tools.documents.design import DEFAULT_WEAK, DEFAULT_WEIGHTS, DESIGNS
from tools.text.premise import CONTEXT_CHARS


class JudgeSettings(SettingsGroup):
    # fused abstracts whose sentences become evidence candidates
    top_docs: int = Field(3, ge=1)
    # sentences closest to the claim judged per abstract; shorter split fragments are never evidence
    candidates_per_doc: int = Field(3, ge=1)
    min_sentence_chars: int = 20
    # evidence sentences an abstract keeps at most
    sentences_per_doc: int = Field(2, ge=1)
    # a sentence bears on the claim when its winning stance (supports/contradicts) has at least this probability
    # (0 = the verifier's argmax alone)
    stance_min_prob: float = Field(0.0, ge=0.0, le=1.0)
    # at most this many abstracts get a label, strongest evidence first (0 = all)
    labelled_docs: int = Field(0, ge=0)
    # who reads whether a source bears and which way it points: "llm" (the abstract reader first, agent/judge/reader.py,
    # then the two-part judge on the papers it is unsure of: the gate, and the LLM's choice between the claim and its
    # opposite, agent/judge/direction.py), "reader" (the abstract reader alone; the papers it is unsure of do not
    # count) or "verifier" (the sentence-level verifier alone)
    direction: Literal["llm", "reader", "verifier"] = Field("llm", validation_alias="JUDGE_DIRECTION")
    # whether the abstract reader reads each paper before the LLM (with JUDGE_DIRECTION=llm); off, the LLM reads
    # every paper the verifier does not rule out
    reader: bool = Field(True, validation_alias="ABSTRACT_READER")
    # the evidence gate (agent.judge.calibration): an abstract counts only when its calibrated P(bears) reaches the
    # threshold fitted on held-out train claims; off, any sentence the verifier reads as bearing puts its abstract in
    gate: bool = Field(True, validation_alias="EVIDENCE_GATE")
    # seconds of LLM time the direction may take per check while someone else waits for the LLM (with nobody waiting
    # it reads every source); sources left when they run out are listed as not read, with the verifier's reading,
    # and do not count (a note and a provisional verdict say so). A paper read costs
    # four short calls (bearing on the claim and on its opposite, direction in both orders): about 6 s on a 2-core
    # CPU whose LLM decodes 10 tokens/s, so 15 s reads a check's three papers there; a faster LLM ends sooner
    direction_seconds: float = Field(15.0, gt=0)
    # an answer sentence the verifier passes is asked of the LLM too (agent/answer/sentence_direction.py): below
    # this P(the cited papers support the sentence rather than its opposite) it is not supported (0 = not asked); the
    # seconds the asking may take per answer, after which the sentences left keep the verifier's reading
    sentence_direction_below: float = Field(0.49, ge=0.0, le=1.0)
    sentence_direction_seconds: float = Field(8.0, gt=0)
    # below this calibrated verdict confidence the verdict is "Cannot decide" (0 = always decide)
    min_confidence: float = Field(0.5, ge=0.0, le=1.0)
    # neighbouring sentences shown on each side of an evidence sentence; the longest sentence before it that the
    # verifier reads with it (the verifier was trained on premises cut at CONTEXT_CHARS: another value shows it
    # premises it has not seen)
    context_window: int = Field(5, ge=0)
    context_chars: int = Field(CONTEXT_CHARS, gt=0)
    # the generated summary of each paper (agent.answer.supplement; env GENERATED_CONTEXT, its older name): after
    # the answer, the LLM writes one or two checked sentences per paper shown that situate its evidence in its
    # abstract, within SUPPLEMENT_SECONDS a check (papers left keep their neighbouring sentences only, with a note);
    # false turns it off
    supplement: bool = Field(True, validation_alias="GENERATED_CONTEXT")
    supplement_seconds: float = Field(120.0, gt=0)
    # the evidence hierarchy (tools.documents.design.DEFAULT_WEIGHTS, docs/evidence_hierarchy.md): each study design's
    # factor in a source's weight; a JSON object in DESIGN_WEIGHTS changes the factors it names, such as {"animal": 0.5}
    design_weights: dict[str, float] = Field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    # designs a verdict should not rest on alone (a JSON list in WEAK_DESIGNS): the verdict says so when they are
    # all it counts
    weak_designs: list[str] = Field(default_factory=lambda: list(DEFAULT_WEAK))

    @field_validator("design_weights")
    @classmethod
    def _known_weights(cls, value: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(value) - set(DESIGNS))
        if unknown:
            raise ValueError(f"unknown study design(s) {unknown}; the designs are {list(DESIGNS)}")
        if any(not 0.0 <= w <= 1.0 for w in value.values()):
            raise ValueError("each design's factor must be between 0 and 1")
        return {**DEFAULT_WEIGHTS, **value}

    @field_validator("weak_designs")
    @classmethod
    def _known_weak(cls, value: list[str]) -> list[str]:
        unknown = sorted(set(value) - set(DESIGNS))
        if unknown:
            raise ValueError(f"unknown study design(s) {unknown}; the designs are {list(DESIGNS)}")
        return value
