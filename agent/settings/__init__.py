"""Settings, read once from the environment and passed down: the app's (``app``) and the judge's (``judge``)."""
