"""The chat's Markdown, from the `ask --json` object: citations, flags, verdict badge, sources with their neighbouring
sentences."""

from __future__ import annotations

from typing import Any

from ui.chat.render import (
    ORIGINAL,
    answer_markdown,
    cite,
    corrections_line,
    open_name,
    original_detail,
    sentence_line,
    source_detail,
    split_neighbours,
)
from ui.chat.replies import followup_markdown, sentence_sources_markdown
from ui.chat.steps import STEP_NAMES, as_json, step_markdown
from ui.chat.why_view import why_markdown


def source(n: int, sentence_index: int = 2, neighbours: list[str] | None = None) -> dict[str, Any]:
    return {
        "n": n, "doc_id": str(100 + n), "title": f"Study {n}", "sentence": f"Evidence sentence {n}.",
        "sentence_index": sentence_index, "context": "The sentence before.",
        "neighbours": neighbours if neighbours is not None else ["S0.", "The sentence before.", "S3."],
        "url": f"https://doi.org/10.1/{n}", "year": 2019, "stance": "contradicts", "label": "False",
        "reputation": 0.5,
    }


def sentence(text: str, citations: list[int], status: str, flagged: bool, **extra: Any) -> dict[str, Any]:
    base = {"text": text, "citations": citations, "status": status, "flagged": flagged, "score": -0.9,
            "reason": "[1] contradicts this sentence", "invalid_citations": [], "attribution": []}
    return {**base, **extra}


RESULT: dict[str, Any] = {
    "claim": "X causes Y.",
    "answer": "",
    "sentences": [
        sentence("Studies found no link.", [1, 2], "supported", False, score=0.9, reason="[1] supports this"),
        sentence("X is harmful.", [], "uncited", True, score=None, reason="cites no existing source; removed "
                 "citation(s) to non-existent source(s) [12]", invalid_citations=[12]),
        sentence("X causes Y.", [2], "contradicted", True),
    ],
    "sources": [source(1), source(2)],
    "verdict": {"label": "Generally refuted", "score": -0.8, "unweighted_score": -0.75, "counted_sources": 2,
                "confidence": 0.81, "supporting": 0, "contradicting": 2, "irrelevant": 1, "leaning": None},
    "notes": ["assess: 1 retrieved abstract(s) had no sentence bearing on the claim"],
}


def test_cite_puts_numbers_before_the_full_stop():
    assert cite("No link.", [1, 2]) == r"No link [1, 2]\."  # the sentence's own characters are escaped
    assert cite("No link", [3]) == "No link [3]"
    assert cite("No link.", []) == r"No link\."


def test_answer_shows_sentences_flags_verdict_and_sources():
    md = answer_markdown(RESULT)
    # the verdict in one sentence; the scores are the "why?" reply's and the export's
    assert md.startswith(
        "**Verdict:** Refuted by 2 papers (confidence 0.81); 1 more paper read bears on neither side.\n\n**Answer**"
    )
    assert "score" not in md.split("\n\n")[0]
    assert r"1. Studies found no link [1, 2]\. ✅" in md
    assert "2. X is harmful\\.\\\n   ⚠️ **Flagged: cites no source** — _cites no existing source\\; removed" in md
    assert "3. X causes Y [2]\\.\\\n   ⚠️ **Flagged: contradicted by its sources** — _\\[1\\] contradicts this " \
           "sentence, verifier score -0.90_" in md
    assert "_2 of 3 sentence(s) flagged by the verifier._" in md
    assert "- **[1]** _Study 1_ (2019) · [link](https://doi.org/10.1/1) · False · contradicts · Source 1" in md
    assert r"  > The sentence before\. **Evidence sentence 1\.**" in md
    assert r"_Note: 1 retrieved abstract\(s\) had no sentence bearing on the claim_" in md
    assert "assess" not in md  # the pipeline node's name is the code's, not the reader's


def test_no_verdict_and_no_sources():
    md = answer_markdown({**RESULT, "verdict": None, "sources": [], "notes": []})
    assert md.startswith("**Verdict:** none") and "**Sources**" not in md


