"""What a check ran with, kept beside its result so that an export can show its work: the date, the models and the
settings that shape a result. Secrets and personal data never enter it: API keys, the contact e-mail, the stores'
URLs and the chat's login are left out."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from agent.settings.app import Settings
from tools.models.embedder import MODEL_NAME as EMBEDDER
from tools.models.verifier_artifact import ARTIFACT_DIR, read_config

# the groups that shape a result; `stores` (URLs that may carry a password) and `ui` (login) are left out
SHAPING_GROUPS = ("retrieval", "judge", "answer", "live")
PRIVATE = {"live": {"ncbi_api_key", "s2_api_key", "openalex_api_key", "contact_email"}}


class RunInfo(BaseModel):
    checked_at: str = ""  # ISO 8601, UTC, to the second
    models: dict[str, str] = Field(default_factory=dict)  # role -> name: llm, embedder, verifier
    settings: dict[str, Any] = Field(default_factory=dict)  # group -> field -> value


def llm_name(llm: Any, settings: Settings) -> str:
    """The chat model's name as the client sends it (the embedded model's own name), or its class for a test model."""
    name = getattr(llm, "model_name", None) or getattr(llm, "model", None)
    provider = settings.llm.resolved_provider()
    return f"{name} ({provider})" if isinstance(name, str) else f"{type(llm).__name__} ({provider})"


def verifier_name() -> str:
    try:
        config = read_config(ARTIFACT_DIR)
    except Exception:  # noqa: BLE001 - a missing artifact fails the check itself, with its own message
        return "stance verifier (artifact missing)"
    return f"claimtrace stance verifier on {config.get('base_model', EMBEDDER)}, T={config.get('temperature', 1)}"


def run_info(settings: Settings, llm: Any, now: datetime | None = None) -> RunInfo:
    groups = settings.model_dump(mode="json", include=set(SHAPING_GROUPS), exclude=PRIVATE)
    llm_group = settings.llm.model_dump(mode="json", include={"max_tokens", "timeout", "max_retries"})
    runtime = settings.models.model_dump(
        mode="json", include={"model_backend", "embedder_precision", "verifier_precision"}
    )
    return RunInfo(
        checked_at=(now or datetime.now(UTC)).replace(microsecond=0).isoformat(),
        models={
            "llm": llm_name(llm, settings),
            "embedder": f"{EMBEDDER} ({runtime['model_backend']}, {runtime['embedder_precision']})",
            "verifier": f"{verifier_name()} ({runtime['model_backend']}, {runtime['verifier_precision']})",
        },
        settings={"llm": llm_group, **groups},
    )
