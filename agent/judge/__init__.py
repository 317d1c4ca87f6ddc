"""The judge: the gate and the LLM's reading of bearing and direction (``calibration``, ``direction``), the sentences
shown under each paper (``rationale``), the weighing of sources (``scoring``), the verdict in words (``reckoning``)
and the consensus (``consensus``)."""
