"""The MiniLM BERT encoder as an ONNX graph, built straight from its weights with numpy and ``onnx.helper``: no torch
and no transformers, so the CPU models can be made on any Python that has onnx and onnxruntime wheels.

The graph computes what ``transformers``' eager BertModel computes (embeddings and their LayerNorm; per layer,
self-attention with the additive mask ``(1 - mask) * float32 min``, scaled by 1/sqrt(head size), its output
projection and LayerNorm, then the feed-forward block with the exact (erf) GELU and its LayerNorm), followed by
masked mean pooling and one of two heads: L2 normalisation (the sentence embedder, as sentence-transformers
computes it) or a linear layer (the verifiers' logits). Weights are stored transposed as MatMul inputs, so that
``onnx_models.quantise`` finds them."""

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
    ids, mask, types = INPUTS
    # embeddings: word + position (0 .. seq-1) + token type, then LayerNorm
    # the first seq rows of the position table (a Slice: ONNX Runtime rewrites Gather over a Range into a Slice that
    # it then cannot run)
    seq = g.op("Shape", ids, start=1, end=2)
    zero = g.const("zero", np.array([0], dtype=np.int64))
    positions = g.op("Slice", g.const("position", w["embeddings.position_embeddings.weight"]), zero, seq, zero)
    x = g.op(
        "Add",
        g.op("Add", g.op("Gather", g.const("word", w["embeddings.word_embeddings.weight"]), ids), positions),
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

        def lin(x_in: str, name: str) -> str:
            return g.linear(x_in, w[f"{name}.weight"], w[f"{name}.bias"], name)  # noqa: B023

        q = heads_of(lin(x, f"{p}.attention.self.query"))
        k = heads_of(lin(x, f"{p}.attention.self.key"), key=True)
        v = heads_of(lin(x, f"{p}.attention.self.value"))
        scores = g.op("Add", g.op("Mul", g.op("MatMul", q, k), scale), additive)
        context = g.op("MatMul", g.op("Softmax", scores, axis=-1), v)
        context = g.op("Reshape", g.op("Transpose", context, perm=[0, 2, 1, 3]), merge)
        x = g.layer_norm(g.op("Add", lin(context, f"{p}.attention.output.dense"), x),
                         w, f"{p}.attention.output.LayerNorm", eps)  # fmt: skip
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
