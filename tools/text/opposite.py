"""The opposite of a claim without an LLM: its one direction word reversed ("increases" -> "decreases", "poorer
prognosis" -> "better prognosis") or its polarity flipped ("X reduces Y" -> "X does not reduce Y"). The judge
(agent/judge/direction.py) asks which of the claim and its opposite the evidence supports, and the verifier's training
(evals/training/augment.py) pairs rationales with flipped claims. Each rule applies only when it is confident; the
caller falls back to the LLM's opposite, or to the template "It is not true that ..." (``negation``, also the opposite
query that is searched beside the claim), when none does."""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

AUXILIARIES = ("is", "are", "was", "were", "does", "do", "did", "can", "may", "has", "have", "will", "could", "should")
# 3rd-person-singular verb -> base form (only these verbs are negated "X reduces Y" -> "X does not reduce Y")
_VERB_BASES = """
accelerate activate affect alter amplify attenuate benefit bind block boost cause confer contain contribute
control correlate cure decline decrease delay depend determine diminish drive elevate enhance exacerbate exist
express extend facilitate form harm impair improve increase induce influence inhibit involve lack lead limit
lower mediate modulate occur play predict prevent prolong promote protect raise reduce regulate require rescue
restore result reverse rise shorten slow stimulate suppress trigger underlie worsen
""".split()  # noqa: SIM905
VERBS_3SG = {v + "s": v for v in _VERB_BASES} | {
    "abolishes": "abolish",
    "amplifies": "amplify",
    "carries": "carry",
    "diminishes": "diminish",
    "establishes": "establish",
    "intensifies": "intensify",
    "modifies": "modify",
    "reaches": "reach",
}
_CLAUSE_MARKERS = set(
    """
    after although because before if once since that unless until when where whereas whether which while who
    whom whose
    """.split()  # noqa: SIM905
)


def _third_person(base: str) -> str:
    if base.endswith(("s", "sh", "ch", "x", "z", "o")):
        return base + "es"
    if len(base) > 1 and base.endswith("y") and base[-2] not in "aeiou":
        return base[:-1] + "ies"
    return base + "s"


def negate_claim(text: str) -> str | None:
    """Flip the polarity of a simple declarative claim, or None when no rule applies confidently.

    Rules (first main-clause match only; claims with a clause marker such as "that"/"which" before the match, a
    second negation, or a leading auxiliary are skipped):
      * "<aux> not"/"<aux>n't"/"cannot" -> "<aux>"; "does/do/did not <verb>" -> "<verb>s"/"<verb>"/"<verb>ed"
        is not supported (did not -> skipped unless a regular past form is obvious);
      * "<aux> <word>" -> "<aux> not <word>"; "no longer" stays untouched (skipped);
      * "<verb>s" (whitelisted) -> "does not <verb>".
    """
    words = text.split(" ")
    low = [w.lower().strip(",;:()") for w in words]
    n_neg = sum(w in ("not", "cannot", "no", "never", "none", "neither", "nor") or w.endswith("n't") for w in low)
    if n_neg > 1 or not words or low[0] in AUXILIARIES:
        return None
    for i, w in enumerate(low):
        if w in _CLAUSE_MARKERS:
            return None
        if i == 0:
            continue
        # --- remove an existing negation -------------------------------------------------------------------
        if w == "cannot":
            return " ".join([*words[:i], "can", *words[i + 1 :]])
        if w in AUXILIARIES and i + 1 < len(low) and low[i + 1] == "not":
            if w in ("does", "do") and i + 2 < len(low):
                verb = low[i + 2]
                if not verb.isalpha():
                    return None
                new_verb = _third_person(verb) if w == "does" else verb
                return " ".join([*words[:i], new_verb + words[i + 2][len(verb) :], *words[i + 3 :]])
            if w == "did":
                return None  # would need the past tense
            return " ".join([*words[: i + 1], *words[i + 2 :]])
        if w == "no" and low[i - 1] in ("has", "have", "had", "is", "are", "was", "were"):
            return None  # "has no effect" -> "has an effect" is too loose
        if n_neg:
            if w in ("no", "never", "none", "neither", "nor") or w.endswith("n't"):
                return None
            continue
        # --- insert a negation -----------------------------------------------------------------------------
        if w in AUXILIARIES:
            if i + 1 < len(low) and low[i + 1] in ("not", "no", "never"):
                return None
            if w in ("has", "have") and not (i + 1 < len(low) and low[i + 1].endswith(("ed", "en"))):
                do = "does" if w == "has" else "do"  # main verb "have": "X has Y" -> "X does not have Y"
                return " ".join([*words[:i], do, "not", "have", *words[i + 1 :]])
            return " ".join([*words[: i + 1], "not", *words[i + 1 :]])
        if w in VERBS_3SG and words[i] == w:  # lower-case verb, not a capitalised noun
            return " ".join([*words[:i], "does", "not", VERBS_3SG[w] + words[i][len(w) :], *words[i + 1 :]])
    return None


