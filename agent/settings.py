"""Typed settings, read from the environment and `.env` (see `.env.example`)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MIRROR = REPO_ROOT.parent / "shared" / "data" / "scifact"


def _default_data_dir() -> Path:
    return Path.home() / ".local" / "share" / "claimtrace"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", populate_by_name=True)

    # --- LLM -------------------------------------------------------------------------------------
    llm_provider: str = Field(
        "auto",
        description="auto | openai | embedded | scripted. auto = openai when LLM_BASE_URL or an API key "
        "is set, otherwise the embedded local model.",
    )
    llm_base_url: str | None = Field(None, description="Any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM).")
    llm_api_key: str | None = Field(None, validation_alias=AliasChoices("LLM_API_KEY", "OPENAI_API_KEY"))
    llm_model: str = "gpt-4o-mini"
    llm_timeout: float = Field(120.0, description="Seconds one LLM call may take before the turn fails.")
    llm_max_retries: int = 1
    llm_script: Path | None = Field(None, description="JSON script for the scripted test model.")
    embedded_ctx: int = 4096
    embedded_threads: int = 2

    # --- data ------------------------------------------------------------------------------------
    data_dir: Path = Field(default_factory=_default_data_dir)
    models_dir: Path | None = Field(None, description="Where the assembled GGUF lives; DATA_DIR/models when unset.")
    corpus_path: Path | None = Field(
        None, description="SciFact corpus.jsonl, BEIR corpus.jsonl or a folder holding one."
    )
    corpus_mirror: Path = DEFAULT_MIRROR
    corpus_url: str = "https://scifact.s3-us-west-2.amazonaws.com/release/latest/data.tar.gz"

    # --- stores ----------------------------------------------------------------------------------
    chroma_url: str | None = Field(None, description="Chroma server, e.g. http://127.0.0.1:8001; embedded when unset.")
    checkpoint_url: str | None = Field(None, description="postgresql://... ; SQLite file in data_dir when unset.")

    # --- pipeline --------------------------------------------------------------------------------
    max_claim_chars: int = 2000
    top_docs: int = 5
    sentences_per_doc: int = 2
    context_window: int = 5
    retrieval_depth: int = 50

    @property
    def index_dir(self) -> Path:
        return self.data_dir / "index"

    @property
    def model_dir(self) -> Path:
        return self.models_dir or self.data_dir / "models"

    def resolved_provider(self) -> str:
        if self.llm_provider != "auto":
            return self.llm_provider
        return "openai" if (self.llm_base_url or self.llm_api_key) else "embedded"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
