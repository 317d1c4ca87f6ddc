"""Self-correction (agent/nodes/correct.py) and the extractive floor (agent/answer/compose.py): a flagged sentence is
re-cited to the source whose words it repeats, else rewritten from its cited evidence and kept only if then
supported, else replaced by the quoted finding, else dropped; the first answer and every change stay on record;
without an LLM the answer quotes the evidence."""

from __future__ import annotations

from typing import Any

import httpx
import openai
from langgraph.runtime import Runtime

import prompts
from agent.answer.checks import check_sentences
from agent.answer.compose import extractive_answer, extractive_sentence, finding, quotes
from agent.llm.scripted import ScriptedChatModel
from agent.nodes.answer import answer
from agent.nodes.claim_queries import claim_queries
from agent.nodes.correct import correct, rehedge
from agent.nodes.decompose import decompose
from agent.state import AnswerSentence, Deps, Evidence, Verdict
from tests.unit.test_nodes import counted_as
from tools.models.verifier import VerifierResult

CLAIM = "The MMR vaccine causes autism."
NULL = "MMR vaccination was not associated with an increased risk of autism (hazard ratio 0.93)."
EVIDENCE = [
    Evidence(n=1, doc_id="101", title="MMR and autism", sentence=NULL, sentence_index=2, year=2019,
             section="results; sentence 3 of 4", stance="contradicts"),
    Evidence(n=2, doc_id="102", title="Vaccine safety", sentence="BACKGROUND Concerns persist that MMR causes autism.",
             sentence_index=0, section="background; sentence 1 of 5", stance="supports"),
]  # fmt: skip
REFUTED = Verdict(label="Generally refuted", score=-0.8, unweighted_score=-0.8)
ASSESSED = counted_as("Mostly False", *EVIDENCE)  # both abstracts count, so the answer may report both


class ReadingVerifier:
    """Stand-in that reads the hypothesis: "no association" is supported by a "not associated" premise, "causes
    autism" is contradicted by it; anything else bears on nothing."""

    def predict(self, pairs: list[tuple[str, str]], batch_size: int = 32) -> list[VerifierResult]:
        out = []
        for hyp, prem in pairs:
            if "not associated" in prem and "no association" in hyp.lower():
                out.append(VerifierResult("supports", 0.9, 0.05, 0.05))
            elif "not associated" in prem and "causes autism" in hyp:
                out.append(VerifierResult("contradicts", 0.05, 0.9, 0.05))
            else:
                out.append(VerifierResult("nei", 0.1, 0.1, 0.8))
        return out


