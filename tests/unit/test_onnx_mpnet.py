"""The MPNet encoder's ONNX graph (tools/models/onnx_bert.py) computes what transformers' MPNetModel computes: a
small random MPNet, padded rows included, and its relative position buckets against MPNet's own."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import torch
from transformers import MPNetConfig, MPNetModel

from tools.models.onnx_bert import bert_graph, relative_buckets


def small_mpnet() -> tuple[MPNetModel, dict[str, object]]:
    torch.manual_seed(0)
    config = MPNetConfig(vocab_size=50, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                         intermediate_size=64, max_position_embeddings=300)  # fmt: skip
    model = MPNetModel(config, add_pooling_layer=False).eval()
    with torch.no_grad():  # larger than the initialiser's values, so that a missing bias or offset shows
        model.encoder.relative_attention_bias.weight.normal_(0, 1.0)
        model.embeddings.position_embeddings.weight.normal_(0, 1.0)
    return model, config.to_dict()


def test_the_relative_buckets_are_mpnets_own() -> None:
    model, _ = small_mpnet()
    length = 260  # past max_distance (128), where the logarithmic buckets and the cap apply
    rel = torch.arange(length)[None, :] - torch.arange(length)[:, None]
    want = model.encoder.relative_position_bucket(rel, num_buckets=32).numpy()
    assert np.array_equal(relative_buckets(length, 32), want)


def test_the_graph_gives_mpnets_mean_pooled_embeddings_on_padded_rows() -> None:
    model, config = small_mpnet()
    weights = {k: v.detach().numpy() for k, v in model.state_dict().items() if v.dtype != torch.int64}
    graph = bert_graph(weights, config, "normalize")
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    ids = rng.integers(3, 50, size=(3, 40)).astype(np.int64)
    ids[:, 0], mask = 0, np.ones_like(ids)
    ids[1, 25:], mask[1, 25:] = 1, 0  # right padding, with MPNet's padding token (1)
    ids[2, 7:], mask[2, 7:] = 1, 0
    got = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
    with torch.no_grad():
        h = model(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask)).last_hidden_state
    m = torch.from_numpy(mask).unsqueeze(-1).float()
    pooled = (h * m).sum(1) / m.sum(1)
    want = torch.nn.functional.normalize(pooled, dim=-1).numpy()
    assert np.abs(got - want).max() < 1e-4, np.abs(got - want).max()
