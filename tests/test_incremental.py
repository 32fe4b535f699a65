from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exporters.pages import load_wiki_graph
from exporters.wiki import compute_links, page_links
from kg import api
from kg.errors import KgError
from kg.graph.store import Store
from kg.kb import KnowledgeBase, init
from tests.conftest import tree_digest


def full_render_digest(kb: KnowledgeBase, tmp: Path) -> dict[str, str]:
    """What a from-scratch `kg render` of the same graph gives, without touching kb.wiki."""
    copy = tmp / "full"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(kb.root, copy, ignore=shutil.ignore_patterns("wiki"))
    other = KnowledgeBase(copy)
    api.render_kb(other)
    return tree_digest(other.wiki)


def test_incremental_render_equals_full_render_after_edits(example_kb: KnowledgeBase, tmp_path: Path) -> None:
    api.compile_kb(example_kb)
    before = tree_digest(example_kb.wiki)
    steps = [
        lambda: (example_kb.raw / "eniac.md").write_text("# ENIAC\n\nENIAC weighed 40 tonnes. Grace Hopper never used ENIAC.\n"),
        lambda: (example_kb.raw / "colossus.md").unlink(),
        lambda: (example_kb.raw / "new-note.md").write_text("# Intel 4004\n\nThe Intel 4004 ran at 800 kHz. [[Federico Faggin]] designed it.\n"),
        lambda: (example_kb.raw / "new-note.md").write_text("# Intel 4004\n\nThe Intel 4004 was designed at Intel.\n"),
    ]
    for step in steps:
        step()
        _, rendered = api.compile_kb(example_kb)
        assert rendered is not None and rendered.pages < 160  # only the blast radius was written
        assert tree_digest(example_kb.wiki) == full_render_digest(example_kb, tmp_path)
    after = tree_digest(example_kb.wiki)
    unchanged = [p for p in before if before[p] == after.get(p)]
    assert len(unchanged) > 20  # unrelated pages kept their bytes


def test_compute_links_matches_the_rendered_pages(example_kb: KnowledgeBase) -> None:
    api.compile_kb(example_kb)
    with Store(example_kb.db_path, read_only=True) as store:
        links = compute_links(load_wiki_graph(store))
    for page in sorted(p for p in tree_digest(example_kb.wiki) if p.startswith(("entities/", "sources/"))):
        rendered = page_links((example_kb.wiki / page).read_text()) - {"contradictions", page[:-3]}  # self-links add no backlink
        assert rendered == links.get(page[:-3], set()) - {"contradictions"}, page


def test_backlinks_are_the_inverse_of_links(example_kb: KnowledgeBase) -> None:
    api.compile_kb(example_kb)
    pages = {p[:-3]: (example_kb.wiki / p).read_text() for p in tree_digest(example_kb.wiki) if p.startswith(("entities/", "sources/"))}
    for page, text in pages.items():
        for target in (page_links(text) & set(pages)) - {page}:
            assert f"- [[{page}|" in pages[target].split("## Backlinks", 1)[1], (page, target)


