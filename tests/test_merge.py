"""`kg merge` (issue 20, part 2): shard bundles into a central knowledge base, as one compile."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from kg import api
from kg.graph.store import Store
from kg.kb import KnowledgeBase, init
from kg.share import bundle
from tests.conftest import EXAMPLES, is_log, tree_digest
from tests.conftest import run_cli as run

NOTES = sorted(EXAMPLES.iterdir())
HALVES = {"lab-a": NOTES[:7], "lab-b": NOTES[7:]}



def shard_kb(root: Path, notes: list[Path]) -> KnowledgeBase:
    kb, _ = init(root)
    for note in notes:
        shutil.copyfile(note, kb.raw / note.name)
    api.compile_kb(kb, "heuristic")
    return kb


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two knowledge bases from the halves of examples/notes, their signed bundles, and the keys."""
    base = tmp_path_factory.mktemp("shards")
    private, public, _ = bundle.keygen(base / "keys")
    other, _, _ = bundle.keygen(base / "other-keys")
    out = {"private": private, "public": public, "other": other}
    for shard, notes in HALVES.items():
        kb = shard_kb(base / shard, notes)
        out[f"kb-{shard}"] = kb.root
        out[shard] = base / f"bundle-{shard}"
        export(out[shard], kb.root, private, shard)
    return out


def export(folder: Path, kb_root: Path, key: Path, shard_id: str) -> Path:
    """`kg bundle export` of a knowledge base as a shard; fails the test when the export fails."""
    code, output = run("bundle", "export", str(folder), "--kb", str(kb_root), "--key", str(key), "--shard-id", shard_id)
    assert code == 0, output
    return folder


def central(root: Path) -> KnowledgeBase:
    kb, _ = init(root)
    return kb


def merge(kb: KnowledgeBase, *bundles: Path, extra: tuple[str, ...] = ()) -> tuple[int, str]:
    return run("merge", *map(str, bundles), "--kb", str(kb.root), *extra)


def graph_ids(kb: KnowledgeBase) -> tuple[set[str], set[str]]:
    """(entity ids, live claim ids)."""
    with Store(kb.db_path, read_only=True) as store:
        entities = {r["id"] for r in store.query("MATCH (e:Entity) RETURN e.id AS id")}
        claims = {r["id"] for r in store.query("MATCH (c:Claim) WHERE c.status = 'live' RETURN c.id AS id")}
    return entities, claims


def wiki(kb: KnowledgeBase) -> dict[str, str]:
    return {page: digest for page, digest in tree_digest(kb.wiki).items() if not is_log(page)}


def test_merge_in_either_order_is_one_compile_of_all_sources(shards: dict[str, Path], compiled: KnowledgeBase,
                                                             tmp_path: Path) -> None:
    one, two = central(tmp_path / "ab"), central(tmp_path / "ba")
    code, output = merge(one, shards["lab-a"], shards["lab-b"])
    assert code == 0, output
    assert "14 new" in output
    code, output = merge(two, shards["lab-b"], shards["lab-a"])
    assert code == 0, output
    # one bundle at a time, in the other order: the same graph and wiki too
    three = central(tmp_path / "b-then-a")
    for shard in ("lab-b", "lab-a"):
        code, output = merge(three, shards[shard])
        assert code == 0, output
    assert wiki(one) == wiki(two) == wiki(three)
    assert graph_ids(one) == graph_ids(two) == graph_ids(three) == graph_ids(compiled)
    # the wiki is the one compile's, but for the line on each source page that names its shard
    merged, alone = wiki(one), wiki(compiled)
    assert merged.keys() == alone.keys()
    differ = sorted(page for page in merged if merged[page] != alone[page])
    assert differ == sorted(f"sources/{Path(n.name).stem}.md" for n in NOTES)
    for shard, notes in HALVES.items():
        for note in notes:
            page = (one.wiki / "sources" / f"{Path(note.name).stem}.md").read_text(encoding="utf-8")
            assert f"- Shard: {shard}\n" in page
            assert page.replace(f"- Shard: {shard}\n", "") == \
                (compiled.wiki / "sources" / f"{Path(note.name).stem}.md").read_text(encoding="utf-8")
    # merging the same bundles again changes nothing
    code, output = merge(one, shards["lab-a"], shards["lab-b"], extra=("--json",))
    assert code == 0, output
    assert json.loads(output)["unchanged"] == 14
    assert wiki(one) == wiki(two)
    # a compile of the central knowledge base's (empty) raw/ leaves the merged sources alone
    api.compile_kb(one, "heuristic")
    assert wiki(one) == wiki(two)


