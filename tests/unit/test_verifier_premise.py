"""One premise format for the verifier: what training builds from a SciFact abstract is what assess, rerank and
verify build at run time (tools.text.premise), so the model reads at run time what it was trained on; and the premise
places the sentence in its abstract (section, position, the sentence before)."""

from __future__ import annotations

from agent.judge.sources import premise as run_time_premise
from agent.nodes.context import context
from agent.search.abstract_evidence import evidence_scores
from agent.state import Evidence
from evals.training.data import Claim, Doc, build_eval_pairs, context_variants
from tools.text.premise import abstract_premise, heading_section, where

DOC = Doc("Aspirin and stroke", ["We enrolled 900 adults.", "Aspirin reduced stroke by 12%.", "Bleeding rose."])
STRUCTURED = [
    "BACKGROUND Concerns persist that the MMR vaccine causes autism.",
    "We asked whether it does.",
    "METHODS AND RESULTS We followed 650,000 children.",
    "The vaccine did not increase the risk of autism.",
    "CONCLUSIONS: The study does not support a link.",
]


def test_training_premises_are_the_run_time_format(make_deps):
    claim = Claim(id=1, text="Aspirin prevents stroke.", evidence={7: [([1], 0)]}, cited=[7])
    pairs, labels, _, _ = build_eval_pairs([claim], {7: DOC}, n_nei=0)
    want = "Aspirin and stroke [sentence 2 of 3]: Aspirin reduced stroke by 12%. | before: We enrolled 900 adults."
    assert pairs == [("Aspirin prevents stroke.", want)] and labels == [0]
    # the run time builds the same premise from the evidence the context node fills in
    deps = make_deps([], verifier_rules={})
    deps.index.docs["7"] = deps.index.docs[next(iter(deps.index.docs))].model_copy(
        update={"doc_id": "7", "title": DOC.title, "sentences": DOC.sents}
    )
    ev = Evidence(n=1, doc_id="7", title=DOC.title, sentence=DOC.sents[1], sentence_index=1)

    class Runtime:
        context = deps

    placed = context({"evidence": [ev]}, Runtime())["evidence"][0]  # type: ignore[arg-type]
    assert run_time_premise(placed) == want
    # training leaves out the sentence before when it is the evidence of another label
    assert context_variants(DOC, [1], {0}, placed=True) == [
        "Aspirin and stroke [sentence 2 of 3]: Aspirin reduced stroke by 12%."
    ]


def test_the_premise_names_the_section_of_a_structured_abstract():
    assert heading_section(STRUCTURED[2]) == "results"  # the longer heading wins over METHODS
    assert heading_section("RESULTSX are good") is None and heading_section("Results were good.") is None
    assert [where(STRUCTURED, i).split(";")[0] for i in range(5)] == [
        "background",
        "background",
        "results",
        "results",
        "conclusions",
    ]
    first = abstract_premise("MMR and autism", STRUCTURED, [0])
    assert first == f"MMR and autism [background; sentence 1 of 5]: {STRUCTURED[0]}"
    joined = abstract_premise("MMR and autism", STRUCTURED, [3, 2])
    assert joined.startswith("MMR and autism [results; sentence 3 of 5]: METHODS AND RESULTS")
    assert joined.endswith(f"{STRUCTURED[3]} | before: We asked whether it does.")


def test_the_reranker_reads_the_same_premises(make_deps):
    deps = make_deps([], verifier_rules={})
    doc_id = next(iter(deps.index.docs))
    evidence_scores("claim", [doc_id], deps.index, deps.verifier, 0)
    doc = deps.index.docs[doc_id]
    want = [abstract_premise(doc.title, doc.sentences, [i]) for i in range(len(doc.sentences))]
    assert [p for _, p in deps.verifier.seen] == want
