"""ui/chat/credentials.py and the app root's private files (ui/chat/launch.py): a generated password is made once and
kept only as a salted scrypt hash in a mode-600 file; a configured one wins; the login page knows the throttle's
message."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from agent.settings.app import Settings
from tools.text.i18n import catalog
from ui.chat import credentials, launch
from ui.chat.guard import TOO_MANY_TEXT


def _settings(data: Path, **ui: str) -> Settings:
    return Settings(_env_file=None).with_values(stores={"data_dir": data}, ui=ui)  # type: ignore[call-arg]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_hash_is_salted_and_checks_only_its_password():
    a, b = credentials.hash_password("correct horse"), credentials.hash_password("correct horse")
    assert a != b and "correct horse" not in a
    assert json.loads(a)["algorithm"] == "scrypt"
    assert credentials.verify_password("correct horse", a) and credentials.verify_password("correct horse", b)
    assert not credentials.verify_password("correct horsf", a) and not credentials.verify_password("", a)


@pytest.mark.parametrize(
    "record",
    [
        "",
        "{}",
        "not json",
        '{"algorithm": "md5", "n": 2, "r": 1, "p": 1, "salt": "00", "hash": "00"}',
        '{"algorithm": "scrypt", "n": 16384, "r": 8, "p": 1, "salt": "zz", "hash": "00"}',
    ],
)
def test_a_damaged_record_matches_nothing(record: str):
    assert not credentials.verify_password("anything", record)


def test_first_start_generates_once_and_keeps_only_a_private_hash(tmp_path: Path):
    settings = _settings(tmp_path)
    assert credentials.must_generate(settings)
    password = credentials.first_start_password(settings)
    assert password is not None and len(password) >= 24
    path = credentials.password_file(settings)
    assert path.parent == tmp_path / "chainlit" and _mode(path) == 0o600
    assert password not in path.read_text()
    assert credentials.first_start_password(settings) is None and not credentials.must_generate(settings)
    assert credentials.credentials_ok(settings, "claimtrace", password)
    assert not credentials.credentials_ok(settings, "claimtrace", password[:-1])
    assert not credentials.credentials_ok(settings, "someone", password)
    other = credentials.first_start_password(_settings(tmp_path / "other"))
    assert other is not None and other != password


def test_a_configured_password_wins_and_nothing_is_generated(tmp_path: Path):
    generated = credentials.first_start_password(_settings(tmp_path))
    assert generated is not None
    settings = _settings(tmp_path, user="ana", password="configured-pw")
    assert credentials.password_configured(settings) and credentials.first_start_password(settings) is None
    assert credentials.credentials_ok(settings, "ana", "configured-pw")
    assert not credentials.credentials_ok(settings, "ana", generated)
    fresh = _settings(tmp_path / "fresh", password="configured-pw")
    assert credentials.first_start_password(fresh) is None and not credentials.password_file(fresh).exists()


def test_without_any_password_nobody_logs_in(tmp_path: Path):
    settings = _settings(tmp_path)
    assert not credentials.credentials_ok(settings, "claimtrace", "")
    assert not credentials.credentials_ok(settings, "claimtrace", "claimtrace")  # no default password


def test_the_auth_secret_file_is_private(tmp_path: Path):
    settings = _settings(tmp_path)
    root = launch.app_root(settings)
    secret = launch.auth_secret(settings, root)
    assert len(secret) >= 48 and _mode(root / launch.SECRET_FILE) == 0o600
    assert launch.auth_secret(settings, root) == secret
    configured = _settings(tmp_path, auth_secret="configured-secret")
    assert launch.auth_secret(configured, root) == "configured-secret"


def test_write_private_never_replaces_a_file(tmp_path: Path):
    launch.write_private(tmp_path / "f", "one")
    with pytest.raises(FileExistsError):
        launch.write_private(tmp_path / "f", "two")
    assert (tmp_path / "f").read_text() == "one"


def test_the_login_page_translations_carry_the_throttle_message(tmp_path: Path):
    """In each of Chainlit's languages: in it where claimtrace speaks it (tools/text/catalogs), else in English."""
    launch.write_translations(tmp_path)
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) > 10 and (tmp_path / "en-US.json") in files
    german = json.loads((tmp_path / "de-DE.json").read_text())["auth"]["login"]["errors"]["Too Many Requests"]
    assert german == catalog("de")[TOO_MANY_TEXT] != TOO_MANY_TEXT
    for f in files:
        errors = json.loads(f.read_text())["auth"]["login"]["errors"]
        expected = catalog(f.stem.split("-")[0]).get(TOO_MANY_TEXT, TOO_MANY_TEXT)
        assert errors["Too Many Requests"] == expected and "credentialsSignin" in errors
