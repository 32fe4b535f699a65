"""`kg lint`: health checks of the graph and the wiki. Each finding says what and how to fix it.

Severities: "error" (the wiki or graph is wrong or out of date: exit code 1), "warning"
(something a human should look at), "info" (suggestions: cross-references, research gaps).
`--fix` applies only safe fixes: recompile stale sources, re-render the wiki. It never
writes raw/ or insights/ (broken links in insights/ are reported, never fixed).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from exporters.pages import WikiGraph, load_wiki_graph
from kg.compile.pipeline import load_source_states, plan_compile
from kg.graph.claims import live_evidence_paths
from kg.graph.store import Store
from kg.kb import KnowledgeBase

SEVERITIES = ("error", "warning", "info")
LOW_CONFIDENCE = 0.5
COOCCUR_MIN_SOURCES = 3
MAX_PER_CHECK = 200  # findings listed per check; the count is always complete
_WIKILINK = re.compile(r"\[\[([^\]\n]+?)\]\]")


@dataclass
class LintFinding:
    check: str
    severity: str
    subject: str  # the page, claim, entity or source concerned
    message: str
    fix: str
    fixable: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class LintReport:
    findings: list[LintFinding] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # check -> total (even beyond MAX_PER_CHECK)
    fixed: list[str] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")

    def add(self, finding: LintFinding) -> None:
        self.counts[finding.check] = self.counts.get(finding.check, 0) + 1
        if self.counts[finding.check] <= MAX_PER_CHECK:
            self.findings.append(finding)

    def as_dict(self) -> dict[str, Any]:
        by_severity = Counter(f.severity for f in self.findings)
        return {"errors": self.errors, "warnings": by_severity["warning"], "infos": by_severity["info"],
                "counts": dict(sorted(self.counts.items())), "fixed": self.fixed,
                "findings": [f.as_dict() for f in self.findings]}


# wikilinks -------------------------------------------------------------------------------------


def is_listing(page: str) -> bool:
    """index.md, the log, the contradictions and the lists under indexes/, log/ and contradictions/:
    pages that list others (a link from them does not make a page less of an orphan)."""
    return page in ("index", "log", "contradictions") or page.startswith(("indexes/", "log/", "contradictions/"))


def link_target(raw: str) -> str:
    """`[[target#heading|label]]` -> target."""
    return raw.split("|", 1)[0].split("#", 1)[0].strip()


def markdown_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.rglob("*.md") if not any(part.startswith(".") for part in p.relative_to(folder).parts))


def wiki_link_graph(wiki: Path) -> dict[str, set[str]]:
    """page (path without .md, relative to wiki/) -> link targets."""
    out: dict[str, set[str]] = {}
    for path in markdown_files(wiki):
        page = path.relative_to(wiki).with_suffix("").as_posix()
        out[page] = {link_target(m.group(1)) for m in _WIKILINK.finditer(path.read_text(encoding="utf-8", errors="replace"))}
    return out


def resolves(target: str, pages: set[str], names: set[str]) -> bool:
    """Obsidian resolution: a path relative to the vault, or a bare file name anywhere."""
    if not target:
        return True  # [[#heading]]: a link inside the page
    target = target.removesuffix(".md")
    return target in pages or target.rsplit("/", 1)[-1].casefold() in names


# the checks ------------------------------------------------------------------------------------


def lint(kb: KnowledgeBase, store: Store) -> LintReport:
    report = LintReport()
    g = load_wiki_graph(store)
    check_stale(kb, store, report)
    check_freshness(kb, g, report)
    check_wiki_current(kb, g, report)
    check_contradictions(g, report)
    check_links(kb, g, report)
    check_missing_pages(g, report)
    check_cross_references(g, report)
    check_single_low_confidence(g, report)
    check_duplicates(g, report)
    check_gaps(g, report)
    order = {s: i for i, s in enumerate(SEVERITIES)}
    report.findings.sort(key=lambda f: (order[f.severity], f.check, f.subject, f.message))
    return report


def check_stale(kb: KnowledgeBase, store: Store, report: LintReport) -> None:
    plan = plan_compile(kb.raw, load_source_states(store))
    live = Counter(r["path"] for r in live_evidence_paths(store))
    for path in plan.changed:
        report.add(LintFinding("stale", "error", f"raw/{path}",
                           f"the source changed on disk since it was compiled; {live[path]} claim(s) rest on the old text",
                           "run `kg compile` (or `kg lint --fix`) to recompile it", fixable=True))
    for path in plan.vanished:
        report.add(LintFinding("stale", "error", f"raw/{path}",
                           f"the source is gone from raw/; {live[path]} claim(s) still cite it",
                           "run `kg compile` (or `kg lint --fix`) to retract them", fixable=True))
    for path in plan.new:
        report.add(LintFinding("uncompiled", "warning", f"raw/{path}", "a source in raw/ is not compiled yet",
                           "run `kg compile` (or `kg lint --fix`)", fixable=True))


def check_freshness(kb: KnowledgeBase, g: WikiGraph, report: LintReport) -> None:
    """Sources older than the [freshness] limit of their path, and the entity pages whose live
    claims all rest on such sources (said here, not on the pages: the wiki is a function of raw/,
    not of the clock)."""
    from kg.maintain.freshness import overdue_sources

    overdue = overdue_sources(kb.raw, kb.config())
    old = {item.path for item in overdue}
    for entity, claim_ids in sorted(g.claims_of_entity.items()):
        sources = {ev.source_path for cid in claim_ids if (claim := g.claims.get(cid)) and claim.status == "live"
                   for ev in claim.evidence if not ev.retracted}
        if old and sources and sources <= old and g.has_page(entity):
            report.add(LintFinding("freshness", "info", f"entities/{entity}",
                                   f"every claim on this page rests on sources past their freshness limit ({len(sources)})",
                                   "update those sources (see the freshness warnings) and `kg compile`"))
    for item in overdue:
        dated = {"mtime": "by its modification time"}.get(item.dated_by, f"by its front matter `{item.dated_by}:`")
        report.add(LintFinding("freshness", "warning", f"raw/{item.path}",
                               f"{item.age_days} days old ({dated}), past its freshness limit of {item.limit_days} days "
                               f'("{item.pattern}" in [freshness])',
                               "bring the source up to date (and its `updated:` date), then `kg compile`; or raise the "
                               "limit in kg.toml [freshness]"))


def check_wiki_current(kb: KnowledgeBase, g: WikiGraph, report: LintReport) -> None:
    """The wiki must be exactly what the graph renders to (hand edits are lost on render)."""
    from exporters.wiki import WikiBuilder

    files = WikiBuilder(g).build()
    if not (kb.wiki / "index.md").is_file():
        report.add(LintFinding("wiki-outdated", "error", "wiki/", "the wiki has not been rendered",
                           "run `kg render` (or `kg lint --fix`)", fixable=True))
        return
    on_disk = {p.relative_to(kb.wiki).as_posix() for p in markdown_files(kb.wiki)}
    problems = []
    for rel in sorted(set(files) | on_disk):
        path = kb.wiki / rel
        if rel not in files:
            what = "a page the graph does not render (hand-made, or left over)"
        elif rel not in on_disk:
            what = "a page missing from the wiki"
        elif path.read_bytes() != (text.encode("utf-8") if isinstance(text := files[rel], str) else text):
            what = "differs from what the graph renders (edited by hand, or rendered by an older kg)"
        else:
            continue
        problems.append((rel, what))
    fix = "run `kg render` (or `kg lint --fix`); edit sources in raw/, not the wiki"
    if len(problems) > 20:  # one finding, not thousands: the whole wiki is out of date
        examples = ", ".join(rel for rel, _ in problems[:3])
        report.add(LintFinding("wiki-outdated", "error", "wiki/", f"{len(problems)} pages differ from what the graph "
                           f"renders (e.g. {examples}): edited by hand, or rendered by an older kg", fix, fixable=True))
        return
    for rel, what in problems:
        report.add(LintFinding("wiki-outdated", "error", f"wiki/{rel}", what, fix, fixable=True))


def check_contradictions(g: WikiGraph, report: LintReport) -> None:
    for row in sorted(g.contradictions, key=lambda r: (r["a"], r["b"])):
        a, b = g.claims[row["a"]], g.claims[row["b"]]
        if a.authority != b.authority:
            continue  # resolved by source authority; the wiki says which stands
        report.add(LintFinding("contradiction", "warning", f"claim {a.id} vs {b.id}",
                           f"open contradiction ({row['reason']}): “{a.text[:120]}” vs “{b.text[:120]}”",
                           "check the sources; give the better one a higher authority in kg.toml [authority] "
                           "or its front matter, or correct the wrong source, then `kg compile`"))


def check_links(kb: KnowledgeBase, g: WikiGraph, report: LintReport) -> None:
    wiki_links = wiki_link_graph(kb.wiki)
    insight_links = wiki_link_graph(kb.insights)
    pages = set(wiki_links) | {f"insights/{p}" for p in insight_links}
    names = {p.rsplit("/", 1)[-1].casefold() for p in set(wiki_links) | set(insight_links)}
    entity_by_name = {name.casefold(): e for e, row in g.entities.items()
                      for name in (row["name"], *(row["aliases"] or []))}
    for folder, graph, fixable in (("wiki", wiki_links, True), ("insights", insight_links, False)):
        for page in sorted(graph):
            for target in sorted(graph[page]):
                if resolves(target, set(graph) | pages, names):
                    continue
                hint = ""
                if (entity := entity_by_name.get(target.rsplit("/", 1)[-1].casefold())) is not None:
                    hint = f" (did you mean [[entities/{entity}]]?)"
                fix = ("run `kg render` (or `kg lint --fix`) to regenerate the wiki" if fixable else
                       f"edit insights/{page}.md yourself{hint or ': the target page does not exist'}; kg never writes insights/")
                report.add(LintFinding("broken-link", "error" if fixable else "warning", f"{folder}/{page}.md",
                                   f"[[{target}]] does not resolve to a page{hint}", fix, fixable=fixable))
    inbound: dict[str, set[str]] = defaultdict(set)
    for source_graph, prefix in ((wiki_links, ""), (insight_links, "insights/")):
        for page, targets in source_graph.items():
            for target in targets:
                if target != page and not (prefix == "" and is_listing(page)):
                    inbound[target.removesuffix(".md")].add(prefix + page)
    for page in sorted(wiki_links):
        if is_listing(page) or "." in page.rsplit("/", 1)[-1] or inbound.get(page):
            continue  # lists, and continuation parts (linked from their page), are not orphans
        report.add(LintFinding("orphan", "info", f"wiki/{page}.md", "no other page links here (only the index)",
                           "link it from a related note in insights/, or add sources that relate it to other entities"))


def check_missing_pages(g: WikiGraph, report: LintReport) -> None:
    """Entities the graph knows (mentioned by sources, linked by RELATED) that have no page."""
    mentioned: Counter[str] = Counter()
    for pairs in g.mentions.values():
        mentioned.update(e for e, _ in pairs)
    linked = {e for targets in g.related.values() for e in targets} | set(g.related)
    for entity in sorted(set(mentioned) | linked):
        if g.claims_of_entity.get(entity) or entity not in g.entities:
            continue
        if mentioned[entity] < 2 and entity not in linked:
            continue
        name = g.entities[entity]["name"]
        report.add(LintFinding("missing-page", "warning", f"entity {entity}",
                           f"“{name}” is mentioned by {mentioned[entity]} source(s) but has no claims, so no page",
                           f"add a source that says what {name} is (e.g. raw/{entity}.md), then `kg compile`"))


def check_cross_references(g: WikiGraph, report: LintReport) -> None:
    """Entities that several sources mention together but no claim or relation links."""
    together: Counter[tuple[str, str]] = Counter()
    for pairs in g.mentions.values():
        present = sorted(e for e, _ in pairs if g.claims_of_entity.get(e))
        if len(present) > 40:
            present = present[:40]  # a source mentioning everything says little about each pair
        together.update(itertools.combinations(present, 2))
    linked: set[tuple[str, str]] = set()
    for claim in g.claims.values():
        ids = sorted({e for e, _ in claim.entities})
        linked.update(itertools.combinations(ids, 2))
    for a, related in g.related.items():
        linked.update((min(a, b), max(a, b)) for b in related)
    for (a, b), n in sorted(together.items(), key=lambda kv: (-kv[1], kv[0])):
        if n < COOCCUR_MIN_SOURCES or (a, b) in linked:
            continue
        na, nb = g.entities[a]["name"], g.entities[b]["name"]
        report.add(LintFinding("cross-reference", "info", f"entities {a} + {b}",
                           f"“{na}” and “{nb}” appear together in {n} sources but no claim relates them",
                           f"add a sentence relating {na} and {nb} to a source (or a note in raw/), then `kg compile`"))


def check_single_low_confidence(g: WikiGraph, report: LintReport) -> None:
    for claim in sorted(g.claims.values(), key=lambda c: c.id):
        if claim.status != "live" or claim.confidence >= LOW_CONFIDENCE:
            continue
        live = [ev for ev in claim.evidence if not ev.retracted]
        if len({ev.source_path for ev in live}) != 1:
            continue
        report.add(LintFinding("weak-claim", "warning", f"claim {claim.id}",
                           f"rests on one source ({live[0].source_path}) with confidence {claim.confidence:.2f}: "
                           f"“{claim.text[:120]}”",
                           "find a second source that confirms or refutes it and add it to raw/"))


def _dup_key(name: str) -> str:
    key = re.sub(r"[^a-z0-9]", "", name.casefold())
    return key[:-1] if len(key) > 4 and key.endswith("s") else key


def check_duplicates(g: WikiGraph, report: LintReport) -> None:
    groups: dict[str, list[str]] = defaultdict(list)
    for entity, row in sorted(g.entities.items()):
        if g.claims_of_entity.get(entity) and (key := _dup_key(row["name"])):
            groups[key].append(entity)
    for _key, ids in sorted(groups.items()):
        if len(ids) < 2:
            continue
        names = ", ".join(f"“{g.entities[e]['name']}” ({e})" for e in ids)
        report.add(LintFinding("duplicate", "warning", "entities " + " + ".join(ids), f"look like one entity: {names}",
                           f"if they are the same, run `kg entity merge {ids[1]} {ids[0]}`"))


def check_gaps(g: WikiGraph, report: LintReport, limit: int = 25) -> None:
    """Questions the wiki cannot answer well: entities many sources mention but that have no
    definition, or only one or two claims; and entities whose claims contradict each other."""
    mentioned: Counter[str] = Counter()
    for pairs in g.mentions.values():
        mentioned.update(e for e, _ in pairs)
    candidates = []
    for entity, claim_ids in g.claims_of_entity.items():
        live = [g.claims[c] for c in claim_ids if g.claims[c].status == "live"]
        if not live or mentioned[entity] < 2:
            continue
        has_definition = any(c.claim_type == "definition" and c.subject == entity for c in live)
        if not has_definition or len(live) <= 2:
            candidates.append((-mentioned[entity], entity, has_definition, len(live)))
    for _, entity, has_definition, n in sorted(candidates)[:limit]:
        name = g.entities[entity]["name"]
        question = f"What is {name}?" if not has_definition else f"What else is known about {name}?"
        report.add(LintFinding("gap", "info", f"entities/{entity}",
                           f"research: {question} ({mentioned[entity]} sources mention it; {n} claim(s), "
                           f"{'no definition' if not has_definition else 'few claims'})",
                           f"add a source about {name} to raw/, then `kg compile`"))
