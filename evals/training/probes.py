"""Contrast probes: pairs a trustworthy verifier must get right, each beside its opposite. The same evidence read
against a claim and its reversal, or the same claim against a finding and its reversal (poor vs better prognosis,
no effect vs protects, increased vs reduced risk), and a background sentence that states the claim as a concern.

Two abstracts come from the SciFact corpus (the ALDH1 and the antibiotics abstract, sentences verbatim, cut to
what the premise reads); the others are written for these probes. The trial table reports how many each verifier
gets right, and tests/unit/test_verifier.py holds the shipped verifier to them."""

from __future__ import annotations

from dataclasses import dataclass

from tools.text.premise import abstract_premise, premise


@dataclass(frozen=True)
class Probe:
    name: str
    claim: str
    title: str
    sentences: tuple[str, ...]
    index: int
    expected: str  # supports / contradicts / nei

    def pair(self, placed: bool = True) -> tuple[str, str]:
        """(claim, premise): the run-time premise, or "title: sentence" for verifiers trained on plain premises."""
        if placed:
            return self.claim, abstract_premise(self.title, self.sentences, [self.index])
        return self.claim, premise(self.title, self.sentences[self.index])


ALDH1 = (
    "ALDH1 is a marker of normal and malignant human mammary stem cells and a predictor of poor clinical outcome",
    (
        "Application of stem cell biology to breast cancer research has been limited by the lack of simple methods "
        "for identification and isolation of normal and malignant stem cells.",
        "In breast carcinomas, high ALDH activity identifies the tumorigenic cell fraction, capable of self-renewal "
        "and of generating tumors that recapitulate the heterogeneity of the parental tumor.",
        "In a series of 577 breast carcinomas, expression of ALDH1 detected by immunostaining correlated with poor "
        "prognosis.",
    ),
)
ANTIBIOTICS = (
    "Antibiotics and risk of subsequent first-time acute myocardial infarction.",
    (
        "OBJECTIVE To determine whether previous use of antibiotics decreases the risk of developing a first-time "
        "acute myocardial infarction.",
        "DESIGN Population-based case-control analysis.",
        "RESULTS Cases were significantly less likely to have used tetracycline antibiotics (adjusted odds ratio "
        "[OR], 0.70; 95% confidence interval [CI], 0.55-0.90) or quinolones (adjusted OR, 0.45; 95% CI, 0.21-0.95).",
        "No effect was found for previous use of macrolides (primarily erythromycin), sulfonamides, penicillins, or "
        "cephalosporins.",
    ),
)
# A finding and its reversal sit in two abstracts of the same design, as they would in the literature (one abstract
# stating both would give each the other as its context).
ASPIRIN = (
    "Aspirin for fever in adults: a randomised controlled trial",
    (
        "We randomised 420 adults with fever to aspirin or placebo.",
        "Aspirin significantly reduced fever compared with placebo.",
    ),
)
ASPIRIN_NULL = (
    "Aspirin for fever in adults: a randomised controlled trial",
    (
        "We randomised 420 adults with fever to aspirin or placebo.",
        "Aspirin did not reduce fever compared with placebo; body temperature was unchanged.",
    ),
)
STATINS = (
    "Statin therapy and stroke in 12,000 patients with coronary disease",
    (
        "Patients were followed for a median of 4.9 years.",
        "Statin therapy reduced the incidence of stroke by 21% (hazard ratio 0.79, 95% CI 0.70-0.89).",
    ),
)
STATINS_HARM = (
    "Statin therapy and stroke in 12,000 patients with coronary disease",
    (
        "Patients were followed for a median of 4.9 years.",
        "Statin therapy increased the incidence of stroke (hazard ratio 1.25, 95% CI 1.08-1.44).",
    ),
)
MMR = (
    "Measles, mumps, rubella vaccination and autism: a nationwide cohort study",
    (
        "BACKGROUND Concerns persist that the MMR vaccine causes autism.",
        "METHODS We followed 657,461 children born in Denmark from 1999 through 2010.",
        "RESULTS MMR vaccination was not associated with an increased risk of autism (hazard ratio 0.93).",
    ),
)
SOIL = (
    "Soil microbiology of wheat fields",
    ("Nitrogen-fixing bacteria were sampled from twelve wheat fields in Kansas.",),
)

PROBES: tuple[Probe, ...] = (
    Probe(
        "poor prognosis vs better outcomes",
        "ALDH1 expression is associated with better breast cancer outcomes.",
        *ALDH1,
        2,
        "contradicts",
    ),
    Probe(
        "poor prognosis vs poorer prognosis",
        "ALDH1 expression is associated with poorer breast cancer prognosis.",
        *ALDH1,
        2,
        "supports",
    ),
    Probe("no effect vs protects", "Macrolides protect against myocardial infarction.", *ANTIBIOTICS, 3, "contradicts"),
    Probe(
        "less likely vs lower risk",
        "Tetracycline use is associated with a lower risk of myocardial infarction.",
        *ANTIBIOTICS,
        2,
        "supports",
    ),
    Probe("reduced fever", "Aspirin reduces fever.", *ASPIRIN, 1, "supports"),
    Probe("did not reduce fever", "Aspirin reduces fever.", *ASPIRIN_NULL, 1, "contradicts"),
    Probe("reduced risk vs reduces", "Statins reduce the risk of stroke.", *STATINS, 1, "supports"),
    Probe("increased risk vs reduces", "Statins reduce the risk of stroke.", *STATINS_HARM, 1, "contradicts"),
    Probe("background concern is no finding", "The MMR vaccine causes autism.", *MMR, 0, "nei"),
    Probe("no association vs causes", "The MMR vaccine causes autism.", *MMR, 2, "contradicts"),
    Probe("unrelated abstract", "Aspirin reduces fever.", *SOIL, 0, "nei"),
)


BY_NAME = {p.name: p for p in PROBES}


def probe_results(verifier: object, placed: bool = True) -> list[tuple[Probe, str]]:
    """(probe, predicted label) for every probe."""
    predict = verifier.predict  # type: ignore[attr-defined]
    return [(p, r.label) for p, r in zip(PROBES, predict([p.pair(placed) for p in PROBES]), strict=True)]
