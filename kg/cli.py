"""The `kg` command line: parse, call one kg function, format. Errors become messages here."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from kg import __version__, ops
from kg.errors import KgError
from kg.kb import KnowledgeBase, init

app = typer.Typer(
    name="kg",
    help="kg compiles notes and documents into a knowledge graph and a markdown wiki.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)
T = TypeVar("T")

KbOption = Annotated[Path | None, typer.Option("--kb", help="Knowledge base folder (default: the one containing the current folder).", envvar="KG_HOME")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]


@contextmanager
def errors() -> Iterator[None]:
    """Library errors -> one line on stderr and a meaningful exit code; never a traceback."""
    try:
        yield
    except KgError as exc:
        err.print(f"[red]error:[/red] {exc}")
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
    version: Annotated[bool, typer.Option("--version", callback=version_callback, is_eager=True, help="Show the version.")] = False,
) -> None:
    """kg: raw sources -> Kuzu graph -> markdown wiki. Start with `kg init`."""


@app.command("init")
def init_command(
    directory: Annotated[Path, typer.Argument(help="Where to create the knowledge base.")] = Path("."),
    as_json: JsonOption = False,
) -> None:
    """Create a knowledge base: raw/, wiki/, insights/, .kg/, kg.toml and AGENTS.md. Safe to re-run."""
    with errors():
        kb, created = init(directory)
    if as_json:
        emit_json({"root": str(kb.root), "created": created})
        return
    out.print(f"Knowledge base at {kb.root}" + (f" (created {', '.join(created)})" if created else " (already set up; nothing changed)"))
    out.print("Next: put notes in raw/ (or `kg ingest PATH`), then run `kg compile`.")


def _compile_and_print(kb: KnowledgeBase, extractor: str | None, as_json: bool, quiet: bool) -> int:
    show_bar = not as_json and not quiet and err.is_terminal
    with Progress(TextColumn("compiling"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=err, disable=not show_bar) as bar:
        task = bar.add_task("", total=None)

        def on_plan(plan: Any) -> None:
            bar.update(task, total=len(plan.to_compile))

        def progress(path: str, done: int) -> None:
            bar.update(task, completed=done, description=path[-40:])

        report, rendered = ops.compile_kb(kb, extractor, progress=progress, on_plan=on_plan)
    data = report.as_dict()
    if rendered is not None:
        data["rendered_pages"] = rendered.pages
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
                + (f"; wiki: {rendered.pages} pages" if rendered is not None else "")
            )
        for _path, reason in sorted(report.failed.items()):
            err.print(f"[yellow]failed:[/yellow] {reason}")
    return 1 if report.failed else 0


@app.command("compile")
def compile_command(
    kb: KbOption = None,
    extractor: Annotated[str | None, typer.Option("--extractor", "-x", help="heuristic | anthropic | openai (default: kg.toml, then auto).")] = None,
    as_json: JsonOption = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Estimate LLM tokens and cost; send nothing, change nothing.")] = False,
    batch: Annotated[bool, typer.Option("--batch", help="Extract through the Anthropic Message Batches API (half price; waits for the batch).")] = False,
) -> None:
    """Compile new and changed sources in raw/ into the graph, then render the wiki.

    Exit code 1 when some source failed (the others are compiled), 2 for a usage or
    configuration error, 3 when another process holds the knowledge base.
    """
    from kg import llm_run

    with errors():
        base = find_kb(kb)
        if dry_run:
            estimate = llm_run.estimate(base, extractor)
            if as_json:
                emit_json(estimate.as_dict())
            else:
                out.print(estimate.summary())
            raise typer.Exit(0)
        if batch:
            sent = llm_run.prefetch_batch(base, extractor)
            if sent.batch_id:
                err.print(f"batch {sent.batch_id}: {sent.succeeded}/{sent.submitted} chunk(s) extracted"
                          + (f", {len(sent.failed)} left for the regular path" if sent.failed else ""))
        code = _compile_and_print(base, extractor, as_json, quiet)
        if (summary := llm_run.run_summary()) is not None:
            err.print(summary)
    raise typer.Exit(code)


@app.command("ingest")
def ingest_command(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (.md, .markdown, .txt).")],
    kb: KbOption = None,
    extractor: Annotated[str | None, typer.Option("--extractor", "-x", help="heuristic | anthropic | openai.")] = None,
    no_compile: Annotated[bool, typer.Option("--no-compile", help="Only copy into raw/.")] = False,
    as_json: JsonOption = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Copy sources into raw/ (never overwriting a different file), then compile."""
    with errors():
        base = find_kb(kb)
        report = ops.ingest(base, paths)
        if as_json and no_compile:
            emit_json(report.__dict__)
        elif not as_json:
            out.print(f"Copied {len(report.copied)} file(s) into raw/" + (f"; {len(report.already_present)} already there" if report.already_present else ""))
        for rel in report.conflicts:
            err.print(f"[yellow]skipped:[/yellow] raw/{rel} already exists with different content; rename the new file and ingest it again.")
        for path in report.unsupported:
            err.print(f"[yellow]unsupported:[/yellow] {path} (only .md, .markdown and .txt are compiled)")
        code = 0 if no_compile else _compile_and_print(base, extractor, as_json, quiet)
    raise typer.Exit(code or (1 if report.conflicts else 0))