def test_source_detail_highlights_the_sentence_within_its_neighbours():
    src = source(1, sentence_index=2, neighbours=["A.", "B.", "C.", "D."])
    assert split_neighbours(src, 5) == (["A.", "B."], ["C.", "D."])
    detail = source_detail(src, 5)
    # the sentence read is in bold, as the panel's heading says: no marks of fake punctuation around it
    assert r"A\. B\. **Evidence sentence 1\.** C\. D\." in detail
    assert "Sentence 3 of the abstract, with its neighbours (the sentence read in bold):" in detail
    assert "==" not in detail and "›" not in detail and "‹" not in detail
    assert r"_The sentence before, as the verifier read it:_ The sentence before\." in detail
    assert "Supplementary" not in detail and "Generated" not in detail  # the paper's own text, not the LLM's summary
    assert open_name(1) not in detail  # the panel itself holds no link to itself
    first = source(2, sentence_index=0, neighbours=["N1.", "N2."])
    assert split_neighbours(first, 5) == ([], ["N1.", "N2."])


def test_sentence_sources_and_followup_replies():
    reply = {"kind": "sources", "sentence": 1, "text": "Studies found no link.", "citations": [1],
             "status": "supported", "sources": [source(1)]}
    md = sentence_sources_markdown(reply)
    assert md.startswith(r"**Sentence 1:** Studies found no link [1]\.") and "It cites:" in md
    assert r"**Evidence sentence 1\.**" in md
    assert "cites no source" in sentence_sources_markdown({**reply, "citations": [], "sources": []})
    assert sentence_sources_markdown({"kind": "sources", "error": "the last answer has 3 sentence(s)"}).startswith("⚠️")
    follow = followup_markdown({"kind": "answer", "sentences": RESULT["sentences"][:1], "evidence_count": 2})
    assert r"1. Studies found no link [1, 2]\. ✅" in follow and "2 source sentence(s)" in follow


def test_every_pipeline_node_has_a_step():
    from agent.graph import NODES

    assert list(NODES) == list(STEP_NAMES)


def test_step_markdown_from_node_updates():
    from agent.state import Query, Verdict

    update = as_json({"queries": [Query(text="Is X linked to Y?", kind="question")], "notes": ["few questions"]})
    assert step_markdown("decompose", update) == "- (question) Is X linked to Y\\?\n\n_Note: Few questions_"
    verdict = as_json(
        {
            "verdict": Verdict(
                label="Cannot decide", score=0.33, unweighted_score=0.33, counted_sources=1, confidence=0.41,
                supporting=1, irrelevant=2, leaning="Weakly supported",
            )
        }
    )
    assert step_markdown("verdict", verdict) == (
        "Cannot decide: 1 paper supports the claim, but with too little confidence (0.41) to call it weakly "
        "supported; 2 more papers read bear on neither side."
    )
    verify = step_markdown("verify", {"sentences": RESULT["sentences"][2:]})
    assert verify == r"1. X causes Y [2]\. → **contradicted** (\[1\] contradicts this sentence)"
    lists = step_markdown("retrieve", {"ranked_lists": {"bm25|q": ["1", "2"], "dense|q": ["2", "3"]}})
    assert lists.startswith("2 ranked list(s)") and "3 distinct abstract(s)" in lists
    off = {"candidates": [{"doc_id": "1", "score": 0.2, "evidence_score": None}]}
    assert step_markdown("rerank", off) == "Reranking is off (RERANK_TOP=0): the fused order is kept."
    on = {"candidates": [{"doc_id": "1", "score": 0.2, "evidence_score": 0.91}]}
    assert step_markdown("rerank", on).endswith("- doc 1 · evidence 0.91 · RRF 0.2000")
    # the context node's step: the paper's neighbouring sentences, never called the LLM's (generated) summary
    assert STEP_NAMES["context"] == "Neighbouring sentences"
    neighbours = step_markdown("context", {"evidence": [source(1)]})
    assert neighbours == "- “Evidence sentence 1\\.”\n  > sentence before: The sentence before\\."


CORRECTED: dict[str, Any] = {
    **RESULT,
    "sentences": [
        sentence("No link was found.", [1], "supported", False, score=0.9, revision="rewritten",
                 original="X causes Y [1]."),
        sentence('A 2019 study reports: "Evidence sentence 2."', [2], "supported", False, score=None,
                 revision="replaced", original="X is harmful [2]."),
    ],
    "original_answer": "X causes Y [1]. X is harmful [2]. It is true.",
    "corrections": [
        {"position": 1, "original": "X causes Y [1].", "status": "contradicted", "reason": "[1] contradicts this "
         "sentence", "action": "rewritten", "text": "No link was found [1]."},
        {"position": 2, "original": "X is harmful [2].", "status": "unsupported", "reason": "no cited source states "
         "this", "action": "replaced", "text": 'A 2019 study reports: "Evidence sentence 2." [2]'},
        {"position": 3, "original": "It is true.", "status": "uncited", "reason": "cites no existing source",
         "action": "dropped", "text": ""},
    ],
}  # fmt: skip


