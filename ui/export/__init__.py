"""A check as a file, for `claimtrace export` and the chat's Export button: JSON, a Markdown report (`markdown`),
BibTeX and RIS references (`references`); `formats.export_text` picks one."""
