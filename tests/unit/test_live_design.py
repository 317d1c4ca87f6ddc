"""What the live sources say about a paper's design and standing: publication types, MeSH descriptors, errata and
expressions of concern, kept through parsing and merging, and read by the design classifier before the words."""

from __future__ import annotations

from tests.live_fakes import europepmc_record, fixture
from tools.corpus import Abstract
from tools.documents.design import classify
from tools.live import europepmc, openalex, pubmed
from tools.live.merge import combine

MESH = """<MeshHeadingList>
            <MeshHeading><DescriptorName UI="D001321" MajorTopicYN="Y">Autistic Disorder</DescriptorName></MeshHeading>
            <MeshHeading><DescriptorName UI="D015331" MajorTopicYN="N">Cohort Studies</DescriptorName></MeshHeading>
        </MeshHeadingList>
    </MedlineCitation>
    <PubmedData>
        <ArticleIdList>
            <ArticleId IdType="pubmed">30831578</ArticleId>"""
ERRATUM = """</Article>
        <CommentsCorrectionsList>
            <CommentsCorrections RefType="ErratumIn"><RefSource>AIM 2019</RefSource></CommentsCorrections>
            <CommentsCorrections RefType="ExpressionOfConcernIn"><RefSource>AIM 2020</RefSource></CommentsCorrections>
            <CommentsCorrections RefType="CommentIn"><RefSource>AIM 2019</RefSource></CommentsCorrections>
        </CommentsCorrectionsList>
    </MedlineCitation>
    <PubmedData>
        <ArticleIdList>
            <ArticleId IdType="pubmed">30831578</ArticleId>"""
HVIID_TAIL = """</Article>
    </MedlineCitation>
    <PubmedData>
        <ArticleIdList>
            <ArticleId IdType="pubmed">30831578</ArticleId>"""


def hviid(body: str) -> Abstract:
    return next(d for d in pubmed.parse_efetch(body) if d.pmid == "30831578")


def test_pubmed_keeps_publication_types_and_mesh_and_the_design_follows_them():
    body = fixture("pubmed_efetch.xml")
    plain = hviid(body)
    assert plain.publication_types == ["Journal Article", "Research Support, Non-U.S. Gov't"]
    assert plain.mesh_terms == [] and plain.notices == []
    with_mesh = hviid(body.replace(HVIID_TAIL, "</Article>\n        " + MESH))
    assert with_mesh.mesh_terms == ["Autistic Disorder", "Cohort Studies"]
    call = classify(with_mesh)
    assert (call.design, call.basis, call.cue) == ("cohort", "MeSH", "cohort studies")


def test_pubmed_errata_and_expressions_of_concern_become_notices_but_not_a_retraction():
    doc = hviid(fixture("pubmed_efetch.xml").replace(HVIID_TAIL, ERRATUM))
    assert doc.notices == ["erratum", "expression of concern"]  # a comment is no notice
    assert doc.retracted is False


def test_europepmc_types_mesh_and_corrections():
    rec = europepmc_record(
        "1", "Statins and heart attacks", "We pooled twelve trials of statins and found fewer heart attacks.",
        pubTypeList={"pubType": ["Journal Article", "Meta-Analysis"]},
        meshHeadingList={"meshHeading": [{"majorTopic_YN": "N", "descriptorName": "Humans"}]},
        commentCorrectionList={"commentCorrection": [
            {"id": "2", "source": "MED", "type": "Erratum in"},
            {"id": "3", "source": "MED", "type": "Expression of concern in"},
        ]},
    )
    doc = europepmc.parse_record(rec)
    assert doc is not None
    assert doc.publication_types == ["Journal Article", "Meta-Analysis"] and doc.mesh_terms == ["Humans"]
    assert doc.notices == ["erratum", "expression of concern"] and doc.retracted is False
    assert classify(doc).design == "meta_analysis" and classify(doc).basis == "publication type"
    retracted = europepmc.parse_record(
        {**rec, "commentCorrectionList": {"commentCorrection": {"id": "4", "type": "Retraction in"}}}
    )
    assert retracted is not None and retracted.retracted is True


def test_openalex_names_only_opinion_types():
    work = {"id": "https://openalex.org/W1", "title": "On statins", "type": "editorial",
            "abstract_inverted_index": {"Statins": [0], "are": [1], "overused.": [2]}}
    parsed = openalex.parse_work(work)
    assert parsed is not None and parsed[0].publication_types == ["Editorial"]
    assert classify(parsed[0]).design == "narrative_review"
    review = openalex.parse_work({**work, "type": "review"})
    assert review is not None and review[0].publication_types == []  # a systematic review is a "review" too


def test_merging_keeps_the_union_of_what_each_source_said():
    a = Abstract(doc_id="doi:1", title="t", sentences=["s"], publication_types=["Journal Article"], notices=["erratum"])
    b = Abstract(doc_id="doi:1", title="t", sentences=["s"], publication_types=["Journal Article", "Review"],
                 mesh_terms=["Humans"], notices=["expression of concern"])
    merged = combine(a, b)
    assert merged.publication_types == ["Journal Article", "Review"] and merged.mesh_terms == ["Humans"]
    assert merged.notices == ["erratum", "expression of concern"]
