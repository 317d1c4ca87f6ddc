"""One paper from several sources is one document: dedup by DOI then PMID (transitively), ids the index knows win,
and the merged record keeps the first text with the best metadata."""

from __future__ import annotations

from tools.corpus import Abstract
from tools.live.merge import merge_results
from tools.live.normalize import keyword_query, live_doc_id, normalize_doi, normalize_pmid


def doc(source: str, native: str, doi: str | None = None, pmid: str | None = None, **extra) -> Abstract:
    return Abstract(doc_id=live_doc_id(doi, pmid, f"{source}:{native}"), title=f"{source} {native}",
                    sentences=[f"Text from {source}."], doi=doi, pmid=pmid, source=source, **extra)


def test_ids_are_stable_and_namespaced():
    assert normalize_doi("https://doi.org/10.7326/M18-2101") == "10.7326/m18-2101"
    assert normalize_doi("doi:10.1/ABC") == "10.1/abc" and normalize_doi("not a doi") is None
    assert normalize_pmid("https://pubmed.ncbi.nlm.nih.gov/30831578") == "30831578"
    assert normalize_pmid("0") is None and normalize_pmid("abc") is None
    assert live_doc_id("10.1/a", "5", "s2:x") == "doi:10.1/a"
    assert live_doc_id(None, "5", "s2:x") == "pmid:5"
    assert live_doc_id(None, None, "s2:x") == "s2:x"
    assert keyword_query("Is the MMR vaccine associated with autism?") == "MMR vaccine associated autism"


def test_dedup_by_doi_then_pmid_across_sources():
    results = [
        ("europepmc|q", [doc("europepmc", "1", "10.1/a", "5", citation_count=10), doc("europepmc", "2", "10.1/b")]),
        ("pubmed|q", [doc("pubmed", "5", None, "5"), doc("pubmed", "9", None, "9")]),
        ("openalex|q", [doc("openalex", "W1", "10.1/a", citation_count=30, venue_citedness=2.5),
                        doc("openalex", "W2")]),
        ("s2|q", [doc("s2", "p1", "10.1/b", retracted=True)]),
    ]
    ranked, docs = merge_results(results)
    assert ranked == {
        "europepmc|q": ["doi:10.1/a", "doi:10.1/b"],
        "pubmed|q": ["doi:10.1/a", "pmid:9"],  # PMID 5 is the paper with DOI 10.1/a
        "openalex|q": ["doi:10.1/a", "openalex:W2"],
        "s2|q": ["doi:10.1/b"],
    }
    assert set(docs) == {"doi:10.1/a", "doi:10.1/b", "pmid:9", "openalex:W2"}
    a = docs["doi:10.1/a"]
    assert a.title == "europepmc 1" and a.source == "europepmc"  # the first record's text
    assert a.citation_count == 30 and a.venue_citedness == 2.5 and a.pmid == "5"  # the best metadata
    assert docs["doi:10.1/b"].retracted is True  # any source's retraction counts


def test_transitive_merge_when_a_later_record_links_two_earlier_ones():
    results = [
        ("s2|q", [doc("s2", "1", "10.1/x")]),
        ("pubmed|q", [doc("pubmed", "7", None, "7")]),
        ("europepmc|q", [doc("europepmc", "7", "10.1/x", "7")]),
    ]
    ranked, docs = merge_results(results)
    assert list(docs) == ["doi:10.1/x"]
    assert ranked == {"s2|q": ["doi:10.1/x"], "pubmed|q": ["doi:10.1/x"], "europepmc|q": ["doi:10.1/x"]}


def test_the_id_the_index_already_uses_wins():
    known = {("10.1/a", None): "pmid:5", (None, "5"): "pmid:5"}

    def find(doi, pmid):
        return known.get((doi, None)) or known.get((None, pmid))

    ranked, docs = merge_results([("europepmc|q", [doc("europepmc", "1", "10.1/a", "5")])], find)
    assert ranked == {"europepmc|q": ["pmid:5"]} and list(docs) == ["pmid:5"]
    assert docs["pmid:5"].doi == "10.1/a"


def test_a_list_names_a_document_once():
    ranked, _ = merge_results([("pubmed|q", [doc("pubmed", "1", None, "1"), doc("pubmed", "1", None, "1")])])
    assert ranked == {"pubmed|q": ["pmid:1"]}
