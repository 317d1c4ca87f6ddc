"""The answer: answers quoted from the evidence (``compose``), the ways of writing one (``strategies``) and the check of
each answer sentence against its cited sources (``sentence_direction``)."""