def test_a_corrected_answer_says_what_changed_and_keeps_the_original() -> None:
    md = answer_markdown(CORRECTED)
    assert r"1. No link was found [1]\. ✅ _(rewritten from its sources in place of a flagged sentence)_" in md
    assert "_(quoted from its source in place of a flagged sentence)_" in md
    assert "Self-correction changed 3 sentence(s) of the first answer (1 rewritten, 1 replaced, 1 dropped)" in md
    assert ORIGINAL in md  # the name the chat turns into a link to the panel
    detail = original_detail(CORRECTED)
    assert detail.index(r"X causes Y \[1\]\. X is harmful \[2\]\. It is true\.") < detail.index("What was changed")
    assert r"3. “It is true\.” — uncited: _cites no existing source_; **dropped** → not shown" in detail
    assert r"**rewritten** → shown instead: “No link was found \[1\]\.”" in detail


def test_the_count_of_each_change_agrees_with_its_word() -> None:
    from tools.text.i18n import speaking

    changed = [{"action": "replaced"}, {"action": "replaced"}, {"action": "dropped"}]
    assert "(2 replaced, 1 dropped)" in corrections_line(changed)
    with speaking("es"):
        assert "(2 sustituidas, 1 suprimida)" in corrections_line(changed)
    with speaking("fr"):
        assert "(2 remplacées, 1 supprimée)" in corrections_line(changed)


def test_a_hedged_sentence_says_its_sources_hedge_was_put_back() -> None:
    hedged = sentence("The study suggests that CBT beats zopiclone.", [1], "supported", False, revision="hedged",
                      original="CBT beats zopiclone [1].")  # fmt: skip
    assert "✅ _(its source's hedge put back in place of a flagged sentence)_" in sentence_line(1, hedged)
    assert "(1 hedged)" in corrections_line([{"action": "hedged"}])


def test_a_recited_sentence_says_its_citation_was_moved() -> None:
    recited = sentence("Evidence sentence 2.", [2], "supported", False, revision="recited",
                       original="Evidence sentence 2 [1].")  # fmt: skip
    line = sentence_line(1, recited)
    assert "✅ _(cited to the source whose words it repeats in place of a flagged sentence)_" in line
    changed = [{"action": "recited"}, {"action": "dropped"}]
    assert "(1 recited, 1 dropped)" in corrections_line(changed)
    assert "Self-correction" not in answer_markdown(RESULT)
    follow = followup_markdown({"kind": "answer", "sentences": CORRECTED["sentences"], "evidence_count": 2,
                                "corrections": CORRECTED["corrections"][2:]})  # fmt: skip
    assert "Self-correction changed 1 sentence(s) of the first answer (1 dropped)" in follow
    step = step_markdown("correct", {"corrections": CORRECTED["corrections"][:1]})
    assert step == (
        r"1. rewritten: “X causes Y \[1\]\.” (contradicted: \[1\] contradicts this sentence) → “No link was found "
        r"\[1\]\.”"
    )
    assert step_markdown("correct", {}).startswith("Every sentence is supported")


def test_a_stance_too_weak_to_grade_is_shown_as_such() -> None:
    from ui.chat.render import stance_text

    graded = {**source(1), "stance_confidence": 0.81}
    assert stance_text(graded) == "False · contradicts (0.81)"
    weak = {**source(2), "label": "No Evidence", "stance": "supports", "stance_confidence": 0.45}
    assert stance_text(weak) == "No Evidence: leans supports (0.45), too weak to count"
    assert stance_text({**source(3), "label": None, "stance": "nei"}) == "nei"


