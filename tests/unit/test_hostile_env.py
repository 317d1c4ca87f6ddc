"""The suite does not depend on who runs it: a user who has configured claimtrace, in the shell and in `.env`, gets
the same tests as a new user (tests/conftest.py removes every setting; tests/settings_env.py names them), and the
settings file switch (CLAIMTRACE_ENV_FILE, tools/config.py) that keeps a `.env` out of the tests and the servers they
start."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr, ValidationError

from agent.settings.app import Settings, get_settings
from agent.settings.judge import JudgeSettings
from tests.settings_env import (
    BUILT_GRAPHS,
    REPO,
    example_variables,
    field_variables,
    is_setting,
    setting_variables,
    settings_classes,
)
from tools.config import ENV_FILE_VARIABLE, SettingsGroup
from ui.chat import launch

UNREACHABLE = "http://127.0.0.1:9"  # the discard port: nothing answers there
# Values a field's type does not give: URLs of servers that do not answer, of the kind each setting names; JSON for the
# evidence hierarchy; the UI's comma list of origins; every source, live ones included (what the user set);
# another preset; and the graphs `make setup` exported, which the suite keeps using (tests/settings_env.py), so the
# run exports none of its own.
CHOSEN = {
    "LLM_BASE_URL": f"{UNREACHABLE}/v1",
    "CHECKPOINT_URL": "postgresql://claimtrace:hostile@127.0.0.1:9/threads",
    "DATABASE_URL": "postgresql://claimtrace:hostile@127.0.0.1:9/claimtrace",
    "DESIGN_WEIGHTS": json.dumps({"animal": 0.5}),
    "WEAK_DESIGNS": json.dumps(["animal"]),
    "CLAIMTRACE_UI_ORIGINS": "https://claims.example.org",
    "SOURCES": "all",
    "PRESET": "rerank",
    "ONNX_CACHE_DIR": str(BUILT_GRAPHS),
}
# Variables claimtrace and the libraries it drives read outside the settings groups.
OTHERS = {
    "CLAIMTRACE_DEBUG": "1",
    "CLAIMTRACE_MCP_TOKEN": "hostile-token",
    "OPENAI_BASE_URL": f"{UNREACHABLE}/v1",
}
# The test modules the issue found red under a configured user's settings, and others whose results a setting changes
# (sources, the LLM's provider, presets, the chat's login; test_live_ui imports Chainlit, which loads a `.env` into the
# environment): the whole unit suite takes minutes on two cores.
SUBSET = [
    "test_live_ui.py",
    "test_settings.py",
    "test_ui_credentials.py",
    "test_judge_sources.py",
    "test_graph.py",
    "test_reformulate.py",
    "test_live_sources.py",
    "test_nodes.py",
    "test_answer_nodes.py",
]


def _candidates(annotation: Any, default: Any, variable: str, folder: Path) -> list[str]:
    """Values, as an environment variable holds them, that a field of this type and default may take."""
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is typing.Literal:
        return [str(a) for a in args if a != default]
    kinds = {a for a in args if a is not type(None)} if args else {annotation}
    if bool in kinds:
        return [str(not default).lower()]
    if int in kinds:
        return [str(default + 1), str(default - 1)]
    if float in kinds:
        return [str(default / 2 if default else 0.25), str(default + 1)]
    if Path in kinds:
        return [str(folder / variable.lower())]
    if SecretStr in kinds:
        return [f"hostile-{variable.lower()}"]
    if str in kinds:
        return [f"{UNREACHABLE}/" if variable.endswith("_URL") else f"hostile-{variable.lower()}"]
    return []


def _legal(cls: type[SettingsGroup], field: str, value: str) -> bool:
    try:
        cls.model_validate({field: value})
    except ValidationError:
        return False
    return True


def hostile_values(folder: Path) -> tuple[dict[str, str], set[str]]:
    """A legal value other than the default for every variable a settings group reads (a whole group as JSON aside)
    and for the other variables claimtrace reads; and the variables of .env.example that have none on this machine."""
    values: dict[str, str] = dict(OTHERS)
    for cls in settings_classes():
        for variable, field in field_variables(cls).items():
            info = cls.model_fields[field]
            if isinstance(info.annotation, type) and issubclass(info.annotation, SettingsGroup):
                continue
            if variable in CHOSEN:  # checked with the rest, by the application (below)
                values[variable] = CHOSEN[variable]
                continue
            default = info.get_default(call_default_factory=True)
            candidates = _candidates(info.annotation, default, variable, folder)
            legal = [value for value in candidates if _legal(cls, field, value)]
            if legal:
                values.setdefault(variable, legal[0])
    return values, example_variables() - set(values)


def test_every_setting_gets_a_legal_value_other_than_its_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The hostile settings cover every variable of .env.example and every field of the settings, and claimtrace
    accepts them all, so the run below is about the suite and not about a value the application refuses."""
    values, unset = hostile_values(tmp_path)
    # MODEL_BACKEND's other value, torch, is legal only where PyTorch is installed
    torch = importlib.util.find_spec("torch") is not None
    assert unset == (set() if torch else {"MODEL_BACKEND"})
    for variable, value in values.items():
        monkeypatch.setenv(variable, value)
    get_settings.cache_clear()
    try:
        get_settings()  # raises SettingsError naming a value claimtrace refuses
    finally:
        get_settings.cache_clear()
    same = []
    for cls in settings_classes():
        configured = cls(_env_file=None)  # type: ignore[call-arg]
        for variable, field in field_variables(cls).items():
            info = cls.model_fields[field]
            if variable in values and getattr(configured, field) == info.get_default(call_default_factory=True):
                same.append(variable)
    assert same == []


