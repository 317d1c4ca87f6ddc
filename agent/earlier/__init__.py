"""Checked before: each kept check is findable by its claim (agent.store.kept_checks), and a new claim is read
against the nearest kept claims (``relation``) so that the user sees, before anything is searched, that the claim,
or its opposite, was checked already (``matches``)."""
