"""Live literature: Europe PMC, PubMed (NCBI E-utilities), OpenAlex and Semantic Scholar as retrieval tools.

One module per source (europepmc, pubmed, openalex, s2) parses its API's real response format into the corpus
abstract model (tools.corpus.Abstract); http holds what they share (rate limits, retries, cache); sources picks the
sources of a check; retrieval runs them concurrently and merges their results; merge deduplicates by DOI/PMID.
"""
