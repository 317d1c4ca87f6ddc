"""Typed settings in groups (llm, stores, retrieval, judge, answer, live, ui), read from the environment and `.env`
(see `.env.example`). Every value that shapes a result is a setting; its default is the shipped behaviour.

Each field reads the environment variable of its name (`TOP_DOCS` sets `settings.judge.top_docs`), with its
group's prefix where the group has one (`LIVE_RESULTS` sets `settings.live.results`), or the alias it names. Named
presets (`agent/presets/<name>.json`, JSON objects of groups) override fields for one experiment; `PRESET` picks
one for the whole process, `claimtrace eval --preset` for one run."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import NoDecode, SettingsConfigDict

from agent.settings.judge import JudgeSettings
from tools.config import HttpUrlStr, OptionalHttpUrlStr, SettingsGroup
from tools.live.config import LiveSettings
from tools.models.onnx_models import ModelRuntimeSettings

REPO_ROOT = Path(__file__).resolve().parents[2]
PRESETS_DIR = Path(__file__).resolve().parents[1] / "presets"
DEFAULT_MIRROR = REPO_ROOT.parent / "shared" / "data" / "scifact"
Provider = Literal["auto", "openai", "embedded", "scripted"]
MASK = "**********"  # how pydantic shows a SecretStr
POSTGRES_SCHEMES = {"postgresql", "postgres"}


class LLMSettings(SettingsGroup):
    """LLM_* variables, plus OPENAI_API_KEY and the embedded model's EMBEDDED_CTX / EMBEDDED_THREADS."""

    model_config = SettingsConfigDict(env_prefix="LLM_")

    # auto = openai when LLM_BASE_URL or an API key is set, otherwise the embedded local model
    provider: Provider = "auto"
    # any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM); http(s) only
    base_url: OptionalHttpUrlStr = None
    api_key: SecretStr | None = Field(None, validation_alias=AliasChoices("LLM_API_KEY", "OPENAI_API_KEY"))
    model: str = "gpt-4o-mini"
    # seconds one LLM call may take before the turn fails
    timeout: float = Field(120.0, gt=0)
    max_retries: int = Field(1, ge=0)
    # completion tokens one call (search questions, answer, follow-up routing) may write
    max_tokens: int = Field(300, ge=16)
    # requests the LLM runs at once (LLM_PARALLEL): checks that read their papers with it at once (agent.llm.turns).
    # The embedded model runs one; a batching server (vLLM, llama.cpp's --parallel N) takes as many as it batches
    parallel: int = Field(1, ge=1, le=64)
    # JSON script of the scripted test model
    script: Path | None = None
    embedded_ctx: int = Field(4096, ge=512, validation_alias="EMBEDDED_CTX")
    embedded_threads: int = Field(2, ge=1, validation_alias="EMBEDDED_THREADS")

    def resolved_provider(self) -> str:
        if self.provider != "auto":
            return self.provider
        return "openai" if (self.base_url or self.api_key) else "embedded"


