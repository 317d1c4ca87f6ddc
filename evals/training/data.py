"""SciFact pairs for the stance verifier: the corpus and claims (read with tools.corpus), premises built with the
verifier's own premise function, the dev / held-out evaluation pairs, the per-epoch training examples with their
resampled negatives, and the extra stance data (CLIMATE-FEVER, PubMedQA)."""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tools.corpus import load_corpus
from tools.index.bm25 import bm25_index, bm25_search
from tools.text.premise import abstract_premise, premise

LABEL_MAP = {"SUPPORT": 0, "CONTRADICT": 1}
NEI = 2
MIN_SENT_CHARS = 20


@dataclass
class Doc:
    title: str
    sents: list[str]


@dataclass
class Claim:
    id: int
    text: str
    evidence: dict[int, list[tuple[list[int], int]]]
    cited: list[int]


@dataclass
class Example:
    hyp: str
    variants: list[str]  # premise variants; one is picked at random per epoch
    label: int
    # For rationale supervision (one premise only): each sentence of the premise as (first character, end, whether it
    # is a rationale sentence); None where the data marks no rationale.
    sentences: tuple[tuple[int, int, bool], ...] | None = None


def load_data(data_dir: Path) -> tuple[dict[int, Doc], list[Claim], list[Claim]]:
    docs, _ = load_corpus(data_dir / "corpus.jsonl")
    corpus = {int(d.doc_id): Doc(d.title, list(d.sentences)) for d in docs}

    def claims(name: str) -> list[Claim]:
        out = []
        with (data_dir / name).open() as f:
            for line in f:
                r = json.loads(line)
                ev = {
                    int(d): [(list(rs["sentences"]), LABEL_MAP[rs["label"]]) for rs in sets]
                    for d, sets in r["evidence"].items()
                }
                out.append(Claim(int(r["id"]), r["claim"].strip(), ev, [int(c) for c in r["cited_doc_ids"]]))
        return out

    return corpus, claims("claims_train.jsonl"), claims("claims_dev.jsonl")


def doc_premise(doc: Doc, idx: Sequence[int], *, placed: bool, with_context: bool = True) -> str:
    """The premise of some sentences of one abstract, in abstract order. ``placed``: the run-time premise (section,
    position and the sentence before, see tools.text.premise); otherwise "title: text", what verifiers up to v3 read."""
    if placed:
        return abstract_premise(doc.title, doc.sents, idx, with_context=with_context)
    return premise(doc.title, " ".join(doc.sents[i] for i in sorted(idx)))


def rationale_sents(claim: Claim, doc_id: int) -> set[int]:
    return {i for sents, _ in claim.evidence.get(doc_id, []) for i in sents}


def nei_candidates(claim: Claim, doc_id: int, corpus: dict[int, Doc]) -> list[int]:
    bad = rationale_sents(claim, doc_id)
    return [i for i, s in enumerate(corpus[doc_id].sents) if i not in bad and len(s) >= MIN_SENT_CHARS]


def build_eval_pairs(
    claims: list[Claim], corpus: dict[int, Doc], n_nei: int = 3, *, placed: bool = True
) -> tuple[list[tuple[str, str]], list[int], list[tuple[str, str]], list[int]]:
    """Main eval set (see module docstring) + the extra NEI-claim set."""
    pairs: list[tuple[str, str]] = []
    labels: list[int] = []
    extra: list[tuple[str, str]] = []
    extra_labels: list[int] = []
    for c in claims:
        rng = random.Random(0 + c.id)
        if c.evidence:
            for d, sets in c.evidence.items():
                for sents, lab in sets:
                    pairs.append((c.text, doc_premise(corpus[d], sents, placed=placed)))
                    labels.append(lab)
            pool = [(d, i) for d in dict.fromkeys([*c.evidence, *c.cited]) for i in nei_candidates(c, d, corpus)]
            for d, i in rng.sample(pool, min(n_nei, len(pool))):
                pairs.append((c.text, doc_premise(corpus[d], [i], placed=placed)))
                labels.append(NEI)
        elif c.cited:
            d = c.cited[0]
            cand = nei_candidates(c, d, corpus)
            if cand:
                extra.append((c.text, doc_premise(corpus[d], [rng.choice(cand)], placed=placed)))
                extra_labels.append(NEI)
    return pairs, labels, extra, extra_labels


