"""The encoders (MiniLM's BERT, MPNet) as ONNX graphs, built straight from their weights with numpy and
``onnx.helper``: no torch and no transformers, so the CPU models can be made on any Python that has onnx and
onnxruntime wheels.

The graph computes what ``transformers``' eager BertModel computes (embeddings and their LayerNorm; per layer,
self-attention with the additive mask ``(1 - mask) * float32 min``, scaled by 1/sqrt(head size), its output
projection and LayerNorm, then the feed-forward block with the exact (erf) GELU and its LayerNorm), followed by
masked mean pooling and one of two heads: L2 normalisation (the sentence embedder, as sentence-transformers
computes it) or a linear layer (the verifiers' logits). For MPNet (``model_type`` "mpnet", all-mpnet-base-v2) it
computes what MPNetModel computes instead: positions counted from the padding index over the tokens that are not
padding, no token types, and one relative position bias (32 buckets, shared by every layer) added to each layer's
attention scores. Weights are stored transposed as MatMul inputs, so that ``onnx_models.quantise`` finds them."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import numpy as np

OPSET = 17
FLOAT_MIN = float(np.finfo(np.float32).min)
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def base_weights(path: Path) -> dict[str, np.ndarray]:
    """The float32 weights of a BertModel safetensors file, by their BertModel names."""
    from safetensors.numpy import load_file

    return {k: v.astype(np.float32) for k, v in load_file(str(path)).items() if v.dtype != np.int64}


class _Graph:
    """Nodes and initializers of one graph, each output named once."""

    def __init__(self) -> None:
        from onnx import helper, numpy_helper

        self.helper, self.numpy_helper = helper, numpy_helper
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self.count = 0

    def const(self, name: str, value: np.ndarray) -> str:
        self.inits.append(self.numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, kind: str, *inputs: str, **attrs: Any) -> str:
        self.count += 1
        out = f"{kind.lower()}_{self.count}"
        self.nodes.append(self.helper.make_node(kind, list(inputs), [out], **attrs))
        return out

    def linear(self, x: str, w: np.ndarray, b: np.ndarray, name: str) -> str:
        """x @ w.T + b, the weight stored as the MatMul's [in, out] input."""
        return self.op("Add", self.op("MatMul", x, self.const(f"{name}.weight_t", w.T)), self.const(f"{name}.bias", b))

    def layer_norm(self, x: str, w: Mapping[str, np.ndarray], name: str, eps: float) -> str:
        return self.op(
            "LayerNormalization", x, self.const(f"{name}.weight", w[f"{name}.weight"]),
            self.const(f"{name}.bias", w[f"{name}.bias"]), axis=-1, epsilon=eps,
        )  # fmt: skip


def relative_buckets(length: int, num_buckets: int = 32, max_distance: int = 128) -> np.ndarray:
    """MPNet's relative position bucket of key j for query i, [length, length] int64, computed as
    MPNetEncoder.relative_position_bucket computes it (float32 logarithms, truncated)."""
    relative = np.arange(length)[None, :] - np.arange(length)[:, None]
    n = -relative
    half = num_buckets // 2
    ret = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    max_exact = half // 2
    far = np.maximum(n, max_exact).astype(np.float32)  # the logarithm is read only where n >= max_exact
    scaled = np.log(far / np.float32(max_exact)) / np.float32(math.log(max_distance / max_exact))
    large = max_exact + (scaled * np.float32(half - max_exact)).astype(np.int64)
    large = np.minimum(large, half - 1)
    return ret + np.where(n < max_exact, n, large)


def _names(kind: str, p: str) -> dict[str, str]:
    """The weight names of layer ``p``'s attention in each encoder's checkpoint."""
    if kind == "mpnet":
        a = f"{p}.attention.attn"
        return {"q": f"{a}.q", "k": f"{a}.k", "v": f"{a}.v", "o": f"{a}.o", "norm": f"{p}.attention.LayerNorm"}
    a = f"{p}.attention"
    return {"q": f"{a}.self.query", "k": f"{a}.self.key", "v": f"{a}.self.value", "o": f"{a}.output.dense",
            "norm": f"{a}.output.LayerNorm"}  # fmt: skip