def test_the_early_verdict_is_marked_and_lists_its_sources():
    from ui.chat.progress import following
    from ui.chat.render import early_markdown

    verdict = {**RESULT["verdict"], "provisional": True}
    evidence = [{"n": 1, "title": "A cohort", "sentence": "No link was found.", "stance": "contradicts"},
                {"n": 1, "title": "A cohort", "sentence": "Risk was 0.9.", "stance": "nei"}]  # fmt: skip
    text = early_markdown(verdict, evidence)
    assert text.startswith("⏳ **Provisional:** Refuted by 2 papers (confidence 0.81)")
    assert "search questions are being written" in text
    # one line per paper, its sentences on it
    assert r"- **[1]** _A cohort_ — contradicts: “No link was found\.” · nei: “Risk was 0\.9\.”" in text
    assert text.count("[1]") == 1
    final = early_markdown({**verdict, "provisional": False}, [])
    assert final.startswith("⏳ **Judged:**") and "Provisional" not in final and "No source bears on it." in final
    assert following("verdict", {"verdict": verdict}) == "decompose"
    assert following("verdict", {"verdict": {**verdict, "provisional": False}}) == "answer"
    assert following("decompose", {"queries": [{"kind": "question", "text": "Q?"}]}) == "retrieve"
    assert following("decompose", {"notes": ["no questions"]}) == "verdict"
    assert following("assess", {}) == "verdict" and following("correct", {}) is None
    # a verdict resting on too little: the reformulated search, then a second search or the answer
    thin = {"verdict": {**verdict, "provisional": False}, "search_again": True}
    assert following("verdict", thin) == "reformulate" and following("decompose", {}) == "verdict"
    assert following("reformulate", {"round_queries": ["aspirin myocardial infarction"]}) == "retrieve"
    assert following("reformulate", {"notes": ["no new query"]}) == "answer"
    assert following("context", {}) == "assess" and following("verify", {}) == "correct"
    again = early_markdown({**verdict, "provisional": False}, evidence, searching_again=True)
    assert again.startswith("⏳ **So far:**") and "search runs again" in again and "No link was found" in again


def test_a_source_the_llm_read_says_which_statement_it_supports() -> None:
    from ui.chat.progress import following
    from ui.chat.render import early_markdown, stance_text

    against = {**source(1), "label": "Mostly False", "stance": "contradicts", "stance_confidence": 0.62,
               "p_claim": 0.14}
    # in words, how sure the LLM is of the side it reads (the JSON keeps P(claim) and the confidence)
    assert stance_text(against) == "Mostly False · 86% sure it supports the opposite"
    for_it = {**against, "label": "True", "stance": "supports", "p_claim": 0.91, "stance_confidence": 0.8}
    assert stance_text(for_it) == "True · 91% sure it supports the claim"
    sure = {**against, "label": "False", "p_claim": 0.003}
    assert stance_text(sure) == "False · over 99% sure it supports the opposite"  # never "100%"
    listed = answer_markdown({**RESULT, "sources": [against]}).split("**Sources**")[1]
    for shown in (stance_text(against), stance_text(for_it), listed):
        assert "P(" not in shown and "confidence 0." not in shown
    unsure = {**against, "label": "No Evidence", "stance": "nei", "p_claim": 0.52, "stance_confidence": 0.4}
    assert stance_text(unsure) == "No Evidence · nei (0.40)"  # too weak to grade: no statement is named
    waiting = {**RESULT["verdict"], "provisional": True, "awaiting": "judgement"}
    text = early_markdown(waiting, [])
    assert text.startswith("⏳ **Provisional:**") and "reading which way each source points" in text
    assert following("verdict", {"verdict": waiting}) == "judge_sources" and following("judge_sources", {}) == "verdict"
    shown = answer_markdown({**RESULT, "opposite": "The MMR vaccine does not cause autism."})
    assert "read against the claim's opposite: “The MMR vaccine does not cause autism\\.”" in shown


def test_the_reckoning_shows_each_counted_paper_and_keeps_titles_literal():
    row = {"numbers": [1, 2], "title": "A | B *trial*", "label": "Mostly False", "grade": -0.66,
           "stance_confidence": 0.81, "weight": 0.35, "weight_inputs": "animal study ×0.35",
           "direction": "the LLM is 81% sure it supports the opposite"}  # fmt: skip
    reply = {"kind": "why", "summary": "Weakly refuted (confidence 0.81): ...", "counted": [row],
             "rule": "Weighted grade = (-0.66×0.35) / 0.35 = -0.66.", "confidence": "Confidence 0.81 ...",
             "change": "A paper on the other side ...",
             "not_counted": [{"numbers": [], "title": "<b>x</b>", "why": "no sentence bears on the claim"}],
             }  # fmt: skip
    text = why_markdown(reply)
    table_row = next(line for line in text.splitlines() if line.startswith("| [1] [2]"))
    assert table_row.count("|") - table_row.count("\\|") == 8  # the title's pipe cannot open a column
    assert "\\*trial\\*" in table_row and "| −0.66" not in table_row and "| -0.66 |" in table_row
    assert "- – \\<b\\>x\\<\\/b\\>: no sentence bears on the claim" in text
    assert why_markdown({"kind": "why", "error": "this check has no verdict yet"}).startswith("⚠️")


