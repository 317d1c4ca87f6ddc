"""Rules over text, with no model: opposites and claim rules, word overlap, distortion, citations, premises, passages
and the passages a full text cites."""
