"""Search beyond the nodes that run it: what the reranker reads of each abstract (``rerank``)."""
