"""Which sentences of a passage state a checkable scientific finding, and each one as a claim that stands alone, by
rules (no LLM): the default way a passage is split, and what stands when the LLM's rewrite fails its checks.

A sentence is checkable when it states, as fact, a relation a literature search could support or refute: an
effect, association, difference, cause, mechanism, predictive value or rate. It is not when it states an aim, a
method, the study sample, a hedged possibility, a recommendation, or motivation without a specific relation. The
rules look for a relation word, then for what disqualifies; each answer carries its reason, shown to the user.

A claim stands alone when a reader without the passage can tell what it is about: the rules remove the reporting
frame ("These results suggest that ..."), expand abbreviations the passage defines (the "long form (SHORT)"
pattern of Schwartz and Hearst, "A simple algorithm for identifying abbreviation definitions in biomedical text",
2003) and name what is left unresolved (a leading "It", "these patients"), which the LLM is then asked to resolve.
"""

from __future__ import annotations

import re

from tools.text.i18n import written

_FLAGS = re.IGNORECASE
# verbs and phrases that state a relation between two things
_RELATION = re.compile(
    r"\b(associat\w*|correlat\w*|linked|link\b|relat(?:ed|ionship)|predict\w*|increas\w*|decreas\w*|reduc\w*|"
    r"lower\w*|higher|rais\w*|elevat\w*|improv\w*|worsen\w*|impair\w*|enhanc\w*|inhibit\w*|suppress\w*|block\w*|"
    r"activat\w*|induc\w*|promot\w*|prevent\w*|protect\w*|caus\w*|lead(?:s)? to|led to|result(?:s|ed)? in|"
    r"contribut\w*|requir\w*|essential|necessary|sufficient|regulat\w*|mediat\w*|modulat\w*|depend\w*|"
    r"affect\w*|alter\w*|chang\w*|differ\w*|effect\w*|efficac\w*|effective|benefi\w*|risk|odds|hazard|"
    r"incidence|prevalen\w*|mortality|surviv\w*|outperform\w*|superior|inferior|than|compared|versus|"
    r"toxic\w*|safe|bind\w*|interact\w*|express\w*|encod\w*|confer\w*|drive[sn]?|driving|trigger\w*|"
    r"attenuat\w*|exacerbat\w*|accelerat\w*|delay\w*|restor\w*|rescu\w*|abolish\w*|abrogat\w*|"
    r"sensitiv\w*|specific\w*|accura\w*|marker|marks?|prognos\w*|cataly[sz]\w*|exhibit\w*|confirm\w*|"
    r"explain\w*|significant\w*|present in|found in|detected in|occur\w* in|factor of|cure\w*|treat\w*|"
    r"no (?:significant )?(?:difference|effect)|"
    r"did not|does not|do not|was not|were not|is not|are not|failed to)\b",
    _FLAGS,
)
# a rate or a tested difference: "56% of the programs", "(P = 0.03)"
_RATE = re.compile(r"\d(?:\.\d+)?\s?%|\bP\s?[<=]\s?0?\.\d", _FLAGS)
# the study's aim or question
_AIM = re.compile(
    r"\b(we (?:aimed|sought|set out|wished|wanted|asked|investigated whether|examined whether|tested whether|"
    r"assessed whether|hypothesi[sz]ed)|(?:the |our )?(?:aim|objective|purpose|goal)s? (?:of|was|were|is)|"
    r"to (?:investigate|determine|evaluate|assess|examine|explore|test) (?:whether|if|how|the)|"
    r"this (?:study|paper|review|article) (?:aims|examines|investigates|describes|reviews|discusses)|"
    r"^(?:objective|aims?|purpose|background|methods?)s?\s*:|"
    r"here,? we (?:investigate|examine|describe|review|discuss|report on|asked))",
    _FLAGS,
)
# how the study was done or who took part
_METHOD = re.compile(
    r"\b(were (?:randomi[sz]ed|recruited|enrolled|assigned|allocated|included|excluded|selected|followed|"
    r"interviewed|measured|collected|analy[sz]ed|obtained|genotyped|treated with|given|fed|injected|exposed|"
    r"identified using|calculated|estimated using)|was (?:measured|assessed|collected|analy[sz]ed|obtained|"
    r"calculated|performed|conducted|used)|we (?:used|measured|performed|conducted|recruited|enrolled|collected|"
    r"analy[sz]ed|studied|surveyed|interviewed|reviewed|searched|designed|developed|generated|constructed|"
    r"applied|compared)|using (?:a|an|the) (?:\w+ )?(?:model|approach|method|design|survey|questionnaire)|"
    r"(?:data|samples) (?:were|was) |(?:cohort|randomi[sz]ed|cross-sectional|case-control) (?:study|trial) "
    r"(?:of|in|among|with)|^(?:in|among) (?:a|this) (?:prospective|retrospective|randomi[sz]ed|cohort|"
    r"population-based|cross-sectional)|participants|mean age|median age|median follow-up)\b",
    _FLAGS,
)
# a finding reported by the study ("we show that", "X was associated with"): outweighs a method word
_REPORTED = re.compile(
    r"\b(we (?:show|showed|found|find|demonstrate[ds]?|report that|observed|identified|conclude|establish\w*|"
    r"reveal\w*|provide evidence)|(?:results|data|findings|analys[ie]s|evidence) (?:show|showed|suggest\w*|"
    r"indicate\w*|demonstrate\w*|reveal\w*|support\w*|confirm\w*|provide)|(?:was|were) (?:significantly |"
    r"strongly |independently |inversely |positively |negatively )?(?:associated|correlated|linked|"
    r"higher|lower|greater|reduced|increased|decreased))\b",
    _FLAGS,
)
# a possibility, not a finding: a modal verb or a hypothesis ("suggest that" reports a conclusion, and stays)
_HEDGE = re.compile(
    r"\b(may|might|could|would|possibly|perhaps|we (?:hypothesi[sz]e|propose|speculate|postulate)|"
    r"it is (?:possible|conceivable|tempting)|remains? (?:unclear|unknown|to be)|is (?:unclear|unknown)|"
    r"little is known|further (?:studies|research|work|investigation)|warrant\w*|should|need to be|"
    r"needed|potential(?:ly)?|hypothes[ie]s|promising|poorly understood|not (?:well|fully) understood|"
    r"(?:is|are) unknown|implications|insights?)\b",
    _FLAGS,
)
# advice, not a finding
_ADVICE = re.compile(
    r"\b(must be|must|needs? to|requires? (?:expert|careful|a skilled)|recommend\w*|is advised|advisable|"
    r"careful consideration)\b",
    _FLAGS,
)
_QUESTION = re.compile(r"\?\s*$")
# a structured abstract's heading at the start of a sentence ("OBJECTIVE To ...", "ConclusionsMost ..."): an aim or
# a methods heading makes the sentence one; any other heading is removed before the rules read it
_AIM_HEAD = re.compile(r"^(?:OBJECTIVES?|AIMS?|PURPOSE|GOALS?|Objectives?(?=[A-Z])|Aims?(?=[A-Z])|Purpose(?=[A-Z]))")
_METHOD_HEAD = re.compile(
    r"^(?:MAIN OUTCOMES?(?: AND)? MEASURES?|OUTCOME MEASURES?|EXPOSURES?|INTERVENTIONS?|MATERIALS AND METHODS|"
    r"METHODS?|DESIGN|SETTINGS?|PARTICIPANTS|PATIENTS|DATA SOURCES|STUDY SELECTION|DATA EXTRACTION|"
    r"EVIDENCE ACQUISITION|Methods?(?=[A-Z])|Design(?=[A-Z])|Figure \d+|Table \d+)\b"
)
_OTHER_HEAD = re.compile(
    r"^(?:BACKGROUND|CONTEXT|INTRODUCTION|IMPORTANCE|RESULTS?|FINDINGS|CONCLUSIONS?(?: AND RELEVANCE)?|"
    r"INTERPRETATION|EVIDENCE SYNTHESIS|(?:Background|Context|Results?|Conclusions?)(?=[A-Z]))\b:?\s*"
)
# a leading subordinate clause ("Although the cause is unknown, ...") and the second clause after "; however"
# or ", but": a hedge there does not make the main finding a possibility
_CLAUSES = re.compile(
    r"^(?:although|while|whereas|despite|though)\b[^,]*,\s*|\s*(?:;\s*however,?|,?\s+but)\s+.*$", _FLAGS
)
_MIN_WORDS = 5

