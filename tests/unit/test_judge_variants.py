"""The one table of judge variants (evals.studies.judge_variants): a row per judge of each committed study report,
its study's claim count beside it, the committed dev runs read back claim by claim, and a clear exit when no report
is there."""

from __future__ import annotations

import json
from pathlib import Path

from evals.scifact.records import write_records
from evals.studies.judge_variants import (
    DEV_RUNS,
    RESULTS,
    dev_rows,
    main,
    markdown,
    rows_of,
    saved_sides,
    sides_of,
)

CELL = {"claims": 3, "right": 1, "wrong": 1, "none": 1}
JUDGE = {"llm_calls_per_abstract": 3, "label_only": {"precision": 0.6, "recall": 0.3, "f1": 0.4},
         "claims": {"SUPPORT": CELL, "CONTRADICT": {**CELL, "right": 2, "none": 0}, "NEI": CELL, "settled": 6,
                    "right_of_settled": 0.5, "right_when_sided": 0.6, "wrong_side": 2}}


def test_each_judge_of_each_report_is_a_row(tmp_path: Path) -> None:
    (tmp_path / "in_context.json").write_text(json.dumps({"claims": 122, "judges": {"shipped": JUDGE}}))
    (tmp_path / "generated_context.json").write_text(json.dumps({"claims": 14, "judges": {"with context": JUDGE}}))
    (tmp_path / "neither_choice.json").write_text(json.dumps({"claims": 122, "judges": {"old": {"label_only": {}}}}))
    rows = rows_of(tmp_path)
    assert [(r["study"], r["judge"], r["claims_in_study"]) for r in rows] == [
        ("in_context", "shipped", 122), ("generated_context", "with context", 14)]  # a report without sides: none
    text = markdown(rows, [], "cmd")
    assert "| [generated_context](generated_context.md) | with context | 14 | 3 | 1 / 1 / 1 | 2 / 1 / 0 | – / 1 / 1 |" \
        in text
    assert "No committed dev run." in text


def test_no_report_is_exit_2(tmp_path: Path, capsys) -> None:
    assert main(["--out", str(tmp_path)]) == 2
    assert "no study report" in capsys.readouterr().err


def test_a_full_dev_run_is_read_back_whole_and_on_the_shorter_runs_claims(tmp_path: Path) -> None:
    """Each dev run's sides come from its predictions file, on the claims it read; a full run also gets a row on the
    first claims, without the whole run's Label-Only scores and time."""
    gold = {1: "SUPPORT", 2: "CONTRADICT", 3: "CONTRADICT", 4: None}
    claims = [{"id": cid, "evidence": {} if lab is None else {"10": [{"sentences": [0], "label": lab}]}}
              for cid, lab in gold.items()]
    verdicts = {1: "Weakly supported", 2: "Generally refuted", 3: "Not enough evidence", 4: "Weakly supported"}
    full, short = tmp_path / "full", tmp_path / "short"
    for folder, limit, ids in ((full, None, [1, 2, 3, 4]), (short, 2, [1, 2])):
        folder.mkdir()
        name = "scifact_dev_judgement" + (f"_limit{limit}" if limit else "")
        (folder / f"{name}.json").write_text(json.dumps({
            "run": {"split": "dev", "limit": limit, "command": "claimtrace eval scifact"},
            "abstract": {"label_only": {"precision": 0.5, "recall": 0.25, "f1": 1 / 3}},
            "cost": {"seconds_per_claim": 12.34}}))
        write_records(folder / "scifact_dev_judgement.predictions.jsonl.gz",
                      [{"id": i, "result": {"verdict": {"label": verdicts[i]}}} for i in ids])
    runs = [("full judge", "here", full / "scifact_dev_judgement.json"),
            ("short judge", "here", short / "scifact_dev_judgement_limit2.json"),
            ("never run", "here", tmp_path / "absent" / "scifact_dev_judgement.json")]
    rows = dev_rows(runs, claims_of=lambda split, limit: claims[:limit], saved={})
    assert [(r["judge"], r["claims_in_run"]) for r in rows] == [("full judge", 4), ("full judge", 2),
                                                                 ("short judge", 2)]
    whole, first = rows[0]["claims"], rows[1]["claims"]
    assert (whole["CONTRADICT"]["right"], whole["CONTRADICT"]["none"], whole["NEI"]["wrong"]) == (1, 1, 1)
    assert (first["CONTRADICT"]["claims"], first["right_of_settled"]) == (1, 1.0)
    assert rows[1]["label_only"] is None and rows[1]["seconds_per_claim"] is None
    text = markdown([], rows, "cmd")
    assert f"| full judge | [{full / 'scifact_dev_judgement.json'}]({full / 'scifact_dev_judgement'}.md) | here | 4 |" \
        in text
    assert "| 0.500 | 0.250 | 0.333 | 12.3 |" in text and "| – | – | – | – |" in text


def test_saved_tables_stand_in_for_the_predictions(tmp_path: Path) -> None:
    """A run whose claim-level tables are saved is read from them: no predictions file, no SciFact claims; saving the
    rows again gives the same tables."""
    (tmp_path / "run").mkdir()
    report = tmp_path / "run" / "scifact_dev_judgement.json"
    report.write_text(json.dumps({"run": {"split": "dev", "limit": None}, "abstract": {"label_only": {}},
                                  "cost": {"seconds_per_claim": 1.0}}))
    saved = {str(report): {"all": {"claims_in_run": 300, "claims": JUDGE["claims"]}}}

    def no_claims(split: str, limit: int | None) -> list[dict[str, object]]:
        raise AssertionError("the saved table is read, not the claims")

    rows = dev_rows([("judge", "here", report)], claims_of=no_claims, saved=saved)
    assert [(r["claims_in_run"], r["claims"]) for r in rows] == [(300, JUDGE["claims"])]
    assert sides_of(rows) == saved


def test_every_committed_dev_run_is_read_from_its_saved_tables() -> None:
    """The committed dev runs keep their reports, not their predictions (only the shipped run's): every row of theirs
    comes from evals/results/judge_variants_dev.json, without SciFact's claims."""

    def no_claims(split: str, limit: int | None) -> list[dict[str, object]]:
        raise AssertionError(f"a dev run's table on {limit or 'all'} claims is not saved")

    rows = dev_rows(claims_of=no_claims)
    assert {r["file"] for r in rows} == {report.relative_to(RESULTS).as_posix() for _, _, report in DEV_RUNS}
    assert sides_of(rows) == saved_sides()
