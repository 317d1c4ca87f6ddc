"""The words that name a study design in a title or abstract (tools/documents/design.py reads publication types and MeSH
headings first). The classes and the decision rules they follow: evals/design_labels/README.md."""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

DesignCode = Literal[
    "meta_analysis",
    "rct",
    "cohort",
    "case_control",
    "cross_sectional",
    "case_report",
    "animal",
    "in_vitro",
    "narrative_review",
    "unclassified",
]

Where = Literal["both", "title", "text"]


class TextRule(NamedTuple):
    """Phrases that name a design, and where they decide: in the title, in the text, or both (a bare
    "meta-analysis" or "review" names the design only in a title; laboratory vocabulary only in the text)."""

    design: DesignCode
    pattern: re.Pattern[str]
    where: Where = "both"


def _rule(design: DesignCode, *phrases: str, where: Where = "both") -> TextRule:
    return TextRule(design, re.compile("|".join(phrases), re.IGNORECASE), where)


_PEOPLE = r"(patients|participants|subjects|volunteers|adults|children|women|men|infants|smokers|individuals|people)"
_ANIMALS = (
    r"mice|rats|rodents|hamsters|guinea pigs|rabbits|pigs|piglets|swine|sheep|dogs|cattle|macaques|monkeys|"
    r"primates|marmosets|zebrafish|xenopus|tadpoles|chickens|chicks|drosophila|fruit fl(y|ies)|larvae|"
    r"c\. elegans|caenorhabditis|nematodes"
)

