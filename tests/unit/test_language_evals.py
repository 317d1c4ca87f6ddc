"""The comparison of a claim in another language with its English version (evals.language.both_ways): its figures
from records, and the hand-translated SciFact sample (evals/language/scifact_sample.jsonl) it runs on."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from evals.language.both_ways import table
from evals.language.healthfc import twice_report
from evals.language.scifact_sample import SAMPLE
from tools.text.language import language_of


def record(key: str, sides: tuple[int, int], tops: tuple[list[str], list[str]], counts: bool) -> dict[str, Any]:
    asked, en = ({"side": s, "top": t, "counts_a_paper": counts} for s, t in zip(sides, tops, strict=True))
    return {"key": key, "language": key.split(":")[0], "asked": asked, "en": en,
            "seconds": {"translate": 2.0, "asked": 9.0, "en": 7.0}}


def test_the_table_counts_sides_and_top_papers_against_the_english_check():
    recs = [
        record("es:1", (1, 1), (["a", "b", "c"], ["c", "b", "a"]), True),  # same side, same top 3 as a set
        record("es:2", (0, -1), (["a", "b", "c"], ["a", "b", "d"]), True),  # another side, 2 of 3 shared
        record("fr:3", (0, 0), (["x"], ["y"]), False),  # recognised as French, not Spanish
    ]
    shown = table(recs, "es")
    assert "| recognised as the language it is in | 2 of 3 (0.67) |" in shown
    assert "| the same verdict side (supported, refuted, neither) | 2 of 3 (0.67) |" in shown
    assert "| the same side, of the claims whose English version counts a paper | 1 of 2 (0.50) |" in shown
    assert "| the same top 3 papers (as a set) | 1 of 3 (0.33) |" in shown
    assert "| top-3 papers shared, mean | 1.67 of 3 |" in shown
    assert "translation 2.0, the translated claim's check 9.0, the\nEnglish version's 7.0 (" in shown


def test_the_english_twice_report_counts_a_side_change_where_either_check_counts_a_paper():
    recs = [
        record("1", (1, 0), (["a", "b", "c"], ["a", "b", "c"]), False),  # a side changed, same papers
        record("2", (0, 0), (["a", "b", "c"], ["a", "b", "d"]), False),
    ]
    recs[0]["asked"]["counts_a_paper"] = True  # only the first check counted a paper
    shown = twice_report(recs, 40, 13)
    assert "--n 40 --seed 13 --english-twice" in shown
    assert "| the same verdict side (supported, refuted, neither) | 1 of 2 (0.50) |" in shown
    assert "| the same side, of the claims where either check counts a paper | 0 of 1 (0.00) |" in shown
    assert "| the same top 3 papers (as a set) | 1 of 2 (0.50) |" in shown
    assert "| top-3 papers shared, mean | 2.50 of 3 |" in shown
    assert "Rows whose two checks take different sides: 1." in shown


def test_the_sample_holds_each_claim_in_each_language_and_each_reads_as_its_language():
    rows = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    by_language = Counter(r["language"] for r in rows)
    assert by_language == {"es": 10, "fr": 10, "pt": 10}
    assert {r["id"] for r in rows if r["language"] == "es"} == {r["id"] for r in rows if r["language"] == "pt"}
    assert [r["id"] for r in rows if language_of(r["claim"]) != r["language"]] == []


def test_the_translation_measure_counts_stems_kept_findings_and_an_earlier_prompt_is_rendered_as_its_file():
    from agent.llm.scripted import ScriptedChatModel
    from evals.language.translation import TUNING, measured

    pairs = [("Statine erhöhen das Risiko für Hüftfrakturen.", "Statins increase the risk of hip fractures."),
             ("Folsäure senkt den Homocysteinspiegel.", "Folic acid lowers homocysteine levels.")]
    llm = ScriptedChatModel(rules=[
        {"when": "Statine", "reply": json.dumps({"english": "Statins increase the risk of hip fractures."})},
        {"when": "Folsäure", "reply": json.dumps({"english": "Moldy fruits for homocysteine."})},  # no verb left
    ])  # fmt: skip
    m = measured(llm, pairs, None)
    assert (m["claims"], m["all_stems"], m["kept"], m["states_a_finding"], m["english_states_one"]) == (2, 1, 2, 1, 2)
    assert m["stem_recall"] == round((1.0 + 1 / 5) / 2, 3)  # "homoc" of {"folic", "acid", "lower", "homoc", "level"}
    earlier = measured(llm, pairs[:1], "Into English, from {language}: {claim}")  # a template given as text
    assert earlier["all_stems"] == 1 and "Into English, from German: Statine" in str(llm.calls[-1][-1].content)
    rows = [json.loads(line) for line in TUNING.read_text().splitlines()]
    assert len(rows) == 30 and all(language_of(r["claim"]) == r["language"] == "de" for r in rows)
