"""Speed, never in timed tests: `make bench` runs `python -m evals.bench.ask` (a check's seconds, tokens and the
LLM's own rates) and `python -m evals.bench.index` (the CPU models and the index build, PyTorch beside ONNX)."""
