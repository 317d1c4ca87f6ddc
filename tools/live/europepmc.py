"""Europe PMC REST search (`/search?resultType=core&format=json`): title, abstract, journal, year, DOI/PMID,
citation count, publication types (a "Retracted Publication" type marks a retracted paper), MeSH headings, and the
corrections list ("Retraction in" marks a retracted paper; "Erratum in" and "Expression of concern in" become
notices)."""

from __future__ import annotations

import json
from typing import Any

from tools.corpus import Abstract
from tools.live.config import LiveSettings
from tools.live.http import LiveHttp, MalformedResponse, user_agent
from tools.live.normalize import each_record, keyword_query, make_abstract

NAME = "europepmc"
LABEL = "Europe PMC"
RATE = 5.0  # requests/s; Europe PMC publishes no hard limit, this stays polite
RETRACTED_TYPES = {"retracted publication"}
RETRACTION_REF = "retraction in"
NOTICE_REFS = {"erratum in": "erratum", "expression of concern in": "expression of concern"}


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def parse_record(rec: dict[str, Any]) -> Abstract | None:
    journal = ((rec.get("journalInfo") or {}).get("journal") or {}).get("title")
    type_names = [str(t) for t in _as_list((rec.get("pubTypeList") or {}).get("pubType"))]
    pub_types = [t.lower() for t in type_names]
    mesh = [h.get("descriptorName") for h in _as_list((rec.get("meshHeadingList") or {}).get("meshHeading"))]
    refs = [
        str(c.get("type") or "").strip().lower()
        for c in _as_list((rec.get("commentCorrectionList") or {}).get("commentCorrection"))
        if isinstance(c, dict)
    ]
    pmid = rec.get("pmid")
    src, rid = rec.get("source") or "MED", rec.get("id") or pmid or ""
    url = f"https://europepmc.org/article/{src}/{rid}" if rid else None
    cited = rec.get("citedByCount")
    return make_abstract(
        source=NAME,
        native_id=f"{src}/{rid}",
        title=rec.get("title"),
        abstract=rec.get("abstractText"),
        year=rec.get("pubYear"),
        venue=journal,
        doi=rec.get("doi"),
        pmid=pmid,
        url=url,
        citation_count=int(cited) if isinstance(cited, int | str) and str(cited).isdigit() else None,
        retracted=any(t in RETRACTED_TYPES for t in pub_types) or RETRACTION_REF in refs,
        publication_types=type_names,
        mesh_terms=[str(m) for m in mesh if isinstance(m, str)],
        notices=[NOTICE_REFS[r] for r in refs if r in NOTICE_REFS],
    )


def parse_search(body: str) -> list[Abstract]:
    """Abstracts of a `resultType=core` JSON answer, in the source's relevance order (records without an
    abstract are dropped)."""
    try:
        data = json.loads(body)
        results = data["resultList"]["result"]
    except (json.JSONDecodeError, KeyError, TypeError) as e:
        raise MalformedResponse(f"not a Europe PMC search result ({type(e).__name__})") from e
    if not isinstance(results, list):
        raise MalformedResponse("resultList.result is not a list")
    return each_record(parse_record, (r for r in results if isinstance(r, dict)), LABEL)


async def search(http: LiveHttp, settings: LiveSettings, query: str, k: int) -> list[Abstract]:
    params = {
        "query": f"({keyword_query(query)}) AND HAS_ABSTRACT:Y",
        "resultType": "core",
        "format": "json",
        "pageSize": k,
    }
    if settings.contact_email:
        params["email"] = settings.contact_email
    url = f"{settings.europepmc_base_url.rstrip('/')}/search"
    return await http.get(url, params, parse_search, RATE, {"User-Agent": user_agent(settings.contact_email)})