def context_variants(doc: Doc, idx: Sequence[int], forbidden: set[int], *, placed: bool) -> list[str]:
    """Placed premises: the one premise the run time builds (without the sentence before when that sentence is a
    forbidden one, the evidence of another label). Plain premises: alone, with the previous sentence, with the next
    one (never adding a forbidden one)."""
    idx = sorted(idx)
    if placed:
        return [doc_premise(doc, idx, placed=True, with_context=idx[0] - 1 not in forbidden)]
    out = [doc_premise(doc, idx, placed=False)]
    lo, hi = idx[0] - 1, idx[-1] + 1
    if lo >= 0 and lo not in forbidden:
        out.append(doc_premise(doc, [lo, *idx], placed=False))
    if hi < len(doc.sents) and hi not in forbidden:
        out.append(doc_premise(doc, [*idx, hi], placed=False))
    return out


def bm25_neighbours(corpus: dict[int, Doc], claims: Sequence[Claim], k: int = 5) -> dict[int, list[int]]:
    """claim id -> the ``k`` abstracts BM25 ranks first for the claim (the local index's BM25, over this corpus)."""
    from tools.corpus import Abstract

    ids = [str(d) for d in corpus]
    docs = [Abstract(doc_id=i, title=corpus[int(i)].title, sentences=corpus[int(i)].sents) for i in ids]
    retriever = bm25_index(docs)
    return {c.id: [int(h.doc_id) for h in bm25_search(retriever, ids, c.text, k)] for c in claims}


def make_epoch_examples(
    claims: list[Claim],
    corpus: dict[int, Doc],
    bm25_top: dict[int, list[int]],
    rng: random.Random,
    *,
    placed: bool,
) -> list[Example]:
    ex: list[Example] = []
    doc_ids = list(corpus)

    def nei_from(claim: Claim, d: int) -> None:
        """One random non-rationale sentence of abstract ``d`` as a not-enough-info example for ``claim``."""
        cand = nei_candidates(claim, d, corpus)
        if cand:
            ex.append(Example(claim.text, context_variants(corpus[d], [rng.choice(cand)], set(), placed=placed), NEI))

    for c in claims:
        if c.evidence:
            for d, sets in c.evidence.items():
                doc = corpus[d]
                rs = rationale_sents(c, d)
                for sents, lab in sets:
                    # context may only add a sentence that is not in another rationale of the same doc
                    ex.append(Example(c.text, context_variants(doc, sents, rs - set(sents), placed=placed), lab))
                cand = nei_candidates(c, d, corpus)
                for i in rng.sample(cand, min(1, len(cand))):
                    ex.append(Example(c.text, context_variants(doc, [i], rs, placed=placed), NEI))
            for d in c.cited:
                if d not in c.evidence:
                    nei_from(c, d)
            # lexically similar non-cited abstract (half the claims) and a random abstract (half the claims)
            if rng.random() < 0.5:
                others = [d for d in bm25_top.get(c.id, []) if d not in c.evidence and d not in c.cited]
                if others:
                    nei_from(c, others[0])
            else:
                d = rng.choice(doc_ids)
                if d not in c.cited:
                    nei_from(c, d)
        else:
            for d in c.cited[:1]:
                nei_from(c, d)
    return ex


# Extra stance data (--climate-fever): CLIMATE-FEVER claim/evidence pairs with their evidence labels. Wikipedia
# sentences, not abstracts, but 1,943 SUPPORTS and 802 REFUTES pairs more than double the stance examples SciFact
# train has (about 550 / 280). HealthVer and COVID-Fact are held out and never used here.
CF_LABELS = {"SUPPORTS": 0, "REFUTES": 1, "NOT_ENOUGH_INFO": NEI}