@app.command("render")
def render_command(kb: KbOption = None, as_json: JsonOption = False) -> None:
    """Regenerate wiki/ from the graph alone (the same graph gives the same bytes)."""
    with errors():
        report = ops.render_kb(find_kb(kb))
    if as_json:
        emit_json({"pages": report.pages, "bytes": report.bytes, "path": str(report.path)})
    else:
        out.print(f"Rendered {report.pages} pages ({report.bytes:,} bytes) into {report.path}")


@app.command("status")
def status_command(kb: KbOption = None, as_json: JsonOption = False) -> None:
    """Counts, sources changed or vanished since the last compile, and the extractor in use."""
    with errors():
        st = ops.status(find_kb(kb))
    if as_json:
        emit_json(st.as_dict())
        return
    c = st.counts
    out.print(f"{st.root}  (extractor: {st.extractor})")
    out.print(f"{c['Source']} sources · {c['Entity']} entities · {c['Claim']} claims · {c['Page']} pages · {c['Contradiction']} contradictions")
    for label, items in (("new", st.new), ("changed", st.changed), ("vanished", st.vanished)):
        for path in items:
            out.print(f"  {label}: {path}")
    for _path, reason in st.failed.items():
        out.print(f"  failed: {reason}")
    if st.new or st.changed or st.vanished:
        out.print("Run `kg compile` to bring the graph up to date.")


@app.command("cypher")
def cypher_command(
    query: Annotated[str, typer.Argument(help="A Cypher query, e.g. \"MATCH (e:Entity) RETURN e.name LIMIT 5\".")],
    param: Annotated[list[str] | None, typer.Option("--param", "-p", help="name=value (JSON values allowed); repeatable.")] = None,
    write: Annotated[bool, typer.Option("--write", help="Allow queries that change the graph.")] = False,
    kb: KbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Run Cypher against the graph (read-only unless --write). See the README for the schema."""
    with errors():
        params = dict(ops.parse_param(p) for p in (param or []))
        rows = ops.cypher(find_kb(kb), query, params, write=write)
    if as_json:
        emit_json(rows)
        return
    if not rows:
        out.print("(no rows)")
        return
    columns = list(rows[0])
    print("\t".join(columns))
    for row in rows:
        print("\t".join(_cell(row[c]) for c in columns))


def _cell(value: Any) -> str:
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, default=str)
    return "" if value is None else str(value)


def run() -> Callable[..., Any]:
    return app
