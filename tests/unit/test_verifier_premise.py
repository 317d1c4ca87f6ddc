"""One premise format for the verifier: what training builds from a SciFact abstract is what assess, rerank and
verify build at run time (tools.verifier.premise), so the model reads at run time what it was trained on."""

from __future__ import annotations

from agent.nodes.assess import premise as run_time_premise
from agent.nodes.rerank import evidence_scores
from agent.state import Evidence
from evals.verifier.data import Claim, Doc, build_eval_pairs, context_variants
from tools.verifier import premise

DOC = Doc("Aspirin and stroke", ["We enrolled 900 adults.", "Aspirin reduced stroke by 12%.", "Bleeding rose."])


def test_training_premises_are_the_run_time_format():
    claim = Claim(id=1, text="Aspirin prevents stroke.", evidence={7: [([1], 0)]}, cited=[7])
    pairs, labels, _, _ = build_eval_pairs([claim], {7: DOC}, n_nei=0)
    assert pairs == [("Aspirin prevents stroke.", premise(DOC.title, DOC.sents[1]))] and labels == [0]
    ev = Evidence(n=1, doc_id="7", title=DOC.title, sentence=DOC.sents[1], sentence_index=1)
    assert run_time_premise(ev) == pairs[0][1] == "Aspirin and stroke: Aspirin reduced stroke by 12%."
    # with a neighbouring sentence as context, the sentences are joined in abstract order under one title
    assert context_variants(DOC, [1], set())[1] == premise(DOC.title, f"{DOC.sents[0]} {DOC.sents[1]}")


def test_the_reranker_reads_the_same_premises(make_deps):
    deps = make_deps([], verifier_rules={})
    doc_id = next(iter(deps.index.docs))
    evidence_scores("claim", [doc_id], deps.index, deps.verifier, 0)
    doc = deps.index.docs[doc_id]
    assert [p for _, p in deps.verifier.seen] == [premise(doc.title, s) for s in doc.sentences]
