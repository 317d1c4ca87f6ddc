"""How well tools.text.language recognises a claim's language, on HealthFC (750 health claims written in German, each
with its English version; read from ../shared/data/healthfc as it is stored, evaluation only) and on short claims
written for the purpose in the five languages, against a detector of every language (Lingua unrestricted), so the
choice of restricting it is measured.

    python -m evals.language.recognition [--out evals/results/language/README.md]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import time
from collections.abc import Callable
from pathlib import Path

from evals.experiments import REPO_ROOT, git_commit
from tools.text.language import language_of

HEALTHFC = REPO_ROOT.parent / "shared" / "data" / "healthfc" / "Datensatz.csv.gz"
# short claims, the hard case: a few words give a detector little to go on
SHORT = [
    ("de", "Makrolide schützen vor Herzinfarkt."), ("de", "Kaffee verursacht Krebs."),
    ("de", "Zink verkürzt Erkältungen."), ("de", "Impfungen verursachen Autismus."),
    ("es", "El café causa cáncer."), ("es", "Las vacunas causan autismo."), ("es", "La vitamina D previene fracturas."),
    ("fr", "Le café provoque le cancer."), ("fr", "Les vaccins causent l'autisme."),
    ("fr", "La vitamine D prévient les fractures."), ("pt", "O café causa câncer."),
    ("pt", "As vacinas causam autismo."), ("pt", "Estatinas reduzem a mortalidade."),
    ("pt", "A vitamina D previne fraturas."), ("de", "Der MMR-Impfstoff verursacht Autismus."),
    ("en", "Coffee causes cancer."), ("en", "Vaccines cause autism."), ("en", "Statins reduce mortality."),
    ("en", "ALDH1 expression predicts poor prognosis."), ("en", "Zinc shortens colds."),
    ("en", "BRCA1 mutations increase breast cancer risk."), ("en", "Vitamin D prevents fractures."),
]  # fmt: skip


def scifact_dev() -> list[tuple[str, str]]:
    """SciFact dev's claims: English, with the Latin and Greek terms that make English read like French."""
    path = REPO_ROOT.parent / "shared" / "data" / "scifact" / "claims_dev.jsonl"
    return [("en", json.loads(line)["claim"]) for line in path.read_text().splitlines()]


def healthfc_pairs() -> list[tuple[str, str]]:
    """(German claim, English claim) of every HealthFC row, in the file's order (read as stored, never copied)."""
    with gzip.open(HEALTHFC) as f:
        rows = list(csv.DictReader(io.TextIOWrapper(f, encoding="utf-8-sig")))
    return [(r["de_claim"], r["en_claim"]) for r in rows]


def healthfc() -> list[tuple[str, str]]:
    """HealthFC's claims with their language: every German one, then every English one."""
    both = healthfc_pairs()
    return [("de", de) for de, _ in both] + [("en", en) for _, en in both]


def every_language() -> Callable[[str], str]:
    from lingua import LanguageDetectorBuilder

    detector = LanguageDetectorBuilder.from_all_languages().build()

    def detect(text: str) -> str:
        found = detector.detect_language_of(text)
        return found.iso_code_639_1.name.lower() if found is not None else "en"

    return detect


def score(detect: Callable[[str], str], items: list[tuple[str, str]]) -> tuple[dict[str, str], float, list[str]]:
    t0 = time.perf_counter()
    got = [(code, text, detect(text)) for code, text in items]
    ms = 1000 * (time.perf_counter() - t0) / len(items)
    per = {c: f"{sum(g == c for k, _, g in got if k == c)} / {sum(k == c for k, _, _ in got)}"
           for c in dict.fromkeys(k for k, _ in items)}
    return per, ms, [f"{text} ({code} read as {g})" for code, text, g in got if g != code]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=REPO_ROOT / "evals" / "results" / "language" / "README.md")
    args = ap.parse_args(argv)
    rows = ["| detector | set | right, by language | ms a claim | misread |", "|---|---|---|---:|---|"]
    detectors = (("claimtrace (Lingua, 5 languages)", language_of), ("Lingua, every language", every_language()))
    for name, detect in detectors:
        sets = (("HealthFC claims", healthfc(), False), ("SciFact dev claims", scifact_dev(), False),
                ("short claims", SHORT, True))
        for set_name, items, quoted in sets:
            per, ms, wrong = score(detect, items)
            # the data sets' text is not quoted (their licences allow no copy here): only how many were misread
            shown = ("; ".join(wrong) if quoted else f"{len(wrong)} claims") if wrong else "none"
            right = ", ".join(f"{c} {v}" for c, v in per.items())
            rows.append(f"| {name} | {set_name} | {right} | {ms:.2f} | {shown} |")
    text = f"""# The language of a claim

`python -m evals.language.recognition` (commit {git_commit()}). HealthFC: 750 claims in German and their 750 English
versions, read from `../shared/data/healthfc` (evaluation only). Short claims: {len(SHORT)} written for this test
(`evals/language/recognition.py`). SciFact dev: its 300 claims, all English. The floor under which a text is not English
(`tools/text/language.py`, ENGLISH_FLOOR) was chosen on SciFact train's claims and the short claims. Times include
the first call.

{chr(10).join(rows)}
"""
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