_OPPOSITE: dict[str, str] = {}
for _a, _b in (
    ("increase", "decrease"),
    ("increased", "decreased"),
    ("increases", "decreases"),
    ("increasing", "decreasing"),
    ("higher", "lower"),
    ("high", "low"),
    ("better", "worse"),
    ("improved", "worsened"),
    ("improves", "worsens"),
    ("improve", "worsen"),
    ("upregulated", "downregulated"),
    ("up-regulated", "down-regulated"),
    ("upregulation", "downregulation"),
    ("up-regulation", "down-regulation"),
    ("promotes", "inhibits"),
    ("promoted", "inhibited"),
    ("promote", "inhibit"),
    ("positively", "negatively"),
    ("positive", "negative"),
    ("good", "poor"),
    ("greater", "smaller"),
    ("more", "less"),
    ("enhanced", "impaired"),
    ("enhances", "impairs"),
    ("accelerated", "delayed"),
    ("prolonged", "shortened"),
):
    _OPPOSITE[_a], _OPPOSITE[_b] = _b, _a
_OPPOSITE |= {
    "reduced": "increased",
    "reduces": "increases",
    "reduce": "increase",
    "reduction": "increase",
    "lowered": "raised",
    "elevated": "reduced",
    "poorer": "better",
    "suppressed": "enhanced",
    "suppresses": "enhances",
    "attenuated": "enhanced",
}
_NEGATIONS = {"not", "no", "neither", "nor", "without", "never", "failed", "lack", "lacked", "cannot", "none"}
_TOKEN = re.compile(r"[A-Za-z][A-Za-z-]*")


def flip_direction(text: str) -> str | None:
    """The text with its one direction word (or one association / significance statement) reversed, or None."""
    words = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text)]
    low = [w.lower() for _, _, w in words]
    # _TOKEN splits a contraction at its apostrophe ("didn't" -> "didn", "t"), so contractions are found in the text
    if "n't" in text.lower() or any(w in _NEGATIONS for w in low if w != "not"):
        return None
    hits = [k for k, w in enumerate(low) if w in _OPPOSITE]
    if "not" in low:
        if hits:
            return None
        # un-negate one "not associated" / "not significant(ly)"
        at = [k for k in range(len(low) - 1) if low[k] == "not" and low[k + 1].startswith(("associated", "signific"))]
        if len(at) != 1 or low.count("not") != 1:
            return None
        start, end = words[at[0]][0], words[at[0] + 1][0]
        return text[:start] + text[end:]
    if len(hits) == 1:
        start, end, word = words[hits[0]]
        new = _OPPOSITE[word.lower()]
        new = new[0].upper() + new[1:] if word[0].isupper() else new
        return text[:start] + new + text[end:]
    if hits:
        return None
    at = [k for k, w in enumerate(low) if w in ("associated", "significant", "significantly")]
    if len(at) != 1:
        return None
    start = words[at[0]][0]
    return text[:start] + "not " + text[start:]


_CLAIM_DIRECTION = {
    "associated",
    "association",
    "correlated",
    "correlates",
    "risk",
    "prognosis",
    "protects",
    "protective",
    "effective",
    "efficacy",
    "survival",
    "mortality",
    "outcomes",
    "benefit",
}


