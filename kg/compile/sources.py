"""Finding, reading and validating source files, and copying new ones into raw/.

raw/ is input: this module reads it and, on `kg ingest`, only adds new files to it.
An existing file in raw/ is never modified.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISREG

from kg.compile.convert import CONVERTED_SUFFIXES, convert
from kg.errors import SourceError
from kg.models import SourceDoc

SUPPORTED_SUFFIXES = {".md": "markdown", ".markdown": "markdown", ".txt": "text", **CONVERTED_SUFFIXES}
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def is_supported(path: Path) -> bool:
    return path.suffix.lower() in SUPPORTED_SUFFIXES


def scan(raw: Path) -> list[Path]:
    """Every supported file under raw/, sorted, skipping hidden files and folders."""
    return [raw / rel for rel, _, _ in scan_files(raw)]


# A supported file under raw/: (posix path relative to raw/, full path, stat taken when found)
FoundFile = tuple[str, str, os.stat_result]


def scan_files(raw: Path) -> list[FoundFile]:
    """`scan`, with each file's stat, sorted by relative path.

    Same files as `sorted(raw.rglob("*"))` filtered like `scan` always did: regular files
    (or symlinks to files) with a supported suffix, nothing hidden, and no descent into
    symlinked folders. os.scandir on string paths, plain tuples: little work per file.
    """
    if not raw.is_dir():
        return []
    found: list[FoundFile] = []
    pending = [(os.fspath(raw), "")]
    while pending:
        folder, prefix = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:  # unreadable or vanished folder: nothing to compile in it
            continue
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append((entry.path, f"{prefix}{name}/"))
                    continue
                dot = name.rfind(".")  # is_supported: Path.suffix, whose dot is not the first character
                if dot <= 0 or name[dot:].lower() not in SUPPORTED_SUFFIXES:
                    continue
                stat = entry.stat()  # follows a symlink, like Path.is_file
            except OSError:  # vanished while scanning, or a broken symlink
                continue
            if S_ISREG(stat.st_mode):
                found.append((prefix + name, entry.path, stat))
    found.sort()  # by relative path: they are unique
    return found


def scan_selected(raw: Path, selection: Sequence[str]) -> list[FoundFile]:
    """`scan_files` of some of raw/: the files and folders at these paths relative to raw/."""
    found: dict[str, FoundFile] = {}
    for rel in selection:
        if any(part.startswith(".") for part in rel.split("/")):
            continue
        path = raw / rel
        if path.is_dir() and not path.is_symlink():
            found.update((f"{rel}/{sub}", (f"{rel}/{sub}", full, stat)) for sub, full, stat in scan_files(path))
        elif is_supported(path):
            try:
                stat = path.stat()
            except OSError:  # not there (deleted, or never was): the plan sees it as vanished, or nothing
                continue
            if S_ISREG(stat.st_mode):
                found[rel] = (rel, os.fspath(path), stat)
    return sorted(found.values())


def in_selection(rel: str, selection: Sequence[str]) -> bool:
    """Whether a path relative to raw/ is one of these paths, or under one of them."""
    return any(rel == chosen or rel.startswith(chosen + "/") for chosen in selection)


def stat_signature(stat: os.stat_result) -> str:
    """What the compiler records of a file's stat: size, mtime and ctime in nanoseconds.

    Any write changes mtime and ctime; ctime cannot be set back by tools that restore mtimes
    (`touch -d`, `cp -p`, rsync), so a restored older mtime still shows as a change.
    """
    return f"{stat.st_size}:{stat.st_mtime_ns}:{stat.st_ctime_ns}"


def sha256_file(path: str | Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def rel_path(raw: Path, path: Path) -> str:
    return path.relative_to(raw).as_posix()


def read_source(raw: Path, path: Path, max_bytes: int, authority_rules: dict[str, int] | None = None,
                converted: Path | None = None) -> SourceDoc:
    """Read and validate one source (a document is converted to markdown first, cached in
    `converted`: kg/compile/convert.py). Raises SourceError with a message saying what to do."""
    rel = rel_path(raw, path)
    size = path.stat().st_size
    if size > max_bytes:
        raise SourceError(
            f"{rel}: {size:,} bytes is over the limit of {max_bytes:,}. "
            "Split the file, or raise [compile] max_source_bytes in kg.toml."
        )
    data = path.read_bytes()
    if path.suffix.lower() in CONVERTED_SUFFIXES:
        return converted_source(rel, data, authority_rules or {}, converted)
    return parse_source(rel, data, authority_rules or {})


def converted_source(rel: str, data: bytes, authority_rules: dict[str, int], cache: Path | None) -> SourceDoc:
    if not data.strip():
        raise SourceError(f"{rel}: the file is empty. Add text to it or remove it from raw/.")
    result = convert(rel, data, cache)
    return SourceDoc(path=rel, text=result.text, sha256=sha256_bytes(data), bytes=len(data),
                     title=_title(rel, result.text, {}, "markdown"), kind=f"{result.format} ({result.converter})", frontmatter={},
                     authority=_authority(rel, {}, authority_rules))


def source_text(raw: Path, rel: str, data: bytes, converted: Path | None) -> str:
    """The text a source's spans refer to: the file's own text, or its conversion."""
    if Path(rel).suffix.lower() in CONVERTED_SUFFIXES:
        return convert(rel, data, converted).text
    return data.decode("utf-8", errors="replace")


def parse_source(rel: str, data: bytes, authority_rules: dict[str, int]) -> SourceDoc:
    if not data.strip():
        raise SourceError(f"{rel}: the file is empty. Add text to it or remove it from raw/.")
    if b"\x00" in data[:8192]:
        raise SourceError(f"{rel}: looks like a binary file (it contains NUL bytes). Only text and markdown are compiled.")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SourceError(
            f"{rel}: not valid UTF-8 (byte {exc.start}, line {line}). Re-save the file as UTF-8."
        ) from exc
    text = text.removeprefix("\ufeff")
    kind = SUPPORTED_SUFFIXES.get(Path(rel).suffix.lower(), "text")
    frontmatter = parse_frontmatter(text) if kind == "markdown" else {}
    title = _title(rel, text, frontmatter, kind)
    authority = _authority(rel, frontmatter, authority_rules)
    return SourceDoc(
        path=rel,
        text=text,
        sha256=sha256_bytes(data),
        bytes=len(data),
        title=title,
        kind=kind,
        frontmatter=frontmatter,
        authority=authority,
    )


_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)


def frontmatter_end(text: str) -> int:
    """Offset where the body starts (0 when there is no front matter)."""
    match = _FRONTMATTER.match(text)
    return match.end() if match else 0


def parse_frontmatter(text: str) -> dict[str, object]:
    """A small, forgiving reader for the YAML subset notes use: scalars and string lists."""
    match = _FRONTMATTER.match(text)
    if not match:
        return {}
    data: dict[str, object] = {}
    current_list: list[str] | None = None
    for line in match.group(1).splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = re.match(r"^\s+-\s*(.*)$", line) or re.match(r"^-\s+(.*)$", line)
        if item and current_list is not None:
            current_list.append(_unquote(item.group(1)))
            continue
        pair = re.match(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$", line)
        if not pair:
            continue
        key, value = pair.group(1).lower(), pair.group(2).strip()
        if value == "":
            current_list = []
            data[key] = current_list
        elif value.startswith("[") and value.endswith("]"):
            data[key] = [_unquote(v) for v in value[1:-1].split(",") if v.strip()]
            current_list = None
        else:
            data[key] = _unquote(value)
            current_list = None
    return data


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _title(rel: str, text: str, frontmatter: dict[str, object], kind: str) -> str:
    title = frontmatter.get("title")
    if isinstance(title, str) and title.strip():
        return " ".join(title.split())
    if kind == "markdown":
        match = _HEADING.search(text, frontmatter_end(text))
        if match:
            return " ".join(match.group(1).split())
    stem = Path(rel).stem
    return re.sub(r"[-_]+", " ", stem).strip().capitalize() or stem


def _authority(rel: str, frontmatter: dict[str, object], rules: dict[str, int]) -> int:
    value = frontmatter.get("authority")
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
        return int(value)
    best = 0
    for pattern, rank in sorted(rules.items()):
        if fnmatch.fnmatchcase(rel, pattern):
            best = max(best, rank)
    return best


@dataclass(frozen=True)
class IngestReport:
    copied: list[str]
    already_present: list[str]
    conflicts: list[str]
    unsupported: list[str]


def ingest_paths(raw: Path, paths: list[Path]) -> IngestReport:
    """Copy files (or folders of files) into raw/. Never overwrites a file already there."""
    copied: list[str] = []
    present: list[str] = []
    conflicts: list[str] = []
    unsupported: list[str] = []
    raw_resolved = raw.resolve()
    for given in paths:
        path = given.resolve()
        if not path.exists():
            raise SourceError(f"{given}: no such file or folder.")
        if path.is_dir():
            base = path.parent
            files = sorted(p for p in path.rglob("*") if p.is_file() and not any(x.startswith(".") for x in p.relative_to(path).parts))
        else:
            base, files = path.parent, [path]
        for file in files:
            if not is_supported(file):
                unsupported.append(str(file))
                continue
            if file.is_relative_to(raw_resolved):
                present.append(rel_path(raw_resolved, file))
                continue
            target = raw_resolved / file.relative_to(base)
            rel = rel_path(raw_resolved, target)
            if target.exists():
                if target.read_bytes() == file.read_bytes():
                    present.append(rel)
                else:
                    conflicts.append(rel)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(file, target)
            copied.append(rel)
    return IngestReport(copied, present, conflicts, unsupported)
