"""Reputation of fetched sources: citations, venue citedness, recency and retraction feed the verdict weight, and
the weight with its inputs reaches the user (ask --json, readable output, chat)."""

from __future__ import annotations

from datetime import date

import pytest

from agent.judge.scoring import describe_reputation, reputation, weighted_verdict
from tools.corpus import Abstract
from ui.chat.render import answer_markdown, source_detail

TODAY = date(2026, 1, 1)
BASE = {"doc_id": "doi:10.1/a", "title": "t", "sentences": ["s"]}
NO_DESIGN = {"design": "unclassified", "design_basis": "none", "design_factor": 0.6}


def test_local_corpus_documents_weigh_by_design_alone():
    trial = Abstract(doc_id="101", title="t", sentences=["Patients were randomly assigned to drug or placebo."])
    assert reputation(trial) == (0.9, {"design": "rct", "design_basis": "text", "design_factor": 0.9})
    assert reputation(Abstract(doc_id="102", title="t", sentences=["s"])) == (0.6, NO_DESIGN)


def test_venue_citedness_counts_and_is_shown():
    plain, _ = reputation(Abstract(**BASE, citation_count=1000, year=2020), today=TODAY)
    top, inputs = reputation(Abstract(**BASE, citation_count=1000, year=2020, venue="Annals",
                                      venue_citedness=12.0, source="openalex"), today=TODAY)
    low, _ = reputation(Abstract(**BASE, citation_count=1000, year=2020, venue_citedness=0.0), today=TODAY)
    assert plain == pytest.approx(0.6) and top == pytest.approx(0.6)  # the design factor of an unstated design
    assert low == pytest.approx(0.6 * 0.7)  # a venue nobody cites costs 30 %
    mid, _ = reputation(Abstract(**BASE, venue_citedness=2.0), today=TODAY)
    assert low < mid < top
    assert inputs == {"source": "openalex", **NO_DESIGN, "citation_count": 1000, "venue": "Annals",
                      "venue_citedness": 12.0, "year": 2020}


def test_retracted_weighs_nothing_whatever_else_is_known():
    weight, inputs = reputation(Abstract(**BASE, citation_count=1500, retracted=True, source="pubmed"))
    assert weight == 0.0 and inputs == {"source": "pubmed", **NO_DESIGN, "retracted": True}
    # a retracted supporting paper cannot carry the verdict against a refuting one
    label, score, unweighted, _ = weighted_verdict([(1.0, weight), (-0.66, 0.8)])
    assert score == pytest.approx(-0.66) and unweighted == pytest.approx(0.17)


def test_describe_reputation():
    assert describe_reputation(None, None) == ""
    assert describe_reputation(1.0, {}) == "weight 1.00 (no metadata: full weight)"
    text = describe_reputation(0.83, {"source": "openalex", "citation_count": 12, "venue": "Annals",
                                      "venue_citedness": 9.87, "year": 2019})
    assert text == "weight 0.83 (12 citations, venue citedness 9.87 of Annals, 2019, via openalex)"
    assert describe_reputation(0.0, {"retracted": True}) == "weight 0.00 (RETRACTED)"


def source(**extra) -> dict:
    return {"n": 1, "doc_id": "doi:10.1/a", "title": "Study", "sentence": "Evidence.", "sentence_index": 0,
            "context": "", "neighbours": ["Next."], "url": "https://doi.org/10.1/a", "year": 2019,
            "stance": "supports", "label": "True", **extra}


def test_chat_shows_the_weight_and_its_inputs():
    src = source(reputation=0.0, reputation_inputs={"source": "europepmc", "retracted": True})
    result = {"claim": "c", "sentences": [], "sources": [src], "verdict": None, "notes": []}
    assert r"_Verdict weight 0\.00 \(RETRACTED\, via europepmc\)_" in answer_markdown(result)
    assert r"weight 0\.00 \(RETRACTED\, via europepmc\)" in source_detail(src, 5)
    assert "Verdict weight" not in answer_markdown({**result, "sources": [source()]})  # before assessment
