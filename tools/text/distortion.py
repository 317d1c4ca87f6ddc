"""Distortions of a near-copy, read without the verifier: an answer sentence that repeats a source sentence's words
(most of its content words are the source's) but changes what the source says by what it leaves out or alters.

* a negation dropped or added ("was not associated" -> "was associated");
* a number changed ("54 nmol/l" -> "45 nmol/l"): every number of the sentence must be in its source;
* the head of the subject dropped ("compliance to vitamin D supplementation is lower" -> "vitamin D supplementation
  is lower");
* an association stated as an effect ("therapy is associated with a reduction in tuberculosis" -> "therapy reduces
  tuberculosis"): the source's word for an association is gone and an effect verb its source does not use stands in
  its place. A cohort's association is not a trial's effect, and a fact-checker must not be told it is.

A sentence that rewords its source (half its content words at least are the source's) is also flagged when it
states as certain what the source does not:

* the population qualifier dropped ("reduced intake in wildtype mice" -> "reduced intake", "in animals", "in
  vitro"), when the source names no people beside it (a sentence on patients and mice may report the patients alone);
* a hypothesis or an aim as a finding ("we hypothesized that training influences NO" -> "training increases NO");
* a hedged result without its hedge ("Scrib could behave as a tumor suppressor" -> "Scrib is a tumor suppressor";
  a hedge is may, might, could, possibly, probably, likely, suggest). A hedge governs what follows it: a sentence
  that reports only the finding before "…, suggesting that …" drops nothing;
* a lack of evidence as evidence of absence ("evidence that headache was associated with cognitive impairment was
  lacking" -> "lack of cognitive impairment in headache");
* one of the figures a source gives for several groups, without whose it is ("rates were 8.5 and 26.3 per 100
  person-years, respectively" -> "rates are 8.5 per 100 person-years");
* a rise or a fall ("higher", "fewer") that the source does not state in words: read off its numbers ("was 0.75
  among women invited and 1.98 among those who attended" -> "was higher among women invited"), or the opposite of
  the source's ("more advanced fibrosis" for "less advanced"). A comparison read off numbers may be right, but a
  small model gets it wrong often enough that it is not shown as the source's finding.

The verifier reads topic and passes all of them; a sentence that shares under half its content words with its
source is left to it and to the LLM judge that reads answer sentences.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tools.text.i18n import written
from tools.text.overlap import STOP, content_stems, spelled_words, support_share, words

DROPPED_HEDGE = "drops its source's hedge"  # the start of that flag's reason, which self-correction reads
NEAR = 0.8  # share of a sentence's content words found in one source sentence: the sentence copies that sentence
REWORDS = 0.5  # the share at which a sentence rewords that sentence
NEGATIONS = {"not", "no", "never", "neither", "nor", "none", "nothing", "cannot", "lack", "lacked", "absence"}
# "23,072" and "23 072" are one number; a space groups only three digits that end the number
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+|[ \u2009\u202f]\d{3}(?![\d.,]))*")
_ORGANISMS = (
    r"mice|mouse|rats?|rodents|animals|pigs|piglets|dogs|monkeys|macaques|primates|zebrafish|rabbits|sheep|"
    r"hamsters|vitro|culture|cultured cells|cell lines?|cells"
)
_IN_WHOM = re.compile(rf"\b(?:in|among) (?:[\w-]+ ){{0,2}}?({_ORGANISMS})\b", re.IGNORECASE)
_PEOPLE = re.compile(
    r"\b(patients|participants|subjects|volunteers|adults|children|women|men|infants|humans?|people|individuals)\b",
    re.IGNORECASE,
)
_HEAD_LINK = {"to", "of", "with", "for", "in"}
_ASSOCIATION = re.compile(r"\b(associat\w*|correlat\w*|linked|link|predict\w*)\b", re.IGNORECASE)
_ASSOCIATED_WITH = re.compile(rf"{_ASSOCIATION.pattern}(?:\W+\w+){{1,3}}", re.IGNORECASE)
_AIM = re.compile(
    r"\b(hypothesi[sz]\w*|whether|aim\w*|purpose|sought to|set out to|to (?:determine|examine|investigate|"
    r"assess|test|evaluate|explore))\b",
    re.IGNORECASE,
)
# "May" only as a sentence's first word (else the month), "could" not before "not", "likely" not after more/less/as
_HEDGE = re.compile(
    r"(?:^|(?<=[.;:]\s))May\b|\b(?:may|might|could(?! not)|[Pp]ossibly|[Pp]robably|(?<!more )(?<!less )(?<!as )likely|"
    r"[Pp]otentially|[Ss]uggest\w*)\b"
)
_NO_EVIDENCE = re.compile(
    r"\b(?:no|insufficient|limited|little|inconclusive|lack of) (?:\w+ ){0,2}?(?:evidence|data)\b|"
    r"\b(?:evidence|data)\b[^.;]{0,120}?\b(?:lacking|lacked|insufficient|inconclusive|limited)\b",
    re.IGNORECASE,
)
_RESPECTIVELY = re.compile(r"\brespectively\b", re.IGNORECASE)
_UP = re.compile(r"\b(higher|greater|more|increas\w*|larger|elevat\w*|rais\w*|rose|doubled|tripled|exceed\w*)\b", re.I)
_DOWN = re.compile(r"\b(lower|less|fewer|decreas\w*|reduc\w*|smaller|declin\w*|fell|dropp\w*|diminish\w*)\b", re.I)
_EFFECT = re.compile(
    r"\b(caus\w*|reduc\w*|increas\w*|decreas\w*|lower\w*|rais\w*|improv\w*|prevent\w*|protect\w*|induc\w*|"
    r"promot\w*|enhanc\w*|trigger\w*|inhibit\w*|suppress\w*|worsen\w*|cuts?|leads? to|results? in)\b",
    re.IGNORECASE,
)


def _kind(word: str) -> str:
    """A word of an organism or a cell kind without its plural ("cells" and "cell", "mice" and "mouse" match)."""
    return {"mice": "mouse"}.get(word, word.removesuffix("s"))


def without_negation(text: list[str], other: list[str]) -> str | None:
    """The phrase of ``text`` around a negation ("was not associated") whose words without it ("was associated")
    stand next to each other in ``other``: the negation was dropped (or, read the other way, added)."""
    joined = f" {' '.join(other)} "
    for i in range(1, len(text) - 1):
        if text[i] in NEGATIONS and f" {text[i - 1]} {text[i + 1]} " in joined:
            return " ".join(text[i - 1 : i + 2])
    return None


def negations(text: str) -> int:
    """How many negation words the text holds ("n't" read as "not")."""
    return sum(w in NEGATIONS for w in spelled_words(text))


def negation_changed(sentence: str, source: str) -> str | None:
    """The phrase whose negation ``sentence`` drops or adds against ``source``, whatever else it changes."""
    mine, theirs = spelled_words(sentence), spelled_words(source)
    return without_negation(theirs, mine) or without_negation(mine, theirs)


def numbers(text: str) -> list[str]:
    return [re.sub(r"[,\s]", "", n) for n in _NUMBER.findall(text)]


def dropped_head(sentence: list[str], source: list[str]) -> str | None:
    """"compliance to" when the sentence begins with words the source has right after "<noun> to|of|with ..."."""
    if len(sentence) < 3:
        return None
    start = sentence[:3]
    for p in range(2, len(source) - 2):
        if source[p : p + 3] == start and source[p - 1] in _HEAD_LINK and source[p - 2] not in STOP:
            return f"{source[p - 2]} {source[p - 1]}"
    return None


def association_as_effect(sentence: str, source: str) -> str | None:
    """The source's association word ("associated") when the sentence has none and uses an effect word ("reduces")
    that the source does not use outside its associations ("associated with reduced risk" states no effect)."""
    said = _ASSOCIATION.search(source)
    if said is None or _ASSOCIATION.search(sentence):
        return None
    effects = _ASSOCIATED_WITH.sub(" ", source)
    theirs = {m.group(0).lower() for m in _EFFECT.finditer(effects)}
    if any(m.group(0).lower() not in theirs for m in _EFFECT.finditer(sentence)):
        return said.group(0)
    return None


def governed(sentence: str, source: str, hedge: re.Match[str]) -> bool:
    """Whether the sentence reports what the source's hedge governs: it uses a content word that the source has
    only after the hedge. "Recombination occurs in DSB-cold regions, suggesting that DSB patterns are not normal"
    hedges the second clause alone, so a sentence on the first drops no hedge. (What comes before an aim or a
    hypothesis is its motivation, not a finding, so an aim governs the whole sentence.)"""
    after = content_stems(source[hedge.end() :]) - content_stems(source[: hedge.start()])
    return bool(content_stems(sentence) & after)


def unhedged(sentence: str, source: str) -> str | None:
    """How a rewording states as certain what its source does not: the source's aim or hypothesis word, its hedge
    (when the sentence reports what the hedge governs) or its lack of evidence, that the sentence lacks; or a rise
    or fall the source has no word for."""
    aim, hedge, unknown = _AIM.search(source), _HEDGE.search(source), _NO_EVIDENCE.search(source)
    if aim is not None and _AIM.search(sentence) is None:
        return written("states as a finding what its source puts as an aim or hypothesis (“{words}”)",
                       words=aim.group(0))
    if hedge is not None and _HEDGE.search(sentence) is None and governed(sentence, source, hedge):
        return written("drops its source's hedge “{words}”", words=hedge.group(0))
    if unknown is not None and _NO_EVIDENCE.search(sentence) is None:
        return written("states as a finding what its source says lacks evidence (“{words}”)", words=unknown.group(0))
    grouped = _RESPECTIVELY.search(source) and not _RESPECTIVELY.search(sentence)
    if grouped and set(numbers(sentence)) & set(numbers(source)):
        return written("gives a figure without the group it belongs to (its source's figures are for several, "
                       "“respectively”)")
    for direction, other in ((_UP, _DOWN), (_DOWN, _UP)):
        said = direction.search(sentence)
        if said is None or direction.search(source) is not None:
            continue
        if (theirs := other.search(source)) is not None:
            return written("says “{mine}” where its source says “{theirs}”", mine=said.group(0), theirs=theirs.group(0))
        return written("draws a comparison (“{words}”) that its source does not state in words", words=said.group(0))
    return None


def distortion(sentence: str, source: str) -> str | None:
    """How ``sentence`` changes ``source`` when it copies or rewords it, in a few words ("drops 'not'"), or None
    when it does neither or keeps its meaning as far as these checks see."""
    share = support_share(sentence, [source])
    if share is None or share < REWORDS:
        return None
    if changed := unhedged(sentence, source):
        return changed
    mine, theirs = spelled_words(sentence), spelled_words(source)
    kinds = {_kind(w) for w in mine}
    for m in _IN_WHOM.finditer("" if _PEOPLE.search(source) else source):  # a source on people and mice: either
        if not {_kind(w) for w in words(m.group(1))} & kinds:
            return written("drops “{words}” from its source", words=m.group(0))
    if share < NEAR:
        return None
    if phrase := without_negation(theirs, mine):
        return written("drops the negation of its source (“{words}”)", words=phrase)
    if phrase := without_negation(mine, theirs):
        return written("adds a negation its source does not have (“{words}”)", words=phrase)
    missing = [n for n in numbers(sentence) if n not in numbers(source)]
    if missing:
        return written("has the number {number}, which its source does not", number=missing[0])
    if head := dropped_head(mine, theirs):
        return written("drops “{words}” from the start of its source's subject", words=head)
    if word := association_as_effect(sentence, source):
        return written("states as an effect what its source reports as an association (“{words}”)", words=word)
    return None


def distorted(sentence: str, cited: Sequence[str]) -> str | None:
    """The distortion of the cited sentence the answer sentence copies most closely, or None."""
    if not cited:
        return None
    closest = max(cited, key=lambda c: support_share(sentence, [c]) or 0.0)
    return distortion(sentence, closest)
