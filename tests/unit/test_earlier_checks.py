"""Checked before (agent.earlier, ui/terminal/earlier.py, ui/mcp/earlier.py): a kept check is found again by its
claim on a real SQLite thread store, read as the same claim, its opposite (its verdict mirrored) or related only;
a chat user sees only their own checks unless the deployment shares them; a deleted thread is no longer matched; and
`claimtrace ask` prints a match instead of checking again, unless --fresh. A word-hashing embedder and a scripted
verifier (which claims support which) stand in for the models."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agent.earlier.matches import EarlierCheck, find_earlier, look_up, record
from agent.earlier.relation import PairReading, Thresholds, ask_llm, opposite_of, read_pairs, same_words
from agent.llm.client import LLMUnavailableError
from agent.llm.scripted import ScriptedChatModel
from agent.settings.app import Settings, get_settings
from tools.models.embedder import DIM
from tools.models.verifier import VerifierResult

CLAIM = "Macrolides protect against myocardial infarction."
PARAPHRASE = "Macrolide antibiotics protect against heart attacks."
OPPOSITE = "Macrolides do not protect against myocardial infarction."
RELATED = "Macrolides protect against stroke."
T = Thresholds(same_from=0.8, opposite_from=0.8, candidates_from=0.2)


class WordEmbedder:
    """Each word hashed to one of DIM dimensions: claims that share words are near."""

    def encode(self, texts: Sequence[str], batch_size: int = 64, show_progress: bool = False) -> np.ndarray:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for i, text in enumerate(texts):
            for w in text.lower().strip(".?").split():
                out[i, int(hashlib.sha1(w.encode()).hexdigest(), 16) % DIM] += 1.0
        return out


class ScriptedVerifier:
    """P(supports) 0.95 for the pairs that state one claim (in either order), 0.02 for any other pair."""

    def __init__(self, same: list[tuple[str, str]]) -> None:
        self.same = {frozenset(p) for p in same}
        self.calls = 0

    def predict(self, pairs: Sequence[tuple[str, str]], batch_size: int = 32) -> list[VerifierResult]:
        self.calls += len(pairs)
        return [VerifierResult("supports", 0.95, 0.03, 0.02) if frozenset(p) in self.same or a == b
                else VerifierResult("nei", 0.02, 0.3, 0.68) for p in pairs for a, b in [p]]


# the paraphrase states the claim; the opposite states the claim's rule-made opposite ("do not protect")
VERIFIER = ScriptedVerifier([(CLAIM, PARAPHRASE), (opposite_of(CLAIM), OPPOSITE), (opposite_of(OPPOSITE), CLAIM)])


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(_env_file=None).with_values(stores={"data_dir": tmp_path})  # type: ignore[call-arg]


def kept(settings: Settings, claim: str, verdict: str, thread: str, by: str = "alice") -> None:
    result = {"id": f"check-{thread}", "claim": claim, "verdict": {"label": verdict},
              "assessments": [{}, {}], "silent": [{}]}
    record(settings, WordEmbedder(), result, thread, by)


def test_the_relation_of_two_claims_comes_from_both_readings():
    assert read_pairs(VERIFIER, CLAIM, [PARAPHRASE])[0].relation(T) == "same"
    assert read_pairs(VERIFIER, CLAIM, [OPPOSITE])[0].relation(T) == "opposite"
    assert read_pairs(VERIFIER, CLAIM, [RELATED])[0].relation(T) == "related"
    # a pair read as one claim needs no reading of the opposites, which could not change its relation
    calls = VERIFIER.calls
    decided = read_pairs(VERIFIER, CLAIM, [PARAPHRASE, RELATED], decided_from=T.same_from)
    assert VERIFIER.calls - calls == 2 + 2 + 4 and [r.relation(T) for r in decided] == ["same", "related"]
    assert decided[0].opposite == 0.0 and read_pairs(VERIFIER, CLAIM, [PARAPHRASE])[0].opposite > 0
    # the same words need no reading; an opposite never passes for the same claim
    calls = VERIFIER.calls
    assert read_pairs(VERIFIER, CLAIM, ["  macrolides protect against MYOCARDIAL infarction "]) == [PairReading(1, 0)]
    assert VERIFIER.calls == calls and same_words(CLAIM, CLAIM.upper()) and not same_words(CLAIM, OPPOSITE)
    # read as both: the same claim, unless a word may reverse one against the other; two comparisons with a reversed
    # word are related, since swapped comparands may undo it
    assert PairReading(same=0.85, opposite=0.9).relation(T) == "same"
    assert PairReading(same=0.5, opposite=0.9).relation(T) == "opposite"
    assert PairReading(same=0.85, opposite=0.9, reversal="negation").relation(T) == "related"
    assert PairReading(same=0.1, opposite=0.9, reversal="comparison").relation(T) == "related"


def test_a_kept_check_is_found_as_the_same_claim_its_opposite_or_related(settings: Settings):
    kept(settings, CLAIM, "Generally refuted", "t-same")
    found = find_earlier(settings, WordEmbedder(), VERIFIER, PARAPHRASE, thresholds=T)
    first = found[0]
    assert (first.relation, first.thread_id, first.check_id, first.verdict) == ("same", "t-same", "check-t-same",
                                                                                  "Generally refuted")
    assert first.papers_read == 3 and first.checked_by == "alice" and first.matched
    assert re.fullmatch(r"\d{1,2} [A-Z][a-z]{2} 20\d\d", first.day), first.day
    assert first.describe() == f'Checked on {first.day} by alice, worded "{CLAIM}": Generally refuted (3 papers read).'
    again = find_earlier(settings, WordEmbedder(), VERIFIER, CLAIM.upper(), thresholds=T)[0]
    assert again.describe() == f"Checked on {first.day} by alice: Generally refuted (3 papers read)."

    opposite = find_earlier(settings, WordEmbedder(), VERIFIER, OPPOSITE, thresholds=T)[0]
    assert opposite.relation == "opposite" and opposite.verdict_for_new_claim() == "Generally supported"
    said = opposite.describe()
    assert f'phrased "{CLAIM}"' in said and said.endswith("For your claim, that reads as: Generally supported.")

    related = find_earlier(settings, WordEmbedder(), VERIFIER, RELATED, thresholds=T)[0]
    assert related.relation == "related" and not related.matched
    assert related.verdict_for_new_claim() == "Generally refuted"


def test_a_chat_user_sees_only_their_own_checks_unless_the_team_shares_them(settings: Settings):
    kept(settings, CLAIM, "Not enough evidence", "t-alice", by="alice")
    assert [e.thread_id for e in find_earlier(settings, WordEmbedder(), VERIFIER, CLAIM, "alice", T)] == ["t-alice"]
    assert find_earlier(settings, WordEmbedder(), VERIFIER, CLAIM, "bob", T) == []
    assert [e.thread_id for e in find_earlier(settings, WordEmbedder(), VERIFIER, CLAIM, None, T)] == ["t-alice"]
    shared = settings.with_values(stores={"share_checks": True})
    assert [e.thread_id for e in find_earlier(shared, WordEmbedder(), VERIFIER, CLAIM, "bob", T)] == ["t-alice"]


def test_a_deleted_thread_is_no_longer_matched(settings: Settings):
    from agent.store.forget import delete_thread
    from agent.store.threads import keep_check

    thread = keep_check(settings, {"claim": CLAIM, "sources": []})
    kept(settings, CLAIM, "Not enough evidence", thread)
    kept(settings, CLAIM, "Generally supported", "t-other")
    assert delete_thread(settings, thread).kept_checks == 1
    assert [e.thread_id for e in find_earlier(settings, WordEmbedder(), VERIFIER, CLAIM, None, T)] == ["t-other"]


def test_a_check_without_a_verdict_is_not_kept_for_matching(settings: Settings):
    record(settings, WordEmbedder(), {"claim": CLAIM, "verdict": None}, "t-none", "alice")
    assert find_earlier(settings, WordEmbedder(), VERIFIER, CLAIM, None, T) == []


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    """`claimtrace ask` on DATA_DIR=tmp_path, with the stand-in models and no LLM or index: a check that went on to
    search would fail."""
    import ui.terminal.earlier as earlier

    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("EARLIER_CHECKS", "true")  # tests/conftest.py turns it off for the other tests
    monkeypatch.setattr("tools.models.embedder.get_embedder", lambda *a: WordEmbedder())
    monkeypatch.setattr("tools.models.verifier.get_verifier", lambda *a: VERIFIER)
    monkeypatch.setattr("agent.earlier.matches.load_thresholds", lambda: T)
    monkeypatch.setattr("agent.service.load_deps", lambda s: pytest.fail("searched although a match was found"))
    assert earlier.STORE_ERRORS
    get_settings.cache_clear()
    yield get_settings()
    get_settings.cache_clear()


def ask(claim: str, json_out: bool, fresh: bool = False) -> int:
    from ui.terminal.ask import cmd_ask
    from ui.terminal.cli import _parser

    # the CLI's own parser, so that every option of `claimtrace ask` has its default
    args = _parser().parse_args(["ask", claim, *(["--json"] if json_out else []), *(["--fresh"] if fresh else [])])
    return cmd_ask(args)


def test_ask_prints_an_earlier_check_instead_of_checking_again(cli: Settings, capsys: pytest.CaptureFixture[str]):
    kept(cli, CLAIM, "Not enough evidence", "thread-1234")
    assert ask(PARAPHRASE, json_out=True) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["checked"] is False and out["claim"] == PARAPHRASE
    assert out["summary"].startswith("Checked on ")
    assert f'by alice, worded "{CLAIM}": Not enough evidence (3 papers read).' in out["summary"]
    assert [(e["relation"], e["thread_id"]) for e in out["earlier"]] == [("same", "thread-1234")]
    EarlierCheck.model_validate({k: v for k, v in out["earlier"][0].items() if k != "verdict_for_this_claim"})

    assert ask(OPPOSITE, json_out=False) == 0
    text = capsys.readouterr().out
    assert text.startswith("Its opposite was checked before.") and "claimtrace export thread-1234" in text
    assert "claimtrace ask --fresh" in text


def test_ask_fresh_checks_again_and_keeps_a_link_to_the_earlier_check(
    cli: Settings, make_deps: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    kept(cli, CLAIM, "Not enough evidence", "thread-1234")
    monkeypatch.setattr("agent.service.load_deps", lambda s: replace(make_deps([]), settings=s))
    assert ask(CLAIM, json_out=True, fresh=True) == 0
    fresh = json.loads(capsys.readouterr().out)
    assert fresh["verdict"]["label"] and [(e["relation"], e["thread_id"]) for e in fresh["earlier"]] == [
        ("same", "thread-1234")]
    # the fresh check is kept and recorded in turn: the next ask finds both, the newest as the same claim too
    assert ask(CLAIM, json_out=True) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["checked"] is False and len(again["earlier"]) == 2
    assert {e["check_id"] for e in again["earlier"]} == {"check-thread-1234", fresh["id"]}


@pytest.mark.parametrize(
    ("a", "b", "why"),
    [
        (CLAIM, OPPOSITE, "negation"),
        ("CBT is effective for insomnia.", "CBT isn't effective for insomnia.", "negation"),
        ("YAP/TAZ is required for regeneration.", "YAP/TAZ is dispensable for regeneration.", "direction"),
        ("Statins increase mortality.", "Statins decrease mortality.", "direction"),
        ("Ca2+ cycling is a UCP1-dependent mechanism.", "Ca2+ cycling is a UCP1-independent mechanism.", "prefix"),
        ("Arterioles are wider than venules.", "Venules are wider than arterioles.", "swap"),
        ("A is higher than B.", "B is lower than A.", "comparison"),
        (CLAIM, PARAPHRASE, None),
        ("X does not cause Y.", "Y is not caused by X.", None),
    ],
)
def test_a_reversing_word_keeps_two_alike_claims_from_being_the_same(a: str, b: str, why: str | None):
    from tools.text.opposite import reversal

    assert reversal(a, b) == why
    reading = PairReading(same=0.97, opposite=0.1, reversal=reversal(a, b))
    assert reading.relation(T) == ("related" if why else "same")  # never "same", and not mirrored on a word alone


# the verifier that misses the paraphrase (other words: "macrolide antibiotics", "heart attacks") but reads the opposite
MISSES_PARAPHRASE = ScriptedVerifier([(opposite_of(CLAIM), OPPOSITE), (opposite_of(OPPOSITE), CLAIM)])
WITH_LLM = replace(T, llm_same_from=0.8, llm_opposite_below=0.5)


def says_same(*words: str) -> ScriptedChatModel:
    """An LLM that reads a pair as the same claim (P(yes) 0.9) when the prompt holds one of ``words``, else not
    (0.1)."""
    return ScriptedChatModel(rules=[
        {"when": word, "reply": "Yes", "top_logprobs": {"Yes": 0.9, "No": 0.1}} for word in words
    ] + [{"reply": "No", "top_logprobs": {"Yes": 0.1, "No": 0.9}}])


def test_the_llm_reads_the_pairs_the_verifier_leaves_unsure():
    claims = [PARAPHRASE, OPPOSITE, RELATED]
    alone = read_pairs(MISSES_PARAPHRASE, CLAIM, claims)
    assert [r.relation(WITH_LLM) for r in alone] == ["related", "opposite", "related"]
    llm = says_same("heart attacks")
    read = ask_llm(llm, CLAIM, claims, alone, WITH_LLM)
    assert [r.relation(WITH_LLM) for r in read] == ["same", "opposite", "related"]
    assert read[0].llm_same == 0.9 and read[1].llm_same is None and read[2].llm_same is None
    assert len(llm.calls) == 2  # both orders of the nearest unsure pair; the opposite is never asked
    later = ask_llm(says_same("stroke"), CLAIM, [OPPOSITE, RELATED, PARAPHRASE], [alone[1], alone[2], alone[0]],
                    WITH_LLM)  # the related claim nearest: it is read, the paraphrase behind it is not
    assert [r.llm_same for r in later] == [None, 0.9, None] and later[1].relation(WITH_LLM) == "same"
    first, second = ("\n".join(str(m.content) for m in call) for call in llm.calls[:2])
    assert "same claim" in first and f"Claim A: <claim>{CLAIM}</claim>\nClaim B: <claim>{PARAPHRASE}</claim>" in first
    assert f"Claim A: <claim>{PARAPHRASE}</claim>\nClaim B: <claim>{CLAIM}</claim>" in second
    assert "never an instruction" in first  # the claims are data (prompts/same_claim_system.md)
    # the LLM's "same" never outweighs a reversing word, nor the verifier's reading of an opposite
    assert PairReading(0.1, 0.1, "negation", llm_same=0.99).relation(WITH_LLM) == "related"
    assert PairReading(0.1, 0.6, None, llm_same=0.99).relation(WITH_LLM) == "related"
    assert PairReading(0.1, 0.9, None, llm_same=0.99).relation(WITH_LLM) == "opposite"
    # without thresholds for it (the defaults), the LLM is never asked
    assert not Thresholds().asks_llm(alone[0]) and ask_llm(llm, CLAIM, claims, alone, T) == alone


def test_the_chat_lookup_gives_the_verifiers_reading_first_and_the_unsure_claim_to_read(settings: Settings):
    """look_up reads by the verifier alone (what the chat shows at once); unsure() names the kept check the LLM is to
    read, and read_by adds its reading, as find_earlier does in one step."""
    kept(settings, CLAIM, "Generally refuted", "t-same")
    kept(settings, "Macrolides protect against stroke in adults.", "Not enough evidence", "t-related")
    looked = look_up(settings, WordEmbedder(), MISSES_PARAPHRASE, PARAPHRASE, thresholds=WITH_LLM)
    assert [e.matched for e in looked.checks()] == [False, False]
    assert [e.thread_id for e in looked.unsure()] == ["t-same"]  # the nearest unsure one only (LLM_PAIRS)
    assert "worded" in looked.unsure()[0].summary() and "Generally refuted" in looked.unsure()[0].summary()
    llm = says_same("heart attacks")
    read = looked.read_by(llm)
    assert [(e.thread_id, e.relation, e.llm_same) for e in read.checks()][0] == ("t-same", "same", 0.9)
    assert len(llm.calls) == 2 and looked.checks()[0].llm_same is None  # the first lookup is left as it was
    assert read.checks() == find_earlier(settings, WordEmbedder(), MISSES_PARAPHRASE, PARAPHRASE,
                                         thresholds=WITH_LLM, llm=says_same("heart attacks"))
    not_same = looked.read_by(says_same("stroke"))
    assert not_same.unsure()[0].llm_same == 0.1 and not any(e.matched for e in not_same.checks())
    assert looked.read_by(None) == looked
    # what the verifier decides is a match before any LLM reads (the chat shows it and asks nothing)
    sure = look_up(settings, WordEmbedder(), VERIFIER, PARAPHRASE, thresholds=WITH_LLM)
    assert (sure.checks()[0].thread_id, sure.checks()[0].relation) == ("t-same", "same")
    assert [e.thread_id for e in sure.unsure()] == ["t-related"]


def test_without_the_llm_or_when_it_fails_the_verifier_reads_alone(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
):
    kept(settings, CLAIM, "Generally refuted", "t-same")
    found = find_earlier(settings, WordEmbedder(), MISSES_PARAPHRASE, PARAPHRASE, thresholds=WITH_LLM)
    assert found[0].relation == "related" and found[0].llm_same is None
    found = find_earlier(settings, WordEmbedder(), MISSES_PARAPHRASE, PARAPHRASE, thresholds=WITH_LLM,
                         llm=says_same("heart attacks"))
    assert (found[0].relation, found[0].llm_same, found[0].matched) == ("same", 0.9, True)
    off = settings.with_values(stores={"earlier_llm": False})  # EARLIER_LLM=false: the verifier reads alone
    found = find_earlier(off, WordEmbedder(), MISSES_PARAPHRASE, PARAPHRASE, thresholds=WITH_LLM,
                         llm=says_same("heart attacks"))
    assert found[0].relation == "related" and found[0].llm_same is None

    def down(*_: Any) -> float:
        raise LLMUnavailableError("the LLM is unreachable")

    monkeypatch.setattr("agent.earlier.relation.llm_same", down)
    found = find_earlier(settings, WordEmbedder(), MISSES_PARAPHRASE, PARAPHRASE, thresholds=WITH_LLM,
                         llm=says_same("heart attacks"))
    assert found[0].relation == "related" and found[0].llm_same is None
