"""Word overlap read without the verifier (tools/text/overlap.py): which evidence sentence an answer sentence repeats,
and when it repeats one it does not cite while what it cites holds few of its words (a quote under the wrong number)."""

from __future__ import annotations

from tools.text.overlap import misattributed, repeated_source, support_share

EVIDENCE = {
    1: "Despite surgical correction, a high preoperative CRP value is an independent risk factor for mortality.",
    2: "Preoperative CRP levels as low as 3 mg/l are associated with increased long-term mortality.",
    3: "We examine the value of preoperative CRP levels for predicting hospital length of stay.",
}


def test_support_share_counts_content_words_only():
    assert support_share("CRP predicts mortality.", ["Mortality was predicted by CRP."]) == 1.0
    assert support_share("It was not so.", ["anything"]) is None  # no content word at all
    assert support_share("CRP predicts stroke.", [EVIDENCE[1]]) == 1 / 3


def test_repeated_source_is_the_sentence_holding_the_words():
    quote = "CRP levels as low as 3 mg/l are associated with increased long-term mortality."
    assert repeated_source(quote, EVIDENCE) == 2
    assert repeated_source("CRP is associated with mortality and length of stay.", EVIDENCE) is None  # mixes sources
    assert repeated_source(",,,,,.", EVIDENCE) is None


def test_a_quote_under_the_wrong_number_is_misattributed():
    quote = "Preoperative CRP levels as low as 3 mg/l are associated with increased long-term mortality."
    assert misattributed(quote, [3], EVIDENCE) == 2  # cites [3], repeats [2]
    assert misattributed(quote, [2], EVIDENCE) is None  # cites what it repeats
    assert misattributed(quote, [2, 3], EVIDENCE) is None
    # what it cites holds half of its words or more: a paraphrase leaning on two sources, not a misquote
    assert misattributed("A high preoperative CRP value is associated with increased long-term mortality.", [1],
                         EVIDENCE) is None  # fmt: skip
