"""The chat model: its client for the embedded server or any OpenAI-compatible one (``client``), one way to call it
(``calls``), and the scripted model the tests use (``scripted``)."""
