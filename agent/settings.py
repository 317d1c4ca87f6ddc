"""Typed settings in groups (llm, stores, retrieval, judge, answer, live, ui), read from the environment and `.env`
(see `.env.example`). Every value that shapes a result is a setting; its default is the shipped behaviour.

Each field reads the environment variable its alias names (e.g. `TOP_DOCS` sets `settings.judge.top_docs`). Named
presets (`agent/presets/<name>.json`, JSON objects of groups) override fields for one experiment; `PRESET` picks
one for the whole process, `claimtrace eval --preset` for one run."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError
from pydantic_settings import SettingsConfigDict

from tools.config import SettingsGroup
from tools.live.config import LiveSettings

REPO_ROOT = Path(__file__).resolve().parents[1]
PRESETS_DIR = Path(__file__).resolve().parent / "presets"
DEFAULT_MIRROR = REPO_ROOT.parent / "shared" / "data" / "scifact"
Provider = Literal["auto", "openai", "embedded", "scripted"]


class LLMSettings(SettingsGroup):
    provider: Provider = Field(
        "auto",
        validation_alias="LLM_PROVIDER",
        description="auto = openai when LLM_BASE_URL or an API key is set, otherwise the embedded local model.",
    )
    base_url: str | None = Field(
        None, validation_alias="LLM_BASE_URL", description="Any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM)."
    )
    api_key: SecretStr | None = Field(None, validation_alias=AliasChoices("LLM_API_KEY", "OPENAI_API_KEY"))
    model: str = Field("gpt-4o-mini", validation_alias="LLM_MODEL")
    timeout: float = Field(
        120.0, validation_alias="LLM_TIMEOUT", description="Seconds one LLM call may take before the turn fails."
    )
    max_retries: int = Field(1, validation_alias="LLM_MAX_RETRIES")
    max_tokens: int = Field(
        300, validation_alias="LLM_MAX_TOKENS", description="Completion tokens one call (questions, answer) may use."
    )
    script: Path | None = Field(None, validation_alias="LLM_SCRIPT", description="JSON script of the scripted model.")
    embedded_ctx: int = Field(4096, validation_alias="EMBEDDED_CTX")
    embedded_threads: int = Field(2, validation_alias="EMBEDDED_THREADS")

    def resolved_provider(self) -> str:
        if self.provider != "auto":
            return self.provider
        return "openai" if (self.base_url or self.api_key) else "embedded"


class StoreSettings(SettingsGroup):
    data_dir: Path = Field(Path.home() / ".local" / "share" / "claimtrace", validation_alias="DATA_DIR")
    models_dir: Path | None = Field(
        None, validation_alias="MODELS_DIR", description="Where the assembled GGUF lives; DATA_DIR/models when unset."
    )
    corpus_path: Path | None = Field(
        None, validation_alias="CORPUS_PATH", description="SciFact or BEIR corpus.jsonl, or a folder holding one."
    )
    corpus_mirror: Path = Field(DEFAULT_MIRROR, validation_alias="CORPUS_MIRROR")
    corpus_url: str = Field(
        "https://scifact.s3-us-west-2.amazonaws.com/release/latest/data.tar.gz", validation_alias="CORPUS_URL"
    )
    chroma_url: str | None = Field(
        None, validation_alias="CHROMA_URL", description="Chroma server, e.g. http://127.0.0.1:8001; embedded if unset."
    )
    checkpoint_url: str | None = Field(
        None, validation_alias="CHECKPOINT_URL", description="postgresql://... ; SQLite file in DATA_DIR when unset."
    )

    @property
    def index_dir(self) -> Path:
        return self.data_dir / "index"

    @property
    def model_dir(self) -> Path:
        return self.models_dir or self.data_dir / "models"

    @property
    def live_cache_dir(self) -> Path:
        return self.data_dir / "cache" / "live"


class RetrievalSettings(SettingsGroup):
    max_questions: int = Field(5, validation_alias="MAX_QUESTIONS", description="Search questions kept per claim.")
    depth: int = Field(
        50, validation_alias="RETRIEVAL_DEPTH", description="Hits per query and retriever, and fused abstracts kept."
    )
    # 5, not the customary 60: chosen on SciFact train claims (claim-only queries, BM25 + dense sentences, depth 50;
    # evals/results/retrieval_experiments_train.md): Recall@3 0.900 / Recall@5 0.929 / nDCG@10 0.888 against
    # 0.891 / 0.918 / 0.881 with k=60. A small k lets a document ranked first by one retriever outrank one found lower
    # down by both. On dev the difference is within noise: R@3 0.888 vs 0.882, R@5 0.919 vs 0.928.
    rrf_k: int = Field(5, validation_alias="RRF_K", description="Reciprocal rank fusion constant.")
    rerank_top: int = Field(
        0, validation_alias="RERANK_TOP", description="Fused abstracts the verifier reranks (0: no reranking)."
    )
    rerank_sentences: int = Field(
        3, validation_alias="RERANK_SENTENCES", description="Sentences per abstract the reranker reads (0 = all)."
    )
    rerank_alpha: float = Field(
        0.6, validation_alias="RERANK_ALPHA", description="Weight of the fused score against the evidence score."
    )


class JudgeSettings(SettingsGroup):
    top_docs: int = Field(
        3, validation_alias="TOP_DOCS", description="Fused abstracts whose sentences become evidence candidates."
    )
    candidates_per_doc: int = Field(
        3, validation_alias="CANDIDATES_PER_DOC", description="Sentences closest to the claim judged per abstract."
    )
    min_sentence_chars: int = Field(
        20, validation_alias="MIN_SENTENCE_CHARS", description="Shorter split fragments are never evidence."
    )
    sentences_per_doc: int = Field(
        2, validation_alias="SENTENCES_PER_DOC", description="Evidence sentences an abstract keeps at most."
    )
    stance_min_prob: float = Field(
        0.0,
        validation_alias="STANCE_MIN_PROB",
        description="A sentence bears on the claim when its winning stance (supports/contradicts) has at least "
        "this probability (0 = the verifier's argmax alone).",
    )
    labelled_docs: int = Field(
        1,
        validation_alias="LABELLED_DOCS",
        description="At most this many abstracts get a label, strongest evidence first (0 = all).",
    )
    context_window: int = Field(5, validation_alias="CONTEXT_WINDOW", description="Neighbours shown on each side.")
    context_chars: int = Field(400, validation_alias="CONTEXT_CHARS", description="Longest extractive context.")


class AnswerSettings(SettingsGroup):
    max_claim_chars: int = Field(2000, validation_alias="MAX_CLAIM_CHARS")
    max_title_chars: int = Field(
        120, validation_alias="MAX_TITLE_CHARS", description="Title characters shown to the LLM per evidence line."
    )
    top_attribution: int = Field(
        2, validation_alias="TOP_ATTRIBUTION", description="Best-matching source sentences listed per answer sentence."
    )


class UISettings(SettingsGroup):
    user: str = Field("claimtrace", validation_alias="CLAIMTRACE_UI_USER")
    password: SecretStr = Field(SecretStr("claimtrace"), validation_alias="CLAIMTRACE_UI_PASSWORD")
    auth_secret: SecretStr | None = Field(
        None,
        validation_alias="CHAINLIT_AUTH_SECRET",
        description="Signs login tokens; generated once and kept in DATA_DIR/chainlit when unset.",
    )


class Settings(SettingsGroup):
    # the groups read their own variables; a whole group can come as JSON in CLAIMTRACE_<GROUP>
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", env_prefix="CLAIMTRACE_")

    llm: LLMSettings = Field(default_factory=LLMSettings)
    stores: StoreSettings = Field(default_factory=StoreSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    answer: AnswerSettings = Field(default_factory=AnswerSettings)
    live: LiveSettings = Field(default_factory=LiveSettings)
    ui: UISettings = Field(default_factory=UISettings)

    def with_values(self, **groups: dict[str, Any]) -> Settings:
        """A copy with some fields of some groups replaced, e.g. `with_values(live={"sources": "local"})`; the
        values are validated like the environment's."""
        update = {g: getattr(self, g).model_validate({**getattr(self, g).model_dump(), **v}) for g, v in groups.items()}
        return self.model_copy(update=update)

    def public_dump(self) -> dict[str, Any]:
        """Every setting as JSON, secrets masked: what an eval report records."""
        return json.loads(self.model_dump_json())


