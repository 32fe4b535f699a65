"""Same sources, same graph (issue 15): compile one corpus along different histories and compare.

Each history ends with the same raw/ folder but gets there differently: all sources in one
compile, in halves, the second half first, in slices in reverse order, in random partitions of
a random order, and (with --kills) with compiles killed by SIGKILL at random moments and then
finished. Every history's wiki (all pages but log.md and log/) and graph (entities with names, types and
aliases, claims, every edge) are compared with the one-compile history's.

    python benchmarks/determinism.py                  # 300 hotpotqa passages, 4 orders + 4 random
    python benchmarks/determinism.py --kills 3 --random 6

Prints one line per history (pages and graph rows that differ) and writes
benchmarks/out/determinism.json. Every compile is a `kg` process. KG_DATA_DIR overrides the data folder.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import KG_EXE, data_dir, hotpot_markdown, out_path, read_jsonl, write_json

GRAPH_QUERIES = {
    "entities": "MATCH (e:Entity) RETURN e.id, e.name, e.type, e.aliases, e.summary, e.status ORDER BY e.id",
    "claims": "MATCH (c:Claim) RETURN c.id, c.text, c.claim_type, c.predicate, c.status, c.value, c.unit ORDER BY c.id",
    "about": "MATCH (c:Claim)-[r:ABOUT]->(e:Entity) RETURN c.id, e.id, r.role ORDER BY c.id, e.id, r.role",
    "alias_of": "MATCH (a:Entity)-[r:ALIAS_OF]->(b:Entity) RETURN a.id, b.id, r.method ORDER BY a.id, b.id",
    "contradicts": "MATCH (a:Claim)-[r:CONTRADICTS]->(b:Claim) RETURN a.id, b.id ORDER BY a.id, b.id",
    "supersedes": "MATCH (a:Claim)-[r:SUPERSEDES]->(b:Claim) RETURN a.id, b.id ORDER BY a.id, b.id",
    "mentions": "MATCH (s:Source)-[r:MENTIONS]->(e:Entity) RETURN s.path, e.id, r.count ORDER BY s.path, e.id",
    "evidence": "MATCH (c:Claim)-[x:EXTRACTED_FROM]->(s:Source) WHERE x.retracted_at = '' "
                "RETURN c.id, s.path, x.char_start, x.char_end ORDER BY c.id, s.path, x.char_start",
    "sources": "MATCH (s:Source) WHERE s.status <> 'removed' RETURN s.path, s.slug, s.title ORDER BY s.path",
}


def passages(n: int) -> list[tuple[str, str]]:
    rows = read_jsonl(data_dir() / "hotpotqa-100" / "corpus.jsonl", n)
    return [(f"p{i + 1:04d}.md", hotpot_markdown(d)) for i, d in enumerate(rows)]


def wiki_digest(wiki: Path) -> dict[str, str]:
    return {p.relative_to(wiki).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(wiki.rglob("*")) if p.is_file() and p.relative_to(wiki).parts[0] not in ("log.md", "log")}


def graph_rows(kg: list[str], root: Path) -> dict[str, list[Any]]:
    out = {}
    for name, query in GRAPH_QUERIES.items():
        done = subprocess.run([*kg, "cypher", query, "--json"], cwd=root, capture_output=True, text=True, check=True)
        out[name] = json.loads(done.stdout)
    return out


def compile_until_done(kg: list[str], root: Path, rng: random.Random, kills: int) -> int:
    """`kg compile`, killed up to `kills` times at a random moment, then run to the end."""
    killed = 0
    for _ in range(kills):
        child = subprocess.Popen([*kg, "compile", "-q"], cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, 4.0))
        if child.poll() is None:
            child.send_signal(signal.SIGKILL)
            killed += 1
        child.wait()
        (root / ".kg" / "lock.json").unlink(missing_ok=True)
    subprocess.run([*kg, "compile", "-q"], cwd=root, check=True, capture_output=True)
    return killed


def run_history(kg: list[str], work: Path, name: str, slices: list[list[tuple[str, str]]], rng: random.Random,
                kills: int) -> tuple[dict[str, str], dict[str, list[Any]], int]:
    """Add the slices of the corpus one compile at a time: the states of raw/ they lead through."""
    states, current = [], {}
    for part in slices:
        current.update(part)
        states.append(dict(current))
    return run_states(kg, work, name, states, rng, kills)


def raw_states(corpus: list[tuple[str, str]], count: int, rng: random.Random) -> list[dict[str, str]]:
    """Successive states of raw/ ({file: text}): sources added, edited, deleted."""
    states: list[dict[str, str]] = []
    current: dict[str, str] = {}
    pending = corpus[:]
    rng.shuffle(pending)
    step = max(1, len(pending) // count)
    for _ in range(count):
        for file, text in pending[:step]:
            current[file] = text
        pending = pending[step:]
        for file in rng.sample(sorted(current), min(len(current), 8)):  # edits: a sentence added or cut
            current[file] = current[file] + "\nIt was revised in 1999 and again in 2003.\n" if rng.random() < 0.5 \
                else current[file].split(". ")[0] + ".\n"
        for file in rng.sample(sorted(current), min(len(current) // 10, 6)):  # deletions
            del current[file]
        states.append(dict(current))
    return states


def run_states(kg: list[str], work: Path, name: str, states: list[dict[str, str]], rng: random.Random,
               kills: int) -> tuple[dict[str, str], dict[str, list[Any]], int]:
    """Compile each state of raw/ in turn (killed `kills` times at random moments, then finished)."""
    root = work / name
    shutil.rmtree(root, ignore_errors=True)
    subprocess.run([*kg, "init", str(root)], check=True, capture_output=True)
    killed = 0
    for state in states:
        for old in (root / "raw").glob("*.md"):
            if old.name not in state:
                old.unlink()
        for file, text in state.items():
            path = root / "raw" / file
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
        killed += compile_until_done(kg, root, rng, kills)
    return wiki_digest(root / "wiki"), graph_rows(kg, root), killed


def partitions(items: list[Any], rng: random.Random) -> list[list[Any]]:
    order = items[:]
    rng.shuffle(order)
    cuts = sorted(rng.sample(range(1, len(order)), rng.randint(1, 5)))
    return [order[a:b] for a, b in zip([0, *cuts], [*cuts, len(order)], strict=True)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--passages", type=int, default=300)
    parser.add_argument("--random", type=int, default=4, help="random orders and partitions to try")
    parser.add_argument("--kills", type=int, default=0, help="SIGKILLs per compile in the random histories")
    parser.add_argument("--states", type=int, default=0,
                        help="also compile this many successive states of raw/ (edits, deletions) with --kills "
                             "SIGKILLs per compile, against the same states compiled without kills")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kg", default=KG_EXE)
    parser.add_argument("--out", type=Path, default=out_path("determinism.json"))
    args = parser.parse_args(argv)
    corpus = passages(args.passages)
    half = len(corpus) // 2
    fixed = {
        "halves": [corpus[:half], corpus[half:]],
        "second half first": [corpus[half:], corpus[:half]],
        "five slices reversed": [corpus[i : i + len(corpus) // 5] for i in range(0, len(corpus), len(corpus) // 5)][::-1],
    }
    rng = random.Random(args.seed)
    results = []
    kg = [args.kg]
    with tempfile.TemporaryDirectory(prefix="kg-determinism-") as tmp:
        work = Path(tmp)
        started = time.perf_counter()
        base_wiki, base_graph, _ = run_history(kg, work, "one compile", [corpus], rng, 0)
        print(f"one compile: {len(base_wiki)} pages, {len(base_graph['entities'])} entities, "
              f"{len(base_graph['claims'])} claims ({time.perf_counter() - started:.0f} s)", flush=True)
        histories = [(name, slices, 0) for name, slices in fixed.items()]
        histories += [(f"random {i + 1}", partitions(corpus, rng), args.kills) for i in range(args.random)]
        for name, slices, kills in histories:
            started = time.perf_counter()
            wiki, graph, killed = run_history(kg, work, name, slices, rng, kills)
            pages = sorted(p for p in set(wiki) | set(base_wiki) if wiki.get(p) != base_wiki.get(p))
            rows = {table: len(set(map(json.dumps, graph[table])) ^ set(map(json.dumps, base_graph[table])))
                    for table in GRAPH_QUERIES}
            differ = bool(pages) or any(rows.values())
            results.append({"history": name, "compiles": len(slices), "killed": killed, "pages_differing": len(pages),
                            "examples": pages[:8], "graph_rows_differing": rows, "differs": differ})
            print(f"{name}: {len(slices)} compiles, {killed} killed: "
                  + (f"{len(pages)} pages differ, graph rows differing {{{', '.join(f'{t}: {n}' for t, n in rows.items() if n)}}}"
                     f" e.g. {pages[:4]}" if differ else "identical")
                  + f" ({time.perf_counter() - started:.0f} s)", flush=True)
        if args.states:
            states = raw_states(corpus, args.states, rng)
            clean_wiki, clean_graph, _ = run_states(kg, work, "states", states, rng, 0)
            for attempt in range(max(1, args.random)):
                started = time.perf_counter()
                wiki, graph, killed = run_states(kg, work, f"states killed {attempt + 1}", states, rng, args.kills)
                pages = sorted(p for p in set(wiki) | set(clean_wiki) if wiki.get(p) != clean_wiki.get(p))
                rows = {table: len(set(map(json.dumps, graph[table])) ^ set(map(json.dumps, clean_graph[table])))
                        for table in GRAPH_QUERIES}
                differ = bool(pages) or any(rows.values())
                results.append({"history": f"{len(states)} states, killed run {attempt + 1}", "compiles": len(states),
                                "killed": killed, "pages_differing": len(pages), "examples": pages[:8],
                                "graph_rows_differing": rows, "differs": differ})
                print(f"{len(states)} states with kills (run {attempt + 1}): {killed} killed: "
                      + (f"{len(pages)} pages differ, rows {{{', '.join(f'{t}: {n}' for t, n in rows.items() if n)}}}"
                         if differ else "identical to the same states without kills")
                      + f" ({time.perf_counter() - started:.0f} s)", flush=True)
    differing = sum(r["differs"] for r in results)
    print(f"{len(results)} histories against one compile of {len(corpus)} passages: {differing} differ")
    write_json(args.out, {"passages": len(corpus), "histories": results, "differing": differing})
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