def load_climate_fever(path: Path) -> list[Example]:
    """Every (claim, "<article>: <evidence>") pair of CLIMATE-FEVER with its evidence label."""
    out: list[Example] = []
    with path.open() as f:
        for line in f:
            r = json.loads(line)
            for ev in r["evidences"]:
                text = ev["evidence"].strip()
                if len(text) >= MIN_SENT_CHARS:
                    premise_text = premise(ev["article"].strip(), text)
                    out.append(Example(r["claim"].strip(), [premise_text], CF_LABELS[ev["evidence_label"]]))
    return out


# ---------------------------------------------------------------------------------------------------------------
# Extra stance data (--pubmedqa): PubMedQA PQA-L, 1,000 expert-labelled biomedical yes/no/maybe questions. The
# question (verbatim: turning titles such as "Optimism and survival: does an optimistic outlook predict ...?" into
# claims needs a parser this project does not ship) is the hypothesis, the abstract's conclusion (LONG_ANSWER) the
# premise; yes -> supports, no -> contradicts, maybe is dropped (mixed evidence, not "no information"). The point is
# real premise-side negation in abstract language ("did not improve", "no significant difference"), which claim-side
# augmentation does not teach. Allowed extra material (not held out); no title prefix, PubMedQA has no other title.
# ---------------------------------------------------------------------------------------------------------------
PQ_LABELS = {"yes": 0, "no": 1}


def load_pubmedqa(path: Path) -> list[Example]:
    """(question, conclusion) pairs of PubMedQA PQA-L answered yes or no."""
    out: list[Example] = []
    for r in json.loads(path.read_text()).values():
        lab = PQ_LABELS.get(r["final_decision"])
        if lab is not None and len(r["LONG_ANSWER"].strip()) >= MIN_SENT_CHARS:
            out.append(Example(r["QUESTION"].strip(), [r["LONG_ANSWER"].strip()], lab))
    return out


# ---------------------------------------------------------------------------------------------------------------
# Extra stance data (--nli-mix): ../shared/data/nli/train_mix.jsonl.gz, NLI pairs as (hypothesis, premise); the
# hypothesis takes the claim's place. entailment -> supports, contradiction -> contradicts, neutral -> nei.
# Evidence Inference rows (source "evidence_inference2": a trial's "no significant difference" / "significantly
# increased" / "significantly decreased" finding against a templated statement) are drawn apart from the rest
# (--ei-per-epoch), so that null findings keep their share however the rest of the mix is sampled.
# ---------------------------------------------------------------------------------------------------------------
NLI_LABELS = {"entailment": 0, "contradiction": 1, "neutral": NEI}
EVIDENCE_INFERENCE = "evidence_inference2"
# sources the shipped weights may not learn from: non-commercial licences (ANLI, SICK), no stated licence (NLI4CT),
# and check_covid, whose CORD-19 evidence HealthVer and COVID-Fact share (reported on, never trained on)
NOT_FOR_WEIGHTS = frozenset({"anli", "sick", "nli4ct2023", "nli4ct2024", "check_covid"})


def load_nli_mix(path: Path) -> tuple[list[Example], list[Example]]:
    """The NLI mix's pairs that shipped weights may learn from, as (Evidence Inference, the rest)."""
    ei: list[Example] = []
    rest: list[Example] = []
    with gzip.open(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            if r["source"] in NOT_FOR_WEIGHTS or r["label"] not in NLI_LABELS:
                continue
            ex = Example(r["hypothesis"].strip(), [r["premise"].strip()], NLI_LABELS[r["label"]])
            (ei if r["source"] == EVIDENCE_INFERENCE else rest).append(ex)
    return ei, rest


def sample_per_label(pool: list[Example], quota: Sequence[int], rng: random.Random) -> list[Example]:
    """Up to quota[label] examples of each label, drawn without replacement."""
    out: list[Example] = []
    for lab, n in enumerate(quota):
        items = [e for e in pool if e.label == lab]
        out.extend(rng.sample(items, min(n, len(items))))
    return out


def split_heldout(claims: list[Claim], frac: float, seed: int) -> tuple[list[Claim], list[Claim]]:
    texts = sorted({c.text for c in claims})
    random.Random(seed).shuffle(texts)
    held = set(texts[: int(len(texts) * frac)])
    return [c for c in claims if c.text not in held], [c for c in claims if c.text in held]