class StoreSettings(SettingsGroup):
    data_dir: Path = Path.home() / ".local" / "share" / "claimtrace"
    # where the assembled GGUF lives; DATA_DIR/models when unset
    models_dir: Path | None = None
    # SciFact or BEIR corpus.jsonl, or a folder holding one
    corpus_path: Path | None = None
    corpus_mirror: Path = DEFAULT_MIRROR
    corpus_url: HttpUrlStr = "https://scifact.s3-us-west-2.amazonaws.com/release/latest/data.tar.gz"
    # Chroma server, e.g. http://127.0.0.1:8001; embedded Chroma when unset
    chroma_url: OptionalHttpUrlStr = None
    # the index folder (INDEX_DIR: its manifest, BM25, corpus copy and your library's documents), e.g. a folder every
    # chat instance mounts, built once by `claimtrace index --chroma-url`; DATA_DIR/index when unset
    index_path: Path | None = Field(None, validation_alias="INDEX_DIR")
    # postgresql://user:password@host:5432/db: everything a user owns (threads and their checkpoints, chat messages,
    # users, feedback, the login secret and password hash) in one Postgres that several chat instances share; SQLite
    # files in DATA_DIR when unset (docs/deploy.md)
    database_url: str | None = Field(None, validation_alias="DATABASE_URL")
    # the checkpoints alone elsewhere: postgresql://...; DATABASE_URL's database, else a SQLite file in DATA_DIR,
    # when unset
    checkpoint_url: str | None = None
    # whether a claim is matched against the checks kept before it (agent.earlier) before it is searched
    earlier_checks: bool = Field(True, validation_alias="EARLIER_CHECKS")
    # whether the LLM reads the nearest kept claim the verifier is unsure of (docs/earlier.md: 2-5 s more)
    earlier_llm: bool = Field(True, validation_alias="EARLIER_LLM")
    # whether a chat user is shown every user's earlier checks (a team that shares its work); else only their own
    share_checks: bool = Field(False, validation_alias="SHARE_CHECKS")

    @field_validator("database_url", mode="before")
    @classmethod
    def _postgres_url(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        if isinstance(value, str) and urlsplit(value.strip()).scheme not in POSTGRES_SCHEMES:
            raise ValueError("must start with postgresql://")
        return value.strip() if isinstance(value, str) else value

    @property
    def thread_store_url(self) -> str | None:
        """Where the checkpoints go: CHECKPOINT_URL, else DATABASE_URL, else (None) the SQLite file."""
        return self.checkpoint_url or self.database_url

    @property
    def thread_store_variable(self) -> str:
        """The setting that names the checkpoints' Postgres, for error messages."""
        return "CHECKPOINT_URL" if self.checkpoint_url else "DATABASE_URL"

    @property
    def index_dir(self) -> Path:
        return self.index_path or self.data_dir / "index"

    @property
    def model_dir(self) -> Path:
        return self.models_dir or self.data_dir / "models"

    @property
    def live_cache_dir(self) -> Path:
        return self.data_dir / "cache" / "live"


class RetrievalSettings(SettingsGroup):
    # After the provisional verdict from the claim and its negation, ask the LLM for search questions, search them
    # and judge again. Off by default: with today's judge, on the first 60 SciFact dev claims, the verdict takes
    # SciFact's side on 19 of 45 settled claims against 20, for 31.7 s a claim against about 13 on a 2-core machine
    # (evals/results/llm_questions_dev60/; with the judge before, evals/results/dev_features/llm_questions/).
    llm_questions: bool = False
    # search questions kept per claim
    max_questions: int = Field(5, ge=0)
    # further search rounds when the verdict rests on too little (no source bears on the claim with MIN_CONFIDENCE,
    # or a single source does): the LLM reformulates the search (agent/nodes/reformulate.py); 0 = never. Off by
    # default: on the first 100 SciFact dev claims with the embedded model, the 73 thin ones read more gold abstracts
    # (0.864 -> 0.886) but Label-Only precision fell 0.406 -> 0.326 and F1 0.338 -> 0.318, for a median 9.3 s more:
    # the small model's queries mostly find abstracts on the topic that the verifier then reads as support
    # (evals/results/second_round_dev.md). With the two-part judge, on the first 50 dev claims, F1 0.486 -> 0.480 and
    # precision 0.562 -> 0.545 for 9.6 s instead of 3.3 s per claim (evals/results/dev_features/search_rounds/), so
    # it stays off. The chat offers it per chat; `ask --search-rounds 1` per check.
    search_rounds: int = Field(0, ge=0, le=5)
    # hits per query and retriever, and fused abstracts kept
    depth: int = Field(50, ge=1, validation_alias="RETRIEVAL_DEPTH")
    # Reciprocal rank fusion constant: 5, not the customary 60, chosen on SciFact train claims (claim-only queries,
    # BM25 + dense sentences, depth 50; evals/results/retrieval_experiments_train.md): Recall@3 0.900 / Recall@5
    # 0.929 / nDCG@10 0.888 against 0.891 / 0.918 / 0.881 with k=60. A small k lets a document ranked first by one
    # retriever outrank one found lower down by both. On dev the difference is within noise.
    rrf_k: int = Field(5, ge=0)
    # fused abstracts the verifier reranks (0: no reranking); sentences it reads per abstract (0 = all); weight of
    # the fused score against the verifier's evidence score
    rerank_top: int = Field(0, ge=0)
    rerank_sentences: int = Field(3, ge=0)
    rerank_alpha: float = Field(0.6, ge=0.0, le=1.0)


class AnswerSettings(SettingsGroup):
    # how the answer is written (agent.answer.strategies): abstractive, per_paper, extractive or hybrid
    strategy: Literal["abstractive", "per_paper", "extractive", "hybrid"] = Field(
        "per_paper", validation_alias="ANSWER_STRATEGY"
    )
    max_claim_chars: int = Field(2000, gt=0)
    # a pasted passage (`claimtrace check-text`, a paste in the chat): beyond MAX_PASSAGE_CHARS its first part is
    # checked (cut at a sentence's end), and at most MAX_PASSAGE_CLAIMS of its claims, in text order
    max_passage_chars: int = Field(12000, gt=0)
    max_passage_claims: int = Field(20, gt=0)
    # title characters the follow-up router sees per evidence line (answer prompts show no titles)
    max_title_chars: int = Field(120, gt=0)
    # best-matching source sentences listed per answer sentence
    top_attribution: int = Field(2, ge=0)
    # the answer call's own token budget (1 to 3 sentences need about 110; 200 cut 13 of 78 dev answers, with the same
    # faithfulness: evals/results/answer_time_experiments.md; one short sentence per paper used 33 completion tokens
    # per claim on average: evals/results/answer_per_paper.md); a reply the budget ends loses its unfinished last
    # sentence, without a note, since the budget is the design and not a fault
    max_tokens: int = Field(200, ge=16, validation_alias="ANSWER_MAX_TOKENS")


class UISettings(SettingsGroup):
    """The chat's login (CLAIMTRACE_UI_USER / CLAIMTRACE_UI_PASSWORD), the secret that signs its tokens
    (CHAINLIT_AUTH_SECRET; generated once and kept in DATA_DIR/chainlit when unset) and the origins allowed to call
    it besides the one it serves (CLAIMTRACE_UI_ORIGINS, a comma list)."""

    model_config = SettingsConfigDict(env_prefix="CLAIMTRACE_UI_")

    user: str = Field("claimtrace", min_length=1)
    # unset: `claimtrace ui` generates one on its first start, shows it once and keeps only its salted hash
    password: SecretStr | None = None
    auth_secret: SecretStr | None = Field(None, validation_alias="CHAINLIT_AUTH_SECRET")
    # e.g. https://claims.example.org when a proxy serves the chat under another name
    origins: Annotated[list[HttpUrlStr], NoDecode] = []
    # checks that run at once (CLAIMTRACE_UI_CHECKS_AT_ONCE); later ones wait in a queue that shows their place. The
    # embedded LLM answers one request at a time; raise it for an LLM server that serves several.
    checks_at_once: int = Field(2, ge=1, le=64)

    @field_validator("password", "auth_secret", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value else value

    @field_validator("origins", mode="before")
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        return [o.strip().rstrip("/") for o in value.split(",") if o.strip()] if isinstance(value, str) else value


class Settings(SettingsGroup):
    # the groups read their own variables; a whole group can come as JSON in CLAIMTRACE_<GROUP>
    model_config = SettingsConfigDict(env_prefix="CLAIMTRACE_")

    llm: LLMSettings = Field(default_factory=LLMSettings)
    stores: StoreSettings = Field(default_factory=StoreSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    answer: AnswerSettings = Field(default_factory=AnswerSettings)
    live: LiveSettings = Field(default_factory=LiveSettings)
    # how the embedder and the verifiers run: the application passes it to the models (agent.service.use_settings),
    # and a bad value stops the application with one line, like every other setting
    models: ModelRuntimeSettings = Field(default_factory=ModelRuntimeSettings)
    ui: UISettings = Field(default_factory=UISettings)

    def with_values(self, **groups: dict[str, Any]) -> Settings:
        """A copy with some fields of some groups replaced, e.g. `with_values(live={"sources": "local"})`; the
        values are validated like the environment's."""
        update = {g: getattr(self, g).model_validate({**getattr(self, g).model_dump(), **v}) for g, v in groups.items()}
        return self.model_copy(update=update)

    def public_dump(self) -> dict[str, Any]:
        """Every setting as JSON, secrets masked (the passwords of DATABASE_URL and CHECKPOINT_URL too): what an eval
        report records."""
        out: dict[str, Any] = json.loads(self.model_dump_json())
        for field in ("database_url", "checkpoint_url"):
            url = getattr(self.stores, field)
            if url and urlsplit(url).password is not None:
                parts = urlsplit(url)
                host = parts.netloc.rsplit("@", 1)[1]
                out["stores"][field] = urlunsplit(parts._replace(netloc=f"{parts.username}:{MASK}@{host}"))
        return out


def _groups() -> dict[str, type[SettingsGroup]]:
    """Group name -> its settings class, read off the fields of Settings."""
    out: dict[str, type[SettingsGroup]] = {}
    for name, field in Settings.model_fields.items():
        assert isinstance(field.annotation, type) and issubclass(field.annotation, SettingsGroup)
        out[name] = field.annotation
    return out


class SettingsError(ValueError):
    """An environment variable (or .env line, or preset) holds a value claimtrace cannot use."""


def _variable(group: type[SettingsGroup] | None, loc: tuple[Any, ...]) -> str:
    """The environment variable behind an error location: an alias as it is, a field with its group's prefix."""
    name = str(loc[0]) if loc else "?"
    if name.isupper() or group is None:
        return name.upper()
    return f"{group.model_config.get('env_prefix', '')}{name}".upper()


def _describe(e: ValidationError) -> str:
    group = next((g for g in _groups().values() if g.__name__ == e.title), None)
    return "; ".join(f"{_variable(group, tuple(err['loc']))}: {err['msg']}" for err in e.errors())


def presets() -> list[str]:
    return sorted(p.stem for p in PRESETS_DIR.glob("*.json"))


def load_preset(name: str, base: Settings | None = None) -> Settings:
    """The settings with preset `name` applied over `base` (the environment's when None). Raises SettingsError."""
    path = PRESETS_DIR / f"{name}.json"
    if not path.is_file():
        raise SettingsError(f"unknown preset {name!r}; choose from {', '.join(presets())}")
    values = json.loads(path.read_text())
    groups = _groups()
    unknown = [g for g in values if g not in groups]
    unknown += [
        f"{g}.{f}" for g, fields in values.items() if g in groups for f in fields if f not in groups[g].model_fields
    ]
    if unknown:
        raise SettingsError(f"preset {name!r} names unknown setting(s) {', '.join(sorted(unknown))}")
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
