"""The study-design classifier (tools/documents/design.py) on short hand-written abstracts, and the metric code of
evals/studies/design_eval.py on a tiny hand-made label set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.studies.design_eval import confusion, evaluate, load_labels, main, majority, scores
from tools.corpus import Abstract
from tools.documents.design import DESIGNS, classify


def _doc(title: str, *sentences: str, **extra: list[str]) -> Abstract:
    return Abstract(doc_id="1", title=title, sentences=list(sentences) or ["No further text."], **extra)


ONE_PER_CLASS = {
    "meta_analysis": _doc(
        "Statins and stroke",
        "We searched MEDLINE and Embase for trials of statins published before 2015.",
        "Twelve trials met the inclusion criteria; the pooled risk ratio was 0.82.",
    ),
    "rct": _doc(
        "Vitamin D and falls in older adults",
        "We randomly assigned 400 participants to vitamin D or placebo for one year.",
        "Falls were fewer with vitamin D (rate ratio 0.80).",
    ),
    "cohort": _doc(
        "Coffee and mortality",
        "We followed 20 000 adults in a prospective cohort for a median follow-up of 12 years.",
        "Coffee drinking was associated with lower mortality.",
    ),
    "case_control": _doc(
        "Mobile phones and glioma",
        "We compared 500 patients with glioma and 1000 matched controls in a case-control study.",
    ),
    "cross_sectional": _doc(
        "Smoking among teenagers",
        "We conducted a national survey of 3000 schoolchildren.",
        "Twelve percent reported smoking in the past month.",
    ),
    "case_report": _doc(
        "An unusual rash",
        "We describe a 34-year-old woman who developed a rash after starting a new antibiotic.",
    ),
    "animal": _doc(
        "A gene that controls appetite",
        "Mice lacking the gene ate more and became obese on a normal diet.",
    ),
    "in_vitro": _doc(
        "How a kinase is switched on",
        "We solved the crystal structure of the kinase bound to its activator.",
        "Binding opens the active site.",
    ),
    "narrative_review": _doc(
        "Sleep and memory",
        "In this review we discuss recent work on how sleep consolidates memory.",
    ),
    "unclassified": _doc(
        "Treating everyone with HIV",
        "We developed a mathematical model of HIV transmission in South Africa.",
        "Universal treatment reduced incidence by half within ten years.",
    ),
}


@pytest.mark.parametrize("design", DESIGNS)
def test_each_design_from_a_short_abstract(design: str) -> None:
    call = classify(ONE_PER_CLASS[design])
    assert (call.design, call.basis) == (design, "text")
    assert call.cue


def test_no_cue_is_unclassified_with_no_basis() -> None:
    call = classify(_doc("A note", "The weather was fine on the day of the meeting."))
    assert (call.design, call.basis, call.cue) == ("unclassified", "none", "")


def test_publication_type_beats_mesh_beats_text() -> None:
    text = ("Effect of exercise", "We randomly assigned 200 patients to exercise or usual care.")
    both = classify(_doc(*text, publication_types=["Review"], mesh_terms=["Cohort Studies"]))
    assert (both.design, both.basis, both.cue) == ("narrative_review", "publication type", "review")
    mesh = classify(_doc(*text, mesh_terms=["Humans", "Cohort Studies"]))
    assert (mesh.design, mesh.basis, mesh.cue) == ("cohort", "MeSH", "cohort studies")
    words = classify(_doc(*text))
    assert (words.design, words.basis) == ("rct", "text")


def test_a_mesh_only_record() -> None:
    call = classify(_doc("Untitled", "No design words here.", mesh_terms=["Animals", "Liver"]))
    assert (call.design, call.basis, call.cue) == ("animal", "MeSH", "animals")


def test_the_order_of_the_rules() -> None:
    # a synthesis of trials is a meta-analysis, not a trial
    assert classify(_doc("Aspirin", "A meta-analysis of 14 randomized trials of aspirin.")).design == "meta_analysis"
    # cells and mice: an animal study
    assert classify(_doc("A receptor", "The receptor acts in vitro in cultured cells and in mice.")).design == "animal"
    # a stated human design wins over mice mentioned in passing
    cohort = _doc("Fat and diabetes", "Studies in mice suggest a link.", "We analysed a prospective cohort of nurses.")
    assert classify(cohort).design == "cohort"
    # a non-randomised, open-label trial is followed like a cohort; a randomised one is a trial
    assert classify(_doc("Drug X", "An open-label, single-arm study of drug X.")).design == "cohort"
    assert classify(_doc("Drug X", "An open-label randomized trial of drug X.")).design == "rct"
    # "Mendelian randomization" names no trial
    mr = _doc("Mendelian randomization of alcohol", "We genotyped 4000 cases and 4000 controls.")
    assert classify(mr).design == "case_control"
    # "we report" a finding is not a case report
    assert classify(_doc("An antibody", "Here we report an antibody that neutralizes HIV.")).design == "in_vitro"


def test_people_and_their_tumours_are_never_an_animal_study_for_a_xenograft_in_passing() -> None:
    series = _doc(
        "Marker X predicts poor clinical outcome in breast cancer",
        "Using in vitro and in vivo systems, marker X cells formed tumours in a xenotransplant model in mice.",
        "In a series of 412 breast carcinomas, marker X expression correlated with poor prognosis.",
    )
    assert (classify(series).design, classify(series).cue) == (
        "cohort",
        "series of 412 breast carcinomas, marker X expression correlated with poor prognosis",
    )
    patients = _doc("Drug Y in colitis", "Drug Y reduced inflammation in a mouse model.", "We treated 60 patients.")
    assert classify(patients).design != "animal"
    # the title names the animals: an animal study, whatever people its text mentions
    mice = _doc("Drug Y in mice", "Drug Y protected 40 mice.", "Human disease may follow the same path in patients.")
    assert classify(mice).design == "animal"
    # no count of people or tumours: the animal words decide
    assert (
        classify(_doc("Gene Z and leukaemia", "Gene Z knockout mice lived longer in human disease models.")).design
        == "animal"
    )


def test_a_structured_design_section_decides_first() -> None:
    doc = _doc(
        "Blood pressure in the elderly",
        "BACKGROUND Trials in mice suggested a benefit.",
        "DESIGN, SETTING, AND PARTICIPANTS Cross-sectional study of 2000 adults. SETTING Primary care.",
        "RESULTS Patients were followed for a median follow-up of 3 years.",
    )
    assert classify(doc).design == "cross_sectional"


def test_scores_on_a_tiny_label_set() -> None:
    gold = ["rct", "rct", "cohort", "animal", "animal", "animal"]
    pred = ["rct", "cohort", "cohort", "animal", "animal", "in_vitro"]
    s = scores(gold, pred)
    assert s["n"] == 6 and s["accuracy"] == pytest.approx(4 / 6)
    pc = s["per_class"]
    assert list(pc) == ["rct", "cohort", "animal", "in_vitro"]  # DESIGNS order, labels and predictions
    assert (pc["rct"]["precision"], pc["rct"]["recall"], pc["rct"]["support"]) == (1.0, 0.5, 2)
    assert pc["rct"]["f1"] == pytest.approx(2 / 3)
    assert (pc["cohort"]["precision"], pc["cohort"]["recall"], pc["cohort"]["f1"]) == (0.5, 1.0, pytest.approx(2 / 3))
    assert (pc["animal"]["precision"], pc["animal"]["recall"]) == (1.0, pytest.approx(2 / 3))
    assert pc["animal"]["f1"] == pytest.approx(0.8)
    # predicted but never labelled: precision 0, support 0, F1 0, and it counts in the macro average
    assert pc["in_vitro"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 0, "predicted": 1}
    assert s["macro_f1"] == pytest.approx((2 / 3 + 2 / 3 + 0.8 + 0.0) / 4)
    assert scores(["rct"], ["rct"])["macro_f1"] == 1.0
    with pytest.raises(ValueError):
        scores(["rct"], [])


def test_confusion_and_majority() -> None:
    gold = ["rct", "cohort", "cohort", "animal"]
    pred = ["cohort", "cohort", "animal", "animal"]
    table = confusion(gold, pred)
    assert list(table) == ["rct", "cohort", "animal"]
    assert table["rct"] == {"rct": 0, "cohort": 1, "animal": 0}
    assert table["cohort"] == {"rct": 0, "cohort": 1, "animal": 1}
    assert table["animal"]["animal"] == 1
    assert majority(gold) == "cohort"
    assert majority(["animal", "rct"]) == "rct"  # a tie goes to the design listed first


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_load_labels_refuses_unknown_designs_and_repeats(tmp_path: Path) -> None:
    good = _write(tmp_path / "ok.jsonl", [{"doc_id": "1", "design": "rct", "note": "n"}])
    assert load_labels(good) == [{"doc_id": "1", "design": "rct", "note": "n"}]
    with pytest.raises(ValueError, match="unknown design"):
        load_labels(_write(tmp_path / "bad.jsonl", [{"doc_id": "1", "design": "trial"}]))
    twice = [{"doc_id": "1", "design": "rct"}, {"doc_id": "1", "design": "cohort"}]
    with pytest.raises(ValueError, match="twice"):
        load_labels(_write(tmp_path / "twice.jsonl", twice))


def test_evaluate_and_main_on_a_tiny_corpus(tmp_path: Path) -> None:
    corpus = _write(
        tmp_path / "corpus.jsonl",
        [
            {"doc_id": 1, "title": "T", "abstract": ["We randomly assigned 90 patients to drug or placebo."]},
            {"doc_id": 2, "title": "T", "abstract": ["Knockout mice lived longer."]},
            {"doc_id": 3, "title": "T", "abstract": ["Rats were fed a high-fat diet."]},
        ],
    )
    labels = _write(
        tmp_path / "labels.jsonl",
        [{"doc_id": "1", "design": "rct"}, {"doc_id": "2", "design": "animal"}, {"doc_id": "3", "design": "cohort"}],
    )
    res = evaluate(load_labels(labels), corpus)
    assert res["classifier"]["accuracy"] == pytest.approx(2 / 3)
    base = res["majority_baseline"]
    assert base["predicts"] == "rct" and base["accuracy"] == pytest.approx(1 / 3)
    assert res["errors"] == [{"doc_id": "3", "gold": "cohort", "pred": "animal", "basis": "text", "cue": "Rats"}]
    out = tmp_path / "out"
    argv = ["--split", "train", "--labels", str(labels), "--corpus", str(corpus), "--out", str(out)]
    assert main(argv) == 0
    written = json.loads((out / "design_classifier_train.json").read_text())
    assert written["command"].startswith("python -m evals.studies.design_eval --split train")
    assert written["classifier"]["accuracy"] == pytest.approx(2 / 3)
    assert "python -m evals.studies.design_eval --split train" in (out / "design_classifier_train.md").read_text()
    missing = _write(tmp_path / "missing.jsonl", [{"doc_id": "99", "design": "rct"}])
    with pytest.raises(SystemExit):
        evaluate(load_labels(missing), corpus)
