"""Settings of the live literature sources (Europe PMC, PubMed, OpenAlex, Semantic Scholar).

The group lives beside the clients that read it, so that tools/ needs nothing from the layers above; the
application's settings (agent.settings) include it as `settings.live`. Each field reads the environment variable
named by its alias (and `.env`)."""

from __future__ import annotations

from pydantic import Field, SecretStr, field_validator

from tools.config import SettingsGroup

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


class LiveSettings(SettingsGroup):
    sources: str = Field(
        AUTO,
        validation_alias="SOURCES",
        description="auto (local index plus every reachable live source) or a comma list of local, europepmc, "
        "pubmed, openalex, s2.",
    )
    europepmc_base_url: str = Field(
        "https://www.ebi.ac.uk/europepmc/webservices/rest", validation_alias="EUROPEPMC_BASE_URL"
    )
    ncbi_base_url: str = Field("https://eutils.ncbi.nlm.nih.gov/entrez/eutils", validation_alias="NCBI_BASE_URL")
    openalex_base_url: str = Field("https://api.openalex.org", validation_alias="OPENALEX_BASE_URL")
    s2_base_url: str = Field("https://api.semanticscholar.org/graph/v1", validation_alias="S2_BASE_URL")
    ncbi_api_key: SecretStr | None = Field(
        None, validation_alias="NCBI_API_KEY", description="Raises NCBI's limit from 3 to 10 requests/s."
    )
    s2_api_key: SecretStr | None = Field(None, validation_alias="S2_API_KEY")
    openalex_api_key: SecretStr | None = Field(None, validation_alias="OPENALEX_API_KEY")
    contact_email: str | None = Field(
        None, validation_alias="CONTACT_EMAIL", description="Sent as OpenAlex mailto and NCBI email (polite pools)."
    )
    results: int = Field(5, validation_alias="LIVE_RESULTS", description="Abstracts asked of each source per query.")
    queries: int = Field(
        3, validation_alias="LIVE_QUERIES", description="Queries sent to each source: claim, opposite, questions."
    )
    budget: float = Field(
        20.0, validation_alias="LIVE_BUDGET", description="Seconds all live searches of one check may take together."
    )
    timeout: float = Field(10.0, validation_alias="LIVE_TIMEOUT", description="Seconds one live request may take.")
    tries: int = Field(3, validation_alias="LIVE_TRIES")
    max_wait: float = Field(
        10.0, validation_alias="LIVE_MAX_WAIT", description="Longest Retry-After waited for before a source is skipped."
    )
    probe_timeout: float = Field(
        2.0, validation_alias="LIVE_PROBE_TIMEOUT", description="Seconds the reachability check of the hosts may take."
    )
    cache_hours: float = Field(
        168.0, validation_alias="LIVE_CACHE_HOURS", description="How long fetched responses are reused from disk."
    )

    @field_validator("sources")
    @classmethod
    def _check_sources(cls, value: str) -> str:
        return parse_sources(value)

    def selected_sources(self) -> tuple[bool, list[str]]:
        """(auto, names): auto means local plus the live sources that are reachable."""
        if self.sources == AUTO:
            return True, list(SOURCE_NAMES)
        return False, self.sources.split(",")
