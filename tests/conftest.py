"""Shared fixtures: a tiny corpus of our own, a real index of it (real Chroma, BM25 and MiniLM), a rule-based
verifier stand-in and the scripted chat model. SciFact-based tests skip with a reason when the data is absent."""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from agent.llm.scripted import ScriptedChatModel
from agent.settings.app import Settings
from agent.state import Deps
from tests.settings_env import BUILT_GRAPHS, remove_settings
from tools.config import ENV_FILE_VARIABLE

# Every test starts from the shipped defaults, whoever runs the suite: no setting of the runner's environment (the
# variables of .env.example, the UI password, the auth secret, API keys: tests/settings_env.py) reaches a test, and
# no `.env` is read, unless a test sets one itself. The CLI and chat servers the tests start inherit this environment.
remove_settings(os.environ)
os.environ[ENV_FILE_VARIABLE] = ""
# Chainlit's import loads `.env` from the working directory into os.environ; it reads this file instead, which is empty.
os.environ["CHAINLIT_ENV_FILE"] = os.devnull
# Every test searches the local index only, unless it selects live sources itself (tests/unit/test_live_*.py and
# tests/integration/test_live_path.py, against MockTransport or loopback servers): no test probes the network.
os.environ["SOURCES"] = "local"
# The tests that script the LLM's readings (what it says of each paper's bearing and direction) test the layers around
# the judge: the LLM reads every paper there, as it does with ABSTRACT_READER=false. The abstract reader's own tests
# set it back (tests/unit/test_reader_judge.py with a rule reader, tests/integration/test_reader_real.py with the
# shipped one).
os.environ["ABSTRACT_READER"] = "false"
# The tests check the same claims again and again on one data folder, where a claim checked before is offered instead
# of checked again (agent.earlier). The feature's own tests set it back (tests/unit/test_earlier_checks.py,
# tests/e2e/test_earlier_browser.py).
os.environ["EARLIER_CHECKS"] = "false"
# The exported ONNX graphs are files derived from the committed weights, named by their digest: the CLI and chat
# servers the tests start on data folders of their own read the ones `make setup` exported instead of exporting
# them again in each folder (an export: a few seconds per process). tests/unit/test_onnx_models.py exports
# into a cache of its own.
os.environ["ONNX_CACHE_DIR"] = str(BUILT_GRAPHS)

# PyTorch is for training and for comparing the ONNX graphs with it (pip install -e '.[train]'; `make test` installs
# it where its CPU wheel is, Python 3.11). Without it, the tests marked `torch` and the test modules that import it
# are left out, and the run's summary says how many.
TORCH = importlib.util.find_spec("torch") is not None
TORCH_MODULES = [
    "unit/test_verifier_frozen.py",
    "unit/test_verifier_resume.py",
    "unit/test_verifier_recompute.py",
    "unit/test_reader_rationale.py",
    "unit/test_onnx_mpnet.py",
    "integration/test_verifier_precision.py",
]
collect_ignore = [] if TORCH else TORCH_MODULES
LEFT_OUT = pytest.StashKey[int]()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if TORCH:
        return
    needing = [item for item in items if item.get_closest_marker("torch")]
    if needing:
        items[:] = [item for item in items if not item.get_closest_marker("torch")]
        config.hook.pytest_deselected(items=needing)
    config.stash[LEFT_OUT] = len(needing)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if not TORCH:
        terminalreporter.write_line(
            f"PyTorch is not installed: {config.stash.get(LEFT_OUT, 0)} test(s) marked torch deselected and "
            f"{len(TORCH_MODULES)} module(s) not collected ({', '.join(TORCH_MODULES)}); pip install -e '.[train]'"
        )


FIXTURES = Path(__file__).parent / "fixtures"
SCIFACT = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "scifact"


class RuleVerifier:
    """Test stand-in for the trained verifier: stance by keyword rules on the premise text."""

    def __init__(self, rules: dict[str, str] | None = None) -> None:
        self.rules = rules or {}
        self.seen: list[tuple[str, str]] = []

    def predict(self, pairs: Sequence[tuple[str, str]], batch_size: int = 32) -> list[Any]:
        from tools.models.verifier import VerifierResult

        out = []
        for hyp, prem in pairs:
            self.seen.append((hyp, prem))
            label = next((lab for key, lab in self.rules.items() if key in prem), "nei")
            # a clear reading: a sentence that bears is one the verifier's own gate passes without the LLM
            probs = {
                "supports": (0.96, 0.02, 0.02),
                "contradicts": (0.02, 0.96, 0.02),
                "nei": (0.05, 0.05, 0.9),
            }[label]
            out.append(VerifierResult(label, *probs))  # type: ignore[arg-type]
        return out


@pytest.fixture(scope="session")
def tiny_index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tools.index.build import build_index

    out = tmp_path_factory.mktemp("tiny_index")
    build_index(FIXTURES / "tiny_corpus.jsonl", out, progress=False)
    return out


