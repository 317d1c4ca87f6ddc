"""Semantic Scholar Graph API relevance search (`/paper/search`): title, abstract, year, venue, external ids
(DOI, PubMed), citation count and URL. S2 reports no retractions. The public pool allows about one request per
second; an S2_API_KEY (sent as `x-api-key`) gets a dedicated limit."""

from __future__ import annotations

import json
from typing import Any

from tools.corpus import Abstract
from tools.live.config import LiveSettings
from tools.live.http import LiveHttp, MalformedResponse, user_agent
from tools.live.normalize import each_record, keyword_query, make_abstract

NAME = "s2"
LABEL = "Semantic Scholar"
RATE = 1.0
FIELDS = "title,abstract,year,venue,externalIds,citationCount,url,publicationTypes"


def parse_paper(paper: dict[str, Any]) -> Abstract | None:
    ext = paper.get("externalIds") or {}
    cited = paper.get("citationCount")
    return make_abstract(
        source=NAME,
        native_id=str(paper.get("paperId") or ""),
        title=paper.get("title"),
        abstract=paper.get("abstract"),
        year=paper.get("year"),
        venue=paper.get("venue"),
        doi=ext.get("DOI"),
        pmid=ext.get("PubMed"),
        url=paper.get("url"),
        citation_count=cited if isinstance(cited, int) else None,
    )


def parse_search(body: str) -> list[Abstract]:
    """Abstracts of a `/paper/search` answer (S2 leaves `data` out when nothing matched)."""
    try:
        data = json.loads(body)
        if not isinstance(data, dict) or ("data" not in data and "total" not in data):
            raise KeyError("data")
        papers = data.get("data") or []
    except (json.JSONDecodeError, KeyError) as e:
        raise MalformedResponse(f"not a Semantic Scholar search result ({type(e).__name__})") from e
    if not isinstance(papers, list):
        raise MalformedResponse("data is not a list")
    return each_record(parse_paper, (p for p in papers if isinstance(p, dict)), LABEL)


async def search(http: LiveHttp, settings: LiveSettings, query: str, k: int) -> list[Abstract]:
    headers = {"User-Agent": user_agent(settings.contact_email)}
    if settings.s2_api_key:
        headers["x-api-key"] = settings.s2_api_key.get_secret_value()
    return await http.get(
        f"{settings.s2_base_url.rstrip('/')}/paper/search",
        {"query": keyword_query(query), "limit": k, "fields": FIELDS},
        parse_search,
        RATE,
        headers,
    )
