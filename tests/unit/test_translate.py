"""A claim in another language (agent.translate, tools/text/language.py): recognised offline, translated into English
by the LLM for search and judgement, the user's words kept beside the English claim; an English claim takes no
step; a translation that is not English or changes a number is not kept, and the claim is checked as typed with a
note. With the scripted model and the tiny corpus."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from agent.followup.graph import build_thread_graph
from agent.llm.scripted import ScriptedChatModel
from agent.result import CheckResult
from agent.state import AnswerSentence
from agent.translate import answer_in, in_english, own_english
from tests.unit.test_correct import DownModel
from tests.unit.test_followup import CHECK_RULES, CLAIM, VERIFIER_RULES
from tools.text.i18n import speaking
from tools.text.language import language_of

GERMAN = "Der MMR-Impfstoff verursacht Autismus."


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Makrolide schützen vor Herzinfarkt.", "de"),
        ("Las vacunas causan autismo.", "es"),
        ("La vitamine D prévient les fractures.", "fr"),
        ("A vitamina D previne fraturas.", "pt"),
        ("Vaccines cause autism.", "en"),  # py3langid reads this one as French
        ("ALDH1 expression predicts poor prognosis.", "en"),
        ("Macrolides protect against myocardial infarction.", "en"),  # reads as French 0.57 to Lingua
        ("12.5 %", "en"),  # nothing to tell by: English, as before
    ],
)
def test_the_language_is_recognised_offline(text: str, code: str):
    assert language_of(text) == code


def translating(english: str) -> ScriptedChatModel:
    return ScriptedChatModel(rules=[{"when": "Translate the claim into English",
                                     "reply": json.dumps({"english": english})}])


def test_another_language_is_checked_in_english_and_english_takes_no_step():
    llm = translating(CLAIM)
    got = in_english(llm, GERMAN)
    assert (got.claim, got.language, got.translated, got.note) == (CLAIM, "de", True, "")
    assert "German" in str(llm.calls[-1][-1].content) and GERMAN in str(llm.calls[-1][-1].content)
    calls = len(llm.calls)
    assert in_english(llm, CLAIM) == (CLAIM, "en", False, in_english(llm, CLAIM).usage, "")
    assert len(llm.calls) == calls  # no LLM call for an English claim


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("Der MMR-Impfstoff verursacht Autismus.", "gave it back unchanged"),
        ("Der MMR-Impfstoff verursacht wirklich Autismus.", "could not be kept"),  # not English
        ("The MMR vaccine causes autism in 12 of 10 children.", "could not be kept"),  # a number the claim lacks
        ("The MMR vaccine causes autism in a third of children.", "could not be kept"),  # a quantity in words
        ("", "could not be kept"),
    ],
)
def test_a_translation_that_cannot_stand_for_the_claim_is_not_kept(reply: str, why: str):
    got = in_english(translating(reply), GERMAN)
    assert (got.claim, got.translated) == (GERMAN, False) and why in got.note and "German" in got.note


def test_a_decimal_comma_translated_as_a_point_is_the_same_number():
    atropine = "Atropin in einer Dosis von 0,5 % bremst die Kurzsichtigkeit bei Kindern."
    got = in_english(translating("Atropine at a dose of 0.5% slows myopia in children."), atropine)
    assert got.translated and got.claim == "Atropine at a dose of 0.5% slows myopia in children."
    assert not in_english(translating("Atropine at a dose of 5% slows myopia in children."), atropine).translated


def test_without_the_llm_the_claim_is_checked_as_typed_and_says_so():
    got = in_english(DownModel(rules=[]), GERMAN)
    assert (got.claim, got.translated) == (GERMAN, False) and "could not translate" in got.note
    assert not in_english(None, GERMAN).translated and "no LLM" in in_english(None, GERMAN).note


def test_the_chat_checks_the_english_claim_and_keeps_the_users_words(make_deps: Any):
    deps = make_deps([{"when": "Translate the claim into English", "reply": json.dumps({"english": CLAIM})},
                      *CHECK_RULES], verifier_rules=VERIFIER_RULES)
    graph, cfg = build_thread_graph(InMemorySaver()), {"configurable": {"thread_id": "t-de"}}
    state = graph.invoke({"message": GERMAN}, cfg, context=deps)
    (result,) = state["results"]
    assert (state["query"], state["language"]) == (CLAIM, "de")
    assert (result["claim"], result["asked"], result["language"]) == (CLAIM, GERMAN, "de")
    assert result["verdict"]["label"] == "Generally refuted"  # judged on the English claim, as the English check is
    own = graph.invoke({"message": GERMAN, "verbatim": True}, cfg, context=deps)  # "Check my words instead"
    assert own["results"][-1]["claim"] == GERMAN and own["results"][-1]["asked"] == ""


def test_the_users_own_english_is_checked_instead_of_the_llms_and_answered_in_their_language(make_deps: Any):
    """"Correct the English": the claim the user writes in English is checked, their German words kept as asked, and
    the LLM is asked for no translation of the claim."""
    own_english = "The MMR vaccine does cause autism in children."
    deps = make_deps([{"when": "Translate the claim into English", "reply": json.dumps({"english": "Wrong."})},
                      *CHECK_RULES], verifier_rules=VERIFIER_RULES)
    graph, cfg = build_thread_graph(InMemorySaver()), {"configurable": {"thread_id": "t-own"}}
    state = graph.invoke({"message": GERMAN, "english": own_english}, cfg, context=deps)
    (result,) = state["results"]
    assert (result["claim"], result["asked"], result["language"]) == (own_english, GERMAN, "de")
    assert not any("Translate the claim into English" in str(m.content) for call in deps.llm.calls for m in call)


def test_a_claim_translated_while_read_as_a_passage_is_checked_in_that_english_without_a_second_translation(
    make_deps: Any,
):
    """The chat translates a two-sentence text in another language sentence by sentence to read it as a passage; when
    it states one finding, it is checked as a claim in that English (the thread's ``translation``), its words kept."""
    made = "The MMR vaccine causes autism. This is shown in children."
    deps = make_deps([{"when": "Translate the claim into English", "reply": json.dumps({"english": "Wrong."})},
                      *CHECK_RULES], verifier_rules=VERIFIER_RULES)
    graph, cfg = build_thread_graph(InMemorySaver()), {"configurable": {"thread_id": "t-made"}}
    state = graph.invoke({"message": GERMAN, "translation": made}, cfg, context=deps)
    (result,) = state["results"]
    assert (result["claim"], result["asked"], result["language"]) == (made, GERMAN, "de")
    assert not any("Translate the claim into English" in str(m.content) for call in deps.llm.calls for m in call)


GERMAN_ANSWER = "Große Studien fanden keinen Zusammenhang zwischen MMR und Autismus."
SUPPORTING = {"not associated": "supports"}  # the answer's sentence stands as written (the verdict is not the point)


def answer_translating(replies: dict[str, str]) -> ScriptedChatModel:
    return ScriptedChatModel(rules=[{"when": "Translate the answer's sentences", "reply": json.dumps(replies)}])


def test_the_answer_is_translated_after_the_check_and_its_english_is_kept(make_deps: Any):
    deps = make_deps([{"when": "Translate the claim into English", "reply": json.dumps({"english": CLAIM})},
                      {"when": "Translate the answer's sentences", "reply": json.dumps({"1": GERMAN_ANSWER})},
                      *CHECK_RULES], verifier_rules=SUPPORTING)
    graph, cfg = build_thread_graph(InMemorySaver()), {"configurable": {"thread_id": "t-de-answer"}}
    kept = graph.invoke({"message": GERMAN}, cfg, context=deps, interrupt_after=["check"])["results"][0]
    assert all(s["translation"] == "" for s in kept["sentences"])  # the answer is kept (and shown) first in English
    (result,) = graph.invoke(None, cfg, context=deps)["results"]
    first = result["sentences"][0]
    assert (first["text"], first["translation"]) == ("Large studies found no link between MMR and autism.",
                                                     GERMAN_ANSWER)
    assert [(s["text"], s["flagged"]) for s in result["sentences"]] == [(s["text"], s["flagged"])
                                                                        for s in kept["sentences"]]
    assert "Large studies found no link" in result["answer"]  # the answer's text stays the English that was checked
    asked = str(deps.llm.calls[-1][-1].content)
    assert "German" in asked and "1: Large studies found no link between MMR and autism." in asked
    assert result["llm"]["calls"] == kept["llm"]["calls"] + 1 and "translate" in result["timings"]


def test_an_answer_that_only_quotes_its_papers_asks_for_no_translation(make_deps: Any):
    deps = make_deps([{"when": "Translate the claim into English", "reply": json.dumps({"english": CLAIM})},
                      *CHECK_RULES], verifier_rules=VERIFIER_RULES)  # its sentence is flagged and replaced by a quote
    graph, cfg = build_thread_graph(InMemorySaver()), {"configurable": {"thread_id": "t-de-quote"}}
    (result,) = graph.invoke({"message": GERMAN}, cfg, context=deps)["results"]
    assert [s["revision"] for s in result["sentences"]] == ["replaced"] and result["sentences"][0]["translation"] == ""
    assert not any("Translate the answer" in str(call[-1].content) for call in deps.llm.calls)


def test_an_english_check_asks_for_no_translation(make_deps: Any):
    deps = make_deps([*CHECK_RULES], verifier_rules=VERIFIER_RULES)
    graph, cfg = build_thread_graph(InMemorySaver()), {"configurable": {"thread_id": "t-en-answer"}}
    (result,) = graph.invoke({"message": CLAIM}, cfg, context=deps)["results"]
    assert result["sentences"] and all(s["translation"] == "" for s in result["sentences"])
    assert not any("Translate" in str(call[-1].content) for call in deps.llm.calls)


def sentences(*texts: str) -> list[AnswerSentence]:
    return [AnswerSentence(text=text, citations=[1], status="supported", flagged=False) for text in texts]


def test_a_translation_is_kept_only_in_the_language_with_the_same_numbers():
    english = sentences("The risk fell by 1.5 percent in 2,000 children.", "Vaccines did not raise the risk of autism.",
                        "Cohort study (2019): \"MMR was not associated with autism.\"")
    llm = answer_translating({"1": "Das Risiko sank bei 2.000 Kindern um 1,5 Prozent.",  # the same numbers
                              "2": "Vaccines did not raise the risk of autism at all."})  # English: not kept
    got, usage, note = answer_in(llm, english, "de")
    assert [s.translation for s in got] == ["Das Risiko sank bei 2.000 Kindern um 1,5 Prozent.", "", ""]
    assert [s.text for s in got] == [s.text for s in english] and usage.calls == 1
    assert "1 of the answer's 2 sentence(s)" in note and "German" in note
    assert "MMR was not associated" not in str(llm.calls[-1][-1].content)  # a quote stays in the paper's words
    changed = answer_in(answer_translating({"1": "Das Risiko sank bei 3.000 Kindern um 1,5 Prozent."}),
                        english[:1], "de")[0]
    assert changed[0].translation == ""  # a changed number is no translation
    third = sentences("Only one third of the embryos developed into fetuses, 493 per million.")
    for wrong in ("Nur ein Viertel der Embryonen entwickelte sich zu Föten, 493 pro Million.",
                  "Nur ein Drittel der Embryonen entwickelte sich zu Föten, 493 pro Milliarde."):
        assert answer_in(answer_translating({"1": wrong}), third, "de")[0][0].translation == ""
    right = "Nur ein Drittel der Embryonen entwickelte sich zu Föten, 493 pro Million."
    assert answer_in(answer_translating({"1": right}), third, "de")[0][0].translation == right


def test_no_translation_is_asked_in_english_or_made_without_the_llm():
    english = sentences("Vaccines did not raise the risk of autism.")
    llm = answer_translating({"1": "Impfstoffe erhöhten das Autismusrisiko nicht."})
    assert answer_in(llm, english, "en") == (english, answer_in(llm, english, "en")[1], "") and not llm.calls
    assert "no LLM" in answer_in(None, english, "de")[2]
    got, _, note = answer_in(DownModel(rules=[]), english, "de")
    assert got == english and "could not translate" in note


def translated_check() -> dict[str, Any]:
    """A check of the German claim whose one answer sentence the LLM translated."""
    english = sentences("Vaccines did not raise the risk of autism.")
    got = answer_in(answer_translating({"1": "Impfstoffe erhöhten das Autismusrisiko nicht."}), english, "de")[0]
    return CheckResult(claim=CLAIM, asked=GERMAN, language="de", sentences=got).model_dump(mode="json")


def test_the_chat_shows_the_translation_and_the_checked_english_opens_in_english():
    from ui.chat.panel import english_actions, english_detail
    from ui.chat.render import answer_markdown

    result = translated_check()
    with speaking("de"):
        shown = answer_markdown(result)
        assert "Impfstoffe erhöhten das Autismusrisiko nicht [1]" in shown
        # the English as checked follows the translation, in view (the LLM's translation can misstate it)
        assert shown.index("Impfstoffe erhöhten") < shown.index("wie sie geprüft wurden, auf Englisch:_\n"
                                                                "1. Vaccines did not raise the risk of autism [1]")
        assert "Vom LLM nach der Prüfung übersetzt" in shown and "Das geprüfte Englisch" in shown
        assert [a.label for a in english_actions(result, 0)] == ["Das geprüfte Englisch"]
        panel = english_detail(result)
    assert "Vaccines did not raise the risk of autism [1]" in panel and "Impfstoffe" not in panel
    assert "Flagged" not in panel and "✅" in panel  # the flags of the English sentences, in English
    assert english_actions({**result, "sentences": [s.model_dump() for s in sentences("No risk.")]}, 0) == []
    untranslated = {**result, "sentences": [s.model_dump() for s in sentences("No risk.")]}
    assert "in English:_" not in answer_markdown(untranslated)


def test_ask_prints_the_translation_with_its_english_under_it(capsys: pytest.CaptureFixture[str]):
    from ui.terminal.readable import print_readable

    with speaking("de"):
        print_readable(translated_check())
    out = capsys.readouterr().out
    assert "1. Impfstoffe erhöhten das Autismusrisiko nicht. [1]" in out
    assert "(vom LLM übersetzt; auf Englisch geprüft: Vaccines did not raise the risk of autism.)" in out


def test_the_chat_answer_says_a_translation_is_coming_then_shows_it_with_its_english_button():
    import asyncio

    from tests.unit.test_supplement import Sent
    from ui.chat.answer_stream import TRANSLATING, AnswerStream

    class Message(Sent):
        def __init__(self) -> None:
            super().__init__()
            self.actions: list[Any] = []

        async def remove_actions(self) -> None:
            self.actions = []

    done = translated_check()
    kept = {**done, "sentences": [{**s, "translation": ""} for s in done["sentences"]]}
    stream = AnswerStream(0, [])
    stream.result, stream.message, stream.translating = kept, Message(), True  # type: ignore[assignment]
    assert TRANSLATING in stream.content() and "Vaccines did not raise the risk of autism" in stream.content()
    asyncio.run(stream.translated(done))
    shown = stream.message.updates[-1]
    assert TRANSLATING not in shown and "Impfstoffe erhöhten das Autismusrisiko nicht" in shown
    assert [a.label for a in stream.message.actions if a.name == "open_english"] == ["The checked English"]
    stream.translating = True
    asyncio.run(stream.failed("RuntimeError: the LLM broke"))  # the answer stands as kept, and says why
    assert TRANSLATING not in stream.message.updates[-1] and "the LLM broke" in stream.message.updates[-1]


def test_a_follow_up_asked_in_german_is_answered_in_german_beside_the_checked_english(make_deps: Any):
    from ui.chat.replies import followup_markdown
    from ui.shared.untrusted import md

    router = {"action": "answer", "answer": "Large studies found no link between MMR and autism [1]."}
    german = "Die MMR-Impfung war in großen Studien nicht mit Autismus verbunden."
    deps = make_deps([{"when": "Follow-up from the user", "reply": json.dumps(router)},
                      {"when": "Translate the answer's sentences", "reply": json.dumps({"1": german})},
                      {"when": "Translate the claim into English", "reply": json.dumps({"english": CLAIM})},
                      *CHECK_RULES], verifier_rules=SUPPORTING)
    graph, cfg = build_thread_graph(InMemorySaver()), {"configurable": {"thread_id": "t-de-followup"}}
    graph.invoke({"message": GERMAN}, cfg, context=deps)
    reply = graph.invoke({"message": "Was fanden die großen Studien heraus?"}, cfg, context=deps)["reply"]
    (sentence,) = reply["sentences"]
    assert (sentence["text"], sentence["translation"], reply["language"]) == (
        "Large studies found no link between MMR and autism.", german, "de")
    with speaking("de"):
        shown = followup_markdown(reply)
    assert shown.index(md(german[:-1])) < shown.index("auf Englisch:") < shown.index("Large studies found no link")
    english = graph.invoke({"message": "What did the large studies find?"}, cfg, context=deps)["reply"]
    assert english["language"] == "en" and english["sentences"][0]["translation"] == ""


SECOND = "Statine senken das Risiko für Demenz."
SECOND_ENGLISH = "Statins lower the risk of dementia."


@pytest.mark.parametrize(
    ("router", "translations"),
    [({"action": "dance"}, 1),  # no usable routing: the user's German is translated, as a first claim is
     ({"action": "search", "claim": SECOND_ENGLISH}, 0)],  # the router's own English search is kept as written
)
def test_a_later_claim_in_german_is_checked_in_english_and_answered_in_german(
        make_deps: Any, router: dict[str, str], translations: int):
    deps = make_deps([{"when": "Follow-up from the user", "reply": json.dumps(router)},
                      {"when": f"<claim>\n{SECOND}", "reply": json.dumps({"english": SECOND_ENGLISH})},
                      {"when": "Translate the claim into English", "reply": json.dumps({"english": CLAIM})},
                      *CHECK_RULES], verifier_rules=VERIFIER_RULES)
    graph, cfg = build_thread_graph(InMemorySaver()), {"configurable": {"thread_id": "t-de-second"}}
    graph.invoke({"message": GERMAN}, cfg, context=deps)
    before = len(deps.llm.calls)
    state = graph.invoke({"message": SECOND}, cfg, context=deps)
    last = state["results"][-1]
    assert (last["claim"], last["asked"], last["language"]) == (SECOND_ENGLISH, SECOND, "de")
    asked = [str(call[-1].content) for call in deps.llm.calls[before:]]
    assert sum("Translate the claim into English" in text for text in asked) == translations


def test_the_users_own_english_stands_for_a_claim_in_another_language_only():
    own = own_english(GERMAN, CLAIM)
    assert (own.claim, own.language, own.translated, own.note) == (CLAIM, "de", True, "")
    with pytest.raises(ValueError, match="already in English"):
        own_english(CLAIM, CLAIM)
    with pytest.raises(ValueError, match="not in English"):
        own_english(GERMAN, GERMAN)
