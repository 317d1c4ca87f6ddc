"""Settings of the live literature sources (Europe PMC, PubMed, OpenAlex, Semantic Scholar).

The group lives beside the clients that read it, so that tools/ needs nothing from the layers above; the
application's settings (agent.settings.app) include it as `settings.live`."""

from __future__ import annotations

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import SettingsConfigDict

from tools.config import HttpUrlStr, SettingsGroup

LIVE_SOURCES = ("europepmc", "pubmed", "openalex", "s2")
LIBRARY_SOURCE = "library"  # the user's own documents (`claimtrace add`, tools.documents.library)
SOURCE_NAMES = ("local", LIBRARY_SOURCE, *LIVE_SOURCES)
AUTO = "auto"


def parse_sources(value: str) -> str:
    """A source choice in canonical form: "auto" (local, the library when it holds documents, and whichever live
    sources are reachable), or a comma list of local, library, europepmc, pubmed, openalex, s2 ("all" names every
    one). Raises ValueError saying what is allowed."""
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


class LiveSettings(SettingsGroup):
    """LIVE_* variables, plus SOURCES, the base URLs, the API keys and CONTACT_EMAIL under their own names."""

    model_config = SettingsConfigDict(env_prefix="LIVE_")

    # auto (the local index, the user's library when it holds documents, every reachable live source) or a comma
    # list of local, library, europepmc, pubmed, openalex, s2
    sources: str = Field(AUTO, validation_alias="SOURCES")
    europepmc_base_url: HttpUrlStr = Field(
        "https://www.ebi.ac.uk/europepmc/webservices/rest", validation_alias="EUROPEPMC_BASE_URL"
    )
    ncbi_base_url: HttpUrlStr = Field("https://eutils.ncbi.nlm.nih.gov/entrez/eutils", validation_alias="NCBI_BASE_URL")
    openalex_base_url: HttpUrlStr = Field("https://api.openalex.org", validation_alias="OPENALEX_BASE_URL")
    s2_base_url: HttpUrlStr = Field("https://api.semanticscholar.org/graph/v1", validation_alias="S2_BASE_URL")
    # raises NCBI's limit from 3 to 10 requests/s
    ncbi_api_key: SecretStr | None = Field(None, validation_alias="NCBI_API_KEY")
    s2_api_key: SecretStr | None = Field(None, validation_alias="S2_API_KEY")
    openalex_api_key: SecretStr | None = Field(None, validation_alias="OPENALEX_API_KEY")
    # sent as OpenAlex mailto and NCBI email (the polite pools)
    contact_email: str | None = Field(None, validation_alias="CONTACT_EMAIL")
    # abstracts asked of each source per query; queries sent to each source (claim, opposite, questions)
    results: int = Field(5, ge=1)
    queries: int = Field(3, ge=1)
    # seconds all live searches of one check may take together; seconds one request may take; tries on 429/5xx
    budget: float = Field(20.0, gt=0)
    timeout: float = Field(10.0, gt=0)
    tries: int = Field(3, ge=1)
    # longest Retry-After waited for before a source is skipped; seconds the reachability probe may take
    max_wait: float = Field(10.0, ge=0)
    probe_timeout: float = Field(2.0, gt=0)
    # how long fetched responses are reused from disk
    cache_hours: float = Field(168.0, ge=0)

    @field_validator("sources")
    @classmethod
    def _check_sources(cls, value: str) -> str:
        return parse_sources(value)

    def selected_sources(self) -> tuple[bool, list[str]]:
        """(auto, names): auto means local, the library when it holds documents, and the reachable live sources."""
        if self.sources == AUTO:
            return True, list(SOURCE_NAMES)
        return False, self.sources.split(",")