def test_the_suite_passes_in_a_configured_users_environment_and_folder(tmp_path: Path):
    """The unit tests of SUBSET, run as a user who configured claimtrace would run them: every setting holds a legal
    value other than its default, in the environment and in the `.env` of the folder pytest runs in (the one
    claimtrace reads), with an LLM_BASE_URL nothing answers on."""
    folder = tmp_path / "user"
    folder.mkdir()
    values, _ = hostile_values(tmp_path / "settings")
    # single quotes: the value as it stands (JSON included)
    (folder / ".env").write_text("".join(f"{name}='{value}'\n" for name, value in values.items()))
    # the environment of this run less the suite's own choices (tests/conftest.py), which a user does not make
    env = {name: value for name, value in os.environ.items() if not is_setting(name, setting_variables())}
    env.update(values)
    tests = [str(REPO / "tests" / "unit" / name) for name in SUBSET]
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(REPO / "pyproject.toml"), *tests],
        cwd=folder, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout and " failed" not in proc.stdout


def test_the_settings_file_is_dotenv_in_the_working_directory_unless_one_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("TOP_DOCS=6\n")
    named = tmp_path / "other.env"
    named.write_text("TOP_DOCS=7\n")
    monkeypatch.delenv(ENV_FILE_VARIABLE)
    assert Settings().judge.top_docs == 6  # a user's .env
    monkeypatch.setenv(ENV_FILE_VARIABLE, str(named))
    assert Settings().judge.top_docs == 7
    monkeypatch.setenv(ENV_FILE_VARIABLE, "")
    assert Settings().judge.top_docs == 3  # none: the default
    assert JudgeSettings(_env_file=named).top_docs == 7  # type: ignore[call-arg]  # a file the caller names is read


def test_chainlit_loads_the_settings_file_claimtrace_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Chainlit's import loads a settings file into the environment of the chat server: the one claimtrace reads, so
    the tests' chat servers, started in the repository, load none."""
    settings = Settings(_env_file=None).with_values(stores={"data_dir": tmp_path / "data"})  # type: ignore[call-arg]
    assert launch.prepare(settings)["CHAINLIT_ENV_FILE"] == os.devnull
    monkeypatch.delenv(ENV_FILE_VARIABLE)
    monkeypatch.chdir(tmp_path)
    assert launch.prepare(settings)["CHAINLIT_ENV_FILE"] == str(tmp_path / ".env")
