"""The claim-level table: the verdict a user sees against SciFact's labels, per gold class."""

from __future__ import annotations

from typing import Any

from evals.scifact.claim_level import claim_sides, gold_class, markdown_table, replay_sides, side_table


def claim(cid: int, *labels: str) -> dict[str, Any]:
    return {"id": cid, "claim": f"claim {cid}",
            "evidence": {str(100 + k): [{"sentences": [0], "label": lab}] for k, lab in enumerate(labels)}}


def record(cid: int, label: str) -> dict[str, Any]:
    return {"id": cid, "result": {"verdict": {"label": label}}}


def test_gold_class_reads_agreeing_labels_and_no_evidence() -> None:
    assert gold_class([]) == "NEI"
    assert gold_class(["CONTRADICT", "CONTRADICT"]) == "CONTRADICT"
    assert gold_class(["SUPPORT", "CONTRADICT"]) == "MIXED"


def test_each_verdict_lands_in_its_cell() -> None:
    claims = [claim(1, "SUPPORT"), claim(2, "SUPPORT"), claim(3, "CONTRADICT"), claim(4, "CONTRADICT"),
              claim(5, "CONTRADICT"), claim(6), claim(7)]
    records = [record(1, "Weakly supported"), record(2, "Generally refuted"), record(3, "Weakly refuted"),
               record(4, "Not enough evidence"), record(5, "Generally controversial"), record(6, "Not enough evidence"),
               record(7, "Generally supported")]
    t = claim_sides(records, claims)
    assert (t["SUPPORT"]["right"], t["SUPPORT"]["wrong"], t["SUPPORT"]["none"]) == (1, 1, 0)
    # a controversy without a lean takes no side
    assert (t["CONTRADICT"]["right"], t["CONTRADICT"]["wrong"], t["CONTRADICT"]["none"]) == (1, 0, 2)
    assert (t["NEI"]["wrong"], t["NEI"]["none"]) == (1, 1)
    assert t["settled"] == 5 and t["right_of_settled"] == 0.4 and t["wrong_side"] == 1
    # right 2 of the 4 verdicts that take a side, the one on an NEI claim among them
    assert t["right_when_sided"] == 0.5


def test_a_claim_without_a_record_is_left_out() -> None:
    t = claim_sides([record(1, "Weakly supported")], [claim(1, "SUPPORT"), claim(2, "SUPPORT")])
    assert t["SUPPORT"]["claims"] == 1 and t["right_of_settled"] == 1.0


def test_replay_sides_reckon_each_claim_from_the_labels_that_count() -> None:
    rows = [{"claim": 1, "docs": [{"pair": "1:a"}, {"pair": "1:b"}]},
            {"claim": 2, "docs": [{"pair": "2:a"}, {"pair": "2:b"}]},
            {"claim": 3, "docs": [{"pair": "3:a"}]}]
    labels = {"1:a": ("Mostly False", 0.9), "1:b": None, "2:a": ("True", 0.9), "2:b": ("No Evidence", 0.5),
              "3:a": None}
    t = replay_sides(rows, labels, {1: "CONTRADICT", 2: "CONTRADICT", 3: "NEI"})
    assert (t["CONTRADICT"]["right"], t["CONTRADICT"]["wrong"]) == (1, 1)
    assert t["NEI"]["none"] == 1


def test_the_markdown_names_every_class_and_the_headline() -> None:
    text = "\n".join(markdown_table(side_table([("SUPPORT", 1), ("CONTRADICT", 0), ("NEI", 0)])))
    assert "| refuting evidence | 1 | 0 | 0 | 1 |" in text
    assert "Right side on 0.5 of the 2 claims" in text
