"""Search beyond the nodes that run it: the evidence score of each abstract the reranker node (agent.nodes.rerank)
reorders (``abstract_evidence``)."""
