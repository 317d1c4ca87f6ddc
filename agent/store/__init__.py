"""What a conversation keeps: its checkpoints (``checkpoint``), the list of threads (``threads``) and the user's
feedback (``feedback``)."""
