"""The base of every settings group: a pydantic-settings model whose fields read the environment (and `.env`): the
variable of the field's name, with the group's `env_prefix` if it has one, or the alias a field names. Each layer
declares the settings it reads and the application composes them. `HttpUrlStr` / `OptionalHttpUrlStr` type the settings
that name a server (base URLs): only http:// and https:// pass.

The file of settings read after the environment is `.env` in the working directory, or the file CLAIMTRACE_ENV_FILE
names (read when each group is made, so a process and the processes it starts agree); CLAIMTRACE_ENV_FILE set empty
reads none, which is how the test suite keeps a user's `.env` out of every test (tests/conftest.py)."""

from __future__ import annotations

import os
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import AfterValidator, BeforeValidator, SecretStr
from pydantic_settings import BaseSettings, DotEnvSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict

ENV_FILE = ".env"
ENV_FILE_VARIABLE = "CLAIMTRACE_ENV_FILE"


def env_file() -> str | None:
    """The settings file to read: CLAIMTRACE_ENV_FILE when set (None when it is empty), else `.env`."""
    return os.environ.get(ENV_FILE_VARIABLE, ENV_FILE) or None


class SettingsGroup(BaseSettings):
    model_config = SettingsConfigDict(env_file=ENV_FILE, extra="ignore", populate_by_name=True)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Values passed in, then the environment, then the settings file: a file the caller names (`_env_file=...`,
        # None for none) as named, otherwise the one env_file() chooses at this moment.
        if isinstance(dotenv_settings, DotEnvSettingsSource) and dotenv_settings.env_file == ENV_FILE:
            dotenv_settings = DotEnvSettingsSource(settings_cls, env_file=env_file())
        return init_settings, env_settings, dotenv_settings, file_secret_settings


def secret(value: SecretStr | None) -> str | None:
    """The plain text of an optional secret setting."""
    return value.get_secret_value() if value is not None else None


def check_http_url(value: str) -> str:
    """`value` when it is an http:// or https:// URL that names a host and holds no user name or password (keys have
    settings of their own, so a URL can appear in messages). Raises ValueError saying what is wrong; the message
    never repeats the URL, which may hold a key."""
    parts = urlsplit(value.strip())
    if parts.scheme.lower() not in ("http", "https"):
        raise ValueError("must start with http:// or https://")
    if not parts.hostname:
        raise ValueError("must name a host after the scheme, e.g. http://127.0.0.1:8001")
    if parts.username is not None or parts.password is not None:
        raise ValueError("must not hold a user name or password; put API keys in their own settings")
    try:
        parts.port  # noqa: B018 - urlsplit checks the port only when it is read
    except ValueError:
        raise ValueError("has a port that is not a number from 0 to 65535") from None
    return value.strip()


def _empty_is_none(value: Any) -> Any:
    """An empty variable (`LLM_BASE_URL=` in .env) means the setting is unset."""
    return None if isinstance(value, str) and not value.strip() else value


def _check_optional(value: str | None) -> str | None:
    return None if value is None else check_http_url(value)


HttpUrlStr = Annotated[str, AfterValidator(check_http_url)]
OptionalHttpUrlStr = Annotated[str | None, BeforeValidator(_empty_is_none), AfterValidator(_check_optional)]
