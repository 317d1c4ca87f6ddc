"""What the chat's passage view relies on below the browser: the user's edits to the claim list (a reworded claim,
a dropped one, near-duplicates marked again), follow-ups about the check the user opened, and the passage's text
shown literally in the claim list, the table and the report."""

from __future__ import annotations

import json

from agent.followup.state import ThreadState, current
from agent.llm.scripted import ScriptedChatModel
from agent.passage.extract import renumbered, reworded
from agent.passage.foreign import in_english_text
from agent.passage.model import CitationAudit, PassageCheck, PassageClaim, SkippedSentence
from agent.state import Verdict
from tools.text.claim_rules import checkable
from ui.chat.passage_view import claims_markdown, report_markdown, table_markdown
from ui.shared.untrusted import md

TEXT = "Coffee lowers <b>fibrosis</b> | risk. Coffee lowers fibrosis risk. Tea lowers gout risk."


def _row(n: int, claim: str, same_as: int | None = None) -> PassageClaim:
    start = TEXT.index(claim)
    return PassageClaim(n=n, claim=claim, sentence=claim, start=start, end=start + len(claim), same_as=same_as)


def _check() -> PassageCheck:
    return PassageCheck(
        text=TEXT,
        claims=[
            _row(1, "Coffee lowers <b>fibrosis</b> | risk."),
            _row(2, "Coffee lowers fibrosis risk.", same_as=1),
            _row(3, "Tea lowers gout risk."),
        ],
    )


def test_dropping_a_claim_renumbers_the_rest_and_its_twin_gets_its_own_check() -> None:
    check = _check()
    kept = renumbered([r for r in check.claims if r.n != 1])
    assert [(r.n, r.claim, r.same_as) for r in kept] == [(1, "Coffee lowers fibrosis risk.", None),
                                                         (2, "Tea lowers gout risk.", None)]


def test_a_reworded_claim_is_marked_as_the_users_and_may_become_a_twin() -> None:
    check = _check()
    edited = renumbered([reworded(r, "Coffee lowers fibrosis risk.") if r.n == 3 else r for r in check.claims])
    assert edited[2].rewritten_by == "user" and edited[2].sentence == "Tea lowers gout risk."
    assert edited[2].same_as == 1  # the same claim as rows 1 and 2 now, so it shares their check
    vague = reworded(check.claims[2], "It lowers gout risk.")
    assert not vague.standalone and vague.unresolved == "It"


def test_follow_ups_are_about_the_opened_check_else_the_newest() -> None:
    results = [{"claim": "a"}, {"claim": "b"}, {"claim": "c"}]
    assert current(ThreadState(results=results)) == {"claim": "c"}
    assert current(ThreadState(results=results, focus=0)) == {"claim": "a"}
    assert current(ThreadState(results=results, focus=-1)) == {"claim": "c"}
    assert current(ThreadState(results=results, focus=7)) == {"claim": "c"}  # a stale index: the newest
    assert current(ThreadState(results=[])) is None


def test_the_passage_shows_literally_in_the_list_table_and_report() -> None:
    check = _check()
    check.skipped = [SkippedSentence(sentence="We aimed <i>high</i>.", start=0, end=1, reason="an aim")]
    check.claims[0].provisional = Verdict(
        label="Generally supported", confidence=0.8, score=0.8, unweighted_score=0.8, supporting=1
    )
    check.claims[0].audits = [CitationAudit(citation="[1]")]
    for shown in (claims_markdown(check), table_markdown(check, done=False), report_markdown(check)):
        assert "<b>" not in shown and "\\<b\\>" in shown
        assert " | risk" not in shown  # a pipe in a claim cannot break the table
    assert "We aimed \\<i\\>high\\<\\/i\\>" in claims_markdown(check)
    assert "_Generally supported \\(provisional\\)_" in table_markdown(check, done=False)
    assert "same as claim 1" in claims_markdown(check)
    assert "**⟦3: checking…⟧** Tea lowers gout risk" in report_markdown(check)
    assert "not in your library" in report_markdown(check)