class DownModel(ScriptedChatModel):
    """A chat model whose server is unreachable."""

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        self.calls.append(list(messages))
        raise openai.APIConnectionError(request=httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions"))


def run(node: Any, state: dict[str, Any], settings: Any, llm: Any) -> dict[str, Any]:
    """The node with the verifier's checks alone: the LLM's reading of direction of a rewrite has its own tests
    (tests/unit/test_sentence_direction.py), so each call here is the rewrite's."""
    settings = settings.with_values(judge={"sentence_direction_below": 0.0})
    deps = Deps(settings=settings, llm=llm, index=None, verifier=ReadingVerifier())  # type: ignore[arg-type]
    return node({"assessments": ASSESSED, **state}, Runtime(context=deps))  # type: ignore[no-any-return]


def verified(settings: Any, *sentences: AnswerSentence) -> list[AnswerSentence]:
    return check_sentences(list(sentences), EVIDENCE, ReadingVerifier(), settings.answer.top_attribution)


def test_a_rewrite_its_sources_support_is_kept_with_the_original_citations(settings: Any) -> None:
    llm = ScriptedChatModel(rules=[{"when": "<draft>", "reply": "MMR showed no association with autism [2]."}])
    flagged = verified(settings, AnswerSentence(text="MMR causes autism.", citations=[1]))
    assert flagged[0].status == "contradicted"
    out = run(correct, {"claim": CLAIM, "evidence": EVIDENCE, "sentences": flagged, "answer": "MMR causes autism [1]."},
              settings, llm)  # fmt: skip
    (s,) = out["sentences"]
    # the model's own [2] is discarded: a rewrite keeps the numbers of the sentence it replaces
    assert (s.text, s.citations) == ("MMR showed no association with autism.", [1])
    assert s.status == "supported" and not s.flagged
    assert s.revision == "rewritten" and s.original == "MMR causes autism [1]."
    (c,) = out["corrections"]
    rewritten = "MMR showed no association with autism [1]."
    assert (c.position, c.action, c.status, c.text) == (1, "rewritten", "contradicted", rewritten)
    assert out["answer"] == rewritten and out["original_answer"] == "MMR causes autism [1]."
    system, user = (str(m.content) for m in llm.calls[0])
    assert system == prompts.load("correct_system")
    assert user == prompts.render("correct", evidence=f'- "{NULL}"', sentence="MMR causes autism.")  # [1] only
    assert out["usage"].calls == 1


def test_a_rewrite_still_unsupported_is_replaced_by_the_quoted_finding(settings: Any) -> None:
    llm = ScriptedChatModel(rules=[{"when": "<draft>", "reply": "The MMR vaccine causes autism."}])
    flagged = verified(settings, AnswerSentence(text="MMR causes autism.", citations=[1]))
    out = run(correct, {"claim": CLAIM, "evidence": EVIDENCE, "sentences": flagged}, settings, llm)
    (s,) = out["sentences"]
    assert s.revision == "replaced" and s.citations == [1] and s.status == "supported" and not s.flagged
    assert s.text == f'A 2019 study reports: "{NULL}"' and s.reason == "quotes [1] word for word"
    assert out["corrections"][0].action == "replaced"
    assert "causes autism" not in out["answer"]  # a sentence its citation contradicts is never shown


def test_an_uncited_sentence_is_dropped_and_an_empty_answer_falls_back_to_the_quoted_evidence(settings: Any) -> None:
    obeyed = AnswerSentence(text="The claim is true.", invalid_citations=[7], reason="removed citation(s) to [7]")
    flagged = verified(settings, obeyed)
    llm = ScriptedChatModel(rules=[])  # no LLM call is needed: nothing is cited to rewrite from
    out = run(correct, {"claim": CLAIM, "evidence": EVIDENCE, "sentences": flagged, "verdict": REFUTED}, settings, llm)
    assert not llm.calls
    (c,) = out["corrections"]
    assert (c.action, c.status, c.text) == ("dropped", "uncited", "") and "[7]" in c.reason
    assert [s.citations for s in out["sentences"]] == [[1], [2]]  # the refuting finding first
    assert all(s.status == "supported" for s in out["sentences"]) and "no sentence of the answer" in out["notes"][0]


def test_an_unreachable_llm_is_tried_once_and_flagged_sentences_are_replaced(settings: Any) -> None:
    llm = DownModel()
    flagged = verified(settings, AnswerSentence(text="MMR causes autism.", citations=[1]),
                       AnswerSentence(text="MMR causes autism in boys.", citations=[1]))  # fmt: skip
    out = run(correct, {"claim": CLAIM, "evidence": EVIDENCE, "sentences": flagged}, settings, llm)
    assert len(llm.calls) == 1 and out["llm_error"] and "unreachable" in out["notes"][0]
    # both sentences would be the same quote: it is shown once, the second is dropped
    assert [c.action for c in out["corrections"]] == ["replaced", "dropped"]
    assert [s.revision for s in out["sentences"]] == ["replaced"]


class TopicVerifier:
    """Stand-in for a verifier that reads topic: every sentence is supported by every source on the subject."""

    def predict(self, pairs: list[tuple[str, str]], batch_size: int = 32) -> list[VerifierResult]:
        return [VerifierResult("supports", 0.8, 0.1, 0.1) for _ in pairs]


def test_a_sentence_that_dropped_its_sources_hedge_gets_it_back_without_the_llm(settings: Any) -> None:
    """A finding the source only suggests, stated as certain: its one fault is the hedge, so the sentence keeps its
    words with the hedge in front, and no LLM is asked (the scripted model has no rule: a call would fail)."""
    source = "These results suggest that CBT is superior to zopiclone for insomnia in older adults."
    evidence = [Evidence(n=1, doc_id="101", title="CBT for insomnia", sentence=source, sentence_index=6)]
    drafted = [AnswerSentence(text="CBT is superior to zopiclone for insomnia in older adults.", citations=[1]),
               AnswerSentence(text="Interventions based on CBT beat zopiclone for insomnia in older adults.",
                              citations=[1])]  # fmt: skip
    flagged = check_sentences(drafted, evidence, TopicVerifier(), settings.answer.top_attribution)
    assert [s.reason for s in flagged] == ["drops its source's hedge “suggest”"] * 2
    llm = ScriptedChatModel(rules=[])
    deps = Deps(settings=settings.with_values(judge={"sentence_direction_below": 0.0}), llm=llm, index=None,
                verifier=TopicVerifier())  # type: ignore[arg-type]
    state = {"claim": "CBT treats insomnia.", "evidence": evidence, "sentences": flagged}
    out = correct(state, Runtime(context=deps))  # type: ignore[arg-type]
    assert not llm.calls
    assert [(s.text, s.revision, s.status) for s in out["sentences"]] == [
        ("The study suggests that CBT is superior to zopiclone for insomnia in older adults.", "hedged", "supported"),
        ("The study suggests that interventions based on CBT beat zopiclone for insomnia in older adults.", "hedged",
         "supported"),
    ]  # "CBT" keeps its capitals, "Interventions" does not  # fmt: skip
    assert [c.action for c in out["corrections"]] == ["hedged", "hedged"]


def test_a_quote_under_the_wrong_number_is_recited_and_a_wordless_sentence_dropped(settings: Any) -> None:
    seizures = "Febrile seizures after MMR vaccination were rare in the cohort."
    evidence = [*EVIDENCE, Evidence(n=3, doc_id="103", title="Febrile seizures", sentence=seizures, sentence_index=4)]
    drafted = [
        AnswerSentence(text=seizures, citations=[1]),
        AnswerSentence(text=",,,,,.", citations=[1, 2]),
    ]
    top = settings.answer.top_attribution
    checked = check_sentences(drafted, evidence, TopicVerifier(), top, CLAIM)
    # the topic-reading verifier passes both; the words say otherwise
    assert [(s.status, s.reason) for s in checked] == [
        ("unsupported", "repeats [3], not what it cites"),
        ("unsupported", "states nothing"),
    ]
    llm = ScriptedChatModel(rules=[])  # neither fix needs the LLM
    deps = Deps(settings=settings, llm=llm, index=None, verifier=TopicVerifier())  # type: ignore[arg-type]
    state = {"claim": CLAIM, "evidence": evidence, "assessments": counted_as("Mostly True", *evidence)}
    out = correct({**state, "sentences": checked}, Runtime(context=deps))
    assert not llm.calls
    (s,) = out["sentences"]
    assert (s.citations, s.revision, s.status) == ([3], "recited", "supported")
    assert [(c.action, c.text) for c in out["corrections"]] == [
        ("recited", seizures.replace(".", " [3].")),
        ("dropped", ""),
    ]


def test_the_same_sentence_twice_is_shown_once(settings: Any) -> None:
    twice = verified(settings, AnswerSentence(text="A cohort found no association with autism.", citations=[1]),
                     AnswerSentence(text="A cohort found no association with autism.", citations=[2]))  # fmt: skip
    assert [s.status for s in twice] == ["supported", "unsupported"]
    once = verified(settings, AnswerSentence(text="A cohort found no association with autism.", citations=[1]))
    llm = ScriptedChatModel(rules=[])
    out = run(correct, {"claim": CLAIM, "evidence": EVIDENCE, "sentences": [*once, *once]}, settings, llm)
    assert not llm.calls and [s.citations for s in out["sentences"]] == [[1]]
    (c,) = out["corrections"]
    assert (c.position, c.status, c.action, c.reason) == (2, "supported", "dropped", "repeats a sentence already shown")
    out = run(correct, {"claim": CLAIM, "evidence": EVIDENCE, "sentences": twice}, settings, llm)
    assert [s.citations for s in out["sentences"]] == [[1]] and out["corrections"][0].action == "dropped"


def test_a_supported_answer_is_left_alone(settings: Any) -> None:
    good = verified(settings, AnswerSentence(text="A cohort found no association with autism.", citations=[1]))
    out = run(correct, {"claim": CLAIM, "evidence": EVIDENCE, "sentences": good}, settings, DownModel())
    assert set(out) == {"timings"}  # nothing changed, and the LLM was not asked


def test_the_extractive_template_quotes_what_the_study_reports() -> None:
    assert finding("RESULTS In conclusion, the risk was lower.") == "The risk was lower."
    assert finding("CONCLUSIONS: Aspirin reduced fever.") == "Aspirin reduced fever."
    assert finding("word " * 200).endswith(" ...") and len(finding("word " * 200)) <= 404
    background = extractive_sentence(EVIDENCE[1])
    assert background.text == 'A study states as background: "Concerns persist that MMR causes autism."'
    assert quotes(background.text, EVIDENCE[1]) and not quotes(background.text, EVIDENCE[0])
    assert not quotes('A study reports: "MMR causes autism."', EVIDENCE[0])
    assert not quotes("MMR was not associated with an increased risk of autism.", EVIDENCE[0])  # no template
    supported = Verdict(label="Weakly supported", score=0.4, unweighted_score=0.4)
    assert [s.citations for s in extractive_answer(EVIDENCE, supported)] == [[2], [1]]
    assert [s.citations for s in extractive_answer(EVIDENCE, REFUTED, max_sentences=1)] == [[1]]


def test_without_an_llm_the_check_searches_the_claim_and_its_negation_and_quotes_the_evidence(settings: Any) -> None:
    llm = DownModel()
    asked = run(claim_queries, {"claim": CLAIM}, settings, llm)["queries"]
    out = run(decompose, {"claim": CLAIM, "queries": asked}, settings, llm)
    assert "queries" not in out and out["llm_error"] and out["questions_asked"]
    assert [q.kind for q in asked] == ["claim", "opposite"]
    assert "searched with the claim and its negation" in out["notes"][0]
    state = {"claim": CLAIM, "evidence": EVIDENCE, "verdict": REFUTED, "llm_error": out["llm_error"]}
    answered = run(answer, state, settings, llm)
    assert len(llm.calls) == 1  # the answer did not wait for a dead LLM again
    quoted = 'A 2019 study reports: "MMR vaccination was not associated'
    assert answered["answer"].startswith(f"{answered['summary']} {quoted}")
    assert [s.citations for s in answered["sentences"]] == [[1], [2]]


class YesVerifier(ReadingVerifier):
    """Stand-in that finds every sentence supported by every source, as a topic-reading verifier might."""

    def predict(self, pairs: list[tuple[str, str]], batch_size: int = 32) -> list[VerifierResult]:
        return [VerifierResult("supports", 0.9, 0.05, 0.05) for _ in pairs]


def test_a_restated_claim_is_not_a_finding_even_when_the_verifier_passes_it(settings: Any) -> None:
    restated = AnswerSentence(text="The MMR vaccine causes autism in children.", citations=[1])
    reported = AnswerSentence(text="MMR vaccination was not associated with autism.", citations=[1])
    checked = check_sentences([restated, reported], EVIDENCE, YesVerifier(), 2, claim=CLAIM)
    assert checked[0].status == "unsupported" and checked[0].flagged
    assert checked[0].reason == "restates the claim in words its sources do not use"
    assert checked[1].status == "supported"  # its words are its source's, not the claim's
    # without the claim (or when the cited source itself says it) nothing is flagged
    assert check_sentences([restated], EVIDENCE, YesVerifier(), 2)[0].status == "supported"
    says_it = EVIDENCE[1].model_copy(update={"n": 1, "sentence": "The MMR vaccine causes autism in children."})
    assert check_sentences([restated], [says_it], YesVerifier(), 2, claim=CLAIM)[0].status == "supported"


def test_the_answer_quotes_only_counted_papers_and_a_follow_up_any_held(settings: Any) -> None:
    """The main answer reports only the papers its verdict counts, so a flagged sentence citing a paper that bears
    on neither side is not replaced by a quote of it; a follow-up (no assessments) may quote any evidence held."""
    flagged = verified(settings, AnswerSentence(text="Concerns about MMR persist widely.", citations=[2]))
    assert flagged[0].flagged
    only_101 = counted_as("Mostly False", EVIDENCE[0])
    deps = Deps(settings=settings, llm=DownModel(), index=None, verifier=ReadingVerifier())  # type: ignore[arg-type]
    main = correct({"claim": CLAIM, "evidence": EVIDENCE, "assessments": only_101, "sentences": flagged,
                    "llm_error": "down"}, Runtime(context=deps))  # fmt: skip
    assert [c.action for c in main["corrections"]] == ["dropped"]
    assert all(2 not in s.citations for s in main["sentences"])  # the floor quotes the counted paper only
    follow_up = correct({"claim": CLAIM, "evidence": EVIDENCE, "sentences": flagged, "llm_error": "down"},
                        Runtime(context=deps))  # fmt: skip
    assert [c.action for c in follow_up["corrections"]] == ["replaced"] and follow_up["sentences"][0].citations == [2]


def test_a_restated_negation_of_the_claim_is_not_a_finding_either(settings: Any) -> None:
    """A real answer sentence (SciFact dev claim 185) that negates the claim in the claim's words, while its paper
    reports gene-environment interactions; a paper that states the negation in those words may be reported so."""
    claim = "Breast cancer development is determined exclusively by genetic factors."
    paper = ("INTERPRETATION Risks of breast cancer associated with low-penetrance susceptibility polymorphisms do not "
             "vary significantly with these ten established environmental risk factors.")  # fmt: skip
    ev = [Evidence(n=1, doc_id="1", title="Gene-environment interactions", sentence=paper, sentence_index=9)]
    negated = AnswerSentence(text="Breast cancer development is not determined exclusively by genetic factors.",
                             citations=[1])  # fmt: skip
    (checked,) = check_sentences([negated], ev, YesVerifier(), 2, claim=claim)
    assert checked.status == "unsupported" and checked.reason == "restates the claim in words its sources do not use"
    says_it = ev[0].model_copy(update={"sentence": "Breast cancer development is not determined exclusively by "
                                                   "genetic factors, we find."})  # fmt: skip
    assert check_sentences([negated], [says_it], YesVerifier(), 2, claim=claim)[0].status == "supported"


def test_the_hedge_goes_in_front_and_a_first_word_keeps_its_capitals_only_when_it_is_a_name() -> None:
    hedge = "drops its source's hedge “potentially”"
    for text, want in [("A national program is associated with lower mortality.", "a national program"),
                       ("TP53 mutations are exclusive.", "TP53 mutations"), ("CBT helps.", "CBT helps")]:  # fmt: skip
        hedged = rehedge(AnswerSentence(text=text, citations=[2], reason=hedge))
        assert hedged is not None and hedged.text.startswith(f"The study suggests that {want}")
        assert (hedged.citations, hedged.revision) == ([2], "hedged")
    assert rehedge(AnswerSentence(text="CBT helps.", citations=[2], reason="[2] contradicts this sentence")) is None
