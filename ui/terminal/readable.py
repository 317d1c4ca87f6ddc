"""The terminal view of a check result (`claimtrace ask` without --json): every untrusted text through
`ui.shared.untrusted.plain`, so no escape sequence reaches the terminal; the fixed words in the language the command
speaks (tools.text.i18n), the judge's and the checks' reasons too (``said``), the notes in English."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tools.text.i18n import decimal, said, spoken, t
from tools.text.language import ENGLISH
from ui.shared.answer_sentence import shown_sentence

if TYPE_CHECKING:
    from agent.answer.supplement import Supplement
    from agent.passage.model import PassageCheck
    from agent.result import CheckResult

# control characters of a passage shown in the terminal (line breaks and tabs kept: they shape the passage)
_CONTROL = {c: None for c in [*range(0, 9), 11, 12, *range(14, 32), 127, *range(0x80, 0xA0)]}


def print_readable(result: dict[str, Any]) -> None:
    """The result of `claimtrace ask` without --json: the verdict in one sentence, the consensus line when at least
    two papers count, flagged answer sentences (the ``summary`` that opens the answer is the verdict's sentence),
    corrections, sources."""
    from agent.judge.scoring import describe_reputation
    from ui.shared.badges import badges_plain
    from ui.shared.consensus import charted, consensus_line, consensus_of
    from ui.shared.notes import note_text
    from ui.shared.papers import by_paper
    from ui.shared.supplement import generated
    from ui.shared.untrusted import plain
    from ui.shared.wording import REVISED, stance_text, verdict_words

    marks = {
        "supported": "",
        "contradicted": "  " + t("[FLAG: contradicted by its sources]"),
        "unsupported": "  " + t("[FLAG: not supported by its sources]"),
        "uncited": "  " + t("[FLAG: cites no source]"),
    }
    print(t("Claim: {claim}", claim=plain(result["claim"])) + "\n")
    v = result["verdict"]
    if v:
        print(t("Verdict: {verdict}", verdict=verdict_words(v, result.get("assessments") or [],
                                                          result.get("silent") or [])))
        if result.get("opposite"):
            print(t('Each source was read against the claim\'s opposite: "{opposite}"',
                    opposite=plain(result["opposite"])))
    if "assessments" in result and charted(consensus_of(result)):
        print(consensus_line(consensus_of(result)))
    if result["sentences"]:
        print("\n" + t("Answer:"))
    for i, s in enumerate(result["sentences"], start=1):
        cites = f" [{', '.join(map(str, s['citations']))}]" if s["citations"] else ""
        flag = marks[s["status"]]
        if s["invalid_citations"]:
            flag += "  " + t("[FLAG: removed citation(s) to non-existent source(s) {numbers}]",
                             numbers=s["invalid_citations"])
        revised = f"  ({t(REVISED[s['revision']])})" if s.get("revision") else ""
        print(f"  {i}. {plain(shown_sentence(s))}{cites}{flag}{revised}")
        if s.get("translation"):
            print("     " + t("(translated by the LLM; checked in English: {english})", english=plain(s["text"])))
    if result.get("corrections"):
        print("\n" + t("Self-correction (the first answer's flagged sentences):"))
        for c in result["corrections"]:
            instead = f' -> "{plain(c["text"])}"' if c["text"] else ""
            print(f'  {c["position"]}. {t(c["action"])}: "{plain(c["original"])}" ({t(c["status"])}: '
                  f"{plain(said(c['reason']))}){instead}")
    if result["sources"]:
        print("\n" + t("Sources:"))
        for paper in by_paper(result["sources"]):  # one number per paper, its evidence sentences under it
            src = paper[0]
            year = f" ({src['year']})" if src["year"] else ""
            badges = f" {badges_plain(src)}" if badges_plain(src) else ""
            pages = sorted({int(s["page"]) for s in paper if s.get("page")})  # a full text's pages (the library)
            page = ", " + t("p. {page}", page=", ".join(map(str, pages))) if pages else ""
            print(f"  [{src['n']}] {plain(src['title'])}{year}{page}{badges} — {stance_text(src)}")
            for s in paper:
                print(f'      "{plain(s["sentence"])}"')
            if shown := generated(paper):
                print(f"      {t(shown[0])}: {plain(shown[1])}")
            weight = describe_reputation(src.get("reputation"), src.get("reputation_inputs"))
            if weight:
                print(f"      {plain(weight)}")
            if src["url"]:
                print(f"      {plain(src['url'])}")
    for note in result["notes"]:  # in a reader's words: the JSON keeps each note as the pipeline wrote it
        print("\n" + t("Note: {note}", note=plain(note_text(note, settings=True))))
    took, llm = result["timings"], result["llm"]
    print(
        f"\n({took.get('total', 0):.1f} s, {llm['calls']} LLM call(s), "
        f"{llm['prompt_tokens']}+{llm['completion_tokens']} tokens)"
    )


def print_supplement(n: int, written: Supplement) -> None:
    """One paper's generated summary as the LLM finishes it, after the answer (agent.answer.supplement)."""
    from ui.shared.supplement import GENERATED, NONE
    from ui.shared.untrusted import plain

    label, text = (GENERATED, written.text) if written.text else (NONE, written.note)
    print(f"  [{n}] {t(label)}: {plain(text)}", flush=True)


def print_passage(check: PassageCheck) -> None:
    """The report of `claimtrace check-text`: the claims' table, the passage with each claim marked by its verdict,
    the citation audit, the sentences not checked (with why), the notes, then each claim's answer."""
    from ui.shared.notes import note_text
    from ui.shared.passage import audit_text, marked_text, rows
    from ui.shared.untrusted import plain

    table = rows(check)
    if table:
        print(f"{'#':>3}  {t('Verdict'):<34} {t('Conf.'):>5} {t('Papers'):>6}  {t('Claim')}")
        for row in table:
            label = t("= claim {n}", n=row.same_as) if row.same_as else row.label
            conf = "" if row.confidence is None else decimal(row.confidence)
            print(f"{row.n:>3}  {plain(label):<34} {conf:>5} {row.papers:>6}  {plain(row.claim)}")
        print("\n" + t("The passage, each claim marked by its verdict:") + "\n")
        print(marked_text(check, lambda s: s.translate(_CONTROL), lambda row, text: f"⟦{row.n}: {row.label}⟧ {text}"))
    audits = [(c.n, a) for c in check.claims for a in c.audits]
    if audits:
        print("\n" + t("Citation audit:"))
        for n, audit in audits:
            print("  " + t("claim {n}: {audit}", n=n, audit=plain(audit_text(audit))))
    if check.skipped:
        print("\n" + t("Not checked:"))
        for s in check.skipped:
            print(f"  - {plain(s.sentence)} ({plain(said(s.reason))})")
    for note in check.notes:
        print("\n" + t("Note: {note}", note=plain(note_text(note, settings=True))))
    for claim in check.claims:
        if claim.result is not None and claim.result.answer:
            answer, translated = _shown_answer(claim.result)
            print(f"\n[{claim.n}] {plain(answer)}")
            if translated:
                print("     " + t("(translated by the LLM; checked in English: {english})",
                                  english=plain(claim.result.answer)))
    print("\n" + t("({provisional} s to every provisional verdict, {total} s in all)",
                   provisional=decimal(check.timings.get("provisional", 0), 1),
                   total=decimal(check.timings.get("total", 0), 1)))


def _shown_answer(result: CheckResult) -> tuple[str, bool]:
    """A claim's answer as the terminal shows it, and whether the LLM translated some of it: as written when the
    command speaks English; else the verdict in the language spoken, then each sentence with its citations, in the
    claim's language where the LLM translated it and the command speaks that language (a quote of a paper keeps the
    paper's words under a frame in the language spoken; a sentence whose translation was not kept is in English)."""
    from tools.text.citations import ParsedSentence, render
    from ui.shared.wording import verdict_words

    if spoken() == ENGLISH:
        return result.answer, False
    dump = result.model_dump(mode="json", include={"verdict", "assessments", "silent", "sentences"})
    verdict = verdict_words(dump["verdict"], dump["assessments"], dump["silent"]) if dump["verdict"] else ""
    if spoken() != result.language:  # the translations are in the claim's language, not the one asked for
        dump["sentences"] = [s | {"translation": ""} for s in dump["sentences"]]
    body = render([ParsedSentence(shown_sentence(s), s["citations"]) for s in dump["sentences"]])
    return " ".join(part for part in (verdict or result.summary, body) if part), any(
        s["translation"] for s in dump["sentences"])