class SettingsError(ValueError):
    """An environment variable (or .env line, or preset) holds a value claimtrace cannot use."""


def _describe(e: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, err['loc'])).upper()}: {err['msg']}" for err in e.errors())


def presets() -> list[str]:
    return sorted(p.stem for p in PRESETS_DIR.glob("*.json"))


def load_preset(name: str, base: Settings | None = None) -> Settings:
    """The settings with preset `name` applied over `base` (the environment's when None). Raises SettingsError."""
    path = PRESETS_DIR / f"{name}.json"
    if not path.is_file():
        raise SettingsError(f"unknown preset {name!r}; choose from {', '.join(presets())}")
    values = json.loads(path.read_text())
    unknown = set(values) - set(Settings.model_fields)
    if unknown:
        raise SettingsError(f"preset {name!r} names unknown group(s) {', '.join(sorted(unknown))}")
    try:
        return (base or _from_environment()).with_values(**values)
    except ValidationError as e:
        raise SettingsError(f"bad value in preset {name!r}: {_describe(e)}") from e


def _from_environment() -> Settings:
    try:
        return Settings()
    except ValidationError as e:
        raise SettingsError(f"bad setting: {_describe(e)}") from e


class _PresetChoice(SettingsGroup):
    preset: str = Field("default", validation_alias="PRESET")


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The settings from the environment and .env, with the PRESET applied. Raises SettingsError naming each bad
    variable."""
    return load_preset(_PresetChoice().preset, _from_environment())
