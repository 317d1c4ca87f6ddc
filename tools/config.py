"""The base of every settings group: a pydantic-settings model whose fields read the environment (and `.env`): the
variable of the field's name, with the group's `env_prefix` if it has one, or the alias a field names. Each layer
declares the settings it reads and the application composes them."""

from __future__ import annotations

from pydantic import SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class SettingsGroup(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", populate_by_name=True)


def secret(value: SecretStr | None) -> str | None:
    """The plain text of an optional secret setting."""
    return value.get_secret_value() if value is not None else None
