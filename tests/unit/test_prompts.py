"""Prompt files load by name and fill in one pass."""

from __future__ import annotations

import pytest

import prompts


def test_every_placeholder_of_the_answer_prompt_is_filled():
    text = prompts.render("answer", claim="C", evidence="E", verdict="V")
    assert "{claim}" not in text and "{evidence}" not in text and "{verdict}" not in text


def test_values_are_not_templates():
    text = prompts.render("answer", claim="{evidence}", evidence="EVIDENCE", verdict="V")
    assert 'Claim: "{evidence}"' in text and text.count("EVIDENCE") == 1


def test_json_braces_survive():
    assert '{"questions": [...], "opposite_claim": "..."}' in prompts.render("decompose", claim="x")


def test_unknown_prompt():
    with pytest.raises(FileNotFoundError):
        prompts.load("no_such_prompt")
