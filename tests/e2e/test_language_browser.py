"""A claim in German, in headless Chromium (agent/translate.py, tools/text/i18n.py): the chat says, in German, which
English claim it checks ("Geprüft als: ..."), with "Stattdessen meine Worte prüfen", and shows the verdict line,
headings, buttons and why a paper read is not counted in German; the answer's sentences, written and verified in
English, come in the LLM's German translation, marked as such, with the checked English under it and, with its
flags, in the side panel. A follow-up in German is
answered with German fixed words too, its checked sentence in the LLM's German with the English under it. The
thread keeps the English claim, the user's words and their language (docs/languages.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import CLAIM, SCRIPT, chat_environment
from tests.e2e.server import ChatServer
from tests.e2e.test_chat_browser import ANSWER_TIMEOUT_MS, log_in, opens, send, turn_ended
from tests.e2e.test_followup_browser import checked_claims

GERMAN = "Der MMR-Impfstoff verursacht Autismus."
GERMAN_FOLLOWUP = "Was haben die Kohortenstudien zu Autismus herausgefunden?"
FINDING = "A nationwide cohort study found that MMR vaccination was not associated with an increased risk of autism."
GERMAN_FINDING = ("Eine landesweite Kohortenstudie fand, dass die MMR-Impfung nicht mit einem erhöhten Autismusrisiko "
                  "verbunden war.")
# in place of the script's answer, whose sentences are flagged and replaced by quotes: the first one its paper
# supports, so it stands as written and is translated; the second is replaced by a quote, which stays in English
ANSWER = {"when": "<evidence>", "reply": f"1: {FINDING}\n2: Vaccinations are not associated with the development of "
          "autism."}
# the router answers the follow-up from the papers held with the finding its paper supports, which the LLM then
# translates into German as it did in the answer
FOLLOWUP = {"when": "Follow-up from the user",
            "reply": json.dumps({"action": "answer", "answer": f"{FINDING[:-1]} [1]."})}
TRANSLATION = {"when": "Translate the answer's sentences", "reply": json.dumps(
    {"1": GERMAN_FINDING, "2": "Impfungen sind nicht mit der Entstehung von Autismus verbunden."})}


@pytest.fixture(scope="module")
def german_chat(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChatServer]:
    replaced = {"<evidence>": ANSWER, "Follow-up from the user": FOLLOWUP}
    rules = [TRANSLATION, *(replaced.get(str(r.get("when")), r) for r in SCRIPT)]
    data = tmp_path_factory.mktemp("german_chat")
    srv = ChatServer(chat_environment(data, rules), data / "server.log").start()
    yield srv
    srv.stop()


def test_a_german_claim_is_checked_in_english_and_answered_with_german_words(
    browser: Any, german_chat: ChatServer, tmp_path: Path
):
    server = german_chat
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    log_in(page, server.url)
    send(page, GERMAN)
    notice = page.locator(".message-content").filter(has_text="Geprüft als:")
    expect(notice).to_contain_text(f"Geprüft als: „{CLAIM}“", timeout=60_000)
    expect(notice).to_contain_text("vom LLM übersetzt aus dem Original auf Deutsch")
    expect(page.get_by_role("button", name="Stattdessen meine Worte prüfen")).to_have_count(1)
    answer = page.locator(".message-content").filter(has_text="Urteil:")
    expect(answer).to_have_count(1, timeout=ANSWER_TIMEOUT_MS)
    turn_ended(page)
    expect(answer).to_contain_text("Quellen")  # the heading of the sources, in German
    # why a paper read is not counted: written in English by the judge, said in German
    expect(answer).to_contain_text("Gelesen, nicht gezählt")
    expect(answer).to_contain_text("Der Verifizierer findet keinen Satz, der einen Befund zur Behauptung berichtet")
    expect(answer).not_to_contain_text("The verifier finds no sentence")
    expect(page.get_by_role("button", name="Quelle 1")).to_have_count(1)
    expect(page.locator(".message-content").filter(has_text="Verdict:")).to_have_count(0)
    expect(answer).to_contain_text(f"{GERMAN_FINDING[:-1]} [1]")  # the translation, its citation kept
    expect(answer).to_contain_text(f"{FINDING[:-1]} [1]")  # the sentence as checked, in English, under it
    expect(answer).to_contain_text("Vom LLM nach der Prüfung übersetzt")
    expect(answer).to_contain_text("Eine Studie berichtet: „Findings suggest")  # a quote, in the paper's words
    opens(page, "Das geprüfte Englisch", f"{FINDING[:-1]} [1]")  # the sentences as written and checked
    assert checked_claims(server, page, tmp_path, 1) == [CLAIM]  # the English claim is what was checked

    send(page, GERMAN_FOLLOWUP)
    reply = page.locator(".message-content").filter(has_text="Beantwortet aus den")
    expect(reply).to_have_count(1, timeout=ANSWER_TIMEOUT_MS)
    expect(reply).to_contain_text(f"{GERMAN_FINDING[:-1]} [1]")  # the LLM's translation of the checked sentence
    expect(reply).to_contain_text(f"{FINDING[:-1]} [1]")  # the sentence as checked, in English, under it
    expect(reply).not_to_contain_text("Answered from the")
    turn_ended(page)


OWN_ENGLISH = "The measles, mumps and rubella vaccine causes autism in children."


def test_the_user_corrects_the_llms_english_and_their_english_is_checked_with_their_words_kept(
    browser: Any, german_chat: ChatServer, tmp_path: Path
):
    """"Englisch korrigieren" under "Geprüft als": the user writes the English of their claim, which is checked in
    place of the LLM's, and the new check is still theirs, in German (docs/languages.md)."""
    server = german_chat
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    log_in(page, server.url)
    send(page, GERMAN)
    expect(page.locator(".message-content").filter(has_text="Urteil:")).to_have_count(1, timeout=ANSWER_TIMEOUT_MS)
    turn_ended(page)
    page.get_by_role("button", name="Englisch korrigieren").click()
    ask = page.locator(".message-content").filter(has_text="Das Englisch des LLM")
    expect(ask).to_contain_text("Senden Sie Ihre Behauptung auf Englisch, so wie sie geprüft werden soll.",
                                timeout=30_000)
    expect(ask).to_contain_text(f"Das Englisch des LLM: „{CLAIM}“")
    send(page, "Der Impfstoff verursacht Autismus bei Kindern.")  # not English: nothing is checked
    expect(page.locator(".message-content").filter(has_text="Das ist kein Englisch")).to_have_count(1, timeout=30_000)
    turn_ended(page)  # the button is pressed again once the first press's turn is over
    page.get_by_role("button", name="Englisch korrigieren").first.click()
    expect(ask).to_have_count(2, timeout=30_000)
    send(page, OWN_ENGLISH)
    notices = page.locator(".message-content").filter(has_text="Geprüft als:")
    expect(notices.filter(has_text=OWN_ENGLISH)).to_have_count(1, timeout=60_000)
    expect(page.locator(".message-content").filter(has_text="Urteil:")).to_have_count(2, timeout=ANSWER_TIMEOUT_MS)
    turn_ended(page)
    assert checked_claims(server, page, tmp_path, 2) == [CLAIM, OWN_ENGLISH]  # the user's English, checked second
