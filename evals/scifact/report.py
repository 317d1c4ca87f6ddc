"""Presentation of an evaluation result: a plain-text table, a Markdown report and a PNG plot.

Each figure stands beside its published anchor and its target. Anchors: VerT5erini (Pradeep et al.,
2021, SciFact dev) Recall@3 0.866 / Recall@5 0.894, abstract Label-Only F1 0.651, sentence Selection+Label F1 0.571;
BM25 Recall@5 0.847 (as reported in the VerT5erini paper); BM25 nDCG@10 0.665 (BEIR, cited-doc qrels).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evals.scifact.claim_level import markdown_table
from evals.scifact.verdict_confidence import calibration_lines

RETRIEVAL_LABELS = {"recall@3": "Recall@3", "recall@5": "Recall@5", "map@5": "MAP@5", "ndcg@10": "nDCG@10"}

# (group, metric path) -> (anchor text, value) and target text
ANCHORS: dict[tuple[str, str], tuple[str, float]] = {
    ("retrieval", "recall@3"): ("VerT5erini 0.866", 0.866),
    ("retrieval", "recall@5"): ("VerT5erini 0.894; BM25 0.847", 0.894),
    ("retrieval_cited", "ndcg@10"): ("BM25 (BEIR) 0.665", 0.665),
    ("abstract", "label_only.f1"): ("VerT5erini 0.651", 0.651),
    ("sentence", "selection_label.f1"): ("VerT5erini 0.571", 0.571),
}
TARGETS: dict[tuple[str, str], str] = {
    ("retrieval", "recall@3"): ">= 0.92",
    ("retrieval", "recall@5"): ">= 0.95",
    ("retrieval_cited", "ndcg@10"): ">= 0.75",
    ("abstract", "label_only.f1"): ">= 0.65",
    ("verifier", "macro_f1"): ">= 0.80",
}
GROUP_TITLES = {
    "retrieval": "Retrieval (gold = evidence docs, claims with evidence)",
    "retrieval_cited": "Retrieval, BEIR definition (gold = cited_doc_ids, all claims)",
    "abstract": "Abstract level (official SciFact rules)",
    "sentence": "Sentence level (official SciFact rules)",
    "verifier": "Verifier",
    "faithfulness": "Faithfulness",
    "cost": "Cost (per claim)",
}


def fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"
    return str(value)


def _flatten(block: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for key, value in block.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out += _flatten(value, path + ".")
        else:
            out.append((path, value))
    return out


def _label(group: str, path: str) -> str:
    if group.startswith("retrieval"):
        return RETRIEVAL_LABELS.get(path, path)
    return path.replace(".", " ").replace("_", " ")


def rows(result: Mapping[str, Any]) -> list[dict[str, str]]:
    """One row per metric: group, metric, value, BM25 and dense baselines (retrieval only), anchor, target."""
    out: list[dict[str, str]] = []
    baselines = result.get("baselines") or {}
    for group in GROUP_TITLES:
        block = result.get(group)
        if not isinstance(block, Mapping):
            continue
        for path, value in _flatten(block):
            row = {
                "group": group,
                "metric": _label(group, path),
                "value": fmt(value),
                "bm25": "",
                "dense": "",
                "anchor": ANCHORS.get((group, path), ("", 0.0))[0],
                "target": TARGETS.get((group, path), ""),
            }
            if group.startswith("retrieval"):
                for name in ("bm25", "dense"):
                    row[name] = fmt(((baselines.get(name) or {}).get(group) or {}).get(path))
            out.append(row)
    return out


def _measured(result: Mapping[str, Any], group: str) -> bool:
    block = result.get(group)
    return isinstance(block, Mapping) and any(v is not None for _, v in _flatten(block))


def table(result: Mapping[str, Any]) -> str:
    """Plain-text table for the terminal (groups that were not measured are left out)."""
    header = ("metric", "claimtrace", "BM25", "dense", "anchor", "target")
    lines: list[tuple[str, ...]] = []
    for group in GROUP_TITLES:
        if not _measured(result, group):
            continue
        lines.append((f"[{group}]", "", "", "", "", ""))
        for r in rows(result):
            if r["group"] == group:
                lines.append((f"  {r['metric']}", r["value"], r["bm25"], r["dense"], r["anchor"], r["target"]))
    widths = [max(len(x[i]) for x in [header, *lines]) for i in range(len(header))]
    render = [" | ".join(c.ljust(w) for c, w in zip(x, widths, strict=True)).rstrip() for x in [header, *lines]]
    run = result.get("run", {})
    title = f"SciFact {run.get('split', '?')} — {run.get('mode', '?')}, {run.get('claims_evaluated', '?')} claims"
    tail = []
    sides = result.get("claims")
    if sides:
        tail.append(
            f"verdict side: right on {sides['right_of_settled']} of {sides['settled']} settled claims, "
            f"{sides['wrong_side']} wrong; refuted claims refuted {sides['CONTRADICT']['right']} of "
            f"{sides['CONTRADICT']['claims']} (the claim-level table in the report)"
        )
    calibration = result.get("calibration")
    if calibration:
        rel = calibration["verdict_reliability"]
        tail.append(f"verdict confidence ECE {rel['ece']:.3f} over {rel['n']} claims (risk–coverage in the report)")
    return "\n".join([title, render[0], "-" * len(render[0]), *render[1:], *tail])


def markdown(result: Mapping[str, Any]) -> str:
    run = result.get("run", {})
    index = run.get("index") or {}
    lines = [
        f"# SciFact {run.get('split', '?')}: {run.get('mode', '?')}",
        "",
        f"- command: `{run.get('command', '')}`",
        f"- date: {run.get('date', '')}; git commit: {run.get('git_commit') or 'unknown'}",
        f"- claims: {run.get('claims_evaluated')} evaluated of {run.get('claims')} selected "
        f"(limit {run.get('limit')}); {run.get('claims_with_evidence')} with evidence",
        f"- index: {index.get('docs')} abstracts, {index.get('sentences')} sentences, {index.get('model')} "
        f"(fingerprint {index.get('fingerprint')})",
    ]
    retrieval = run.get("retrieval") or {}
    if retrieval:
        retrievers = ", ".join(retrieval.get("retrievers", []))
        lines.append(
            f"- retrieval: queries = {retrieval.get('queries')}; retrievers {retrievers}"
            f" at depth {retrieval.get('depth')}; {retrieval.get('fusion')}; rerank: {retrieval.get('rerank', 'off')}"
        )
    if run.get("evidence"):
        lines.append(f"- evidence and labels: {run['evidence']}")
    if run.get("llm"):
        lines.append(f"- LLM: {run['llm']}")
    if result.get("claims"):
        lines += ["", "## The verdict a user sees, claim by claim", "", *markdown_table(result["claims"])]
    all_rows = rows(result)
    for group, title in GROUP_TITLES.items():
        if not _measured(result, group):
            continue
        lines += ["", f"## {title}", ""]
        if group.startswith("retrieval"):
            lines += [
                "| metric | claimtrace (fused) | BM25 alone | dense alone | anchor | target |",
                "|---|---:|---:|---:|---|---|",
            ]
            lines += [
                f"| {r['metric']} | {r['value']} | {r['bm25']} | {r['dense']} | {r['anchor']} | {r['target']} |"
                for r in all_rows
                if r["group"] == group
            ]
        else:
            lines += ["| metric | value | anchor | target |", "|---|---:|---|---|"]
            lines += [
                f"| {r['metric']} | {r['value']} | {r['anchor']} | {r['target']} |"
                for r in all_rows
                if r["group"] == group
            ]
    calibration = result.get("calibration")
    if calibration:
        lines += [
            "",
            "## Verdict confidence: calibration and risk–coverage",
            "",
            *calibration_lines(
                calibration["verdict_reliability"], calibration["risk_coverage"], calibration["min_confidence"]
            ),
        ]
    lines += [
        "",
        "Anchors: VerT5erini (Pradeep et al. 2021) on SciFact dev; BM25 Recall@5 as reported in the VerT5erini paper; "
        "BM25 nDCG@10 from BEIR. Baselines (BM25 alone, dense alone) are the claim query's own lists from this run. "
        "Verifier flag precision/recall use a proxy: an answer sentence should be flagged when none of the evidence "
        "sentences it cites is a gold rationale sentence of the claim.",
        "",
    ]
    if run.get("settings"):
        settings = json.dumps(run["settings"], indent=1, ensure_ascii=False)
        lines += [
            f"Settings of the run (preset {run.get('preset', 'default')}, secrets masked):",
            "",
            "```json",
            settings,
            "```",
            "",
        ]
    return "\n".join(lines)


def plot(result: Mapping[str, Any], path: Path) -> None:
    """Grouped bars: fused vs BM25 vs dense for both retrieval definitions, with anchors and targets; in a full
    run also the SciFact F1s, verifier and faithfulness figures. Raises ImportError without matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = ["retrieval", "retrieval_cited"]
    full = _measured(result, "abstract")
    if full:
        panels.append("quality")
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.2), squeeze=False)
    baselines = result.get("baselines") or {}
    series = [("claimtrace", None, "#1f77b4"), ("BM25 alone", "bm25", "#ff7f0e"), ("dense alone", "dense", "#2ca02c")]
    for ax, panel in zip(axes[0], panels, strict=True):
        if panel == "quality":
            _quality_panel(ax, result)
            continue
        keys = list(RETRIEVAL_LABELS)
        width = 0.26
        for j, (name, base, color) in enumerate(series):
            block = result.get(panel) if base is None else (baselines.get(base) or {}).get(panel)
            values = [float((block or {}).get(k) or 0.0) for k in keys]
            xs = [i + (j - 1) * width for i in range(len(keys))]
            ax.bar(xs, values, width, label=name, color=color)
        for i, k in enumerate(keys):
            anchor = ANCHORS.get((panel, k))
            if anchor:
                ax.hlines(anchor[1], i - 0.45, i + 0.45, colors="black", linestyles="dashed", linewidth=1)
            target = TARGETS.get((panel, k))
            if target:
                ax.hlines(float(target.split()[-1]), i - 0.45, i + 0.45, colors="red", linewidth=1.2)
        ax.set_xticks(range(len(keys)), [RETRIEVAL_LABELS[k] for k in keys])
        ax.set_ylim(0, 1.05)
        ax.set_title("gold = evidence docs" if panel == "retrieval" else "gold = cited docs (BEIR)", fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].legend(loc="lower right", fontsize=8, title="black dashed: anchor, red: target", title_fontsize=7)
    run = result.get("run", {})
    fig.suptitle(
        f"SciFact {run.get('split', '?')} — {run.get('mode', '?')}, {run.get('claims_evaluated', '?')} claims",
        fontsize=11,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _quality_panel(ax: Any, result: Mapping[str, Any]) -> None:
    items = [
        ("abs label", ("abstract", "label_only.f1")),
        ("abs +rat.", ("abstract", "label_rationale.f1")),
        ("sent sel.", ("sentence", "selection.f1")),
        ("sent +label", ("sentence", "selection_label.f1")),
        ("verif. F1", ("verifier", "macro_f1")),
        ("cit. valid", ("faithfulness", "citation_validity")),
        ("attrib.", ("faithfulness", "attributable_rate")),
    ]
    values = []
    for _, (group, path) in items:
        flat = dict(_flatten(result.get(group) or {}))
        values.append(float(flat.get(path) or 0.0))
    ax.bar(range(len(items)), values, 0.6, color="#1f77b4")
    for i, (_, key) in enumerate(items):
        anchor = ANCHORS.get(key)
        if anchor:
            ax.hlines(anchor[1], i - 0.4, i + 0.4, colors="black", linestyles="dashed", linewidth=1)
        target = TARGETS.get(key)
        if target:
            ax.hlines(float(target.split()[-1]), i - 0.4, i + 0.4, colors="red", linewidth=1.2)
    ax.set_xticks(range(len(items)), [n for n, _ in items], rotation=30, fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_title("F1 (SciFact rules), verifier, faithfulness", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
