"""Names: the normalised key used to match entity names, and safe file-name slugs."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable

from kg.text import CJK_BMP_CHARS, CJK_RUN

_POSSESSIVE = re.compile(r"(?<=\w)['’]s?$")
_PUNCT = re.compile(r"[^\w&+#\s]")
_LEADING_ARTICLE = re.compile(r"^(the|a|an)\s+")
_SPACE = re.compile(r"\s+")
_NOT_SLUG = re.compile(f"[^a-z0-9{CJK_BMP_CHARS}]+")
_PLAIN_NAME = re.compile(r"[A-Za-z0-9]+(?: [A-Za-z0-9]+)*")  # nothing for the general path to fold

# Names Windows refuses as file names, whatever the extension.
RESERVED_NAMES = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}
MAX_SLUG = 80


def strip_accents(text: str) -> str:
    if text.isascii():  # the common case, and much faster than normalising
        return text
    # one encoding of each letter first: a decomposed ガ (カ + U+3099, as macOS writes it) or a
    # half-width ｶﾞ is the ガ of the same name (NFKD below would drop its voicing mark as an accent)
    text = unicodedata.normalize("NFKC", text)
    if CJK_RUN.search(text):  # kana's voicing marks and Hangul's syllables are letters, not accents: ガ is not カ
        return outside_cjk(text, strip_accents)
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def outside_cjk(text: str, change: Callable[[str], str]) -> str:
    """`text` with `change` applied to the pieces between its CJK runs, the runs kept as they are."""
    out: list[str] = []
    pos = 0
    for run in CJK_RUN.finditer(text):
        out += [change(text[pos : run.start()]) if run.start() > pos else "", run.group()]
        pos = run.end()
    out.append(change(text[pos:]) if pos < len(text) else "")
    return "".join(out)


def name_key(name: str) -> str:
    """Case-, accent-, article-, possessive- and punctuation-insensitive key for an entity name."""
    if _PLAIN_NAME.fullmatch(name):  # most names: only the case and a leading article to fold (6x faster)
        return _LEADING_ARTICLE.sub("", name.lower())
    if name.isascii() and "'" not in name:  # no accents, no possessive: fewer passes (2x faster)
        text = _PUNCT.sub("", name.lower().replace("-", " ").replace("_", " "))
        return _LEADING_ARTICLE.sub("", " ".join(text.split()))
    return _folded_key(name)


def _folded_key(name: str) -> str:
    text = strip_accents(" ".join(name.split())).casefold()
    text = " ".join(_POSSESSIVE.sub("", word) for word in text.split())
    text = text.replace("-", " ").replace("_", " ")
    text = _PUNCT.sub("", text)
    text = _LEADING_ARTICLE.sub("", _SPACE.sub(" ", text).strip())
    return text


def slugify(text: str, max_length: int = MAX_SLUG) -> str:
    """A lowercase ASCII slug that is a safe file name on every common file system; CJK letters
    are kept (Obsidian opens 三体.md; three bytes each, so 80 of them fit any file system's 255).

    Never empty, never `.`/`..`, no path separators, not a Windows reserved name, bounded length.
    Long names are cut and given a short hash so that distinct names stay distinct.
    """
    plain = text if text.isascii() else unicodedata.normalize("NFKC", text)  # as name_key reads it
    slug = _NOT_SLUG.sub("-", outside_cjk(plain, _ascii_words)).strip("-")
    if not slug:
        slug = "x-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]
    if len(slug) > max_length or any(ord(c) > 0xFFFF for c in plain if CJK_RUN.match(c)):
        # cut, or a CJK letter beyond the BMP left out ("𠮷野家"): a hash keeps the names apart
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
        slug = slug[: max_length - 9].rstrip("-") + "-" + digest
    if slug.split("-")[0] in RESERVED_NAMES or slug in RESERVED_NAMES:
        slug = "x-" + slug
    return slug


def _ascii_words(text: str) -> str:
    text = strip_accents(text).replace("+", " plus ").replace("#", " sharp ").replace("&", " and ")
    return text.encode("ascii", "ignore").decode("ascii").lower()


def unique_slug(text: str, taken: set[str], identity: str | None = None) -> str:
    """`slugify(text)`, or with a short hash of `identity` appended when that slug is taken."""
    slug = slugify(text)
    if slug not in taken:
        return slug
    digest = hashlib.sha256((identity or text).encode("utf-8")).hexdigest()
    for size in (6, 10, 16, 64):
        candidate = f"{slug[: MAX_SLUG - size - 1]}-{digest[:size]}"
        if candidate not in taken:
            return candidate
    raise ValueError(f"cannot make a unique slug for {text!r}")


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


_NAME_WORD = re.compile(r"\w{3,}")


def in_context(text: str, subject: str) -> str:
    """A claim's text as a reader or a search index sees it: the source's own sentence, after the
    name of its subject when the sentence does not name it ("ENIAC: It weighed about 27 tonnes."),
    so that a claim is found, and understood, by what it is about. The claim's text itself stays
    the sentence."""
    words = {w.casefold() for w in _NAME_WORD.findall(strip_accents(subject))}
    if not subject or not words or words & {w.casefold() for w in _NAME_WORD.findall(strip_accents(text))}:
        return text
    return f"{subject}: {text}"
