"""Every figure of a SciFact evaluation, computed from per-claim records (evals.scifact.records). Fractions in
[0, 1] unless named otherwise; None where undefined.

* ``retrieval``: Recall@3/@5, MAP@5, nDCG@10 (evals.scifact.retrieval_metrics) over claims that have evidence, gold =
  their evidence docs. ``retrieval_cited``: the same with gold = ``cited_doc_ids`` (BEIR's definition, all claims).
  ``baselines``: both blocks for BM25 alone and dense alone (the claim query's own lists).
* ``claims``: the verdict a user sees, claim by claim, against SciFact's labels (evals.scifact.claim_level): per gold
  class, right side, wrong side, no side; the headline figures.
* ``abstract`` / ``sentence``: the official SciFact rules (evals.scifact.scifact_metrics) on each record's predictions.
* ``faithfulness`` (answers to claims with evidence): ``citation_validity`` = valid citations / all citations the
  model wrote (before invalid ones were stripped); ``attributable_rate`` = shown answer sentences with status
  "supported" / all shown sentences, after self-correction; ``draft_attributable_rate`` the same before it;
  ``independent_support_rate`` and ``answers_with_copies``, checks of the shown answer that do not use the verifier
  (evals.scifact.answer_checks); ``answers_corrected`` and the ``corrections`` by action.
* ``verifier``: ``macro_f1`` and ``accuracy`` from ``evals/results/verifier_dev.json`` (written by the verifier
  training; None when absent). ``flag_precision`` / ``flag_recall`` use a proxy for the unknown truth: an answer
  sentence *should be flagged* when none of the evidence sentences it cites (valid citations only) is a gold
  rationale sentence of the claim. So an uncited sentence, and every sentence of an answer to an NEI claim, should
  be flagged. Precision = flagged and should / flagged; recall = flagged and should / should.
* ``cost``: seconds, LLM calls, prompt and completion tokens per claim (means).
* ``calibration`` (full run): the reliability of the verdict confidence (expected calibration error and bins) and the
  risk-coverage table (Label-Only P / R / F1 and coverage of claims with evidence at each confidence threshold),
  read back from the records (evals.scifact.verdict_confidence).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agent.state import CORRECTION_ACTIONS
from evals.scifact.answer_checks import check_answer, only_copied
from evals.scifact.claim_level import claim_sides
from evals.scifact.data import RESULTS_DIR, cited_qrels, evidence_qrels, gold_sentences
from evals.scifact.records import BASELINE_TOOLS
from evals.scifact.retrieval_metrics import retrieval_report
from evals.scifact.scifact_metrics import PRF, DocPrediction, abstract_metrics, sentence_metrics
from evals.scifact.verdict_confidence import run_calibration

VERIFIER_RESULTS = RESULTS_DIR / "verifier_dev.json"
RETRIEVAL_KEYS = ("recall@3", "recall@5", "map@5", "ndcg@10")
FAITHFULNESS_KEYS = (
    "citation_validity",
    "attributable_rate",
    "draft_attributable_rate",
    "independent_support_rate",
    "answers_with_copies",
    "answers_corrected",
    "corrections",
    "verdict_first",
    "only_copied_passages",
)


def _ratio(num: float, denom: float) -> float | None:
    return num / denom if denom else None


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def should_flag(
    sentence: Mapping[str, Any], evidence_by_n: Mapping[int, list[tuple[str, int]]], gold: set[tuple[str, int]]
) -> bool:
    """The flag proxy: True when no (valid) citation of the sentence points at a paper whose cited evidence holds
    a gold rationale sentence."""
    cited = [c for n in sentence.get("citations", []) for c in evidence_by_n.get(n, [])]
    return not any(c in gold for c in cited)


def flag_counts(record: Mapping[str, Any], claim: Mapping[str, Any]) -> tuple[int, int, int]:
    """(flagged and should be, flagged, should be flagged) over the answer sentences of one claim."""
    result = record["result"]
    evidence_by_n: dict[int, list[tuple[str, int]]] = {}
    for s in result["sources"]:
        evidence_by_n.setdefault(int(s["n"]), []).append((str(s["doc_id"]), int(s["sentence_index"])))
    gold = gold_sentences(claim)
    both = flagged = should = 0
    for s in result["sentences"]:
        f, sh = bool(s["flagged"]), should_flag(s, evidence_by_n, gold)
        both += f and sh
        flagged += f
        should += sh
    return both, flagged, should


def draft_sentences(result: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The answer as first written and verified, before self-correction: the shown sentences it did not change,
    and each corrected one as the correction recorded it."""
    kept = [s for s in result["sentences"] if not s.get("revision")]
    return kept + [
        {"citations": c["citations"], "invalid_citations": c["invalid_citations"], "status": c["status"]}
        for c in result.get("corrections", [])
    ]