# The rules in order: the first whose phrase occurs decides (labels and decision rules:
# evals/design_labels/README.md). Syntheses before trials, randomised before non-randomised trials, stated human
# designs before animal words (a clinical abstract may mention mice in passing; an animal study rarely names a
# human design), animal words before laboratory vocabulary (animal + cell work is an animal study), and weak
# statistical cues last, just before laboratory vocabulary. A model or simulation, and a human recording
# experiment, is called unclassified by name so that later rules do not claim it.
TEXT_RULES: list[TextRule] = [
    _rule(
        "meta_analysis",
        r"\bsystematic(ally)? (review|search|literature search|overview)",
        r"\bsystematically (searched|reviewed|identified)\b",
        r"\b(performed|conducted|did|undertook|carried out|report) (a |an |the )?([\w-]+ ){0,3}meta-?analys[ie]s\b",
        r"\bmeta-?analys[ie]s of (\d+|[a-z]+-?[a-z]*) ([\w-]+ ){0,3}(studies|trials|cohorts|publications|reports)\b",
        r"\b(this|our|the present) ([\w-]+ ){0,2}meta-?analysis\b",
        r"\bpooled analys[ie]s\b|\bcollaborative analys[ie]s\b|\bindividual (participant|patient)[- ]data\b",
        r"\b(search(ed|es|ing)?|literature)\b[^.]{0,80}\b(medline|pubmed|embase|cochrane|psycinfo|cinahl|scopus)\b",
        r"\b(medline|pubmed|embase|cochrane|psycinfo|cinahl|scopus)\b[^.]{0,80}\bsearched\b",
    ),
    _rule("meta_analysis", r"\bmeta-?analys[ie]s\b|\bsystematic review\b", where="title"),
    _rule(
        "rct",
        r"(?<!non-)\brandomi[sz]ed\b[^.;]{0,60}\btrials?\b",
        r"(?<!non-)\brandomi[sz]ed,? (double-blind|placebo-controlled|controlled|open-label|comparison|crossover)\b",
        rf"\b{_PEOPLE}\b[^.;]{{0,40}}\b(randomly (assigned|allocated)|randomi[sz]ed)\b",
        rf"\b(randomly (assigned|allocated)|we randomi[sz]ed)\b[^.;]{{0,20}}\b[\d,]+ ([\w-]+ )?{_PEOPLE}\b",
        r"\bdouble-?blind(ed)?\b|\b(cluster|crossover|cross-over)[- ]randomi[sz]ed\b",
    ),
    _rule(
        "cohort",  # non-randomised trials: a group followed after an intervention
        r"\bopen-label\b|\bsingle[- ]arm\b|\bnon-?randomi[sz]ed\b|\buncontrolled (trial|study)\b",
        r"\bphase (i{1,3}|[1-3])[ab]?(/(i{1,3}|[1-3]))?\b[^.;]{0,30}\b(trials?|study|studies)\b",
        r"\bclinicaltrials\.gov\b|\btrial registration\b|\bISRCTN\d+|\bNCT\d{8}\b",  # a registered trial
    ),
    _rule(
        "unclassified",  # models and simulations of populations, epidemics and costs
        r"\bmathematical(ly)? model|\bcomputer simulations?\b|\b(micro)?simulation (model|study|studies)\b",
        r"\bmarkov model|\bdecision[- ]analytic(al)? model|\btransmission model|\bmodel(l)?ing (study|analys[ie]s)\b",
    ),
    _rule("case_control", r"\bcase[- ]control\b", r"\bcases\b[^.]{0,100}\bcontrols\b", r"\bmatched controls\b"),
    _rule("cross_sectional", r"\bcross[- ]sectional\b"),
    _rule(
        "cohort",
        r"\bcohort stud(y|ies)\b|\bobservational stud(y|ies)\b|\bfollow-up stud(y|ies)\b|\bperson-years\b",
        r"\b(prospective|retrospective|longitudinal|population[- ]based|observational|community[- ]based|"
        r"open|birth|inception|historical|nationwide|occupational) cohorts?\b",
        r"\bprospective(ly)? (study|studies|follow-up|observational|investigation|data|collected|followed|enrolled|"
        r"recruited)\b|\bcohort analys[ie]s\b",
        r"\bretrospective (study|analysis)\b|\blongitudinal (study|analysis|follow-up)\b|\b(median|mean) follow-up\b",
    ),
    _rule(
        "cross_sectional",
        r"\b(national|household|population|mail|postal|telephone|online|web-based|health|nutrition(al)?|"
        r"prevalence|large[- ]scale) surveys?\b",
        r"\bsurveys? of\b|\bquestionnaire (study|survey)\b|\bprevalence (study|survey)\b",
        r"\b(diagnostic|test) accuracy\b|\b(adoption|twin) stud(y|ies)\b",
    ),
    _rule(
        "case_report",
        r"\bcase report\b|\bcase series\b|\b(a|an) \d+-year-old (man|woman|boy|girl|male|female|patient)\b",
        r"\bwe (report|describe|present) (a|an|two|three|four|five|the) ([\w-]+ ){0,2}"
        r"(case|patient|family|kindred|siblings|boy|girl|man|woman|infant|child)s?\b",
    ),
    _rule(
        "narrative_review",
        r"\b(this|the present|our) (short )?(review|minireview|commentary|perspective|essay|editorial|overview)\b",
        r"\bthis article (reviews|discusses|summari[sz]es|examines|focuses|outlines|highlights|provides)\b",
        r"\b(here|in this (short )?(review|article|chapter|essay)),? we (\w+ )?(review|discuss|reflect|outline)\b",
        r"\bwe (review|summari[sz]e|highlight)\b|\b(focus|aim|purpose) of this article\b",
        r"\breview(s)? (the|recent|current) (literature|evidence|advances|progress|findings|studies|understanding)\b",
        r"\bprovides an overview\b",
    ),
    _rule("narrative_review", r"\breview\b|\bperspective\b|\bcommentary\b|\beditorial\b", where="title"),
    _rule(
        "animal",
        rf"\b({_ANIMALS})\b",
        r"\b(mouse|rat|murine|animal|porcine|canine|primate|rodent) models?\b",
        r"\b(mouse|rat) (strains?|lines?|embryos?|hearts?|brains?|livers?|lungs?|kidneys?|retinas?)\b",
    ),
    _rule(  # microbes and plants: "in vivo" in their abstracts means inside the living microbe or plant
        "in_vitro",
        r"\b(yeast|saccharomyces|escherichia|e\. coli|bacillus|bacteri(a|um)|archaea\w*|bacteriophages?|phages?|"
        r"arabidopsis|plants?)\b",
    ),
    _rule("animal", r"\bxenografts?\b|\bin vivo\b|\banimals\b"),
    _rule(
        "unclassified",  # recordings of the human brain during a task: no intervention, no follow-up
        r"\b(magnetoencephalograph|electroencephalograph|electrocorticograph)\w*|\b(i?eeg|meg|fmri)\b",
        r"\bintracranial (recordings?|electroencephalogra\w*)\b|\bfunctional magnetic resonance\b",
    ),
    _rule(
        "cohort",
        r"\bhazard ratios?\b|\bincidence rates?\b|\b(mortality|survival) rates?\b|\b(overall|event-free) survival\b",
        r"\b(clinical|postoperative|perinatal|maternal|pregnancy|long-term|mid-term|treatment) outcomes?\b",
        where="text",
    ),
    _rule("cross_sectional", r"\bprevalence\b|\btrends\b|\b\d+ countries\b", where="text"),
    _rule(
        "in_vitro",
        r"\bin vitro\b|\bcell lines?\b|\bcultured?\b|\bcells\b",
        r"\bcrystal structure|\bcrystallograph|\bcryo-?e(m|lectron)|\bantibod(y|ies)\b|\bneutraliz\w*",
        r"\b(plasmids?|bacterial|(?<!c-reactive )proteins?|enzymes?|kinases?|phosphorylat\w*|ubiquitin\w*|"
        r"transcription factors?|mrnas?|micrornas?|mirnas?|rnai|sirna|knockdown|crispr|chromatin|histones?|"
        r"genome-wide|sequencing|mutants?)\b",
        where="text",
    ),
]

