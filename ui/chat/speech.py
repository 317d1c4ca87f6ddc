"""The language the chat speaks to its user: the language of the user's last message (tools.text.language), kept
in the session, so that the views of its turn and the buttons pressed after it speak it (tools.text.i18n). A thread
reopened speaks the language of its last check. The agent's nodes speak English whatever the chat speaks."""

from __future__ import annotations

import chainlit as cl
from chainlit.context import ChainlitContextException

from tools.text.i18n import listen
from tools.text.language import language_of

LANGUAGE = "claimtrace_language"  # user_session: the ISO 639-1 code of the language the chat speaks


def heard(text: str) -> None:
    """Speak the language of the user's message from now on."""
    cl.user_session.set(LANGUAGE, language_of(text))


def speak(language: str) -> None:
    """Speak ``language`` (an ISO 639-1 code) from now on."""
    cl.user_session.set(LANGUAGE, language)


def session_language() -> str | None:
    """The language the chat speaks to the user of the running code; None outside a chat session."""
    try:
        value = cl.user_session.get(LANGUAGE)
    except ChainlitContextException:
        return None
    return value if isinstance(value, str) else None


listen(session_language)