@pytest.fixture(scope="session")
def tiny_index(tiny_index_dir: Path) -> Any:
    from tools.index.local import CorpusIndex

    return CorpusIndex(tiny_index_dir)


@pytest.fixture
def settings(tmp_path: Path, tiny_index_dir: Path) -> Settings:
    # a check's generated contexts (one LLM call per paper, after the answer) are written where a test asks for them
    # (tests/unit/test_supplement.py): the other tests' scripts do not answer that prompt
    return Settings(_env_file=None).with_values(  # type: ignore[call-arg]
        stores={"data_dir": tmp_path}, llm={"provider": "scripted"}, judge={"supplement": False}
    )


@pytest.fixture
def make_deps(settings: Settings, tiny_index: Any) -> Callable[..., Deps]:
    def make(
        rules: list[dict[str, Any]], verifier_rules: dict[str, str] | None = None, answer_strategy: str = ""
    ) -> Deps:
        """Deps with the scripted model, the rule verifier and the tiny index; ``answer_strategy`` overrides the
        default ANSWER_STRATEGY for a test of one strategy's prompt or reply."""
        return Deps(
            settings=settings.with_values(answer={"strategy": answer_strategy}) if answer_strategy else settings,
            llm=ScriptedChatModel(rules=rules),
            index=tiny_index,
            verifier=RuleVerifier(verifier_rules),
        )

    return make


def decompose_rule(questions: list[str], opposite: str) -> dict[str, Any]:
    return {
        "when": "search questions",
        "reply": json.dumps({"questions": questions, "opposite_claim": opposite}),
    }


def direction_rules(
    claim: str, supports: bool = True, evidence_end: str = "", bears: bool = True
) -> list[dict[str, Any]]:
    """Scripted replies of an LLM that reads the evidence as reporting a finding on the claim and on its opposite
    (``bears``; the gate asks both, agent.nodes.judge_sources.gate_reading) and as supporting the claim (or,
    ``supports=False``, its opposite) in both orders of the contrastive choice (agent/judge/direction.py).
    ``evidence_end``: the last words of the evidence the rules apply to (all evidence when empty)."""
    from agent.judge.direction import opposite_of

    fence = f"{evidence_end}\n</evidence>\n\n" if evidence_end else ""
    opposite = opposite_of(None, claim)[0]  # as the check makes it without an LLM: a rule, else the template
    return [
        {"when": f"{fence}Claim: {claim}\n\nDoes the evidence report", "reply": "Yes" if bears else "No"},
        {"when": f"{fence}Claim: {opposite}\n\nDoes the evidence report", "reply": "Yes" if bears else "No"},
        {"when": f"{fence}Statement A: {claim}", "reply": "A" if supports else "B"},
        {"when": f"{fence}Statement B: {claim}", "reply": "B" if supports else "A"},
    ]


# A scripted LLM that reads every source as reporting a finding on the claim (agent.judge.direction.bears), as sure of
# it as the embedded model is of a paper that bears (its P(Yes) rarely passes 0.8): the verifier's reading still tells a
# paper about the claim from one that only shares its words
BEARS = {
    "when": "Does the evidence report a finding on whether", "reply": "Yes", "top_logprobs": {"Yes": 0.7, "No": 0.3}
}
# An LLM sure that each paper it is shown reports a finding on the claim: which papers count is then decided by
# retrieval and the real verifier's screening (ask_floor), not by where BEARS's lukewarm Yes meets the gate's fitted
# threshold, which moves with each refit of agent/judge/judge_calibration.json.
SURE_BEARS = {**BEARS, "top_logprobs": {"Yes": 0.95, "No": 0.05}}


# A scripted LLM that reads every source as against the claim: in the contrastive choice it picks the statement that
# says "not" (the rule-made or the template opposite of a claim without "not").
CHOOSE_NOT = {"when": "Which statement does the evidence support?", "choose": " not "}

# The reply of a model that sees no better query when the evidence is thin (agent/nodes/reformulate.py).
STOP_SEARCHING = {"when": "found too little", "reply": '{"action": "stop"}'}
# the context of each paper a check shows, written after its answer (agent.answer.supplement): a finding of the tiny
# corpus's Danish cohort, kept where it is that paper's and dropped where its abstract does not support it
CONTEXT_RULE = {"when": "situate these sentences",
                "reply": "MMR vaccination was not associated with an increased risk of autism (hazard ratio 0.93)."}


def write_scifact_slice(root: Path, out: Path, gold: set[str], first: int = 200) -> Path:
    """A corpus file of the first `first` SciFact abstracts plus the `gold` ones, verbatim lines."""
    lines = (root / "corpus.jsonl").read_text().splitlines()
    picked = lines[:first] + [ln for ln in lines[first:] if str(json.loads(ln)["doc_id"]) in gold]
    path = out / "slice.jsonl"
    path.write_text("\n".join(picked) + "\n")
    return path


def scifact_or_skip() -> Path:
    if not (SCIFACT / "corpus.jsonl").is_file():
        pytest.skip(f"SciFact data not found at {SCIFACT} (integration tests need ../shared/data/scifact)")
    return SCIFACT