# the reporting frame around a finding: removed, the finding is the claim
_FRAME = re.compile(
    r"^(?:(?:in (?:conclusion|summary|short)|taken together|together|overall|collectively|importantly|"
    r"moreover|furthermore|additionally|in addition|notably|thus|therefore|hence|consequently|however|"
    r"finally|here|in this study|in our (?:study|cohort|sample|analysis)),?\s+)*"
    r"(?:(?:these|our|the|this|such) (?:\w+ ){0,2}?(?:results|data|findings|observations|studies|study|"
    r"analys[ie]s|experiments|evidence) (?:\w+ly |also )?(?:show|showed|shows|suggest|suggests|suggested|indicate|"
    r"indicates|indicated|demonstrate|demonstrates|demonstrated|reveal|reveals|revealed|support|supports|"
    r"confirm|confirms|establish|establishes|provide evidence|imply|implies|found|find|finds|report|reports|"
    r"reported)|we (?:\w+ly |also )?(?:show|showed|"
    r"found|find|demonstrate|demonstrated|report|observed|conclude|concluded|establish|established|reveal|"
    r"revealed|provide evidence|identify|identified)|it was (?:found|shown|observed|demonstrated))"
    r"\s+(?:that\s+)?",
    _FLAGS,
)
_LEAD_WORDS = re.compile(
    r"^(?:(?:in (?:conclusion|summary)|taken together|overall|moreover|furthermore|additionally|in addition|"
    r"notably|importantly|thus|therefore|hence|consequently|however|finally),?\s+)+",
    _FLAGS,
)
# a word that points back into the passage: the claim cannot stand alone with it
_ANAPHOR = re.compile(
    r"^(?:it|they|this|these|those|such|its|their|he|she|both|the latter|the former)\b|"
    r"\b(?:this|these|those|such|the same|the latter|the former) (?:\w+ )?(?:drug|drugs|compound|compounds|"
    r"treatment|treatments|intervention|therapy|therapies|effect|effects|patients|participants|children|"
    r"women|men|mice|rats|cells|gene|genes|protein|proteins|mutation|mutations|variant|variants|pathway|"
    r"mechanism|factor|factors|exposure|condition|disease|group|groups|population|cohort|finding|findings|"
    r"association|agent|agents|molecule|molecules|receptor|receptors|enzyme|model|change|changes)\b",
    _FLAGS,
)
_ABBREV_DEF = re.compile(r"\(([A-Za-z][A-Za-z0-9\-]{1,9}s?)\)")


