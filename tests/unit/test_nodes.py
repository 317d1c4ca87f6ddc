"""Each node on its own, with the scripted model, the rule verifier and a real index of the tiny corpus."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langgraph.runtime import Runtime

from agent.judge.sources import JudgeRule, judge_sources
from agent.nodes.assess import assess
from agent.nodes.claim_queries import claim_queries
from agent.nodes.context import context
from agent.nodes.decompose import decompose
from agent.nodes.fuse import fuse
from agent.nodes.rerank import rerank
from agent.nodes.retrieve import retrieve
from agent.nodes.select_evidence import select_evidence
from agent.nodes.verdict import verdict
from agent.state import Evidence, Query, RankedDoc, SilentSource, SourceAssessment
from tests.conftest import decompose_rule
from tools.corpus import Abstract
from tools.models.verifier import VerifierResult

CLAIM = "The MMR vaccine causes autism."


def rt(deps: Any) -> Runtime[Any]:
    return Runtime(context=deps)


def ev(n: int, doc_id: str, sentence: str, idx: int = 0, stance: str = "nei") -> Evidence:
    return Evidence(n=n, doc_id=doc_id, title="T", sentence=sentence, sentence_index=idx, stance=stance)  # type: ignore[arg-type]


def counted_as(label: str, *evidence: Evidence) -> list[SourceAssessment]:
    """The assessments of the abstracts of ``evidence``, each labelled ``label`` with full weight: what makes the
    verdict count them, and the answer report them (agent.judge.reckoning.bearing_evidence)."""
    docs = dict.fromkeys(e.doc_id for e in evidence)
    return [SourceAssessment(doc_id=d, label=label, score=0.0, reputation=1.0, explanation="") for d in docs]


# --- decompose ---------------------------------------------------------------------------------------------


def test_decompose_uses_json_questions_and_opposite(make_deps):
    deps = make_deps(
        [
            decompose_rule(
                ["Does MMR vaccination raise autism risk?", "Autism incidence after MMR?"],
                "The MMR vaccine does not cause autism.",
            )
        ]
    )
    out = decompose({"claim": CLAIM}, rt(deps))
    kinds = [q.kind for q in out["queries"]]
    assert kinds == ["claim", "question", "question", "opposite"]
    assert out["queries"][-1].text == "The MMR vaccine does not cause autism."
    assert out["usage"].calls == 1
    # the request went out in JSON mode with the claim inside the prompt
    sent = deps.llm.calls[0]
    assert CLAIM in str(sent[-1].content)


def test_decompose_caps_questions_and_drops_duplicates(make_deps):
    qs = [f"Question {i}?" for i in range(8)] + ["Question 1?"]
    deps = make_deps([decompose_rule(qs, "not so")])
    out = decompose({"claim": CLAIM}, rt(deps))
    questions = [q.text for q in out["queries"] if q.kind == "question"]
    assert questions == [f"Question {i}?" for i in range(5)]


def test_claim_queries_are_the_claim_and_its_negation(make_deps):
    out = claim_queries({"claim": CLAIM}, rt(make_deps([])))
    assert [(q.kind, q.text) for q in out["queries"]] == [
        ("claim", CLAIM), ("opposite", "It is not true that the MMR vaccine causes autism.")
    ]


@pytest.mark.parametrize("reply", ["not json at all", '```json\n{"questions": 5}\n```', '{"questions": []}'])
def test_decompose_adds_nothing_when_json_is_broken(make_deps, reply):
    deps = make_deps([{"when": "search questions", "reply": reply}])
    asked = claim_queries({"claim": CLAIM}, rt(deps))["queries"]
    out = decompose({"claim": CLAIM, "queries": asked}, rt(deps))
    assert out["queries"] == asked and out["questions_asked"]
    assert out["notes"]


def test_decompose_adds_only_queries_not_yet_asked(make_deps):
    negation = "It is not true that the MMR vaccine causes autism."
    deps = make_deps([decompose_rule([CLAIM, "Q1?", negation], negation)])
    asked = claim_queries({"claim": CLAIM}, rt(deps))["queries"]
    out = decompose({"claim": CLAIM, "queries": asked}, rt(deps))
    assert [(q.kind, q.text) for q in out["queries"]] == [("claim", CLAIM), ("opposite", negation), ("question", "Q1?")]


def test_decompose_accepts_code_fenced_json(make_deps):
    reply = "```json\n" + json.dumps({"questions": ["Q1?", "Q2?", "Q3?"], "opposite_claim": "No."}) + "\n```"
    deps = make_deps([{"when": "search questions", "reply": reply}])
    out = decompose({"claim": CLAIM}, rt(deps))
    assert [q.text for q in out["queries"]] == [CLAIM, "Q1?", "Q2?", "Q3?", "No."]


# --- retrieve and fuse -------------------------------------------------------------------------------------


def test_retrieve_searches_every_query_with_every_tool(make_deps):
    deps = make_deps([])
    queries = [
        Query(text=CLAIM, kind="claim"),
        Query(text="aldehyde dehydrogenase breast prognosis", kind="question"),
    ]
    out = retrieve({"claim": CLAIM, "queries": queries}, rt(deps))
    assert set(out["ranked_lists"]) == {
        f"{t}|{q.text}" for t in ("bm25_search", "dense_sentence_search") for q in queries
    }
    assert out["ranked_lists"][f"bm25_search|{CLAIM}"][0] == "101"
    assert out["ranked_lists"]["bm25_search|aldehyde dehydrogenase breast prognosis"][0] == "103"


def test_fuse_ranks_documents_found_by_many_lists_first(make_deps):
    lists = {"bm25_search|a": ["1", "2", "3"], "dense_sentence_search|a": ["2", "1"], "bm25_search|b": ["2"]}
    out = fuse({"claim": "x", "ranked_lists": lists}, rt(make_deps([])))
    assert [c.doc_id for c in out["candidates"]] == ["2", "1", "3"]
    assert out["candidates"][0].found_by == ["bm25_search", "dense_sentence_search"]


def test_rerank_lifts_the_abstract_whose_sentences_the_verifier_finds_evidence_in(make_deps):
    # 103 (ALDH1) ranks below 101 and 102 by fusion; the verifier sees evidence only in 103's sentences
    deps = make_deps([], verifier_rules={"ALDH1": "supports"})
    deps.settings = deps.settings.with_values(retrieval={"rerank_top": 3, "rerank_alpha": 0.3, "rerank_sentences": 3})
    cands = [RankedDoc(doc_id=d, score=s) for d, s in (("101", 0.9), ("102", 0.8), ("103", 0.7), ("104", 0.1))]
    out = rerank({"claim": CLAIM, "candidates": cands}, rt(deps))
    assert [c.doc_id for c in out["candidates"]] == ["103", "101", "102", "104"]
    assert out["candidates"][0].evidence_score == pytest.approx(0.98)
    assert out["candidates"][-1].evidence_score is None  # beyond rerank_top: not read
    read = {prem.split(" [", 1)[0] for _, prem in deps.verifier.seen}
    assert len(deps.verifier.seen) <= 9 and len(read) == 3  # at most 3 sentences of each of the top 3


def test_rerank_off_keeps_fused_order_without_calling_the_verifier(make_deps):
    deps = make_deps([], verifier_rules={"ALDH1": "supports"})
    deps.settings = deps.settings.with_values(retrieval={"rerank_top": 0})
    cands = [RankedDoc(doc_id="101", score=0.9), RankedDoc(doc_id="103", score=0.7)]
    out = rerank({"claim": CLAIM, "candidates": cands}, rt(deps))
    assert [c.doc_id for c in out["candidates"]] == ["101", "103"] and not deps.verifier.seen


# --- select evidence and context ---------------------------------------------------------------------------


def test_select_evidence_picks_claim_sentences_of_top_docs(make_deps):
    deps = make_deps([])
    cands = [RankedDoc(doc_id="101", score=1.0), RankedDoc(doc_id="103", score=0.5)]
    out = select_evidence({"claim": CLAIM, "candidates": cands}, rt(deps))
    evidence = out["evidence"]
    # one number per paper, shared by its sentences, in the order of the papers
    assert [e.n for e in evidence] == [1 if e.doc_id == "101" else 2 for e in evidence]
    assert {e.doc_id for e in evidence} == {"101", "103"}
    first_doc = [e for e in evidence if e.doc_id == "101"]
    assert 1 <= len(first_doc) <= 3
    # every evidence sentence is verbatim from the corpus
    for e in evidence:
        assert deps.index.docs[e.doc_id].sentences[e.sentence_index] == e.sentence
    assert any("autism" in e.sentence for e in first_doc)


def test_context_gives_neighbours_and_previous_sentence(make_deps):
    deps = make_deps([])
    doc = deps.index.docs["101"]
    out = context(
        {"claim": CLAIM, "evidence": [ev(1, "101", doc.sentences[3], idx=3), ev(2, "101", doc.sentences[0])]},
        rt(deps),
    )
    first, second = out["evidence"]
    assert first.context == doc.sentences[2]
    assert first.neighbours == doc.sentences[0:3] + doc.sentences[4:]
    assert second.context == ""
    assert second.neighbours == doc.sentences[1:]


# --- assess and verdict ------------------------------------------------------------------------------------


def test_assess_prunes_irrelevant_and_labels_sources(make_deps):
    deps = make_deps([], verifier_rules={"not associated": "contradicts", "aldehyde": "supports"})
    evidence = [
        ev(1, "101", "MMR vaccination was not associated with an increased risk of autism.", 3),
        ev(2, "101", "We followed 657,461 children born in Denmark.", 1),
        ev(3, "107", "Coffee drinking has been linked with lower liver enzyme levels.", 0),
    ]
    out = assess({"claim": CLAIM, "evidence": evidence}, rt(deps))
    assert [(e.n, e.doc_id, e.stance) for e in out["evidence"]] == [(1, "101", "contradicts")]
    (a,) = out["assessments"]
    assert a.doc_id == "101" and a.label == "False" and a.score == pytest.approx(-0.94)
    assert out["notes"] == ["assess: 1 retrieved abstract(s) had no sentence bearing on the claim"]


def test_assess_notes_abstracts_left_unlabelled_by_the_limit(make_deps):
    deps = make_deps([], verifier_rules={"not associated": "contradicts", "aldehyde": "supports"})
    deps.settings = deps.settings.with_values(judge={"labelled_docs": 1})
    evidence = [
        ev(1, "101", "MMR vaccination was not associated with an increased risk of autism.", 3),
        ev(2, "107", "Thimerosal contains an aldehyde group.", 0),
    ]
    out = assess({"claim": CLAIM, "evidence": evidence}, rt(deps))
    assert len(out["assessments"]) == 1
    assert out["notes"] == ["assess: 1 abstract(s) with weaker evidence left unlabelled (LABELLED_DOCS=1)"]


def _res(ps: float, pc: float) -> VerifierResult:
    pn = 1.0 - ps - pc
    label = max((ps, "supports"), (pc, "contradicts"), (pn, "nei"))[1]
    return VerifierResult(label=label, p_supports=ps, p_contradicts=pc, p_nei=pn)  # type: ignore[arg-type]


DOCS = {d: Abstract(doc_id=d, title="T", sentences=["s"]) for d in ("1", "2", "3")}


def test_judge_stance_min_prob_drops_weak_stances_and_their_abstracts():
    cands = [ev(1, "1", "a"), ev(2, "2", "b"), ev(3, "2", "c", 1)]
    results = [_res(0.55, 0.05), _res(0.1, 0.85), _res(0.5, 0.1)]
    j = judge_sources(cands, results, DOCS, JudgeRule(2, 0.0, 0), weigh=lambda _d: (1.0, {}))
    # numbered by paper: doc 2's two sentences share [2]
    assert [a.doc_id for a in j.assessments] == ["1", "2"] and [e.n for e in j.evidence] == [1, 2, 2]
    assert (len(j.silent), j.unlabelled) == (0, 0)
    j = judge_sources(cands, results, DOCS, JudgeRule(2, 0.6, 0), weigh=lambda _d: (1.0, {}))
    # 0.55 and 0.5 fall below 0.6: only doc 2's contradicting sentence is left, renumbered [1]
    assert [(e.n, e.doc_id, e.sentence) for e in j.evidence] == [(1, "2", "b")]
    assert (len(j.silent), j.unlabelled) == (1, 0)
    (a,) = j.assessments
    assert a.doc_id == "2" and a.score == pytest.approx(-0.75) and a.label == "Mostly False"


def test_judge_labelled_docs_keeps_the_strongest_abstracts_in_retrieval_order():
    cands = [ev(1, "1", "a"), ev(2, "2", "b"), ev(3, "3", "c")]
    results = [_res(0.6, 0.1), _res(0.05, 0.9), _res(0.8, 0.0)]
    j = judge_sources(cands, results, DOCS, JudgeRule(2, 0.0, 2), weigh=lambda _d: (1.0, {}))
    # the strongest two are doc 2 (p_nei 0.05) and doc 3 (0.2); doc 1 (0.3) loses its label; order stays 2, 3
    assert [a.doc_id for a in j.assessments] == ["2", "3"]
    assert [(e.n, e.doc_id) for e in j.evidence] == [(1, "2"), (2, "3")]
    assert (len(j.silent), j.unlabelled) == (0, 1)


def _assessed(*rows: tuple[str, str, float, float]) -> list[SourceAssessment]:
    return [
        SourceAssessment(doc_id=d, label=label, score=0.0, reputation=w, explanation="", stance_confidence=c)
        for d, label, w, c in rows
    ]


def test_verdict_weighted_and_unweighted(make_deps):
    deps = make_deps([], verifier_rules={})
    state = {
        "claim": "x",
        "assessments": _assessed(
            ("1", "True", 1.0, 0.9), ("2", "Mostly False", 0.5, 0.8), ("3", "No Evidence", 1.0, 0.0)
        ),
        "silent": [SilentSource(doc_id=d, title=f"Title {d}", reputation=1.0) for d in ("4", "5")],
    }
    v = verdict(state, rt(deps))["verdict"]
    assert v.score == pytest.approx((1.0 - 0.66 * 0.5) / 1.5, abs=1e-4)  # 0.4467
    assert v.unweighted_score == pytest.approx(0.17)
    assert (v.counted_sources, v.supporting, v.contradicting, v.irrelevant) == (2, 1, 1, 3)
    assert v.label == "Disputed but leaning towards supported" and v.leaning is None
    assert v.confidence == pytest.approx(0.9 / 1.5)  # two thirds of the weight on its side, that side at 0.9


def test_an_unsure_verdict_says_it_cannot_decide(make_deps):
    deps = make_deps([], verifier_rules={})
    state = {"claim": "x", "assessments": _assessed(("1", "Somewhat True", 1.0, 0.45))}
    v = verdict(state, rt(deps))["verdict"]
    assert deps.settings.judge.min_confidence > 0.45
    assert (v.label, v.leaning, v.confidence) == ("Cannot decide", "Weakly supported", 0.45)
    sure = verdict({"claim": "x", "assessments": _assessed(("1", "Somewhat True", 1.0, 0.8))}, rt(deps))["verdict"]
    assert (sure.label, sure.leaning) == ("Weakly supported", None)
    # nothing bears on the claim: not enough evidence, however sure, is never an abstention
    none = verdict({"claim": "x", "assessments": [], "no_stance_confidence": 0.3}, rt(deps))["verdict"]
    assert (none.label, none.confidence) == ("Not enough evidence", 0.3)


def test_the_rule_made_negation_keeps_acronyms_and_names():
    from tools.text.opposite import negation

    assert negation("The MMR vaccine causes autism.") == "It is not true that the MMR vaccine causes autism."
    assert negation("ALDH1 expression predicts relapse.") == "It is not true that ALDH1 expression predicts relapse."
    assert negation("IL-6 rises in sepsis.") == "It is not true that IL-6 rises in sepsis."
    assert negation("A deficiency of B12 raises homocysteine.").startswith("It is not true that a deficiency")
    assert negation("") == ""
