"""Documents: study design, the user's library, references, PDF text and full texts."""
