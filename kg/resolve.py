"""Entity resolution across sources: exact normalised names and known aliases, then rules.

The index lives in memory for one compile (loaded from the graph once), so resolving a
name is a dict lookup, never a query per entity.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kg.models import ExtractedEntity
from kg.names import name_key, unique_slug


@dataclass
class EntityRecord:
    id: str
    name: str
    type: str
    aliases: list[str] = field(default_factory=list)
    summary: str = ""
    status: str = "live"


def name_variants(key: str) -> list[str]:
    """Rule-based spellings of the same name: plural/singular of the last word."""
    out = [key]
    if key.endswith("ies") and len(key) > 4:
        out.append(key[:-3] + "y")
    elif key.endswith("es") and len(key) > 4 and key[-3] in "sxz":
        out.append(key[:-2])
    elif key.endswith("s") and not key.endswith("ss") and len(key) > 3:
        out.append(key[:-1])
    else:
        out.append(key + "s")
    return out


class EntityIndex:
    def __init__(self) -> None:
        self.records: dict[str, EntityRecord] = {}
        self.by_key: dict[str, str] = {}
        self.slugs: set[str] = set()

    @classmethod
    def from_rows(cls, rows: list[dict[str, Any]]) -> EntityIndex:
        index = cls()
        for row in sorted(rows, key=lambda r: r["id"]):
            record = EntityRecord(row["id"], row["name"], row["type"], list(row["aliases"] or []), row["summary"] or "", row["status"] or "live")
            index._register(record)
        return index

    def _register(self, record: EntityRecord) -> None:
        self.records[record.id] = record
        self.slugs.add(record.id)
        for name in (record.name, *record.aliases):
            self.by_key.setdefault(name_key(name), record.id)

    def mentioned_in(self, text: str, limit: int = 100, max_words: int = 5) -> list[str]:
        """Canonical names of known entities that `text` mentions (word n-grams looked up by key)."""
        words = re.findall(r"[\w'’&+#-]+", text)
        found: dict[str, None] = {}
        for size in range(max_words, 0, -1):
            for i in range(len(words) - size + 1):
                entity_id = self.by_key.get(name_key(" ".join(words[i : i + size])))
                if entity_id is not None:
                    found.setdefault(self.records[entity_id].name, None)
                    if len(found) >= limit:
                        return list(found)
        return list(found)

    def lookup(self, name: str) -> str | None:
        key = name_key(name)
        if not key:
            return None
        for variant in name_variants(key):
            if variant in self.by_key:
                return self.by_key[variant]
        return None

    def resolve(self, entity: ExtractedEntity) -> tuple[str, str]:
        """(entity id, what happened: "new" | "updated" | "same")."""
        found = self.lookup(entity.name) or next((self.lookup(a) for a in entity.aliases if self.lookup(a)), None)
        if found is None:
            record = EntityRecord(
                id=unique_slug(entity.name, self.slugs, identity=name_key(entity.name)),
                name=entity.name,
                type=entity.type,
                aliases=sorted({a for a in entity.aliases if name_key(a) != name_key(entity.name)}),
                summary=entity.description,
            )
            self._register(record)
            return record.id, "new"
        record = self.records[found]
        changed = False
        known = {name_key(n) for n in (record.name, *record.aliases)}
        for name in (entity.name, *entity.aliases):
            if name_key(name) and name_key(name) not in known:
                record.aliases.append(name)
                known.add(name_key(name))
                self.by_key.setdefault(name_key(name), record.id)
                changed = True
        if not record.summary and entity.description:
            record.summary = entity.description
            changed = True
        if record.type in ("named", "concept") and entity.type not in ("named", "concept"):
            record.type = entity.type
            changed = True
        if record.status != "live":
            record.status = "live"
            changed = True
        return record.id, "updated" if changed else "same"
