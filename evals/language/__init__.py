"""Claims in the user's language: how well their language is recognised (``recognition``)."""
