"""Signed shard bundles (issue 20, part 1): `kg bundle keygen | export | verify`."""

from __future__ import annotations

import base64
import json
import stat
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from kg.kb import KnowledgeBase
from kg.share import bundle, dsse
from tests.conftest import run_cli as run


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("keys")
    private, public, _ = bundle.keygen(folder / "a")
    other_private, other_public, _ = bundle.keygen(folder / "b")
    return {"private": private, "public": public, "other_private": other_private, "other_public": other_public}


@pytest.fixture(scope="module")
def exported(compiled: KnowledgeBase, keys: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("bundles") / "shard"
    code, output = run("bundle", "export", str(folder), "--kb", str(compiled.root), "--key", str(keys["private"]),
                       "--shard-id", "lab-a")
    assert code == 0, output
    return folder


@pytest.fixture
def copy(exported: Path, tmp_path: Path) -> Path:
    """A private copy of the exported bundle, for tests that damage it."""
    target = tmp_path / "copy"
    target.mkdir()
    for path in exported.iterdir():
        (target / path.name).write_bytes(path.read_bytes())
    return target


def test_pae_is_the_dsse_encoding() -> None:
    # the DSSE protocol's example: type "http://example.com/HelloWorld", body "hello world"
    assert dsse.pae("http://example.com/HelloWorld", b"hello world") == b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"


def test_keygen_writes_a_private_key_only_its_owner_reads_and_never_overwrites(tmp_path: Path) -> None:
    code, output = run("bundle", "keygen", "--out", str(tmp_path / "k"))
    assert code == 0, output
    private, public = tmp_path / "k" / dsse.PRIVATE_KEY_FILE, tmp_path / "k" / dsse.PUBLIC_KEY_FILE
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert str(public) in output
    keyid = dsse.key_id(dsse.load_public(public))
    assert keyid in output and len(keyid) == 64
    before = private.read_bytes()
    code, output = run("bundle", "keygen", "--out", str(tmp_path / "k"))
    assert code != 0 and "already exists" in output
    assert private.read_bytes() == before


def test_export_then_verify_passes(exported: Path, keys: dict[str, Path]) -> None:
    names = sorted(p.name for p in exported.iterdir())
    assert names == sorted([*(f"{t}.parquet" for t in bundle.TABLES), "manifest.json", "bundle.dsse.json", "key.pub"])
    code, output = run("bundle", "verify", str(exported), "--key", str(keys["public"]))
    assert code == 0, output
    assert "valid" in output and "lab-a" in output
    code, output = run("bundle", "verify", str(exported))  # against the bundle's own key.pub, and says so
    assert code == 0, output
    assert "key.pub" in output and "--key" in output


def test_the_manifest_is_an_in_toto_statement_with_slsa_provenance(exported: Path, compiled: KnowledgeBase) -> None:
    envelope = json.loads((exported / "bundle.dsse.json").read_text())
    assert envelope["payloadType"] == "application/vnd.in-toto+json"
    payload = base64.b64decode(envelope["payload"])
    assert payload == (exported / "manifest.json").read_bytes()
    statement = json.loads(payload)
    assert statement["_type"] == "https://in-toto.io/Statement/v1"
    assert statement["predicateType"] == "https://slsa.dev/provenance/v1"
    assert {s["name"] for s in statement["subject"]} == {f"{t}.parquet" for t in bundle.TABLES}
    build = statement["predicate"]["buildDefinition"]
    assert build["externalParameters"]["extractor"] == ["heuristic"]
    assert build["externalParameters"]["promptVersion"]
    deps = {d["uri"]: d["digest"]["sha256"] for d in build["resolvedDependencies"]}
    assert set(deps) == {p.name for p in compiled.raw.iterdir()}
    assert statement["predicate"]["runDetails"]["builder"]["id"] == "lab-a"
    evidence = pq.read_table(exported / "evidence.parquet").to_pylist()
    assert evidence and all(deps[r["source_path"]] == r["source_sha256"] for r in evidence)
    claims = pq.read_table(exported / "claims.parquet")
    assert claims.num_rows == build["internalParameters"]["rows"]["claims"] > 0
    assert claims.column("id").to_pylist() == sorted(claims.column("id").to_pylist())


def test_one_altered_byte_in_a_parquet_file_fails_naming_it(copy: Path, keys: dict[str, Path]) -> None:
    path = copy / "claims.parquet"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    code, output = run("bundle", "verify", str(copy), "--key", str(keys["public"]))
    assert code == 1
    assert "claims.parquet was altered" in output
    assert "Traceback" not in output


def test_a_missing_file_fails(copy: Path, keys: dict[str, Path]) -> None:
    (copy / "evidence.parquet").unlink()
    code, output = run("bundle", "verify", str(copy), "--key", str(keys["public"]))
    assert code == 1 and "evidence.parquet is missing" in output


def test_an_extra_file_fails(copy: Path, keys: dict[str, Path]) -> None:
    (copy / "notes.parquet").write_bytes(b"PAR1")
    code, output = run("bundle", "verify", str(copy), "--key", str(keys["public"]))
    assert code == 1 and "notes.parquet is not in the signed statement" in output


def _rewrite_statement(folder: Path, change: dict[str, object], key: Path | None) -> None:
    """Edit the statement; re-sign it with key (None: keep the old, now wrong, signature)."""
    envelope = json.loads((folder / "bundle.dsse.json").read_text())
    statement = json.loads(base64.b64decode(envelope["payload"]))
    statement["predicate"]["buildDefinition"]["internalParameters"].update(change)
    payload = bundle.canonical_json(statement)
    if key is None:
        envelope["payload"] = base64.b64encode(payload).decode()
    else:
        envelope = dsse.sign(payload, bundle.PAYLOAD_TYPE, dsse.load_private(key))
    (folder / "bundle.dsse.json").write_bytes(dsse.envelope_bytes(envelope))
    (folder / "manifest.json").write_bytes(payload)


def test_a_tampered_statement_fails_the_signature(copy: Path, keys: dict[str, Path]) -> None:
    _rewrite_statement(copy, {"rows": {}}, key=None)
    code, output = run("bundle", "verify", str(copy), "--key", str(keys["public"]))
    assert code == 1 and "signature does not verify" in output


def test_a_tampered_signature_fails(copy: Path, keys: dict[str, Path]) -> None:
    envelope = json.loads((copy / "bundle.dsse.json").read_text())
    sig = bytearray(base64.b64decode(envelope["signatures"][0]["sig"]))
    sig[0] ^= 0x80
    envelope["signatures"][0]["sig"] = base64.b64encode(bytes(sig)).decode()
    (copy / "bundle.dsse.json").write_text(json.dumps(envelope))
    code, output = run("bundle", "verify", str(copy))
    assert code == 1 and "signature does not verify" in output


def test_an_edited_manifest_json_fails(copy: Path, keys: dict[str, Path]) -> None:
    (copy / "manifest.json").write_bytes((copy / "manifest.json").read_bytes().replace(b"lab-a", b"lab-b"))
    code, output = run("bundle", "verify", str(copy), "--key", str(keys["public"]))
    assert code == 1 and "manifest.json differs" in output


def test_a_damaged_envelope_is_a_message_not_a_traceback(copy: Path) -> None:
    (copy / "bundle.dsse.json").write_text("{not json")
    code, output = run("bundle", "verify", str(copy))
    assert code == 1 and "bundle.dsse.json is not a DSSE envelope" in output and "Traceback" not in output


def test_verify_with_a_different_key_fails(exported: Path, keys: dict[str, Path]) -> None:
    code, output = run("bundle", "verify", str(exported), "--key", str(keys["other_public"]))
    assert code == 1 and "signature does not verify" in output


def test_a_bundle_re_signed_by_another_key_fails_against_the_signer_key(copy: Path, keys: dict[str, Path]) -> None:
    _rewrite_statement(copy, {}, key=keys["other_private"])
    (copy / "key.pub").write_bytes(keys["other_public"].read_bytes())
    assert run("bundle", "verify", str(copy))[0] == 0  # self-consistent, which is all key.pub can show
    code, output = run("bundle", "verify", str(copy), "--key", str(keys["public"]))
    assert code == 1 and "signature does not verify" in output


def test_a_newer_format_version_is_refused(copy: Path, keys: dict[str, Path]) -> None:
    _rewrite_statement(copy, {"bundleFormat": bundle.FORMAT + 1}, key=keys["private"])
    code, output = run("bundle", "verify", str(copy), "--key", str(keys["public"]))
    assert code == 1 and "newer kg" in output and "Upgrade kg" in output


def test_evidence_from_an_undeclared_source_version_fails(copy: Path, keys: dict[str, Path]) -> None:
    envelope = json.loads((copy / "bundle.dsse.json").read_text())
    statement = json.loads(base64.b64decode(envelope["payload"]))
    deps = statement["predicate"]["buildDefinition"]["resolvedDependencies"]
    dropped = deps.pop(0)["uri"]
    payload = bundle.canonical_json(statement)
    (copy / "bundle.dsse.json").write_bytes(dsse.envelope_bytes(dsse.sign(payload, bundle.PAYLOAD_TYPE,
                                                                          dsse.load_private(keys["private"]))))
    (copy / "manifest.json").write_bytes(payload)
    code, output = run("bundle", "verify", str(copy), "--key", str(keys["public"]))
    assert code == 1 and "resolvedDependencies" in output and dropped in output


def test_export_twice_gives_byte_identical_files(compiled: KnowledgeBase, exported: Path, keys: dict[str, Path],
                                                  tmp_path: Path) -> None:
    again = tmp_path / "again"
    again.mkdir()  # an empty folder is fine
    code, output = run("bundle", "export", str(again), "--kb", str(compiled.root), "--key", str(keys["private"]),
                       "--shard-id", "lab-a")
    assert code == 0, output
    assert {p.name: p.read_bytes() for p in again.iterdir()} == {p.name: p.read_bytes() for p in exported.iterdir()}


def test_export_into_a_non_empty_folder_is_refused(compiled: KnowledgeBase, keys: dict[str, Path], tmp_path: Path) -> None:
    target = tmp_path / "busy"
    target.mkdir()
    (target / "keep.txt").write_text("mine")
    code, output = run("bundle", "export", str(target), "--kb", str(compiled.root), "--key", str(keys["private"]))
    assert code != 0 and "not empty" in output
    assert [p.name for p in target.iterdir()] == ["keep.txt"]


def test_export_defaults_shard_id_and_key(compiled: KnowledgeBase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    code, output = run("bundle", "export", str(tmp_path / "b1"), "--kb", str(compiled.root))
    assert code != 0 and "kg bundle keygen" in output  # no key yet: says how to make one
    assert run("bundle", "keygen")[0] == 0
    code, output = run("bundle", "export", str(tmp_path / "b2"), "--kb", str(compiled.root), "--json")
    assert code == 0, output
    assert json.loads(output)["shard_id"] == compiled.root.name
    assert run("bundle", "verify", str(tmp_path / "b2"), "--key",
               str(tmp_path / "config" / "kg" / dsse.PUBLIC_KEY_FILE))[0] == 0


@pytest.mark.parametrize("statement", [
    [], {"predicate": "x"}, {"predicate": {"buildDefinition": {"internalParameters": {"bundleFormat": True}}}},
    {"_type": "https://in-toto.io/Statement/v1", "subject": "claims.parquet",
     "predicate": {"buildDefinition": {"internalParameters": {"bundleFormat": 1}, "resolvedDependencies": [{"uri": []}]}}},
    {"subject": [{"name": "../x", "digest": {"sha256": "0"}}, 3],
     "predicate": {"buildDefinition": {"internalParameters": {"bundleFormat": 1}}}},
])
def test_odd_signed_statements_are_failures_not_crashes(statement: object, keys: dict[str, Path], tmp_path: Path) -> None:
    payload = json.dumps(statement).encode()
    envelope = dsse.sign(payload, bundle.PAYLOAD_TYPE, dsse.load_private(keys["private"]))
    (tmp_path / "bundle.dsse.json").write_bytes(dsse.envelope_bytes(envelope))
    report = bundle.verify(tmp_path, keys["public"])
    assert not report.valid and report.failures


def test_export_without_a_graph_says_to_compile(kb: KnowledgeBase, keys: dict[str, Path], tmp_path: Path) -> None:
    code, output = run("bundle", "export", str(tmp_path / "b"), "--kb", str(kb.root), "--key", str(keys["private"]))
    assert code == 1 and "kg compile" in output
    assert not (tmp_path / "b").exists()


def test_a_signed_table_of_other_columns_fails_verify(copy: Path, keys: dict[str, Path]) -> None:
    """Validly signed, but not this format's columns (another kg, a faulty exporter): refused, not a crash in merge."""
    claims = pq.read_table(copy / "claims.parquet").drop_columns(["predicate"])
    pq.write_table(claims, copy / "claims.parquet")
    envelope = json.loads((copy / "bundle.dsse.json").read_text())
    statement = json.loads(base64.b64decode(envelope["payload"]))
    digest = __import__("hashlib").sha256((copy / "claims.parquet").read_bytes()).hexdigest()
    for subject in statement["subject"]:
        if subject["name"] == "claims.parquet":
            subject["digest"]["sha256"] = digest
    payload = bundle.canonical_json(statement)
    (copy / "bundle.dsse.json").write_bytes(dsse.envelope_bytes(dsse.sign(payload, bundle.PAYLOAD_TYPE,
                                                                          dsse.load_private(keys["private"]))))
    (copy / "manifest.json").write_bytes(payload)
    code, output = run("bundle", "verify", str(copy), "--key", str(keys["public"]))
    assert code == 1 and "claims.parquet does not have the columns" in output


def test_unwritable_places_are_messages_not_tracebacks(compiled: KnowledgeBase, keys: dict[str, Path],
                                                       tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    code, output = run("bundle", "keygen", "--out", str(blocker / "keys"))
    assert code != 0 and "Cannot write a key pair" in output and "Traceback" not in output
    code, output = run("bundle", "export", str(blocker / "bundle"), "--kb", str(compiled.root), "--key",
                       str(keys["private"]))
    assert code != 0 and "Cannot write the bundle" in output and "Traceback" not in output