def test_a_killed_render_is_finished_by_the_next_compile(example_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    api.compile_kb(example_kb)
    (example_kb.raw / "eniac.md").write_text("# ENIAC\n\nENIAC weighed 40 tonnes.\n")
    import exporters.incremental as incremental

    def crash(*args: object, **kwargs: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(incremental, "write_in_place", crash)
    with pytest.raises(KeyboardInterrupt):
        api.compile_kb(example_kb)
    monkeypatch.undo()
    report, rendered = api.compile_kb(example_kb)  # nothing to compile, but the render is pending
    assert not report.changed_anything and rendered is not None
    assert "ENIAC weighed 40 tonnes." in (example_kb.wiki / "sources/eniac.md").read_text()


def _corpus(raw: Path, n: int) -> None:
    rng = random.Random(7)
    people = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "John von Neumann", "Claude Shannon", "Tommy Flowers"]
    machines = ["ENIAC", "Colossus", "EDVAC", "UNIVAC I", "Manchester Baby", "Intel 4004", "EDSAC", "Harvard Mark I"]
    for i in range(n):
        person, machine = rng.choice(people), rng.choice(machines)
        lines = [f"# Note {i} on {machine}", "", f"{person} worked on [[{machine}]] in {1940 + i % 30}.",
                 f"{machine} weighed {rng.randint(1, 40)} tonnes and used {rng.randint(100, 20000):,} vacuum tubes.",
                 f"{machine} was probably faster than {rng.choice(machines)}.", f"{person} did not design {machine}."]
        (raw / f"note-{i:04d}.md").write_text("\n".join(lines) + "\n")


def _compile(root: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "kg.cli", "compile", "--kb", str(root), "-q"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


@pytest.fixture(scope="module")
def reference_kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    kb, _ = init(tmp_path_factory.mktemp("reference") / "kb")
    kb.config_path.write_text("[compile]\nbatch_sources = 8\n")
    _corpus(kb.raw, 240)
    api.compile_kb(kb)
    return kb


@pytest.mark.parametrize("kill_after", [0.7, 1.5, 2.5])
def test_sigkill_during_compile_then_recompile_equals_uninterrupted(
    reference_kb: KnowledgeBase, tmp_path: Path, kill_after: float
) -> None:
    victim, _ = init(tmp_path / "victim")
    shutil.copyfile(reference_kb.config_path, victim.config_path)
    shutil.rmtree(victim.raw)
    shutil.copytree(reference_kb.raw, victim.raw)
    process = _compile(victim.root)
    time.sleep(kill_after)
    process.send_signal(signal.SIGKILL)
    process.wait()
    finish = _compile(victim.root)
    _, err = finish.communicate(timeout=300)
    assert finish.returncode == 0, err.decode()
    assert tree_digest(victim.wiki) == tree_digest(reference_kb.wiki)
    assert tree_digest(victim.raw) == tree_digest(reference_kb.raw)


def test_kg_cli_module_is_runnable() -> None:
    out = subprocess.run([sys.executable, "-m", "kg.cli", "--version"], capture_output=True, text=True, env={**os.environ})
    assert out.stdout.startswith("kg ")


def test_a_full_disk_during_an_incremental_render_leaves_the_wiki_as_it_was(
    example_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    api.compile_kb(example_kb)
    before = tree_digest(example_kb.wiki)
    (example_kb.raw / "eniac.md").write_text("# ENIAC\n\nENIAC weighed 40 tonnes. ENIAC used 18,000 vacuum tubes.\n")
    real_write = Path.write_bytes
    calls = {"n": 0}

    def full_disk(self: Path, data: bytes) -> int:
        calls["n"] += 1
        if calls["n"] > 3:
            raise OSError(28, "No space left on device")
        return real_write(self, data)

    monkeypatch.setattr(Path, "write_bytes", full_disk)
    with pytest.raises(KgError, match=r"No space left on device.*left as it was"):
        api.compile_kb(example_kb)
    monkeypatch.undo()
    assert tree_digest(example_kb.wiki) == before  # no page replaced, no temporary file left
    _, rendered = api.compile_kb(example_kb)  # space again: the pending render is finished
    assert rendered is not None and "ENIAC weighed 40 tonnes." in (example_kb.wiki / "sources/eniac.md").read_text()


def test_a_failing_full_render_leaves_the_previous_wiki(example_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    api.compile_kb(example_kb)
    before = tree_digest(example_kb.wiki)

    def read_only(self: Path, data: bytes) -> int:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(Path, "write_bytes", read_only)
    with pytest.raises(KgError, match="Read-only file system"):
        api.render_kb(example_kb)
    monkeypatch.undo()
    assert tree_digest(example_kb.wiki) == before
    assert not list(example_kb.root.glob(".wiki.*"))  # no temporary folder left behind


def _random_edit(raw: Path, rng: random.Random, step: int) -> str:
    """One edit a user might make: a new note, a changed sentence, a new title, a deleted note."""
    notes = sorted(raw.glob("*.md"))
    people = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Kathleen Booth", "Tommy Flowers"]
    machines = ["ENIAC", "Colossus", "EDVAC", "Manchester Baby", "EDSAC", "Figures"]
    kind = rng.choice(["add", "edit", "retitle", "delete"] if len(notes) > 4 else ["add"])
    if kind == "add":
        machine, person = rng.choice(machines), rng.choice(people)
        (raw / f"added-{step}.md").write_text(
            f"# {machine} notes {step}\n\n## Figures\n\n{person} programmed [[{machine}]] in {1940 + step}.\n"
            f"{machine} weighed {rng.randint(2, 40)} tonnes.\n")
    elif kind == "edit":
        note = rng.choice(notes)
        note.write_text(note.read_text() + f"{rng.choice(machines)} did not use {rng.randint(10, 900)} relays.\n")
    elif kind == "retitle":
        note = rng.choice(notes)
        lines = note.read_text().split("\n")
        note.write_text("\n".join([f"# Renamed note {step}", *lines[1:]]))
    else:
        rng.choice(notes).unlink()
    return kind


def small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    """Page bounds small enough that the example corpus needs every kind of cut page."""
    from exporters import indexes, logpages, paging

    for module, name, value in ((indexes, "LEAF_BYTES", 600), (indexes, "ROOT_LINKS", 2),
                                (indexes, "CONTRADICTIONS_ON_OVERVIEW", 1),
                                (indexes, "CONTRADICTIONS_PER_PAGE", 2), (logpages, "LOG_PER_PAGE", 4),
                                (logpages, "LOG_RECENT", 3), (paging, "PAGE_LIMIT", 2_500)):
        monkeypatch.setattr(module, name, value)


@pytest.mark.parametrize(("seed", "small"), [(1, False), (2, False), (3, False), *((s, True) for s in range(4, 10))])
def test_incremental_render_equals_full_render_after_random_edits(tmp_path: Path, seed: int, small: bool,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Also with every list, log and page cut small (issue 17: leaves split and join, parts come and go)."""
    if small:
        small_pages(monkeypatch)
    kb, _ = init(tmp_path / "kb")
    _corpus(kb.raw, 16 if small else 12)
    api.compile_kb(kb)
    if small:
        wiki = tree_digest(kb.wiki)
        assert any(p.startswith("indexes/entities/") and p.count("/") == 3 for p in wiki)  # leaves
        assert any(p.startswith("contradictions/") for p in wiki) and any(p.startswith("log/") for p in wiki)
        assert any(re.fullmatch(r"entities/[^.]+\.2\.md", p) for p in wiki)  # continuation parts
    rng = random.Random(seed)
    for step in range(10 if small else 8):
        kind = _random_edit(kb.raw, rng, step)
        _, rendered = api.compile_kb(kb)
        assert rendered is not None
        assert tree_digest(kb.wiki) == full_render_digest(kb, tmp_path), (step, kind)


def test_an_edit_rewrites_only_pages_whose_bytes_depend_on_it(example_kb: KnowledgeBase) -> None:
    api.compile_kb(example_kb)
    before = tree_digest(example_kb.wiki)
    note = example_kb.raw / "eniac.md"
    note.write_text(note.read_text() + "\nENIAC was moved in 1947.\n")
    explained = {f"{p}.md" for p in api.explain(example_kb)["pages"]}
    _, rendered = api.compile_kb(example_kb)
    after = tree_digest(example_kb.wiki)
    changed = {p for p in after if before.get(p) != after[p]}
    assert "sources/eniac.md" in changed and {"index.md", "log.md"} <= changed
    assert rendered is not None and rendered.pages < len(after) / 4  # the blast radius, not the wiki
    assert changed <= explained  # `kg compile --explain` named every page the compile rewrote


def test_patch_backlinks_keeps_the_section_sorted_and_says_none_when_empty() -> None:
    from exporters.incremental import patch_backlinks

    page = "# ENIAC\n\nText with [[sources/x|X]].\n\n## Backlinks\n\n- [[entities/a|A]]\n- [[sources/c|C]]\n"
    patched = patch_backlinks(page, {"entities/b": "B [1]", "sources/c": None})
    assert patched.endswith("## Backlinks\n\n- [[entities/a|A]]\n- [[entities/b|B (1)]]\n")
    assert patched.startswith("# ENIAC\n\nText with [[sources/x|X]].\n")
    assert patch_backlinks(patched, {"entities/a": None, "entities/b": None}).endswith("## Backlinks\n\n- none\n")
    assert patch_backlinks(page.replace("- [[entities/a|A]]\n- [[sources/c|C]]\n", "- none\n"),
                           {"sources/d": "D"}).endswith("## Backlinks\n\n- [[sources/d|D]]\n")


@pytest.mark.parametrize("damage", ["delete", "edit"])
def test_a_hand_edited_or_missing_contradictions_page_gets_a_full_render(
    example_kb: KnowledgeBase, tmp_path: Path, damage: str
) -> None:
    api.compile_kb(example_kb)
    page = example_kb.wiki / "contradictions.md"
    if damage == "delete":
        page.unlink()
    else:  # a user's note over a contradiction: its block id is gone, so it cannot be spliced
        page.write_text(page.read_text().replace("^c", "(checked) c"))
    note = example_kb.raw / "eniac.md"
    note.write_text(note.read_text() + "\nENIAC was moved in 1947.\n")
    _, rendered = api.compile_kb(example_kb)
    assert rendered is not None
    assert tree_digest(example_kb.wiki) == full_render_digest(example_kb, tmp_path)


def test_log_parts_grown_in_place_equal_a_full_render(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries appended to a month's last part (and on into new parts), several at once, give the
    bytes a full render does; a part whose entries were hand-edited away is rendered again."""
    small_pages(monkeypatch)
    kb, _ = init(tmp_path / "kb")
    _corpus(kb.raw, 5)
    api.compile_kb(kb)
    for step, added in enumerate((1, 5, 3)):
        for n in range(added):
            (kb.raw / f"more-{step}-{n}.md").write_text(f"# More {step} {n}\n\nENIAC weighed {n + 20} tonnes.\n")
        if step == 2:  # an entry gone from the last part, which grows: it is rendered again, not grown
            assert int(re.search(r"\nentries: (\d+)\n", (kb.wiki / "log.md").read_text())[1]) % 4
            last = max(kb.wiki.glob("log/*.md"), key=lambda p: (len(p.name), p.name))
            text = last.read_text()
            last.write_text(text[: text.rindex("\n## [") + 1])
        api.compile_kb(kb)
        assert tree_digest(kb.wiki) == full_render_digest(kb, tmp_path), step


# Notes whose groups depend on one another: "Nolan" is in Christopher Nolan's group only while the
# note saying both is there, and "Tibetans" makes a page for Tibet that only its members' claims fill.
GROUPED_NOTES = {
    "prestige.md": "# The Prestige\n\nThe Prestige is a 2006 film directed by Christopher Nolan. The screenplay was "
                   "adapted by Nolan and his brother Jonathan. The film reunites Nolan with Christian Bale.\n",
    "rises.md": "# The Dark Knight Rises\n\nThe Dark Knight Rises is a 2012 film. It is the final installment in "
                "Nolan's Batman trilogy, starring Christian Bale.\n",
    "inception.md": "# Inception\n\nInception is a 2010 film written and directed by Christopher Nolan. "
                    "Leonardo DiCaprio starred in Inception.\n",
    "bible.md": "# Bible translations into Tibetan\n\nThe Gospel of John in Tibetan language was printed in 1862 in "
                "Kashmir. It was translated into classical Tibetan, but this was not understood by most people. "
                "A version was understandable by all Tibetans.\n",
}


def _grouped_edit(text: str) -> str:
    return text.replace("Tibet", "Nepal").replace("Nolan", "Nolan-Smith") + "Another sentence was added.\n"


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(sorted(GROUPED_NOTES)), st.sampled_from(["delete", "edit", "restore"])),
                min_size=1, max_size=3))
def test_an_entity_leaving_or_joining_a_group_renders_what_a_full_render_does(
        tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, str]]) -> None:
    """Deleting or editing a note changes groups (an entity leaves its canonical's page, a canonical
    loses its page): every page showing those entities, and the index, equal a full render."""
    tmp = tmp_path_factory.mktemp("grouped")
    kb, _ = init(tmp / "kb")
    for name, text in GROUPED_NOTES.items():
        (kb.raw / name).write_text(text)
    api.compile_kb(kb, "heuristic")
    for name, op in steps:
        note = kb.raw / name
        if op == "delete":
            note.unlink(missing_ok=True)
        else:
            note.write_text(_grouped_edit(GROUPED_NOTES[name]) if op == "edit" else GROUPED_NOTES[name])
        api.compile_kb(kb, "heuristic")
        incremental, full = tree_digest(kb.wiki), full_render_digest(kb, tmp)
        assert sorted(p for p in incremental.keys() | full.keys() if incremental.get(p) != full.get(p)) == [], (name, op)


def test_a_group_change_renders_the_pages_showing_its_members_not_everything(tmp_path: Path) -> None:
    """The Nolan case as a fixed example: the pages that showed "Nolan" as Christopher Nolan now link
    to Nolan's own page, a canonical page left with no claims is deleted, and the rest is untouched."""
    kb, _ = init(tmp_path / "kb")
    for name, text in GROUPED_NOTES.items():
        (kb.raw / name).write_text(text)
    api.compile_kb(kb, "heuristic")
    before = tree_digest(kb.wiki)
    (kb.raw / "prestige.md").unlink()
    (kb.raw / "bible.md").write_text(_grouped_edit(GROUPED_NOTES["bible.md"]))
    _, rendered = api.compile_kb(kb, "heuristic")
    after = tree_digest(kb.wiki)
    assert rendered is not None and rendered.pages < len(after)
    assert "entities/tibet.md" in before and "entities/tibet.md" not in after
    assert after == full_render_digest(kb, tmp_path)
    assert "entities/inception.md" in after and before["entities/inception.md"] == after["entities/inception.md"]
