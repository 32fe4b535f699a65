"""Put what the journal keeps back into a graph rebuilt from raw/ (`kg doctor`, `kg compile --rebuild`)."""

from __future__ import annotations

from kg.graph.journal import MANUAL, Journal, ReplayReport
from kg.graph.store import Store, WriteBatch


def replay(store: Store, journal: Journal) -> ReplayReport:
    """The log (replacing the entries the rebuild's compile wrote), filed answers (citing the
    claims and entities that still exist) and the merges standing, in one write."""
    report = ReplayReport()
    batch = WriteBatch()
    batch.statements.append(("MATCH (l:LogEntry) DELETE l", {}))
    for entry in journal.log_entries():
        batch.add("LogEntry", entry)
        report.log_entries += 1
    answers = journal.answers()
    merges = journal.merges()
    claims = store.existing_ids("Claim", [c for _, cites, _ in answers for c in cites])
    entities = store.existing_ids("Entity", [e for _, _, about in answers for e in about]
                                  + [e for alias, (target, _) in merges.items() for e in (alias, target)])
    for page, cites, about in answers:
        batch.statements.append(("MATCH (p:Page {id: $id}) DETACH DELETE p", {"id": page["id"]}))
        batch.add("Page", page)
        for claim in cites:
            if claim in claims:
                batch.relate("CITES", {"src": page["id"], "dst": claim})
            else:
                report.skipped.append(f"answer {page['id']}: claim {claim} is gone")
        for entity in about:
            if entity in entities:
                batch.relate("PAGE_ABOUT", {"src": page["id"], "dst": entity})
        report.answers += 1
    for alias, (target, score) in merges.items():
        if alias in entities and target in entities:
            batch.statements.append(("MATCH (a:Entity {id: $id})-[m:ALIAS_OF]->() DELETE m", {"id": alias}))
            batch.relate("ALIAS_OF", {"src": alias, "dst": target, "method": MANUAL, "score": score})
            report.merges += 1
        else:
            report.skipped.append(f"merge {alias} -> {target}: {alias if alias not in entities else target} is gone")
    store.write(batch)
    return report
