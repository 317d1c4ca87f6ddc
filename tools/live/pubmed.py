"""NCBI E-utilities: `esearch.fcgi` (JSON id list, relevance order) then `efetch.fcgi` (PubmedArticleSet XML with
the abstracts). Labelled abstract sections are kept as "LABEL: text"; a "Retracted Publication" publication type or
a RetractionIn correction marks a retracted paper, and ErratumIn / ExpressionOfConcernIn corrections become notices.
Publication types and MeSH descriptors are kept for the study design (tools.documents.design). PubMed reports no
citation counts.

NCBI allows 3 requests/s without an API key and 10 with one (NCBI_API_KEY); `tool` and `email` identify us."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from tools.corpus import Abstract
from tools.live.config import LiveSettings
from tools.live.http import LiveHttp, MalformedResponse, user_agent
from tools.live.normalize import each_record, keyword_query, make_abstract

NAME = "pubmed"
LABEL = "PubMed"
TOOL = "claimtrace"
# CommentsCorrections RefTypes that are published notices about the paper (a retraction zeroes its weight instead)
NOTICE_REFS = {"ErratumIn": "erratum", "ExpressionOfConcernIn": "expression of concern"}


def rate(settings: LiveSettings) -> float:
    return 10.0 if settings.ncbi_api_key else 3.0


def parse_esearch(body: str) -> list[str]:
    """PMIDs of an esearch JSON answer, best first."""
    try:
        result = json.loads(body)["esearchresult"]
        ids = result["idlist"]
    except (json.JSONDecodeError, KeyError, TypeError) as e:
        raise MalformedResponse(f"not an esearch result ({type(e).__name__})") from e
    if not isinstance(ids, list):
        raise MalformedResponse("esearchresult.idlist is not a list")
    return [str(i) for i in ids if str(i).isdigit()]


def _text(el: ET.Element | None) -> str:
    return " ".join("".join(el.itertext()).split()) if el is not None else ""


def _abstract_text(article: ET.Element) -> str:
    parts = []
    for section in article.findall("Abstract/AbstractText"):
        text = _text(section)
        if not text:
            continue
        label = (section.get("Label") or "").strip()
        parts.append(f"{label.rstrip(':')}: {text}" if label else text)
    return " ".join(parts)


def _year(article: ET.Element) -> str | None:
    pub_date = article.find("Journal/JournalIssue/PubDate")
    if pub_date is not None:
        year = pub_date.findtext("Year") or (pub_date.findtext("MedlineDate") or "")[:4]
        if year.strip():
            return year.strip()
    return article.findtext("ArticleDate/Year")


def _doi(node: ET.Element, article: ET.Element) -> str | None:
    for aid in node.findall("PubmedData/ArticleIdList/ArticleId"):
        if aid.get("IdType") == "doi" and aid.text:
            return aid.text
    for loc in article.findall("ELocationID"):
        if loc.get("EIdType") == "doi" and loc.text:
            return loc.text
    return None


def parse_article(node: ET.Element) -> Abstract | None:
    citation = node.find("MedlineCitation")
    article = citation.find("Article") if citation is not None else None
    if citation is None or article is None:
        return None
    pmid = (citation.findtext("PMID") or "").strip()
    type_names = [_text(t) for t in article.findall("PublicationTypeList/PublicationType")]
    pub_types = {t.lower() for t in type_names}
    refs = [c.get("RefType") or "" for c in citation.findall("CommentsCorrectionsList/CommentsCorrections")]
    return make_abstract(
        source=NAME,
        native_id=pmid,
        title=_text(article.find("ArticleTitle")),
        abstract=_abstract_text(article),
        year=_year(article),
        venue=_text(article.find("Journal/Title")) or None,
        doi=_doi(node, article),
        pmid=pmid,
        url=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/" if pmid else None,
        retracted="retracted publication" in pub_types or "RetractionIn" in refs,
        publication_types=type_names,
        mesh_terms=[_text(d) for d in citation.findall("MeshHeadingList/MeshHeading/DescriptorName")],
        notices=[NOTICE_REFS[r] for r in refs if r in NOTICE_REFS],
    )


def parse_efetch(body: str) -> list[Abstract]:
    """Abstracts of an efetch PubmedArticleSet (articles without an abstract are dropped)."""
    try:
        root = ET.fromstring(body)
    except ET.ParseError as e:
        raise MalformedResponse(f"not XML ({e})") from e
    if root.tag != "PubmedArticleSet":
        raise MalformedResponse(f"root element is <{root.tag}>, not <PubmedArticleSet>")
    return each_record(parse_article, root.findall("PubmedArticle"), LABEL)


def _params(settings: LiveSettings, **extra: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"db": "pubmed", "tool": TOOL, **extra}
    if settings.contact_email:
        params["email"] = settings.contact_email
    if settings.ncbi_api_key:
        params["api_key"] = settings.ncbi_api_key.get_secret_value()
    return params


async def search(http: LiveHttp, settings: LiveSettings, query: str, k: int) -> list[Abstract]:
    base = settings.ncbi_base_url.rstrip("/")
    headers = {"User-Agent": user_agent(settings.contact_email)}
    pmids = await http.get(
        f"{base}/esearch.fcgi",
        _params(settings, term=keyword_query(query), retmode="json", retmax=k, sort="relevance"),
        parse_esearch,
        rate(settings),
        headers,
    )
    if not pmids:
        return []
    docs = await http.get(
        f"{base}/efetch.fcgi",
        _params(settings, id=",".join(pmids), retmode="xml", rettype="abstract"),
        parse_efetch,
        rate(settings),
        headers,
    )
    order = {p: i for i, p in enumerate(pmids)}
    return sorted(docs, key=lambda d: order.get(d.pmid or "", len(order)))
