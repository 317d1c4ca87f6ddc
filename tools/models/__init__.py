"""The CPU models: the sentence embedder, the stance verifiers and their ONNX graphs; beside the code, the committed
verifier artifacts (``verifier/``, ``sentence_verifier/``)."""