def answer_faithfulness(results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``citation_validity`` of what the model wrote; ``attributable_rate`` of what is shown (after
    self-correction, a quote of the cited source counting as supported); ``draft_attributable_rate`` before it;
    ``independent_support_rate``: shown sentences whose content words are in what they cite, a check that does not
    use the verifier; ``answers_with_copies``: answers with a shown sentence copying a title, restating the claim or
    copying prompt text (evals.scifact.answer_checks); the share of answers self-correction changed and its actions;
    ``verdict_first``: answers whose first words state the verdict's label (the badge's); ``only_copied_passages``:
    answers whose shown sentences (one at least) are all copied passages (evals.scifact.answer_checks)."""
    shown = faithfulness_metrics([s for r in results for s in r["sentences"]])
    draft = faithfulness_metrics([s for r in results for s in draft_sentences(r)])
    actions = [c["action"] for r in results for c in r.get("corrections", [])]
    independent: list[bool] = []
    copying = 0
    for r in results:
        supported, found = check_answer(r["claim"], r["sources"], r["sentences"])
        independent += supported
        copying += any(found.values())
    return {
        "citation_validity": draft["citation_validity"],
        "attributable_rate": shown["attributable_rate"],
        "draft_attributable_rate": draft["attributable_rate"],
        "independent_support_rate": _ratio(sum(independent), len(independent)),
        "answers_with_copies": _ratio(copying, len(results)),
        "answers_corrected": _ratio(sum(bool(r.get("corrections")) for r in results), len(results)),
        "verdict_first": _ratio(sum(states_verdict_first(r) for r in results), len(results)),
        "only_copied_passages": _ratio(
            sum(
                only_copied([s["text"] for s in r["sentences"]], [src["sentence"] for src in r["sources"]])
                for r in results
            ),
            len(results),
        ),
        "corrections": {a: actions.count(a) for a in CORRECTION_ACTIONS},
    }


def states_verdict_first(result: Mapping[str, Any]) -> bool:
    """Whether the answer's first words are the verdict's label ("Cannot decide" with its leaning)."""
    v = result.get("verdict") or {}
    return bool(v) and str(result.get("answer", "")).startswith(v["label"])


def faithfulness_metrics(sentences: Sequence[Mapping[str, Any]]) -> dict[str, float | None]:
    """citation_validity: valid citations / all the model wrote (before invalid ones were stripped);
    attributable_rate: sentences the verifier finds supported / all answer sentences."""
    valid = sum(len(s["citations"]) for s in sentences)
    written = valid + sum(len(s["invalid_citations"]) for s in sentences)
    return {
        "citation_validity": _ratio(valid, written),
        "attributable_rate": _ratio(sum(s["status"] == "supported" for s in sentences), len(sentences)),
    }


def _prf(p: PRF) -> dict[str, float]:
    return {"precision": p.precision, "recall": p.recall, "f1": p.f1}


def _retrieval(runs: Mapping[int, Sequence[str]], qrels: Mapping[int, set[str]]) -> dict[str, float | None]:
    if not any(qrels.values()):
        return dict.fromkeys(RETRIEVAL_KEYS)
    return dict(retrieval_report(runs, qrels))


def retrieval_metrics(records: Sequence[Mapping[str, Any]], claims: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``retrieval``, ``retrieval_cited`` and ``baselines`` from the rankings of the records."""
    ev_q, cited_q = evidence_qrels(claims), cited_qrels(claims)
    by_id = {int(r["id"]): r for r in records}

    def block(name: str) -> dict[str, Any]:
        runs = {i: r["rankings"][name] for i, r in by_id.items()}
        return {"retrieval": _retrieval(runs, ev_q), "retrieval_cited": _retrieval(runs, cited_q)}

    fused = block("fused")
    return {
        "retrieval": fused["retrieval"],
        "retrieval_cited": fused["retrieval_cited"],
        "baselines": {name: block(name) for name in BASELINE_TOOLS},
    }


