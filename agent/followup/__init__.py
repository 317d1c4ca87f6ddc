"""The conversation around checks: one thread graph per chat thread (checkpointed by thread id).

route -> check (a new evidence check: the claim pipeline of agent.graph)
      -> sources (the exact source sentences behind answer sentence N; no LLM)
      -> answer (a follow-up answered from the evidence already held, verified like the main answer)
"""
