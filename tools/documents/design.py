"""Study design of one abstract: from the publication types and MeSH headings a live source gives (PubMed, Europe
PMC), otherwise from the abstract's own words.

The classes follow the usual evidence hierarchy (systematic reviews and meta-analyses, randomised trials, cohort,
case-control and cross-sectional studies, case reports and series, animal and in vitro studies, narrative reviews
and opinion). "unclassified" is work none of these names, such as a model or simulation of a population, a
recording of the human brain during a task, and any abstract without a cue. The words that name each design are
in tools/documents/design_rules.py; evals/design_labels/README.md gives the decision rules, and
`python -m evals.studies.design_eval` measures the classifier against hand labels of SciFact abstracts.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel

from tools.corpus import Abstract
from tools.documents.design_rules import DesignCode, text_design

DESIGNS: tuple[DesignCode, ...] = get_args(DesignCode)
DESIGN_NAMES: dict[str, str] = {
    "meta_analysis": "meta-analysis / systematic review",
    "rct": "randomised trial",
    "cohort": "cohort study",
    "case_control": "case-control study",
    "cross_sectional": "cross-sectional study",
    "case_report": "case report / series",
    "animal": "animal study",
    "in_vitro": "in vitro study",
    "narrative_review": "narrative review / opinion",
    "unclassified": "design not stated",
}
# the designs in the plural, for "rests only on animal studies and in vitro studies"
DESIGN_PLURALS: dict[str, str] = {
    "meta_analysis": "meta-analyses / systematic reviews",
    "rct": "randomised trials",
    "cohort": "cohort studies",
    "case_control": "case-control studies",
    "cross_sectional": "cross-sectional studies",
    "case_report": "case reports / series",
    "animal": "animal studies",
    "in_vitro": "in vitro studies",
    "narrative_review": "narrative reviews / opinion",
    "unclassified": "studies with no stated design",
}

Basis = Literal["publication type", "MeSH", "text", "none"]


class DesignCall(BaseModel):
    """The design of one abstract, what decided it, and the cue (a publication type, a heading or the words)."""

    design: DesignCode
    basis: Basis
    cue: str = ""

    @property
    def name(self) -> str:
        return DESIGN_NAMES[self.design]


# PubMed publication types (lower case) and MeSH descriptors, strongest design first.
PUBLICATION_TYPES: list[tuple[str, DesignCode]] = [
    ("meta-analysis", "meta_analysis"),
    ("network meta-analysis", "meta_analysis"),
    ("systematic review", "meta_analysis"),
    ("randomized controlled trial", "rct"),
    ("pragmatic clinical trial", "rct"),
    ("equivalence trial", "rct"),
    ("observational study", "cohort"),
    ("case reports", "case_report"),
    ("review", "narrative_review"),
    ("practice guideline", "narrative_review"),
    ("guideline", "narrative_review"),
    ("consensus development conference", "narrative_review"),
    ("editorial", "narrative_review"),
    ("comment", "narrative_review"),
    ("letter", "narrative_review"),
    ("news", "narrative_review"),
    ("interview", "narrative_review"),
]
MESH_TERMS: list[tuple[str, DesignCode]] = [
    ("cohort studies", "cohort"),
    ("prospective studies", "cohort"),
    ("longitudinal studies", "cohort"),
    ("retrospective studies", "cohort"),
    ("follow-up studies", "cohort"),
    ("case-control studies", "case_control"),
    ("cross-sectional studies", "cross_sectional"),
    ("animals", "animal"),
    ("in vitro techniques", "in_vitro"),
    ("cells, cultured", "in_vitro"),
    ("cell line", "in_vitro"),
    ("cell line, tumor", "in_vitro"),
]


def classify(doc: Abstract) -> DesignCall:
    """The study design of ``doc``: publication types first, then MeSH headings, then the words of its abstract."""
    types = {t.lower() for t in doc.publication_types}
    for name, code in PUBLICATION_TYPES:
        if name in types:
            return DesignCall(design=code, basis="publication type", cue=name)
    mesh = {m.lower() for m in doc.mesh_terms}
    for name, code in MESH_TERMS:
        if name in mesh:
            return DesignCall(design=code, basis="MeSH", cue=name)
    if hit := text_design(doc.title, doc.sentences):
        return DesignCall(design=hit[0], basis="text", cue=hit[1])
    return DesignCall(design="unclassified", basis="none")


# The evidence hierarchy: each design's factor in a source's reputation weight (settings DESIGN_WEIGHTS override
# it; docs/evidence_hierarchy.md explains the order). Syntheses of trials above single trials, trials above
# observational designs, human studies above animal and cell studies; a review without a method and opinion rank
# with case reports. An abstract with no design cue keeps most of its weight: the absence of a cue is not evidence
# of a weak design.
DEFAULT_WEIGHTS: dict[str, float] = {
    "meta_analysis": 1.0,
    "rct": 0.9,
    "cohort": 0.75,
    "case_control": 0.65,
    "cross_sectional": 0.55,
    "unclassified": 0.6,
    "case_report": 0.4,
    "narrative_review": 0.4,
    "animal": 0.35,
    "in_vitro": 0.3,
}
# Designs a verdict should not rest on alone: it says so when every source it counts has one of them.
DEFAULT_WEAK: tuple[str, ...] = ("case_report", "narrative_review", "animal", "in_vitro")
