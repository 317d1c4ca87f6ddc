"""What a new chat shows before the first message: claimtrace's icon, one line on what it does and what it reads, and
four example claims as Chainlit starters. Chainlit 2.12 draws a chat profile's icon and Markdown description on the
empty chat, and hides the profile picker when there is only one profile: the single profile here exists to carry
that line. A starter sends its message as if typed, so each goes through the same turn as a typed message."""

from __future__ import annotations

import chainlit as cl

NAME = "claimtrace"
ICON = "/public/favicon.svg"  # ui/chat/public/, copied to the app root's public/ (ui.chat.launch.prepare)
DESCRIPTION = (
    f"**{NAME}** checks a scientific claim against the local index of scientific abstracts, live literature "
    "sources and your own library, and answers with cited, verified sentences. Type a claim or paste a passage, "
    "or try one:"
)

# On the tiny test corpus (tests/fixtures/tiny_corpus.jsonl) and on SciFact, 103 and 45638119 report that high
# ALDH1 expression goes with poor prognosis (SciFact train claim 52, SUPPORT).
SUPPORTED = "ALDH1 expression is associated with poorer prognosis for breast cancer primary tumors."
# Two cohort studies of the tiny corpus (101, 102) and the live sources find no link.
REFUTED = "The MMR vaccine causes autism."
# No abstract of the SciFact corpus or the tiny corpus mentions sauna bathing.
NO_EVIDENCE = "Regular sauna bathing prevents migraine attacks."
# Three sentences that each state a finding: ui.chat.passage.looks_like_passage reads it as a passage, whose
# claims are listed to edit, then checked one by one (tiny corpus: 104 refutes the first, 107 and 108 support the
# others).
PASSAGE = (
    "Vitamin D supplementation reduces the risk of fractures in older adults. Daily coffee intake is associated "
    "with less advanced liver fibrosis in patients with hepatitis C. Sleeping six hours or less at age 50 is "
    "associated with a higher risk of dementia."
)

STARTERS = [
    cl.Starter(label="ALDH1 and breast cancer prognosis", message=SUPPORTED),
    cl.Starter(label="The MMR vaccine and autism", message=REFUTED),
    cl.Starter(label="Sauna bathing and migraine", message=NO_EVIDENCE),
    cl.Starter(label="A passage with three findings", message=PASSAGE),
]

PROFILE = cl.ChatProfile(name=NAME, markdown_description=DESCRIPTION, icon=ICON, default=True)
