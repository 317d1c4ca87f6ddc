"""How `claimtrace ui` starts Chainlit: the app root (config, welcome page, uploaded files) lives in
DATA_DIR/chainlit, and the login tokens are signed with a secret kept there, so sessions survive a restart."""

from __future__ import annotations

import os
import secrets
import shutil
import sys
from pathlib import Path

from agent.settings import Settings

UI_DIR = Path(__file__).resolve().parent
APP = UI_DIR / "app.py"
SECRET_FILE = "auth_secret"


def app_root(settings: Settings) -> Path:
    return settings.stores.data_dir / "chainlit"


def auth_secret(settings: Settings, root: Path) -> str:
    """The configured secret (CHAINLIT_AUTH_SECRET), else one generated once and kept (mode 600) in the app root."""
    if settings.ui.auth_secret is not None:
        return settings.ui.auth_secret.get_secret_value()
    path = root / SECRET_FILE
    if not path.is_file():
        path.write_text(secrets.token_urlsafe(48))
        path.chmod(0o600)
    return path.read_text().strip()


def prepare(settings: Settings) -> dict[str, str]:
    """Write the app root and return the environment Chainlit runs with."""
    root = app_root(settings)
    (root / ".chainlit").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(UI_DIR / "chainlit.toml", root / ".chainlit" / "config.toml")
    shutil.copyfile(UI_DIR / "welcome.md", root / "chainlit.md")
    shutil.copytree(UI_DIR / "public", root / "public", dirs_exist_ok=True)  # served at /public (custom_js)
    return {**os.environ, "CHAINLIT_APP_ROOT": str(root), "CHAINLIT_AUTH_SECRET": auth_secret(settings, root)}


def command(host: str, port: int) -> list[str]:
    return [sys.executable, "-m", "chainlit", "run", str(APP), "--headless", "--host", host, "--port", str(port)]
