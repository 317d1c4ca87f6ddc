"""The terminal view of a check result (`claimtrace ask` without --json): every untrusted text through
`ui.shared.untrusted.plain`, so no escape sequence reaches the terminal."""

from __future__ import annotations

from typing import Any


def print_readable(result: dict[str, Any]) -> None:
    """The result of `claimtrace ask` without --json: flagged answer sentences, corrections, verdict, sources."""
    from agent.scoring import describe_reputation
    from ui.shared.badges import badges_plain, weak_designs_text
    from ui.shared.consensus import consensus_line, consensus_of
    from ui.shared.papers import by_paper
    from ui.shared.untrusted import plain
    from ui.shared.wording import REVISED, stance_text, verdict_details

    marks = {
        "supported": "",
        "contradicted": "  [FLAG: contradicted by its sources]",
        "unsupported": "  [FLAG: not supported by its sources]",
        "uncited": "  [FLAG: cites no source]",
    }
    print(f"Claim: {plain(result['claim'])}\n")
    print("Answer:")
    if result.get("summary"):
        print(f"  {plain(result['summary'])}")
    for i, s in enumerate(result["sentences"], start=1):
        cites = f" [{', '.join(map(str, s['citations']))}]" if s["citations"] else ""
        flag = marks[s["status"]]
        if s["invalid_citations"]:
            flag += f"  [FLAG: removed citation(s) to non-existent source(s) {s['invalid_citations']}]"
        revised = f"  ({REVISED[s['revision']]})" if s.get("revision") else ""
        print(f"  {i}. {plain(s['text'])}{cites}{flag}{revised}")
    if result.get("corrections"):
        print("\nSelf-correction (the first answer's flagged sentences):")
        for c in result["corrections"]:
            instead = f' -> "{plain(c["text"])}"' if c["text"] else ""
            print(f'  {c["position"]}. {c["action"]}: "{plain(c["original"])}" ({c["status"]}: {plain(c["reason"])})'
                  f"{instead}")
    v = result["verdict"]
    if v:
        print(f"\nVerdict: {v['label']} ({verdict_details(v)})")
        if weak := weak_designs_text(v):
            print(f"Warning: the verdict {weak}")
        if result.get("opposite"):
            print(f'Each source was read against the claim\'s opposite: "{plain(result["opposite"])}"')
    if "assessments" in result:
        print(("" if v else "\n") + consensus_line(consensus_of(result)))
    if result["sources"]:
        print("\nSources:")
        for paper in by_paper(result["sources"]):  # one number per paper, its evidence sentences under it
            src = paper[0]
            year = f" ({src['year']})" if src["year"] else ""
            badges = f" {badges_plain(src)}" if badges_plain(src) else ""
            pages = sorted({int(s["page"]) for s in paper if s.get("page")})  # a full text's pages (the library)
            page = f", p. {', '.join(map(str, pages))}" if pages else ""
            print(f"  [{src['n']}] {plain(src['title'])}{year}{page}{badges} — {stance_text(src)}")
            for s in paper:
                print(f'      "{plain(s["sentence"])}"')
            weight = describe_reputation(src.get("reputation"), src.get("reputation_inputs"))
            if weight:
                print(f"      {plain(weight)}")
            if src["url"]:
                print(f"      {plain(src['url'])}")
    for note in result["notes"]:
        print(f"\nNote: {plain(note)}")
    t, llm = result["timings"], result["llm"]
    print(
        f"\n({t.get('total', 0):.1f} s, {llm['calls']} LLM call(s), "
        f"{llm['prompt_tokens']}+{llm['completion_tokens']} tokens)"
    )
