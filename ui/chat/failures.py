"""The one message for a turn that failed in a way the user can act on: something the check needs is unavailable,
or the data directory's disk cannot take the turn's result."""

from __future__ import annotations

import chainlit as cl

from agent.llm.client import LLMUnavailableError
from agent.store.checkpoint import CheckpointUnavailableError
from tools.admission import AdmissionUnavailableError
from tools.files import storage_problem
from tools.index.errors import IndexMissingError
from tools.models.verifier import VerifierArtifactError
from ui.shared.untrusted import md

# what a check needs that can be missing or down: the turn says so in one message
UNAVAILABLE = (
    LLMUnavailableError, IndexMissingError, VerifierArtifactError, CheckpointUnavailableError, AdmissionUnavailableError
)


def failure_text(e: BaseException) -> str | None:
    """The one message for a turn that could not run (something it needs is unavailable) or whose result could not
    be saved (the data directory's disk is full or read-only); None for an error nobody foresaw."""
    if isinstance(e, UNAVAILABLE):
        return f"⚠️ The check could not run: {md(str(e))}"
    if (problem := storage_problem(e)) is not None:
        return f"⚠️ This turn could not be saved: {md(problem)}. The thread keeps everything before it."
    return None


async def report_failure(e: Exception) -> None:
    """Say why a turn failed when it is a failure the user can act on (`failure_text`); re-raise any other."""
    if (shown := failure_text(e)) is None:
        raise e
    await cl.Message(content=shown).send()
