"""`claimtrace eval scifact`: claimtrace measured on SciFact claims. `cli` is the command, `data` reads the claims
and their gold labels, `records` turns one run of a claim into a per-claim record, `metrics` computes every figure
from the records with the official SciFact rules (`scifact_metrics`), ranked retrieval (`retrieval_metrics`), the
answer checks that do not use the verifier (`answer_checks`) and the verdict's calibration (`verdict_confidence`),
`run` runs the pipeline (resumable) and writes the outputs, and `report` renders them. The studies (evals/studies/)
reuse these metrics."""
