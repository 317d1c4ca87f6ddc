"""Extra stance data readers of the verifier training (evals/training/data.py), on tiny files written here in the
real formats."""

from __future__ import annotations

import json
from pathlib import Path

from evals.training.data import NEI, load_climate_fever, load_pubmedqa


def test_pubmedqa_keeps_yes_and_no_and_drops_maybe_and_short_answers(tmp_path: Path) -> None:
    def item(q: str, decision: str, answer: str) -> dict[str, object]:
        return {"QUESTION": q, "CONTEXTS": ["c"], "final_decision": decision, "LONG_ANSWER": answer}

    path = tmp_path / "ori_pqal.json"
    path.write_text(
        json.dumps(
            {
                "1": item("Does A help B?", "yes", "A helped B in all patients studied here."),
                "2": item("Does C help D?", "no", "C did not improve D in this randomised trial."),
                "3": item("Does E help F?", "maybe", "E may help F in some patients, further work needed."),
                "4": item("Does G help H?", "no", "No."),
            }
        )
    )
    got = [(e.hyp, e.variants, e.label) for e in load_pubmedqa(path)]
    assert got == [
        ("Does A help B?", ["A helped B in all patients studied here."], 0),
        ("Does C help D?", ["C did not improve D in this randomised trial."], 1),
    ]


def test_climate_fever_pairs_carry_article_title_and_evidence_label(tmp_path: Path) -> None:
    def ev(article: str, text: str, label: str) -> dict[str, str]:
        return {"article": article, "evidence": text, "evidence_label": label}

    record = {
        "claim": "Sea levels are rising.",
        "evidences": [
            ev("Sea level rise", "Global mean sea level has risen about 20 cm since 1900.", "SUPPORTS"),
            ev("Sea level", "Sea level has been falling everywhere for a century.", "REFUTES"),
            ev("Ocean", "The ocean covers about 71 percent of the surface.", "NOT_ENOUGH_INFO"),
            ev("Ocean", "Too short.", "SUPPORTS"),
        ],
    }
    path = tmp_path / "cf.jsonl"
    path.write_text(json.dumps(record) + "\n")
    got = [(e.hyp, e.variants[0], e.label) for e in load_climate_fever(path)]
    assert got == [
        ("Sea levels are rising.", "Sea level rise: Global mean sea level has risen about 20 cm since 1900.", 0),
        ("Sea levels are rising.", "Sea level: Sea level has been falling everywhere for a century.", 1),
        ("Sea levels are rising.", "Ocean: The ocean covers about 71 percent of the surface.", NEI),
    ]
