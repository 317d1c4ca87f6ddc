"""User-facing command errors: one clear line and an exit code, shared by every `claimtrace` subcommand."""

from __future__ import annotations

EXIT_INPUT = 2  # the user's input cannot be used
EXIT_UNAVAILABLE = 3  # something the command needs is missing or down (index, LLM, verifier, data)
EXIT_INTERNAL = 4


class CliError(Exception):
    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code
