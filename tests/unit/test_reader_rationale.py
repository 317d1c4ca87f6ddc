"""Rationale supervision of the abstract reader (``--rationale-weight``): each token is placed in its sentence, the
loss adds the sentence head's binary cross-entropy over the marked sentences, and an artifact keeps the sentence head
so that the rebuilt network scores sentences as the trained one did. A tiny corpus written here, MiniLM as the base."""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import torch
from safetensors.numpy import load_file

from evals.training.data import Claim, Doc, Example
from evals.training.joint import abstract_text, read_whole
from evals.training.rationale_scores import sentence_scores, top_hits
from evals.training.train import batch_loss, batches, sentence_targets, train
from tools.models.onnx_export import verifier_weights
from tools.models.verifier_artifact import DELTA_FILE
from tools.models.verifier_net import build_base_net, load_net, save_artifact

DOC = Doc("Aspirin and fever", ["Aspirin was given to 200 adults.", "Aspirin significantly reduced fever.",
                                "Side effects were rare."])  # fmt: skip
CORPUS = {1: DOC, 2: Doc("Statins and stroke", ["We followed 5,000 patients.", "Statins did not change stroke risk."])}
CLAIMS = [Claim(1, "Aspirin reduces fever.", {1: [([1], 0)]}, [1]),
          Claim(2, "Statins reduce the risk of stroke.", {2: [([1], 1)]}, [2])]  # fmt: skip


def test_each_premise_token_is_placed_in_its_sentence_and_a_cut_sentence_is_not_a_target() -> None:
    _, tok = build_base_net()
    ex = read_whole("Aspirin reduces fever.", DOC, 0, {1})
    assert ex.sentences is not None and [m[2] for m in ex.sentences] == [False, True, False]
    text = ex.variants[0]
    assert [text[a:b] for a, b, _ in ex.sentences] == DOC.sents
    enc = tok([ex.hyp], [text], return_tensors="pt", return_offsets_mapping=True)
    sentence_of, targets = sentence_targets(enc, [ex.sentences])
    assert targets.tolist() == [[0.0, 1.0, 0.0]]
    words = {k: tok.decode(enc["input_ids"][0][sentence_of[0] == k]) for k in range(3)}
    assert words == {0: "aspirin was given to 200 adults.", 1: "aspirin significantly reduced fever.",
                     2: "side effects were rare."}  # fmt: skip
    outside = [t for t, seq in enumerate(enc.sequence_ids(0)) if seq != 1]  # the claim and the special tokens
    assert outside and (sentence_of[0][outside] == -1).all()
    short = tok([ex.hyp], [text], truncation="longest_first", max_length=16, return_tensors="pt",
                return_offsets_mapping=True)
    _, cut = sentence_targets(short, [ex.sentences])
    assert cut[0, 2] == -1  # no token of the last sentence survived: it is no target


def test_the_loss_adds_the_weighted_rationale_cross_entropy_of_the_marked_sentences_only() -> None:
    torch.manual_seed(0)
    net, tok = build_base_net()
    net.add_sentence_head()
    net.eval()  # no dropout: the two losses see the same network
    marked = read_whole("Aspirin reduces fever.", DOC, 0, {1})
    plain = Example("Statins reduce stroke.", [abstract_text(CORPUS[2])], 2)  # no rationale marked
    (b,) = batches([marked, plain], tok, 2, 128, random.Random(0), rationale=True)
    ce = torch.nn.CrossEntropyLoss()
    with_rationale = batch_loss(net, b, ce, 15.0, False)
    label_only = batch_loss(net, {k: v for k, v in b.items() if not k.startswith("sentence_")}, ce, 15.0, False)
    targets = b["sentence_targets"]
    row = 0 if targets[0, 0] >= 0 else 1
    assert (targets[1 - row] == -1).all() and targets[row].tolist() == [0.0, 1.0, 0.0]
    _, scores = net.forward_sentences(b["input_ids"], b["attention_mask"], b.get("token_type_ids"),
                                      b["sentence_of"], 3)
    bce = torch.nn.functional.binary_cross_entropy_with_logits(scores[row], targets[row])
    assert torch.allclose(with_rationale, label_only + 15.0 * bce, atol=1e-5)
    assert not torch.allclose(with_rationale, label_only)


def test_a_reader_trained_with_rationales_keeps_its_sentence_head_in_the_artifact(tmp_path: Path) -> None:
    torch.set_num_threads(1)
    args = argparse.Namespace(
        seed=3, base=None, init_head=None, train_layers=2, lora_rank=4, joint=True, joint_negatives=1,
        negation_aug=False, premise_flips=False, claim_flips=False, climate_fever=None, nli_mix=None, lr=1e-3,
        head_lr=1e-3, batch_size=2, max_len=96, state=None, checkpoint_minutes=60.0, bf16=False, device="cpu",
        rationale_weight=15.0,
    )  # fmt: skip
    net, tok, base_state, _ = train(CLAIMS, CORPUS, {1: [2], 2: [1]}, args, 2, None, [], "t")
    assert net.sentence_head is not None and net.sentence_head.weight.requires_grad
    save_artifact(net, base_state, tmp_path, {"train_layers": 2, "lora_rank": 4, "premise": "abstract"})
    stored = load_file(str(tmp_path / DELTA_FILE))
    assert {"full.sentence_head.weight", "full.sentence_head.bias"} <= set(stored)
    trained = sentence_scores(net, tok, "Aspirin reduces fever.", DOC, 96)
    rebuilt, rtok, max_len, _ = load_net(tmp_path)
    again = sentence_scores(rebuilt, rtok, "Aspirin reduces fever.", DOC, max_len)
    assert all(isinstance(s, float) for s in trained)
    assert torch.allclose(torch.tensor(trained), torch.tensor(again), atol=2e-3), (trained, again)
    hits = top_hits(rebuilt, rtok, CLAIMS, CORPUS, max_len)
    assert hits["evidence_abstracts"] == 2
    best = [max(range(len(sc)), key=lambda k: sc[k] or 0.0)  # each evidence abstract's rationale is sentence 1
            for sc in (again, sentence_scores(rebuilt, rtok, CLAIMS[1].text, CORPUS[2], max_len))]
    assert hits["whole_set_in_top_1"] == hits["top_is_rationale"] == sum(b == 1 for b in best) / 2
    assert hits["whole_set_in_top_2"] >= 0.5  # the second abstract has two sentences: both are its top 2
    weights, head = verifier_weights(tmp_path)  # the ONNX reader reads the labels and leaves the sentence head
    assert head[0].shape == (3, net.head.in_features)