def checkable(sentence: str) -> tuple[bool, str]:
    """Whether a sentence (citations removed) states a checkable finding, and why in a few words."""
    text = sentence.strip()
    if _QUESTION.search(text):
        return False, written("a question")
    if _AIM_HEAD.match(text):
        return False, written("states an aim")
    if _METHOD_HEAD.match(text):
        return False, written("describes methods or participants")
    text = _OTHER_HEAD.sub("", text, count=1)
    if len(text.split()) < _MIN_WORDS:
        return False, written("too short to state a finding")
    if _AIM.search(text):
        return False, written("states an aim")
    main = _CLAUSES.sub("", frame_removed(text))
    if _ADVICE.search(main):
        return False, written("a recommendation or opinion")
    if _HEDGE.search(main):
        return False, written("a possibility, not a finding")
    reported = bool(_REPORTED.search(text))
    if not reported and _METHOD.search(text):
        return False, written("describes methods or participants")
    if not reported and not _RELATION.search(text) and not _RATE.search(text):
        return False, written("states no relation")
    return True, "states a finding"


def frame_removed(sentence: str) -> str:
    """The finding without its reporting frame ("These results suggest that X" -> "X"), first letter raised."""
    text = _OTHER_HEAD.sub("", sentence.strip(), count=1)
    stripped = _FRAME.sub("", text, count=1)
    if stripped == text:
        stripped = _LEAD_WORDS.sub("", text, count=1)
    stripped = stripped.strip()
    if len(stripped.split()) < 3:
        return text
    return stripped[0].upper() + stripped[1:]


def abbreviations(text: str) -> dict[str, str]:
    """Abbreviations the text defines as "long form (SHORT)": SHORT -> long form. The long form is the shortest run
    of words before the parenthesis whose first word starts with SHORT's first letter and that holds SHORT's
    letters in order (Schwartz and Hearst's rule, on words)."""
    found: dict[str, str] = {}
    for m in _ABBREV_DEF.finditer(text):
        short = m.group(1)
        letters = [c.lower() for c in short if c.isalnum()]
        if not any(c.isupper() for c in short) or len(letters) < 2:
            continue
        before = text[: m.start()].split()[-(min(len(letters) + 5, 2 * len(letters))) :]
        for i in range(len(before) - 1, -1, -1):
            candidate = before[i:]
            if candidate[0][:1].lower() == letters[0] and _letters_in_order(letters, " ".join(candidate).lower()):
                found.setdefault(short, " ".join(candidate).strip(",;:"))
                break
    return found


def _letters_in_order(letters: list[str], long: str) -> bool:
    pos = 0
    for c in letters:
        pos = long.find(c, pos)
        if pos < 0:
            return False
        pos += 1
    return True


def expanded(claim: str, defined: dict[str, str]) -> str:
    """The claim with each abbreviation the passage defined written out at its first use ("long form (SHORT)"),
    unless the claim already defines it."""
    for short, long in defined.items():
        if f"{long} ({short})".lower() in claim.lower() or long.lower() in claim.lower():
            continue
        m = re.search(rf"\b{re.escape(short)}\b", claim)
        if m is None:
            continue
        # "Aldehyde dehydrogenase 1" defined at a sentence's start reads "aldehyde dehydrogenase 1" inside one
        written = long[0].lower() + long[1:] if m.start() > 0 and long[1:2].islower() else long
        claim = f"{claim[: m.start()]}{written} ({short}){claim[m.end() :]}"
    return claim


def unresolved(claim: str) -> str | None:
    """The word that points back into the passage ("It", "these patients"), or None when the claim stands alone."""
    m = _ANAPHOR.search(claim)
    return m.group(0) if m else None