def bert_graph(
    weights: Mapping[str, np.ndarray],
    config: Mapping[str, Any],
    head: Literal["normalize", "linear"],
    head_weights: tuple[np.ndarray, np.ndarray] | None = None,
    output: str = "embeddings",
) -> Any:
    """The ONNX model: (input_ids, attention_mask, token_type_ids) [batch, seq] int64 -> ``output`` [batch, n]."""
    from onnx import TensorProto, checker, helper

    hidden, heads = int(config["hidden_size"]), int(config["num_attention_heads"])
    size, eps = hidden // heads, float(config.get("layer_norm_eps", 1e-12))
    g = _Graph()
    w = weights
    kind = str(config.get("model_type", "bert"))
    ids, mask, types = INPUTS
    seq = g.op("Shape", ids, start=1, end=2)
    zero = g.const("zero", np.array([0], dtype=np.int64))
    word = g.op("Gather", g.const("word", w["embeddings.word_embeddings.weight"]), ids)
    bias = None
    if kind == "mpnet":
        # embeddings: word + position, the positions of the tokens that are not padding counted from pad + 1
        pad = g.const("pad", np.array(int(config["pad_token_id"]), dtype=np.int64))
        real = g.op("Cast", g.op("Not", g.op("Equal", ids, pad)), to=TensorProto.INT64)
        pos_ids = g.op("Add", g.op("Mul", g.op("CumSum", real, g.const("axis_1", np.array(1, np.int64))), real), pad)
        x = g.op("Add", word, g.op("Gather", g.const("position", w["embeddings.position_embeddings.weight"]), pos_ids))
        # the relative position bias [1, heads, seq, seq]: each (query, key) pair's bucket, looked up per head
        table = relative_buckets(int(config["max_position_embeddings"]), int(config["relative_attention_num_buckets"]))
        buckets = g.op("Slice", g.const("buckets", table), g.const("zero_2", np.array([0, 0], np.int64)),
                       g.op("Concat", seq, seq, axis=0), g.const("axes_0_1", np.array([0, 1], np.int64)))  # fmt: skip
        per_head = g.op("Gather", g.const("relative_bias", w["encoder.relative_attention_bias.weight"]), buckets)
        bias = g.op("Unsqueeze", g.op("Transpose", per_head, perm=[2, 0, 1]), zero)
    else:
        # embeddings: word + position (0 .. seq-1) + token type
        # the first seq rows of the position table (a Slice: ONNX Runtime rewrites Gather over a Range into a Slice
        # that it then cannot run)
        positions = g.op("Slice", g.const("position", w["embeddings.position_embeddings.weight"]), zero, seq, zero)
        x = g.op(
            "Add",
            g.op("Add", word, positions),
            g.op("Gather", g.const("token_type", w["embeddings.token_type_embeddings.weight"]), types),
        )  # fmt: skip
    x = g.layer_norm(x, w, "embeddings.LayerNorm", eps)
    # the additive attention mask [batch, 1, 1, seq]: 0 where attended, float32 min where padded
    maskf = g.op("Cast", mask, to=TensorProto.FLOAT)
    blocked = g.op("Mul", g.op("Sub", g.const("one_f", np.array(1.0, dtype=np.float32)), maskf),
                   g.const("float_min", np.array(FLOAT_MIN, dtype=np.float32)))  # fmt: skip
    additive = g.op("Unsqueeze", blocked, g.const("axes_1_2", np.array([1, 2], dtype=np.int64)))
    split = g.const("split_heads", np.array([0, 0, heads, size], dtype=np.int64))
    merge = g.const("merge_heads", np.array([0, 0, hidden], dtype=np.int64))
    scale = g.const("scale", np.array(1.0 / math.sqrt(size), dtype=np.float32))
    half = g.const("half", np.array(0.5, dtype=np.float32))
    one = g.const("one_f_gelu", np.array(1.0, dtype=np.float32))
    root2 = g.const("root2", np.array(math.sqrt(2.0), dtype=np.float32))

    def heads_of(t: str, key: bool = False) -> str:
        return g.op("Transpose", g.op("Reshape", t, split), perm=[0, 2, 3, 1] if key else [0, 2, 1, 3])

    for i in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{i}"
        n = _names(kind, p)

        def lin(x_in: str, name: str) -> str:
            return g.linear(x_in, w[f"{name}.weight"], w[f"{name}.bias"], name)  # noqa: B023

        q = heads_of(lin(x, n["q"]))
        k = heads_of(lin(x, n["k"]), key=True)
        v = heads_of(lin(x, n["v"]))
        scores = g.op("Mul", g.op("MatMul", q, k), scale)
        if bias is not None:
            scores = g.op("Add", scores, bias)
        scores = g.op("Add", scores, additive)
        context = g.op("MatMul", g.op("Softmax", scores, axis=-1), v)
        context = g.op("Reshape", g.op("Transpose", context, perm=[0, 2, 1, 3]), merge)
        x = g.layer_norm(g.op("Add", lin(context, n["o"]), x), w, n["norm"], eps)
        inner = lin(x, f"{p}.intermediate.dense")
        gelu = g.op("Mul", g.op("Mul", inner, half), g.op("Add", g.op("Erf", g.op("Div", inner, root2)), one))
        x = g.layer_norm(g.op("Add", lin(gelu, f"{p}.output.dense"), x), w, f"{p}.output.LayerNorm", eps)
    # masked mean pooling over the sequence
    m = g.op("Unsqueeze", maskf, g.const("axis_last", np.array([-1], dtype=np.int64)))
    axis1 = g.const("axis_seq", np.array([1], dtype=np.int64))
    total = g.op("ReduceSum", g.op("Mul", x, m), axis1, keepdims=0)
    count = g.op("Max", g.op("ReduceSum", m, axis1, keepdims=0), g.const("min_count", np.array(1e-9, np.float32)))
    pooled = g.op("Div", total, count)
    if head == "normalize":
        norm = g.op("ReduceL2", pooled, axes=[1], keepdims=1)  # axes an attribute until opset 18
        out = g.op("Div", pooled, g.op("Max", norm, g.const("min_norm", np.array(1e-12, np.float32))))
        width = hidden
    else:
        assert head_weights is not None, "a linear head needs its weights"
        out = g.linear(pooled, head_weights[0], head_weights[1], "head")
        width = int(head_weights[0].shape[0])
    g.nodes.append(helper.make_node("Identity", [out], [output]))
    graph = helper.make_graph(
        g.nodes,
        "minilm",
        [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"]) for n in INPUTS],
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, ["batch", width])],
        g.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="claimtrace")
    model.ir_version = 8  # what onnxruntime reads at opset 17
    checker.check_model(model)
    return model
