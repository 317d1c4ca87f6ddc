"""How `claimtrace ui` starts Chainlit: the app root (config, translations, welcome page, uploaded files) lives in
DATA_DIR/chainlit, and the login tokens are signed with a secret kept there, so sessions survive a restart. The
server process is ui/chat/serve.py: Chainlit's `run` with ui/chat/guard.py in front."""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import shutil
import sys
from http import HTTPStatus
from pathlib import Path

from agent.settings.app import Settings
from tools.config import env_file
from tools.text.i18n import speaking, t
from ui.chat.guard import TOO_MANY_TEXT

UI_DIR = Path(__file__).resolve().parent
APP = UI_DIR / "app.py"
SECRET_FILE = "auth_secret"
# Chainlit 2.12's login page shows the translation of auth.login.errors.<status text> of a refused sign-in: the
# guard's 429 gets its message there
LOGIN_ERRORS = {HTTPStatus.TOO_MANY_REQUESTS.phrase: TOO_MANY_TEXT}
# the message box says what to send
PLACEHOLDER = "Type a scientific claim, or paste a passage"
# Chainlit writes "Using"/"Used" before a step's name; claimtrace's step names read alone ("Searching", "How this
# was checked"), so both words are empty
STEP_STATUS = {"using": "", "used": ""}


def app_root(settings: Settings) -> Path:
    return settings.stores.data_dir / "chainlit"


def write_private(path: Path, text: str) -> None:
    """Create `path` readable and writable by its owner only (mode 600 from the start), holding `text`. Raises
    FileExistsError when it is there already."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)


def auth_secret(settings: Settings, root: Path) -> str:
    """The configured secret (CHAINLIT_AUTH_SECRET), else one generated once and kept: in DATABASE_URL's Postgres,
    which every instance reads, so that a login token one instance signed is good on all; without it (mode 600) in
    the app root. Raises agent.store.postgres.DatabaseUnavailableError."""
    if settings.ui.auth_secret is not None:
        return settings.ui.auth_secret.get_secret_value()
    if settings.stores.database_url:
        from agent.store.postgres import shared_value

        return shared_value(settings.stores.database_url, SECRET_FILE, lambda: secrets.token_urlsafe(48))[0]
    path = root / SECRET_FILE
    if not path.is_file():
        write_private(path, secrets.token_urlsafe(48))
    return path.read_text().strip()


def write_translations(target: Path) -> None:
    """Chainlit's translations (its interface, in the browser's language) with the login errors, the message box's
    placeholder and the step status words claimtrace sets, in that language where claimtrace speaks it
    (tools.text.i18n), else in English."""
    spec = importlib.util.find_spec("chainlit")  # found, not imported: the CLI stays quick
    assert spec is not None and spec.origin is not None
    target.mkdir(parents=True, exist_ok=True)
    for source in (Path(spec.origin).parent / "translations").glob("*.json"):
        strings = json.loads(source.read_text(encoding="utf-8"))
        with speaking(source.stem.split("-")[0]):  # "de-DE" -> German
            errors = {status: t(text) for status, text in LOGIN_ERRORS.items()}
            placeholder = t(PLACEHOLDER)
        strings.setdefault("auth", {}).setdefault("login", {}).setdefault("errors", {}).update(errors)
        chat = strings.setdefault("chat", {})
        chat.setdefault("input", {})["placeholder"] = placeholder
        chat.setdefault("messages", {}).setdefault("status", {}).update(STEP_STATUS)
        (target / source.name).write_text(json.dumps(strings, ensure_ascii=False, indent=2), encoding="utf-8")


def prepare(settings: Settings) -> dict[str, str]:
    """Write the app root and return the environment Chainlit runs with."""
    root = app_root(settings)
    (root / ".chainlit").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(UI_DIR / "chainlit.toml", root / ".chainlit" / "config.toml")
    write_translations(root / ".chainlit" / "translations")
    shutil.copyfile(UI_DIR / "welcome.md", root / "chainlit.md")
    shutil.copytree(UI_DIR / "public", root / "public", dirs_exist_ok=True)  # served at /public (custom_js)
    return {
        **os.environ,
        "CHAINLIT_APP_ROOT": str(root),
        "CHAINLIT_AUTH_SECRET": auth_secret(settings, root),
        # Chainlit's import loads a `.env` from the working directory into the environment: it loads the settings
        # file claimtrace reads (tools.config.env_file), or an empty one when claimtrace reads none
        "CHAINLIT_ENV_FILE": str(Path(env_file() or os.devnull).absolute()),
    }


def command(host: str, port: int) -> list[str]:
    return [sys.executable, "-m", "ui.chat.serve", host, str(port)]
