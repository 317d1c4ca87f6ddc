"""The chat's single login: the configured CLAIMTRACE_UI_PASSWORD, or a password generated on the first start.

A generated password is shown once (by `claimtrace ui`, on the terminal) and only its salted scrypt hash is kept, in
DATA_DIR/chainlit/password.scrypt (mode 600), or, with DATABASE_URL, in its Postgres (table claimtrace_shared, row
password.scrypt), where every instance checks logins against it. Deleting that file (or row) makes the next start
generate a new one."""

from __future__ import annotations

import hashlib
import json
import secrets
from pathlib import Path

from agent.settings.app import Settings
from agent.store.postgres import SHARED_TABLE, read_shared, shared_value
from ui.chat.launch import app_root, write_private

PASSWORD_FILE = "password.scrypt"
# scrypt cost (RFC 7914 interactive-login figures): 16 MiB and 0.05-0.1 s per check on a 2-core CPU
SCRYPT = {"n": 2**14, "r": 8, "p": 1}
SALT_BYTES = 16
PASSWORD_BYTES = 18  # 24 URL-safe characters


def hash_password(password: str) -> str:
    """A JSON record of the salted scrypt hash of `password` (algorithm, cost, salt, hash)."""
    salt = secrets.token_bytes(SALT_BYTES)
    digest = hashlib.scrypt(password.encode(), salt=salt, **SCRYPT)
    return json.dumps({"algorithm": "scrypt", **SCRYPT, "salt": salt.hex(), "hash": digest.hex()})


def verify_password(password: str, record: str) -> bool:
    """Whether `password` hashes to the record `hash_password` wrote. A damaged record matches nothing."""
    try:
        r = json.loads(record)
        cost = {k: int(r[k]) for k in SCRYPT}
        salt, expected = bytes.fromhex(r["salt"]), bytes.fromhex(r["hash"])
    except (ValueError, KeyError, TypeError):
        return False
    if r.get("algorithm") != "scrypt":
        return False
    digest = hashlib.scrypt(password.encode(), salt=salt, dklen=len(expected), **cost)
    return secrets.compare_digest(digest, expected)


def password_file(settings: Settings) -> Path:
    return app_root(settings) / PASSWORD_FILE


def where_kept(settings: Settings) -> str:
    """Where the generated password's hash is kept, in words: a file, or a row of DATABASE_URL's Postgres."""
    if settings.stores.database_url:
        return f"the row {PASSWORD_FILE!r} of the table {SHARED_TABLE} in DATABASE_URL's database"
    return str(password_file(settings))


def _kept_hash(settings: Settings) -> str | None:
    """The generated password's hash record, or None when none was generated."""
    if url := settings.stores.database_url:
        return read_shared(url, PASSWORD_FILE)
    path = password_file(settings)
    return path.read_text(encoding="utf-8") if path.is_file() else None


def password_configured(settings: Settings) -> bool:
    return settings.ui.password is not None


def must_generate(settings: Settings) -> bool:
    """No password is configured and none was generated before."""
    return not password_configured(settings) and _kept_hash(settings) is None


def first_start_password(settings: Settings) -> str | None:
    """The password to show now: a new random one when `must_generate` (its hash is written here), else None. Of
    instances sharing DATABASE_URL, only the one that keeps its hash first shows one."""
    if not must_generate(settings):
        return None
    password = secrets.token_urlsafe(PASSWORD_BYTES)
    if url := settings.stores.database_url:
        return password if shared_value(url, PASSWORD_FILE, lambda: hash_password(password))[1] else None
    write_private(password_file(settings), hash_password(password))
    return password


def credentials_ok(settings: Settings, username: str, password: str) -> bool:
    """Whether the pair is the chat's login: the configured password, else the generated one's hash."""
    same_user = secrets.compare_digest(username.encode(), settings.ui.user.encode())
    if settings.ui.password is not None:
        same_password = secrets.compare_digest(password.encode(), settings.ui.password.get_secret_value().encode())
    else:
        record = _kept_hash(settings)
        same_password = record is not None and verify_password(password, record)
    return same_user and same_password
