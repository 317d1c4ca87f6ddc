"""The chat's first screen (ui.chat.first_screen): its description, its four example claims, the icon and logos it
serves, and the search settings' one-line descriptions."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest

from agent.service import findings
from agent.settings.app import get_settings
from ui.chat import launch
from ui.chat.first_screen import DESCRIPTION, ICON, NAME, NO_EVIDENCE, PASSAGE, PROFILE, REFUTED, STARTERS, SUPPORTED
from ui.chat.passage import looks_like_passage
from ui.chat.sources import widgets

PUBLIC = launch.UI_DIR / "public"


def test_four_starters_each_send_a_claim_or_a_passage():
    assert [s.message for s in STARTERS] == [SUPPORTED, REFUTED, NO_EVIDENCE, PASSAGE]
    assert len({s.label for s in STARTERS}) == 4
    for s in STARTERS:
        assert s.label.strip() and s.message.strip() and "\n" not in s.label
    # the three claims are checked as one claim each; the passage is read as one by the chat's own rule
    for claim in (SUPPORTED, REFUTED, NO_EVIDENCE):
        assert findings(claim) == 1 and not looks_like_passage(claim)
    assert looks_like_passage(PASSAGE) and findings(PASSAGE) == 3
    assert len(PASSAGE) <= get_settings().answer.max_passage_chars


def test_the_example_claims_match_the_tiny_corpus():
    """The supported and refuted examples have their abstracts in the test corpus the browser tests index; the
    no-evidence one has none."""
    corpus = Path(__file__).parents[1] / "fixtures" / "tiny_corpus.jsonl"
    text = corpus.read_text(encoding="utf-8").lower()
    assert "aldh1" in text and "poor prognosis" in text
    assert "mmr vaccination was not associated with an increased risk of autism" in text
    assert "sauna" not in text and "migraine" not in text


def test_the_description_names_claimtrace_and_what_it_reads():
    assert DESCRIPTION.startswith(f"**{NAME}**") and "\n" not in DESCRIPTION
    for read in ("local index", "live literature sources", "your own library"):
        assert read in DESCRIPTION
    assert PROFILE.name == NAME and PROFILE.markdown_description == DESCRIPTION and PROFILE.icon == ICON


def test_the_config_names_claimtrace():
    import tomllib

    config = tomllib.loads((launch.UI_DIR / "chainlit.toml").read_text(encoding="utf-8"))
    assert config["UI"]["name"] == NAME


@pytest.mark.parametrize("name", ["favicon.svg", "logo_light.svg", "logo_dark.svg"])
def test_icon_and_logos_are_small_svg_files(name: str):
    path = PUBLIC / name
    assert path.stat().st_size < 4096
    root = ElementTree.fromstring(path.read_text(encoding="utf-8"))
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert not [el for el in root.iter() if el.tag.endswith("script")]
    assert ICON == "/public/favicon.svg"  # the profile's icon is the favicon Chainlit serves from public/


def test_each_search_setting_has_a_one_line_description():
    shown = widgets(get_settings(), {})
    assert len(shown) == 2
    for widget in shown:
        assert widget.description and "\n" not in widget.description
        assert len(widget.description) <= 110 and widget.description.count(". ") == 0


def test_translations_set_the_placeholder_and_drop_the_step_status_words(tmp_path: Path):
    launch.write_translations(tmp_path)
    english = json.loads((tmp_path / "en-US.json").read_text(encoding="utf-8"))
    assert english["chat"]["input"]["placeholder"] == launch.PLACEHOLDER
    assert english["chat"]["messages"]["status"] == {"using": "", "used": ""}
    assert english["chat"]["input"]["actions"]["send"]  # the rest of Chainlit's strings are kept
