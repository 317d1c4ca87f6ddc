"""`claimtrace eval scifact`: claimtrace measured on SciFact claims. `data` reads the claims and their gold labels,
`records` turns one run of a claim into a per-claim record, `metrics` computes every figure from the records, `run`
runs the pipeline (resumable) and writes the outputs; evals/report.py renders them."""
