"""What the stance verifier reads as evidence: the premise.

A premise is one or more sentences of an abstract read in their place: the abstract's title, where the sentences sit
(the section a structured abstract names, and the sentence's position), the sentences themselves, then the sentence
before them::

    Title [results; sentence 5 of 9]: <evidence sentence> | before: <sentence before>

The evidence comes before its context because the verifier's tokenizer cuts a long input from the end: a long
premise loses context, never the finding (a third of SciFact's dev rationale premises are longer than 160 tokens
once the sentence before is added).

Where a sentence sits changes what it says: "Concerns persist that the MMR vaccine causes autism" in a
BACKGROUND section is a premise the study sets out to test, not its finding (the supplementary-context paper makes
the same point for evidence shown to readers). Training, reranking, assessing and verifying all build premises
here, so the verifier reads at run time what it was trained on. The premise is data: only model input, never an
instruction.
"""

from __future__ import annotations

from collections.abc import Sequence

# Characters of the sentence before the evidence that the premise carries (the judge.context_chars default).
CONTEXT_CHARS = 400

# The headings of structured abstracts (PubMed style, upper case at the start of a section's first sentence),
# mapped to four sections. _HEADINGS tries the longer ones first, so "METHODS AND RESULTS" is not read as "METHODS".
_SECTIONS: dict[str, str] = {
    "METHODS AND RESULTS": "results",
    "METHODS AND FINDINGS": "results",
    "MATERIALS AND METHODS": "methods",
    "PATIENTS AND METHODS": "methods",
    "CONCLUSIONS AND RELEVANCE": "conclusions",
    "MAIN OUTCOMES AND MEASURES": "methods",
    "MAIN OUTCOME MEASURES": "methods",
    "MAIN OUTCOME MEASURE": "methods",
    "BACKGROUND & AIMS": "background",
    "BACKGROUND": "background",
    "INTRODUCTION": "background",
    "CONTEXT": "background",
    "OBJECTIVES": "background",
    "OBJECTIVE": "background",
    "PURPOSE": "background",
    "AIMS": "background",
    "AIM": "background",
    "RATIONALE": "background",
    "IMPORTANCE": "background",
    "METHODS": "methods",
    "METHOD": "methods",
    "DESIGN": "methods",
    "SETTING": "methods",
    "SETTINGS": "methods",
    "PARTICIPANTS": "methods",
    "SUBJECTS": "methods",
    "PATIENTS": "methods",
    "INTERVENTIONS": "methods",
    "INTERVENTION": "methods",
    "DATA SOURCES": "methods",
    "STUDY SELECTION": "methods",
    "DATA EXTRACTION": "methods",
    "RESULTS": "results",
    "RESULT": "results",
    "FINDINGS": "results",
    "CONCLUSIONS": "conclusions",
    "CONCLUSION": "conclusions",
    "INTERPRETATION": "conclusions",
    "IMPLICATIONS": "conclusions",
    "SUMMARY": "conclusions",
}
_HEADINGS = sorted(_SECTIONS, key=len, reverse=True)


def heading_section(sentence: str) -> str | None:
    """The section a sentence opens, when it starts with a structured-abstract heading ("RESULTS Among ...")."""
    for head in _HEADINGS:
        if sentence.startswith(head) and sentence[len(head) : len(head) + 1] in (" ", ":"):
            return _SECTIONS[head]
    return None


def where(sentences: Sequence[str], i: int) -> str:
    """Where sentence ``i`` sits: "results; sentence 5 of 9", or "sentence 5 of 9" in an unstructured abstract."""
    position = f"sentence {i + 1} of {len(sentences)}"
    for k in range(min(i, len(sentences) - 1), -1, -1):
        section = heading_section(sentences[k])
        if section:
            return f"{section}; {position}"
    return position


def before(sentences: Sequence[str], i: int, max_chars: int = CONTEXT_CHARS) -> str:
    """The sentence before sentence ``i``, cut at ``max_chars``; empty when ``i`` opens the abstract."""
    return sentences[i - 1][:max_chars] if i > 0 else ""


def premise(title: str, text: str, *, place: str = "", context: str = "") -> str:
    """The premise string: title, the place in brackets when known, the text, then the sentence before."""
    head = f"{title} [{place}]" if place else title
    return f"{head}: {text} | before: {context}" if context else f"{head}: {text}"


def abstract_premise(
    title: str,
    sentences: Sequence[str],
    idx: Sequence[int],
    *,
    with_context: bool = True,
    max_chars: int = CONTEXT_CHARS,
) -> str:
    """The premise of sentences ``idx`` of one abstract (joined in abstract order), placed by the first of them.
    ``with_context=False`` leaves out the sentence before (training does so when that sentence is itself evidence
    of another label)."""
    order = sorted(idx)
    first = order[0]
    context = before(sentences, first, max_chars) if with_context else ""
    return premise(title, " ".join(sentences[i] for i in order), place=where(sentences, first), context=context)


# Characters of a whole abstract the reader reads: about 430 tokens, inside the 512 its encoder reads with the claim.
WHOLE_ABSTRACT_CHARS = 1900


def whole_abstract(title: str, sentences: Sequence[str], max_chars: int = WHOLE_ABSTRACT_CHARS) -> str:
    """What the abstract reader (tools.models.verifier.get_reader) reads against the claim: "Title: s1 s2 ... sn".
    An abstract longer than ``max_chars`` loses sentences after its first (background and methods, usually), marked
    "...", never its last ones, where findings and conclusions are stated: the tokenizer would otherwise cut the end.
    The claim is never cut."""
    sents = list(sentences)
    body = " ".join(sents)
    if len(body) > max_chars and len(sents) > 2:
        keep_head, tail = sents[:1], sents[1:]
        while tail and len(" ".join([*keep_head, "...", *tail])) > max_chars:
            tail = tail[1:]
        body = " ".join([*keep_head, "...", *tail]) if tail else " ".join(keep_head)
    return premise(title, body[: max_chars + 200])