def test_a_tampered_bundle_is_refused_and_nothing_is_merged(shards: dict[str, Path], tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(shards["lab-b"], bad)
    data = bytearray((bad / "claims.parquet").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (bad / "claims.parquet").write_bytes(bytes(data))
    kb = central(tmp_path / "c")
    code, output = merge(kb, shards["lab-a"], bad)
    assert code == 1
    assert "Nothing was merged" in output and "claims.parquet was altered" in output
    assert not kb.db_path.exists() or graph_ids(kb) == (set(), set())
    assert not (kb.state / "shards.json").exists()


def test_a_newer_bundle_format_is_refused(shards: dict[str, Path], tmp_path: Path) -> None:
    newer = tmp_path / "newer"
    shutil.copytree(shards["lab-a"], newer)
    envelope = json.loads((newer / bundle.ENVELOPE).read_text())
    statement = json.loads(base64.b64decode(envelope["payload"]))
    statement["predicate"]["buildDefinition"]["internalParameters"]["bundleFormat"] = bundle.FORMAT + 1
    envelope["payload"] = base64.b64encode(bundle.canonical_json(statement)).decode()
    (newer / bundle.ENVELOPE).write_text(json.dumps(envelope))
    kb = central(tmp_path / "c")
    code, output = merge(kb, newer)
    assert code == 1 and "newer kg" in output and "Nothing was merged" in output


def test_the_same_shard_id_with_another_key_is_refused(shards: dict[str, Path], tmp_path: Path) -> None:
    impostor = export(tmp_path / "impostor", shards["kb-lab-b"], shards["other"], "lab-a")
    kb = central(tmp_path / "c")
    code, output = merge(kb, shards["lab-a"], impostor)  # in one merge
    assert code == 1 and "different keys" in output and "Nothing was merged" in output
    assert not (kb.state / "shards.json").exists()
    code, output = merge(kb, shards["lab-a"])
    assert code == 0, output
    before = wiki(kb)
    code, output = merge(kb, impostor)  # after an earlier merge of the real lab-a
    assert code == 1 and "was merged before signed by key id" in output
    assert wiki(kb) == before


def test_a_source_in_two_shards_is_refused(shards: dict[str, Path], tmp_path: Path) -> None:
    twin = export(tmp_path / "twin", shards["kb-lab-a"], shards["private"], "lab-c")
    kb = central(tmp_path / "c")
    code, output = merge(kb, shards["lab-a"], twin)
    assert code == 1 and "belongs to one shard" in output
    assert graph_ids(kb) == (set(), set())


def test_a_reexported_shard_replaces_its_earlier_bundle(shards: dict[str, Path], tmp_path: Path) -> None:
    kb = central(tmp_path / "c")
    code, output = merge(kb, shards["lab-a"], shards["lab-b"], extra=("--authority", "lab-b=3"))
    assert code == 0, output
    _, live_before = graph_ids(kb)
    # lab-b drops one note and exports again
    shard = tmp_path / "lab-b"
    shutil.copytree(shards["kb-lab-b"], shard)
    gone = HALVES["lab-b"][0].name
    (shard / "raw" / gone).unlink()
    api.compile_kb(KnowledgeBase(shard), "heuristic")
    again = export(tmp_path / "bundle-lab-b-2", shard, shards["private"], "lab-b")
    code, output = merge(kb, again, extra=("--json",))
    assert code == 0, output
    got = json.loads(output)
    assert got["removed"] == 1 and got["unchanged"] == 6
    # the same claims as one compile of the 13 notes left
    everything = shard_kb(tmp_path / "thirteen", [n for n in NOTES if n.name != gone])
    _, live_after = graph_ids(kb)
    assert live_after == graph_ids(everything)[1]  # entities of the removed note stay, retired
    assert live_after < live_before
    page = (kb.wiki / "sources" / f"{Path(gone).stem}.md").read_text(encoding="utf-8")
    assert "Status: removed" in page
    # --authority is remembered for the shard's later bundles
    sources = pq.read_table(again / "sources.parquet").column("path").to_pylist()
    with Store(kb.db_path, read_only=True) as store:
        rows = store.query("MATCH (s:Source) WHERE s.path IN $p RETURN s.authority AS a", {"p": sources})
    assert {r["a"] for r in rows} == {3}


def test_bad_authority_option(shards: dict[str, Path], tmp_path: Path) -> None:
    kb = central(tmp_path / "c")
    code, output = merge(kb, shards["lab-a"], extra=("--authority", "lab-a"))
    assert code == 2 and "SHARD=N" in output
    code, output = merge(kb, shards["lab-a"], extra=("--authority", "lab-z=2"))
    assert code == 2 and "lab-z" in output
