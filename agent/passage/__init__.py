"""Checking a passage: every checkable claim of a pasted text, extracted (extract), checked together (check), its
citations audited against the user's library (audit), and reported as one `PassageCheck` (model)."""
