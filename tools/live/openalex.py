"""OpenAlex works search (`/works?search=`): the abstract comes as `abstract_inverted_index` (word -> positions) and
is rebuilt into text; venue, year, DOI, PMID, citation count and `is_retracted` come with it.

Venue signal: the 2-year mean citedness of the work's source needs a second request to `/sources`; it is made once
per search for all sources not yet known (one batched, cached request), and a failure there only loses the signal."""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

from tools.corpus import Abstract
from tools.live.config import LiveSettings
from tools.live.http import LiveHttp, MalformedResponse, SourceError, user_agent
from tools.live.normalize import each_record, keyword_query, make_abstract

log = logging.getLogger(__name__)

NAME = "openalex"
LABEL = "OpenAlex"
RATE = 5.0  # OpenAlex allows 10 requests/s; half of it leaves room for other users of the same address
WORK_FIELDS = "id,doi,title,display_name,publication_year,primary_location,cited_by_count,is_retracted,ids," \
    "abstract_inverted_index,type"
# OpenAlex work types that name a design; its "review" covers systematic reviews too, so the words decide those
OPINION_TYPES = {"editorial": "Editorial", "letter": "Letter"}
MAX_SOURCE_IDS = 50  # ids per /sources request (OpenAlex's OR filter takes up to 100)

_citedness: dict[str, float | None] = {}  # OpenAlex source id -> 2yr_mean_citedness, for the process
_citedness_lock = threading.Lock()


def abstract_from_inverted_index(index: Any) -> str:
    """Text of an `abstract_inverted_index` ({"word": [positions]}); empty when absent or not of that shape."""
    if not isinstance(index, dict):
        return ""
    slots: dict[int, str] = {}
    for word, positions in index.items():
        if not isinstance(positions, list):
            continue
        for pos in positions:
            if isinstance(pos, int) and pos >= 0:
                slots[pos] = str(word)
    return " ".join(slots[i] for i in sorted(slots))


def short_id(openalex_id: str | None) -> str | None:
    """"https://openalex.org/S123" -> "S123"."""
    if not openalex_id:
        return None
    return str(openalex_id).rstrip("/").rsplit("/", 1)[-1] or None


def parse_work(work: dict[str, Any]) -> tuple[Abstract, str | None] | None:
    """The abstract of one work and the id of its source (venue), or None without an abstract."""
    location = work.get("primary_location") or {}
    source = location.get("source") or {}
    ids = work.get("ids") or {}
    cited = work.get("cited_by_count")
    doi = work.get("doi") or ids.get("doi")
    wid = short_id(work.get("id")) or ""
    abstract = make_abstract(
        source=NAME,
        native_id=wid,
        title=work.get("title") or work.get("display_name"),
        abstract=abstract_from_inverted_index(work.get("abstract_inverted_index")),
        year=work.get("publication_year"),
        venue=source.get("display_name"),
        doi=doi,
        pmid=ids.get("pmid"),
        url=location.get("landing_page_url") or work.get("id"),
        citation_count=cited if isinstance(cited, int) else None,
        retracted=work.get("is_retracted") is True,
        publication_types=[OPINION_TYPES[t] for t in [work.get("type")] if t in OPINION_TYPES],
    )
    if abstract is None:
        return None
    if abstract.doi:  # the DOI link is the one a reader can open anywhere
        abstract = abstract.model_copy(update={"url": f"https://doi.org/{abstract.doi}"})
    return abstract, short_id(source.get("id"))


def parse_works(body: str) -> list[tuple[Abstract, str | None]]:
    try:
        results = json.loads(body)["results"]
    except (json.JSONDecodeError, KeyError, TypeError) as e:
        raise MalformedResponse(f"not an OpenAlex works list ({type(e).__name__})") from e
    if not isinstance(results, list):
        raise MalformedResponse("results is not a list")
    return each_record(parse_work, (w for w in results if isinstance(w, dict)), LABEL)


def parse_sources(body: str) -> dict[str, float | None]:
    """Source id -> summary_stats.2yr_mean_citedness of an OpenAlex `/sources` list."""
    try:
        results = json.loads(body)["results"]
        out: dict[str, float | None] = {}
        for src in results:
            sid = short_id(src.get("id"))
            value = (src.get("summary_stats") or {}).get("2yr_mean_citedness")
            if sid:
                out[sid] = float(value) if isinstance(value, int | float) else None
        return out
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as e:
        raise MalformedResponse(f"not an OpenAlex sources list ({type(e).__name__})") from e


def _params(settings: LiveSettings, **extra: Any) -> dict[str, Any]:
    params: dict[str, Any] = dict(extra)
    if settings.contact_email:
        params["mailto"] = settings.contact_email
    if settings.openalex_api_key:
        params["api_key"] = settings.openalex_api_key.get_secret_value()
    return params


async def venue_citedness(http: LiveHttp, settings: LiveSettings, source_ids: set[str]) -> dict[str, float | None]:
    """2-year mean citedness of the given sources: from the process's memory, else one batched request."""
    with _citedness_lock:
        missing = sorted(s for s in source_ids if s not in _citedness)[:MAX_SOURCE_IDS]
    if missing:
        try:
            found = await http.get(
                f"{settings.openalex_base_url.rstrip('/')}/sources",
                _params(
                    settings,
                    filter="openalex:" + "|".join(missing),
                    select="id,display_name,summary_stats",
                    **{"per-page": len(missing)},
                ),
                parse_sources,
                RATE,
                {"User-Agent": user_agent(settings.contact_email)},
            )
        except SourceError as e:
            log.info("OpenAlex venue lookup failed (%s); venue citedness unknown", e.reason)
            return {}
        with _citedness_lock:
            for sid in missing:
                _citedness[sid] = found.get(sid)
    with _citedness_lock:
        return {s: _citedness.get(s) for s in source_ids}


async def search(http: LiveHttp, settings: LiveSettings, query: str, k: int) -> list[Abstract]:
    works = await http.get(
        f"{settings.openalex_base_url.rstrip('/')}/works",
        _params(
            settings,
            search=keyword_query(query),
            filter="has_abstract:true",
            select=WORK_FIELDS,
            **{"per-page": k},
        ),
        parse_works,
        RATE,
        {"User-Agent": user_agent(settings.contact_email)},
    )
    source_ids = {sid for _, sid in works if sid}
    citedness = await venue_citedness(http, settings, source_ids) if source_ids else {}
    return [
        doc.model_copy(update={"venue_citedness": citedness.get(sid)}) if sid and citedness.get(sid) is not None
        else doc
        for doc, sid in works
    ]
