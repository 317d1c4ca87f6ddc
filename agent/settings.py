"""Typed settings, read from the environment and `.env` (see `.env.example`)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import AliasChoices, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MIRROR = REPO_ROOT.parent / "shared" / "data" / "scifact"
LIVE_SOURCES = ("europepmc", "pubmed", "openalex", "s2")
SOURCE_NAMES = ("local", *LIVE_SOURCES)
AUTO = "auto"


def parse_sources(value: str) -> str:
    """A source choice in canonical form: "auto" (local plus whichever live sources are reachable), or a comma
    list of local, europepmc, pubmed, openalex, s2 ("all" names every one). Raises ValueError saying what is
    allowed."""
    names = [n.strip().lower() for n in value.replace(" ", ",").split(",") if n.strip()]
    if names == [AUTO]:
        return AUTO
    if names == ["all"]:
        names = list(SOURCE_NAMES)
    unknown = [n for n in names if n not in SOURCE_NAMES]
    if unknown or not names:
        what = f"unknown source(s) {', '.join(unknown)}" if unknown else "no source given"
        raise ValueError(f"{what}; choose auto, all, or a comma list of {', '.join(SOURCE_NAMES)}")
    return ",".join(n for n in SOURCE_NAMES if n in names)


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
    top_docs: int = Field(3, description="Fused abstracts whose sentences become evidence candidates.")
    sentences_per_doc: int = 2
    stance_min_prob: float = Field(
        0.0,
        description="A sentence bears on the claim when its winning stance (supports/contradicts) has at least "
        "this probability (0 = the verifier's argmax alone).",
    )
    labelled_docs: int = Field(
        1, description="At most this many abstracts get a label, strongest evidence first (0 = all)."
    )
    context_window: int = 5
    retrieval_depth: int = 50
    rerank_top: int = Field(0, description="Fused abstracts the verifier reranks (0, the default: no reranking).")
    rerank_sentences: int = Field(
        3, description="Sentences per abstract the reranker reads, closest to the claim first (0 = all)."
    )
    rerank_alpha: float = Field(0.6, description="Weight of the fused score against the verifier's evidence score.")

    # --- live literature (Europe PMC, PubMed, OpenAlex, Semantic Scholar) -----------------------
    sources: str = Field(
        AUTO,
        description="auto (local index plus every reachable live source) or a comma list of local, europepmc, "
        "pubmed, openalex, s2.",
    )
    europepmc_base_url: str = "https://www.ebi.ac.uk/europepmc/webservices/rest"
    ncbi_base_url: str = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
    openalex_base_url: str = "https://api.openalex.org"
    s2_base_url: str = "https://api.semanticscholar.org/graph/v1"
    ncbi_api_key: str | None = Field(None, description="Raises NCBI's limit from 3 to 10 requests/s.")
    s2_api_key: str | None = None
    openalex_api_key: str | None = None
    contact_email: str | None = Field(None, description="Sent as OpenAlex mailto and NCBI email (polite pools).")
    live_results: int = Field(5, description="Abstracts asked of each live source per query.")
    live_queries: int = Field(3, description="Queries sent to each live source: the claim, its opposite, questions.")
    live_budget: float = Field(20.0, description="Seconds all live searches of one check may take together.")
    live_timeout: float = Field(10.0, description="Seconds one live request may take.")
    live_tries: int = 3
    live_max_wait: float = Field(10.0, description="Longest Retry-After waited for before a source is skipped.")
    live_probe_timeout: float = Field(2.0, description="Seconds the reachability check of the live hosts may take.")
    live_cache_hours: float = Field(168.0, description="How long fetched responses are reused from disk.")

    @field_validator("sources")
    @classmethod
    def _check_sources(cls, value: str) -> str:
        return parse_sources(value)

    @property
    def live_cache_dir(self) -> Path:
        return self.data_dir / "cache" / "live"

    def selected_sources(self) -> tuple[bool, list[str]]:
        """(auto, names): auto means local plus the live sources that are reachable."""
        if self.sources == AUTO:
            return True, list(SOURCE_NAMES)
        return False, self.sources.split(",")

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


class SettingsError(ValueError):
    """An environment variable (or .env line) holds a value claimtrace cannot use."""


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The settings from the environment and .env. Raises SettingsError naming each bad variable."""
    try:
        return Settings()
    except ValidationError as e:
        bad = "; ".join(f"{'.'.join(map(str, err['loc'])).upper()}: {err['msg']}" for err in e.errors())
        raise SettingsError(f"bad setting: {bad}") from e
