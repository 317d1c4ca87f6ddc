"""The environment variables claimtrace reads its settings from, and how the test suite keeps them out:
tests/conftest.py removes every one of them before the first test, so each test starts from the shipped defaults
whoever runs it, and the CLI and chat servers the tests start inherit that environment.

The names come from the settings classes themselves (each field's variable: its alias, or its group's prefix and its
name; each group as JSON in CLAIMTRACE_<GROUP>) and from `.env.example`, so a new setting is covered when it is
declared. Besides those, every CLAIMTRACE_* variable but the browser tests' own CLAIMTRACE_E2E_* knobs goes (the UI
password, the MCP token, CLAIMTRACE_DEBUG), and so do the variables of the libraries claimtrace drives that change what
they do: the OpenAI client's OPENAI_* (OPENAI_BASE_URL), Chainlit's CHAINLIT_* (CHAINLIT_AUTH_SECRET) and LangChain's
tracing (LANGCHAIN_*, LANGSMITH_*), which would send a test's calls over the network."""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from pathlib import Path

from pydantic import AliasChoices, ValidationError

from tools.config import SettingsGroup

REPO = Path(__file__).resolve().parents[1]
ENV_EXAMPLE = REPO / ".env.example"
PRODUCT_PREFIX = "CLAIMTRACE_"
TEST_KNOBS = "CLAIMTRACE_E2E_"
LIBRARY_PREFIXES = ("OPENAI_", "CHAINLIT_", "LANGCHAIN_", "LANGSMITH_")
# `NAME=value` or `# NAME=value`: a setting .env.example sets or shows commented out
EXAMPLE_LINE = re.compile(r"^#?\s*([A-Z][A-Z0-9_]*)=", re.MULTILINE)


def settings_classes() -> list[type[SettingsGroup]]:
    """Every settings group the application defines: the subclasses of SettingsGroup, once agent.settings.app (which
    composes them all) is imported."""
    import agent.settings.app  # noqa: F401 - imports every group it composes

    found: list[type[SettingsGroup]] = []
    todo = list(SettingsGroup.__subclasses__())
    while todo:
        cls = todo.pop()
        if cls not in found:
            found.append(cls)
            todo.extend(cls.__subclasses__())
    return found


def field_variables(cls: type[SettingsGroup]) -> dict[str, str]:
    """Each environment variable `cls` reads (upper case) -> the field it fills."""
    prefix = str(cls.model_config.get("env_prefix") or "")
    out: dict[str, str] = {}
    for name, field in cls.model_fields.items():
        alias = field.validation_alias
        if isinstance(alias, AliasChoices):
            names = [choice for choice in alias.choices if isinstance(choice, str)]
        elif isinstance(alias, str):
            names = [alias]
        else:
            names = [prefix + name]
        out.update({variable.upper(): name for variable in names})
    return out


def example_variables() -> set[str]:
    """The variables `.env.example` sets or shows."""
    return set(EXAMPLE_LINE.findall(ENV_EXAMPLE.read_text()))


def setting_variables() -> set[str]:
    """Every variable a settings class reads, and every one .env.example names."""
    names = example_variables()
    for cls in settings_classes():
        names |= set(field_variables(cls))
    return names


def is_setting(name: str, settings: set[str]) -> bool:
    """Whether variable `name` configures claimtrace (or a library it drives). Upper case: the settings read the
    environment case-insensitively, so `top_docs=5` sets TOP_DOCS."""
    upper = name.upper()
    if upper.startswith(TEST_KNOBS):
        return False
    return upper in settings or upper.startswith(PRODUCT_PREFIX) or upper.startswith(LIBRARY_PREFIXES)


def remove_settings(environ: MutableMapping[str, str]) -> list[str]:
    """Remove every setting from `environ`; the names removed, sorted."""
    settings = setting_variables()
    removed = sorted(name for name in environ if is_setting(name, settings))
    for name in removed:
        del environ[name]
    return removed


def built_locations() -> tuple[Path, Path]:
    """Where `make setup`, run with the runner's own settings, put the models it builds: the folder of the assembled
    GGUF and that of the exported ONNX graphs. Both hold files checked by their sha256 (a graph's name carries the
    digest of the weights it came from), so where they lie changes no result. A bad value in the runner's settings
    leaves the default places."""
    from agent.settings.app import StoreSettings
    from tools.models.onnx_models import ModelRuntimeSettings

    try:
        stores, runtime = StoreSettings(), ModelRuntimeSettings()
    except ValidationError:
        stores, runtime = StoreSettings.model_construct(), ModelRuntimeSettings.model_construct()
    return stores.model_dir, runtime.cache_dir


# Read when tests/conftest.py first imports this module, before it removes the settings: the tests that run the real
# models use the ones `make setup` built instead of building their own.
BUILT_MODELS, BUILT_GRAPHS = built_locations()
