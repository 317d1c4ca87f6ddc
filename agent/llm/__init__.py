"""The chat model: its client for the embedded server or any OpenAI-compatible one (``client``), one way to call it
(``calls``), whose turn it is at the LLM (``turns``: a check reading its papers first), and the scripted model the
tests use (``scripted``)."""