def verifier_dev_metrics(path: Path = VERIFIER_RESULTS) -> dict[str, float | None]:
    """macro-F1 and accuracy of the verifier on its SciFact-dev sentence set, as its training wrote them."""
    try:
        dev = json.loads(path.read_text()).get("dev", {})
    except (OSError, json.JSONDecodeError, AttributeError):
        return {"macro_f1": None, "accuracy": None}
    return {"macro_f1": dev.get("macro_f1"), "accuracy": dev.get("accuracy")}


def full_metrics(
    records: Sequence[Mapping[str, Any]],
    claims: Sequence[Mapping[str, Any]],
    verifier_results: Path = VERIFIER_RESULTS,
    answered: bool = True,
) -> dict[str, Any]:
    """Every metric group of the full run, from per-claim records (one per claim of ``claims``); ``answered=False``
    (a judgement-only run) leaves the answer's groups empty."""
    by_id = {int(r["id"]): r for r in records}
    claims = [c for c in claims if int(c["id"]) in by_id]
    recs = [by_id[int(c["id"])] for c in claims]
    preds = {
        int(r["id"]): {
            d: DocPrediction(label=p["label"], sentences=list(p["sentences"])) for d, p in r["predictions"].items()
        }
        for r in recs
    }
    counts = [flag_counts(r, c) for r, c in zip(recs, claims, strict=True)]
    both, flagged, should = (sum(x[k] for x in counts) for k in range(3))
    abstract = abstract_metrics(claims, preds) if claims else None
    sentence = sentence_metrics(claims, preds) if claims else None
    return {
        **retrieval_metrics(recs, claims),
        "claims": claim_sides(recs, claims),
        "abstract": {k: _prf(v) for k, v in abstract.items()} if abstract else _empty_abstract(),
        "sentence": {k: _prf(v) for k, v in sentence.items()} if sentence else _empty_sentence(),
        "verifier": {
            **verifier_dev_metrics(verifier_results),
            "flag_precision": _ratio(both, flagged) if answered else None,
            "flag_recall": _ratio(both, should) if answered else None,
        },
        "faithfulness": answer_faithfulness([r["result"] for r in recs if r["result"]["sources"]])
        if answered
        else dict.fromkeys(FAITHFULNESS_KEYS),
        "cost": _cost(recs),
        "calibration": run_calibration(recs, claims, _min_confidence(recs)),
    }


def _min_confidence(records: Sequence[Mapping[str, Any]]) -> float | None:
    """The verdict-confidence threshold the run used (the third of its config's ``labels``), when recorded."""
    labels = (records[0].get("config") or {}).get("labels") if records else None
    return float(labels[2]) if isinstance(labels, list) and len(labels) > 2 else None


def retrieval_only_metrics(records: Sequence[Mapping[str, Any]], claims: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The same keys as the full run; what retrieval alone cannot measure is None."""
    return {
        **retrieval_metrics(records, claims),
        "claims": None,
        "abstract": _empty_abstract(),
        "sentence": _empty_sentence(),
        # the verifier is not run here; its dev figures belong to the full run and verifier_dev.json
        "verifier": {"macro_f1": None, "accuracy": None, "flag_precision": None, "flag_recall": None},
        "faithfulness": dict.fromkeys(FAITHFULNESS_KEYS),
        "cost": _cost(records),
        "calibration": None,
    }


def _empty_prf() -> dict[str, None]:
    return {"precision": None, "recall": None, "f1": None}


def _empty_abstract() -> dict[str, Any]:
    return {"label_only": _empty_prf(), "label_rationale": _empty_prf()}


def _empty_sentence() -> dict[str, Any]:
    return {"selection": _empty_prf(), "selection_label": _empty_prf()}


def _cost(records: Sequence[Mapping[str, Any]]) -> dict[str, float | None]:
    llm = [r["result"]["llm"] for r in records]
    return {
        "seconds_per_claim": _mean([float(r["seconds"]) for r in records]),
        "llm_calls_per_claim": _mean([float(u["calls"]) for u in llm]),
        "prompt_tokens_per_claim": _mean([float(u["prompt_tokens"]) for u in llm]),
        "completion_tokens_per_claim": _mean([float(u["completion_tokens"]) for u in llm]),
    }
