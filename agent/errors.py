"""User-facing command errors: one clear line and an exit code, shared by every `claimtrace` subcommand."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

EXIT_INPUT = 2  # the user's input cannot be used
EXIT_UNAVAILABLE = 3  # something the command needs is missing or down (index, LLM, verifier, data)
EXIT_INTERNAL = 4


class CliError(Exception):
    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


@contextmanager
def unavailable_parts() -> Iterator[None]:
    """What a check needs that is missing or down (the index, the LLM, the verifier's artifact) as one CliError
    whose message says which and what to do, with EXIT_UNAVAILABLE."""
    from agent.llm.client import LLMUnavailableError
    from tools.index.errors import IndexMissingError
    from tools.models.verifier import VerifierArtifactError

    try:
        yield
    except (IndexMissingError, LLMUnavailableError, VerifierArtifactError) as e:
        raise CliError(str(e), EXIT_UNAVAILABLE) from e