def test_papers_read_but_not_counted_are_listed_with_the_reason():
    silent = [
        {"doc_id": "9", "title": "Starch <b>after</b> bypass", "reputation": 0.4, "bearing": 0.08,
         "reason": "Not counted: the LLM reads no finding on the claim in the sentences it read "
                   "(8% likely to report a finding on the claim; papers count from 30%)."},
        {"doc_id": "8", "title": "Old study", "reputation": 0.2},
    ]
    md = answer_markdown({**RESULT, "silent": silent})
    listed = md[md.index("**Read, not counted**"):]
    assert "- _Starch \\<b\\>after\\<\\/b\\> bypass_ — Not counted" in listed  # a title is data, never HTML
    # each names the button that opens it in the side panel, as a counted source names its "Source n"
    assert listed.splitlines()[1].endswith(" · Uncounted paper 1")
    assert "- _Old study_ · Uncounted paper 2\n" in listed + "\n" and listed.index("Starch") < listed.index("Old study")
    assert "**Read, not counted**" not in answer_markdown(RESULT)


def test_notes_are_shown_without_the_name_of_the_node_that_added_them():
    from agent.graph import NODE_NAMES
    from ui.chat.render import note_line
    from ui.shared.notes import NODES, note_text
    from ui.shared.untrusted import md as md_escape

    assert list(NODES) == NODE_NAMES  # a new node's notes lose their prefix too
    assert note_text("assess: 2 retrieved abstract(s) had no sentence bearing on the claim") == (
        "2 retrieved abstract(s) had no sentence bearing on the claim"
    )
    assert note_text("judge_sources: 3 source(s) read do not count: not about the claim") == (
        "3 source(s) read do not count: not about the claim"  # only the leading node name goes
    )
    assert note_text("correct: no sentence of the answer survived checking; the answer quotes the evidence instead") \
        == "No sentence of the answer survived checking; the answer quotes the evidence instead"
    # a note that does not start with a node's name keeps its words
    assert note_text("LLM unavailable: timed out: this search used keywords (BM25) only") == (
        "LLM unavailable: timed out: this search used keywords (BM25) only"
    )
    assert note_text("search round 2: the search so far found nothing") == (
        "Search round 2: the search so far found nothing"
    )
    assert note_text("assessment: 1 paper") == "Assessment: 1 paper"  # a word that merely starts like a node's name
    # the settings a note names are the CLI's and the JSON's, not the chat reader's; other brackets stay
    assert note_text("judge_sources: the LLM's time for reading direction (DIRECTION_SECONDS=8) ran out while other "
                     "checks waited; 1 source(s) are listed") == (
        "The LLM's time for reading direction ran out while other checks waited; 1 source(s) are listed"
    )
    assert note_text("answer: the LLM did not answer in time (LLM_TIMEOUT); the LLM server failed (HTTP 500)") == (
        "The LLM did not answer in time; the LLM server failed (HTTP 500)"
    )
    assert note_line("verify: <b>x</b>") == f"_Note: {md_escape('<b>x</b>')}_"  # still escaped
    step = step_markdown("assess", {"notes": ["assess: 1 retrieved abstract(s) had no sentence bearing on the claim"]})
    assert step.endswith("_Note: 1 retrieved abstract\\(s\\) had no sentence bearing on the claim_")


def test_the_terminal_prints_notes_and_the_llms_reading_in_words(capsys: Any) -> None:
    """`claimtrace ask` prints a note without the name of the node that added it (the settings it names stay: the
    terminal's reader runs claimtrace), and a source the LLM read with how sure the LLM is, in words; the JSON keeps
    both as they are (tests/integration/test_cli.py reads it)."""
    from ui.terminal.readable import print_readable

    read = {**source(1), "label": "Mostly False", "stance_confidence": 0.97, "p_claim": 0.03, "page": None,
            "design": None}  # fmt: skip
    notes = ["judge_sources: 2 source(s) read do not count: not about the claim",
             "judge_sources: the LLM's time for reading direction (DIRECTION_SECONDS=8) ran out"]  # fmt: skip
    print_readable({**RESULT, "sources": [read], "notes": notes, "corrections": [], "timings": {"total": 1.0},
                    "llm": {"calls": 1, "prompt_tokens": 1, "completion_tokens": 1}})  # fmt: skip
    out = capsys.readouterr().out
    assert "\nNote: 2 source(s) read do not count: not about the claim\n" in out
    assert "\nNote: The LLM's time for reading direction (DIRECTION_SECONDS=8) ran out\n" in out
    assert "direction:" not in out
    assert "  [1] Study 1 (2019) — Mostly False · 97% sure it supports the opposite\n" in out
    assert "P(claim)" not in out and "confidence 0.97" not in out
