"""Contradiction candidates: which claims are compared, a function of the set of live claims.

Every claim has keys (`claim_keys`):

- TERM_BANDS term keys: for each of TERM_BANDS fixed hash functions, the two terms of its `said`
  set (kg/compile/claimtext.py) that hash lowest (MinHash, two rows a band). Claims that say
  nearly the same thing about the same things share one, whoever the extractor made their
  subject: at a Jaccard similarity of 0.5 with probability 0.99, at 0.3 with 0.78;
- one attribute key for each thing it measures or dates (at most MAX_ATTRIBUTES), with its
  subject's group: ENIAC's ("t", "weigh"). Values are compared about one thing only.

Two claims are a candidate pair when they share a key that at most MAX_BUCKET live claims have
(a key more common than that tells nothing apart, like a stop word), and, for a term key, share
at least MIN_TERMS terms with a Jaccard similarity of at least MIN_SIMILARITY. So no claim is
compared with more than (TERM_BANDS + MAX_ATTRIBUTES) x (MAX_BUCKET - 1) others, the claims
sharing a key with it, and the pairs depend only on the set of live claims: the same whatever
order they arrived in.

`KeyIndex` keeps the keys of the live claims in .kg/claim-keys.sqlite, so that a compile of a few
sources reads the claims sharing a key with its new ones instead of every claim. It is derived
from the graph: rows of a claim that left are kept (marked leaving) until the graph write that
judged its departure, so a compile killed in between finds them again; an index that does not
match the graph's live claims is rebuilt by the next detection (kg/compile/contradict.py).
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TypeVar

import numpy as np

from kg.compile.claimtext import (
    ANTONYMS,
    DEGREE_WORDS,
    DOWN_WORDS,
    LIGHT_WORDS,
    QUANTITY_WORDS,
    RELATION_WORDS,
    UP_WORDS,
    ClaimRecord,
    jaccard,
)
from kg.text import CLAIM_STOPWORDS

T = TypeVar("T")
TERM_BANDS = 16
MAX_ATTRIBUTES = 8
MAX_BUCKET = 32
MIN_TERMS = 2
MIN_SIMILARITY = 0.3
_ATTRIBUTE = 1  # the low bit of a key: 0 a term key, 1 an attribute key


def _hash(text: str) -> int:
    """A stable signed 64-bit hash (SQLite's INTEGER)."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little", signed=True)


_BAND_HASHES: dict[str, tuple[int, ...]] = {}
_MASK = (1 << 64) - 1


def _band_hashes(term: str) -> tuple[int, ...]:
    """TERM_BANDS independent 64-bit hashes of a term (SHAKE-128: the same on every machine)."""
    found = _BAND_HASHES.get(term)
    if found is None:
        digest = hashlib.shake_128(term.encode()).digest(8 * TERM_BANDS)
        found = tuple(int.from_bytes(digest[8 * i : 8 * i + 8], "little") for i in range(TERM_BANDS))
        if len(_BAND_HASHES) < 500_000:
            _BAND_HASHES[term] = found
    return found


def term_keys(said: Iterable[str]) -> set[int]:
    """The claim's TERM_BANDS term keys (none for fewer than two terms): for each band, its two
    terms of lowest hash (ties by the term), combined."""
    terms = sorted(set(said))
    if len(terms) < 2:
        return set()
    hashes = [_band_hashes(t) for t in terms]
    keys = set()
    for band in range(TERM_BANDS):
        first = second = -1  # the positions of the lowest and second lowest hash (a plain loop: the fastest here)
        for i, row in enumerate(hashes):
            if first < 0 or row[band] < hashes[first][band]:
                first, second = i, first
            elif second < 0 or row[band] < hashes[second][band]:
                second = i
        low, high = hashes[min(first, second)][band], hashes[max(first, second)][band]
        key = ((low * 0x9E3779B97F4A7C15) ^ high ^ (band * 0xBF58476D1CE4E5B9)) & _MASK & ~_ATTRIBUTE
        keys.add(key - (1 << 64) if key >> 63 else key)  # SQLite's INTEGER is signed
    return keys


def _term_keys_at_once(saids: Sequence[Iterable[str]]) -> list[set[int]]:
    """`term_keys` of many claims, with numpy: the same keys, about ten times faster."""
    owners: list[int] = []
    rows: list[int] = []
    vocabulary: dict[str, int] = {}
    for i, said in enumerate(saids):
        terms = sorted(set(said))
        if len(terms) >= 2:
            owners += [i] * len(terms)
            rows += [vocabulary.setdefault(t, len(vocabulary)) for t in terms]
    found: list[set[int]] = [set() for _ in saids]
    if not rows:
        return found
    table = np.frombuffer(b"".join(hashlib.shake_128(t.encode()).digest(8 * TERM_BANDS) for t in vocabulary),
                          dtype="<u8").reshape(-1, TERM_BANDS)
    hashes, owner, rank = table[np.array(rows)], np.array(owners), np.arange(len(owners))
    with np.errstate(over="ignore"):
        for band in range(TERM_BANDS):
            order = np.lexsort((rank, hashes[:, band], owner))  # by claim, then hash, then term
            starts = np.flatnonzero(np.r_[True, owner[order][1:] != owner[order][:-1]])
            first, second = order[starts], order[starts + 1]
            low, high = hashes[np.minimum(first, second), band], hashes[np.maximum(first, second), band]
            keys = (low * np.uint64(0x9E3779B97F4A7C15)) ^ high ^ np.uint64((band * 0xBF58476D1CE4E5B9) & _MASK)
            keys &= np.uint64(_MASK & ~_ATTRIBUTE)
            for claim, key in zip(owner[first].tolist(), keys.view(np.int64).tolist(), strict=True):
                found[claim].add(key)
    return found


def claim_keys(claim: ClaimRecord) -> set[int]:
    """Every key of a claim: its term keys and its attribute keys (see the module doc)."""
    return _attribute_keys(claim) | term_keys(claim.said)


def keys_of(claims: Sequence[ClaimRecord]) -> dict[str, set[int]]:
    """`claim_keys` of each claim, by id."""
    terms = _term_keys_at_once([c.said for c in claims]) if len(claims) > 64 else [term_keys(c.said) for c in claims]
    return {c.id: _attribute_keys(c) | found for c, found in zip(claims, terms, strict=True)}


def _attribute_keys(claim: ClaimRecord) -> set[int]:
    attributes = sorted(claim.attributes)[:MAX_ATTRIBUTES]
    return {_hash("\x00".join(("attribute", claim.group, *key))) | _ATTRIBUTE for key in attributes}


def related(a: ClaimRecord, b: ClaimRecord) -> bool:
    """Whether two claims sharing a term key are a candidate pair: enough terms in common."""
    return len(a.said & b.said) >= MIN_TERMS and jaccard(a.said, b.said) >= MIN_SIMILARITY


def buckets(keys: Mapping[str, Iterable[int]]) -> dict[int, list[str]]:
    """Claim ids by key, each list sorted."""
    found: dict[int, list[str]] = defaultdict(list)
    for claim_id in sorted(keys):
        for key in keys[claim_id]:
            found[key].append(claim_id)
    return found


def pairs_of(claims: Mapping[str, ClaimRecord], keys: Mapping[str, Iterable[int]], members: Mapping[int, Sequence[str]],
             of: Iterable[str]) -> set[tuple[str, str]]:
    """Candidate pairs (a < b by id) of each claim in `of`: with the claims sharing one of its keys
    whose bucket (`members`, every live claim with that key) holds at most MAX_BUCKET claims, and
    for a term key, `related` to it."""
    asked = set(of)
    pairs = set()
    for claim_id in sorted(asked):
        claim = claims[claim_id]
        near: set[str] = set()
        measured: set[str] = set()
        for key in keys[claim_id]:
            bucket = members.get(key, ())
            if len(bucket) <= MAX_BUCKET:
                (measured if key & _ATTRIBUTE else near).update(bucket)
        for other in measured:
            if other != claim_id and other in claims and not (other in asked and other < claim_id):
                pairs.add((min(claim_id, other), max(claim_id, other)))
        for other in near - measured:  # skipped: itself, not live, seen from the other side
            if other != claim_id and other in claims and not (other in asked and other < claim_id) \
                    and related(claim, claims[other]):
                pairs.add((min(claim_id, other), max(claim_id, other)))
    return pairs


def candidate_pairs(claims: Sequence[ClaimRecord], new_ids: set[str], canonical: Mapping[str, str]) -> list[tuple[int, int]]:
    """Index pairs (i < j) of `claims` (sorted by id) to judge: every candidate pair with a claim
    of `new_ids`, all of `claims` being the live claims."""
    for claim in claims:
        claim.regroup(canonical)
    position = {c.id: i for i, c in enumerate(claims)}
    by_id = {c.id: c for c in claims}
    keys = keys_of(claims)
    pairs = pairs_of(by_id, keys, buckets(keys), sorted(new_ids & set(by_id)))
    return sorted((position[a], position[b]) for a, b in pairs)


def key_version(salt: str = "") -> int:
    """What the index is a function of (the keys' and the pairs' settings, the word lists of
    `said`, directions of effect included, and `salt`: the judge's rules); an index made under
    another is rebuilt, and every live claim judged again."""
    settings = [str(v) for v in (TERM_BANDS, MAX_ATTRIBUTES, MAX_BUCKET, MIN_TERMS, MIN_SIMILARITY)]
    return _hash("\x00".join(["claim-keys 2", salt, *settings, *UP_WORDS, *DOWN_WORDS, *RELATION_WORDS, *LIGHT_WORDS,
                               *DEGREE_WORDS, *QUANTITY_WORDS, *sorted(CLAIM_STOPWORDS), *("/".join(p) for p in ANTONYMS)]))


class KeyIndex:
    """The keys of the live claims, in SQLite: (key, claim, leaving) rows and the claims indexed."""

    def __init__(self, path: Path | None, salt: str = "") -> None:
        self.path = path
        self.version = key_version(salt)
        self.rebuilt = False  # the file was missing, damaged or from another version of the keys
        try:
            self._db = self._open()
        except sqlite3.DatabaseError:
            self._discard()
            self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(":memory:" if self.path is None else str(self.path), isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")  # one fsync per transaction, at its end
        db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER)")
        db.execute("CREATE TABLE IF NOT EXISTS keys (key INTEGER, claim TEXT, leaving INTEGER, PRIMARY KEY (key, claim))"
                   " WITHOUT ROWID")
        db.execute("CREATE INDEX IF NOT EXISTS keys_by_claim ON keys (claim)")
        db.execute("CREATE TABLE IF NOT EXISTS claims (claim TEXT PRIMARY KEY, leaving INTEGER) WITHOUT ROWID")
        row = db.execute("SELECT value FROM meta WHERE name = 'version'").fetchone()
        unsettled = db.execute("SELECT value FROM meta WHERE name = 'rebuilding'").fetchone()
        if unsettled is not None and unsettled[0]:
            self.rebuilt = True  # a rebuild's graph write may not have happened: judge everything again
        if row is None or row[0] != self.version:
            self.rebuilt = True
            with _transaction(db):
                db.execute("DELETE FROM keys")
                db.execute("DELETE FROM claims")
                db.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (self.version,))
        return db

    def _discard(self) -> None:
        if self.path is not None:
            for suffix in ("", "-journal", "-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        self.rebuilt = True

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> KeyIndex:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, _tb: TracebackType | None) -> None:
        self.close()

    def stage(self, keys: Mapping[str, Iterable[int]], leaving: Iterable[str] = ()) -> None:
        """Record the keys of these (new or changed) claims, and mark leaving the rows of the claims
        that left and the rows a changed claim no longer has. Idempotent; one transaction."""
        with _transaction(self._db):
            gone = sorted(set(leaving) - set(keys))
            for chunk in _chunks(gone):
                marks = ",".join("?" * len(chunk))
                self._db.execute(f"UPDATE keys SET leaving = 1 WHERE claim IN ({marks})", chunk)
                self._db.execute(f"UPDATE claims SET leaving = 1 WHERE claim IN ({marks})", chunk)
            for chunk in _chunks(sorted(keys)):
                marks = ",".join("?" * len(chunk))
                self._db.execute(f"UPDATE keys SET leaving = 1 WHERE claim IN ({marks})", chunk)
            self._db.executemany("INSERT INTO keys VALUES (?, ?, 0) ON CONFLICT (key, claim) DO UPDATE SET leaving = 0",
                                 ((key, claim) for claim in sorted(keys) for key in sorted(keys[claim])))
            self._db.executemany("INSERT INTO claims VALUES (?, 0) ON CONFLICT (claim) DO UPDATE SET leaving = 0",
                                 ((claim,) for claim in sorted(keys)))

    def rebuild(self, keys: Mapping[str, Iterable[int]]) -> None:
        """Replace every row with the keys of these claims (every live one), marked unsettled until
        `settle`: a kill before the graph write makes the next detection judge everything again."""
        with _transaction(self._db):
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('rebuilding', 1)")
            self._db.execute("DELETE FROM keys")
            self._db.execute("DELETE FROM claims")
            self._db.execute("DROP INDEX IF EXISTS keys_by_claim")
            self._db.executemany("INSERT INTO keys VALUES (?, ?, 0)",
                                 sorted((key, claim) for claim, found in keys.items() for key in found))
            self._db.executemany("INSERT INTO claims VALUES (?, 0)", ((claim,) for claim in sorted(keys)))
            self._db.execute("CREATE INDEX keys_by_claim ON keys (claim)")

    def settle(self) -> None:
        """Forget the leaving rows: the graph write that judged their departure is done."""
        with _transaction(self._db):
            self._db.execute("DELETE FROM keys WHERE leaving = 1")
            self._db.execute("DELETE FROM claims WHERE leaving = 1")
            self._db.execute("DELETE FROM meta WHERE name = 'rebuilding'")

    def live_count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM claims WHERE leaving = 0").fetchone()[0])

    def members(self, keys: Iterable[int]) -> dict[int, list[str]]:
        """The claims (not leaving) of each key, sorted."""
        found: dict[int, list[str]] = defaultdict(list)
        for chunk in _chunks(sorted(set(keys))):
            rows = self._db.execute(f"SELECT key, claim FROM keys WHERE leaving = 0 AND key IN ({','.join('?' * len(chunk))})"
                                    " ORDER BY key, claim", chunk)
            for key, claim in rows:
                found[key].append(claim)
        return found

    def keys_of(self, claims: Iterable[str], leaving: bool = False) -> dict[str, set[int]]:
        """The keys of these claims: those they have, or with `leaving`, those they are leaving."""
        found: dict[str, set[int]] = defaultdict(set)
        for chunk in _chunks(sorted(set(claims))):
            rows = self._db.execute(f"SELECT claim, key FROM keys WHERE leaving = ? AND claim IN ({','.join('?' * len(chunk))})",
                                    [int(leaving), *chunk])
            for claim, key in rows:
                found[claim].add(key)
        return found


class _transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, _tb: TracebackType | None) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


def _chunks(items: Sequence[T], size: int = 500) -> Iterable[list[T]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])