# A structured abstract's design section ("DESIGN, SETTING, AND PARTICIPANTS Prospective cohort study of ..."):
# its words name the design most directly, so they are read first, with a few looser cues than the whole text.
_DESIGN_HEADING = re.compile(
    r"^\s*design(,? (and )?settings?)?(,? (and )?(participants|patients|population|subjects))?", re.IGNORECASE
)
_NEXT_HEADING = re.compile(r"\b(SETTINGS?|PARTICIPANTS|PATIENTS|INTERVENTIONS?|MAIN OUTCOME|Main Outcome|RESULTS)\b")
_SECTION_RULES: list[TextRule] = [
    *(r for r in TEXT_RULES if r.where == "both" and r.design not in ("animal", "in_vitro", "narrative_review")),
    _rule("cohort", r"\bcohorts?\b|\bobservational\b"),
    _rule("cross_sectional", r"\bsurveys?\b"),
]


def _design_section(sentences: list[str]) -> str:
    for sentence in sentences:
        if sentence.lstrip().startswith(("DESIGN", "Design")) and (m := _DESIGN_HEADING.match(sentence)):
            rest = sentence[m.end() :]
            if cut := _NEXT_HEADING.search(rest):
                rest = rest[: cut.start()]
            return rest
    return ""


def _first(rules: list[TextRule], text: str, where: Where = "both") -> tuple[DesignCode, str] | None:
    for rule in rules:
        if rule.where not in ("both", where):
            continue
        if m := rule.pattern.search(text):
            return rule.design, m.group(0)
    return None


# A series of people or of their tumours followed for an outcome ("In a series of 577 breast carcinomas, ALDH1
# expression correlated with poor prognosis") is a human cohort, whatever animal work the abstract adds.
_HUMAN_SERIES = _rule(
    "cohort",
    r"\b(series|cohorts?|groups?|total) of [\d,]{2,} ([\w-]+ ){0,3}(patients|carcinomas|tumou?rs|cancers|cases|"
    r"specimens|biopsies)\b[^.]{0,120}\b(prognos\w*|survival|outcomes?|recurrence|mortality|relapse)\b",
)
# Words that count people or their tissue as the subjects: with them, and a title that names no animal, the
# abstract is about people, and its animal words are work in passing (a xenograft, a mouse model).
_PEOPLE_STUDIED = re.compile(
    rf"\b[\d,]{{2,}} ([\w-]+ ){{0,3}}({_PEOPLE[1:-1]}|patients|cases|carcinomas|tumou?rs|biopsies)\b",
    re.IGNORECASE,
)
_ANIMAL_RULES = [r for r in TEXT_RULES if r.design == "animal"]


def about_people(title: str, text: str) -> bool:
    """The abstract studies people or their tissue: its title names no animal and its text counts people, patients,
    cases or tumours ("577 breast carcinomas", "1,200 women")."""
    return _first(_ANIMAL_RULES, title) is None and bool(_PEOPLE_STUDIED.search(text))


def text_design(title: str, sentences: list[str]) -> tuple[DesignCode, str] | None:
    """The design the abstract's words name, and the words: its design section, then its title, then its whole
    text; None when nothing names one. An abstract about people (``about_people``) is never called an animal
    study for animal words in its text."""
    text = " ".join(sentences)
    people = about_people(title, text)
    rules = [r for r in TEXT_RULES if r.design != "animal"] if people else TEXT_RULES
    return (
        _first(_SECTION_RULES, _design_section(sentences))
        or _first(TEXT_RULES, title, "title")
        or (_first([_HUMAN_SERIES], text) if people else None)
        or _first(rules, text, "text")
    )