def test_a_passage_in_german_is_listed_tabled_and_reported_in_german_its_own_words_kept() -> None:
    """The chat speaks the passage's language: the list, the table and the report in German, the reasons a sentence
    was skipped and the notes said in German, the claims and the sentences as they are."""
    from tools.text.i18n import speaking

    check = _check()
    check.skipped = [SkippedSentence(sentence="Wir wollten wissen, ob Tee hilft.", start=0, end=1,
                                     reason=checkable("We aimed to know whether tea helps.")[1])]
    check.claims[0].provisional = Verdict(
        label="Generally supported", confidence=0.8, score=0.8, unweighted_score=0.8, supporting=1
    )
    check.claims[0].audits = [CitationAudit(citation="[1]")]
    check.notes = [in_english_text(ScriptedChatModel(rules=[{"reply": json.dumps({"english": "Coffee helps."})}]),
                                   "Kaffee hilft der Leber. Tee hilft bei Gicht.").notes[0]]
    with speaking("de"):
        listing, table, report = claims_markdown(check), table_markdown(check, done=False), report_markdown(check)
    assert "**Dieser Text nennt 3 prüfbare Behauptungen.**" in listing and "dieselbe wie Behauptung 1" in listing
    assert "**Nicht geprüft** (1 Satz):" in listing and ": nennt ein Ziel" in listing  # the reason, said in German
    assert "das LLM hat seine Sätze einzeln ins Englische übersetzt" in listing  # the note, said in German
    assert "| # | Behauptung | Urteil | Konfidenz | Arbeiten |" in table
    assert "_Weitgehend gestützt \\(vorläufig\\)_" in table and "(Prüfung läuft" in table
    assert "**⟦3: wird geprüft…⟧** Tea lowers gout risk" in report  # the claim as it is
    assert "- Behauptung 1: \\[1\\]\\: nicht in Ihrer Bibliothek" in report  # the audit, in German
    assert "checkable" not in listing and "not in your library" not in report  # nothing left in English


def test_a_stored_passage_is_whole_again_with_each_rows_check_from_the_thread() -> None:
    from agent.result import CheckResult
    from ui.chat.passage_view import stored_passage
    from ui.export.passage import export_passage

    check = _check()
    results = [{"claim": "an earlier check"}, CheckResult(claim=check.claims[0].claim, answer="One [1].").model_dump(
        mode="json"), CheckResult(claim="Tea lowers gout risk.", answer="Two [1].").model_dump(mode="json")]
    stored = {"check": check.model_dump(mode="json", exclude={"claims": {"__all__": {"result"}}}),
              "rows": {"1": 1, "3": 2}}  # fmt: skip
    whole = stored_passage(stored, results)
    assert [c.result.answer if c.result else None for c in whole.claims] == ["One [1].", None, "Two [1]."]
    assert whole.checked(whole.claims[1]) is whole.claims[0].result  # the twin shows the shared check
    assert "## Claim 3: full check" in export_passage(whole, "md")
    assert stored_passage({**stored, "rows": {"1": 9}}, results).claims[0].result is None  # a stale index: none


def test_a_claim_from_a_translated_passage_shows_the_users_own_sentence() -> None:
    row = PassageClaim(n=1, claim="Tea lowers gout risk.", sentence="Tea lowers gout risk.", start=0, end=21,
                       asked="Tee senkt das <i>Gichtrisiko</i>.")  # fmt: skip
    listing = claims_markdown(PassageCheck(text="Tea lowers gout risk.", claims=[row], language="de"))
    assert "translated by the LLM" in listing and md("Tee senkt das <i>Gichtrisiko</i>.") in listing  # literal text


def test_only_a_text_of_two_sentences_or_more_in_another_language_is_read_in_english_first() -> None:
    from ui.chat.passage import may_be_foreign_passage

    assert may_be_foreign_passage("Kaffee senkt das Gichtrisiko. Tee verlängert das Leben bei älteren Menschen.")
    assert not may_be_foreign_passage("Kaffee senkt das Gichtrisiko bei älteren Männern.")  # one claim
    assert not may_be_foreign_passage("Coffee lowers gout risk. Tea lengthens life in older people.")  # English


def test_a_pasted_english_sentence_stays_english_however_often_it_repeats() -> None:
    """Read whole, "Vitamin D reduces fractures." pasted five times or more reads as Spanish; its different
    sentences, each read as a claim, keep it English, so a 1 MB paste is refused for its length, not translated."""
    from agent.passage.foreign import passage_language
    from tools.text.language import language_of
    from ui.chat.passage import may_be_foreign_passage

    pasted = "Vitamin D reduces fractures. " * 34_500
    assert language_of(pasted[:200]) != "en"  # the drift the vote guards against
    assert passage_language(pasted) == "en" and not may_be_foreign_passage(pasted)
    german = "Vitamin D senkt das Frakturrisiko. Aspirin verhindert Herzinfarkte bei älteren Menschen. " * 3
    assert passage_language(german) == "de" and may_be_foreign_passage(german)


def test_a_text_is_whole_in_english_only_when_every_sentence_of_it_was_translated() -> None:
    """The chat checks a translated text that states one finding in the English made while reading it, without
    translating it again, only when that English is whole: a sentence kept as typed sends it to the claim's own
    translation."""
    text = "Kaffee senkt das Gichtrisiko. Das zeigen Studien an älteren Männern."
    first = {"when": "Kaffee senkt", "reply": json.dumps({"english": "Coffee lowers the risk of gout."})}
    second = {"when": "Das zeigen", "reply": json.dumps({"english": "Studies in older men show this."})}
    got = in_english_text(ScriptedChatModel(rules=[first, second]), text)
    assert got.whole and got.text == "Coffee lowers the risk of gout. Studies in older men show this."
    unchanged = {"when": "Das zeigen", "reply": json.dumps({"english": "Das zeigen Studien an älteren Männern."})}
    assert not in_english_text(ScriptedChatModel(rules=[first, unchanged]), text).whole