def directional(claim: str) -> bool:
    """Whether a claim states a direction (more / less, better / worse, associated, risk): only then does reversing
    the direction of its rationale reverse the rationale's stance; for a claim such as "COPI is involved in lipid
    homeostasis" a reversed mechanism detail in the rationale would still support it."""
    low = {w.lower() for w in _TOKEN.findall(claim)}
    return bool(low & (set(_OPPOSITE) | _CLAIM_DIRECTION))


def flip_claim_direction(claim: str) -> str | None:
    """The claim with its one direction word reversed ("an increased" -> "a decreased": the article before the word
    agrees), or None."""
    if not any(w.lower() in _OPPOSITE for w in _TOKEN.findall(claim)):
        return None
    flipped = flip_direction(claim)
    if flipped is None:
        return None
    at = next(i for i, (a, b) in enumerate(zip(claim, flipped, strict=False)) if a != b)
    start = flipped.rfind(" ", 0, at) + 1  # the changed word starts here
    head = flipped[:start]
    article = re.search(r"\b([Aa])n? $", head)
    if article:
        a = article.group(1) + ("n" if flipped[start].lower() in "aeiou" else "")
        flipped = head[: article.start()] + a + " " + flipped[start:]
    return flipped


def negation(claim: str) -> str:
    """The opposite claim without an LLM: "It is not true that ..." (FRSC searches the opposite claim too). The first
    letter is lowered unless it starts an acronym or a name such as "ALDH1" or "IL-6"."""
    if not claim:
        return claim
    first = claim.split(maxsplit=1)[0]
    keep = len(first) > 1 and not first[1:].islower()
    return f"It is not true that {claim if keep else claim[0].lower() + claim[1:]}"


class Opposite(NamedTuple):
    text: str
    how: Literal["direction", "negation"]  # which rule made it


def rule_opposite(claim: str) -> Opposite | None:
    """The claim's opposite by rule: a reversed direction word first (it keeps the claim's shape, so the two
    statements differ in one word), else a flipped polarity; None when no rule applies confidently."""
    text = " ".join(claim.split())
    flipped = flip_claim_direction(text)
    if flipped:
        return Opposite(flipped, "direction")
    negated = negate_claim(text)
    if negated:
        return Opposite(negated, "negation")
    return None


# word pairs that reverse a claim beside _OPPOSITE's direction words
_ANTONYMS = (
    ("required", "dispensable"), ("necessary", "dispensable"), ("presence", "absence"), ("present", "absent"),
    ("sufficient", "insufficient"), ("agonist", "antagonist"),
)  # fmt: skip
_REVERSES = _OPPOSITE | {a: b for a, b in _ANTONYMS} | {b: a for a, b in _ANTONYMS}
_COMPARISON = {"than", "compared", "versus", "vs"}
_WORD = re.compile(r"[a-z0-9]+")


def reversal(a: str, b: str) -> str | None:
    """Why two wordings may state opposite claims however alike they read, or None: a negation only one of them
    carries ("negation"), a direction word whose reverse only the other holds ("direction": "increases" /
    "decreases", "required" / "dispensable"; "comparison" when both compare two things, whose order may undo it), a
    word only one negates by prefix ("prefix": "dependent" / "independent"), or the same words with the compared
    things swapped ("swap"). A cross-encoder reads such pairs
    as saying the same, so a claim matcher must not call them the same claim."""
    wa, wb = _WORD.findall(a.lower().replace("n't", " not")), _WORD.findall(b.lower().replace("n't", " not"))
    sa, sb = set(wa), set(wb)
    if sum(w in _NEGATIONS for w in wa) % 2 != sum(w in _NEGATIONS for w in wb) % 2:
        return "negation"
    only = sa ^ sb
    for w in only:
        o = _REVERSES.get(w)
        if o and o in only:
            # "A is higher than B" / "B is lower than A": the reversed word may undo swapped comparands
            return "comparison" if sa & _COMPARISON and sb & _COMPARISON else "direction"
        if any(w.startswith(pre) and len(w) > len(pre) + 3 and w[len(pre) :] in only for pre in ("in", "un", "non")):
            return "prefix"
    if sorted(wa) == sorted(wb) and wa != wb and sa & _COMPARISON:
        return "swap"
    return None
