"""The benchmarks' command line: `python -m benchmarks NAME [OPTIONS]`, from the repository root.

`retrieval` and `answers` replay datasets through the service's own graph and are
defined here; the performance benchmarks (`turns`, `load`, `store`, `engine`,
`history`, `models`) and `report` keep their own argparse parsers, and their
commands here hand every argument over to them unchanged (`--help` included), so
``python -m benchmarks turns --sizes 1000`` and ``python -m benchmarks.turns --sizes
1000`` are the same run. Benchmarks are not part of the installed `threadline`
package (see benchmarks/README.md).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, get_args

import typer
from rich.console import Console

from threadline.settings import DenseModel, get_settings

if TYPE_CHECKING:
    from rich.progress import TaskID

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="Benchmarks of threadline's own pipeline (run from the repository root).",
)
console = Console()


@contextmanager
def _phase_bars(err: Console) -> Iterator[Callable[[str, int, int], None]]:
    """Show a progress bar per phase on stderr; yield the `progress(phase, done, total)` hook."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
    ) as bar:
        bars: dict[str, TaskID] = {}

        def progress(phase: str, done: int, total: int) -> None:
            if phase not in bars:
                bars[phase] = bar.add_task(f"{phase:<6}", total=total)
            bar.update(bars[phase], completed=done)

        yield progress


@app.command("retrieval")
def retrieval(
    corpus: Annotated[Path, typer.Option(help="Corpus JSONL: id, title, text, domain.")],
    tasks: Annotated[Path, typer.Option(help="Tasks JSONL: task_id, domain, turns.")],
    out: Annotated[Path, typer.Option(help="Where to write the run JSONL.")],
    embeddings: Annotated[
        str, typer.Option(help="hybrid, sparse or dense (a fresh index is built).")
    ] = "hybrid",
    dense_model: Annotated[
        str | None,
        typer.Option(
            help="minilm, e5-small or minilm-static; default: THREADLINE_DENSE_MODEL (minilm)."
        ),
    ] = None,
    k: Annotated[int, typer.Option(help="Passage ids written per task.", min=10, max=30)] = 20,
    limit: Annotated[int | None, typer.Option(help="Only the first N tasks.", min=1)] = None,
    qrels: Annotated[Path | None, typer.Option(help="Qrels TSV, to score the run.")] = None,
    score: Annotated[bool, typer.Option("--score", help="Score the run (needs --qrels).")] = False,
    index_dir: Annotated[
        Path | None, typer.Option(help="Keep the index here and reuse it across runs.")
    ] = None,
    vector_cache: Annotated[
        Path | None,
        typer.Option(help="A SQLite file of dense vectors reused across index builds."),
    ] = None,
    score_script: Annotated[
        Path | None,
        typer.Option(help="score.py; default: beside the qrels, else beside the corpus."),
    ] = None,
    fusion: Annotated[
        list[str] | None,
        typer.Option(help="Override a fusion weight, NAME=VALUE (repeatable), for ablations."),
    ] = None,
    trace: Annotated[
        Path | None, typer.Option(help="Also write each task's route and query variants.")
    ] = None,
) -> None:
    """Replay multi-turn tasks through router, reformulator and retriever; rank passages."""
    from benchmarks.retrieval import parse_fusion, run_benchmark, score_run

    if embeddings not in ("hybrid", "sparse", "dense"):
        console.print("[red]--embeddings must be hybrid, sparse or dense[/red]")
        raise typer.Exit(2)
    model = dense_model or get_settings().dense_model
    if model not in get_args(DenseModel):
        console.print(f"[red]--dense-model must be one of {', '.join(get_args(DenseModel))}[/red]")
        raise typer.Exit(2)
    if score and qrels is None:
        console.print("[red]--score needs --qrels[/red]")
        raise typer.Exit(2)
    try:
        config = parse_fusion(fusion or [])
    except ValueError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc
    err = Console(stderr=True)
    with _phase_bars(err) as progress:
        report = run_benchmark(
            corpus,
            tasks,
            out,
            embeddings=embeddings,
            dense_model=model,
            k=k,
            limit=limit,
            index_dir=index_dir,
            vector_cache=vector_cache,
            fusion=config,
            progress=progress,
            trace_path=trace,
        )
    err.print(report.summary(), highlight=False)
    err.print(f"run written to {out}", highlight=False)
    if score and qrels is not None:
        script = score_script
        if script is None and not qrels.with_name("score.py").exists():
            script = corpus.with_name("score.py")  # mtrag-fr scores with mtrag's script
        typer.echo(score_run(out, qrels, tasks_path=tasks, script=script), nl=False)


@app.command("answers")
def answers(
    tasks: Annotated[
        Path, typer.Option(help="Tasks JSONL: task_id, conversation_id, domain, turns.")
    ],
    corpus: Annotated[
        Path | None,
        typer.Option(
            help="Corpus JSONL: id, title, text, domain. Without it: the deployment's own "
            "index (THREADLINE_DATA_DIR), for the cases of `threadline bench cases`."
        ),
    ] = None,
    out: Annotated[Path, typer.Option(help="Where to write the run JSONL.")] = Path(
        "answers-run.jsonl"
    ),
    embeddings: Annotated[
        str, typer.Option(help="hybrid, sparse or dense (a fresh index is built).")
    ] = "hybrid",
    limit: Annotated[int | None, typer.Option(help="Only the first N tasks.", min=1)] = None,
    score: Annotated[
        bool, typer.Option("--score", help="Score the run with score.py beside the tasks file.")
    ] = False,
    index_dir: Annotated[
        Path | None, typer.Option(help="Keep the index here and reuse it across runs.")
    ] = None,
    scorer: Annotated[
        Path | None, typer.Option(help="score.py to use (default: beside the tasks file).")
    ] = None,
) -> None:
    """Replay conversations (dataset answers as history); answer, decline or ask at the end.

    Feedback cases (`threadline bench cases`) are compared with the answers users flagged.
    """
    from benchmarks.answers import run_answers_benchmark, score_answers
    from benchmarks.feedback_replay import compare_replay, is_feedback_tasks

    if embeddings not in ("hybrid", "sparse", "dense"):
        console.print("[red]--embeddings must be hybrid, sparse or dense[/red]")
        raise typer.Exit(2)
    err = Console(stderr=True)
    with _phase_bars(err) as progress:
        report = run_answers_benchmark(
            corpus,
            tasks,
            out,
            embeddings=embeddings,
            limit=limit,
            index_dir=index_dir,
            progress=progress,
        )
    err.print(report.summary(), highlight=False)
    err.print(f"run written to {out}", highlight=False)
    if is_feedback_tasks(tasks):
        typer.echo(compare_replay(tasks, out).summary(), nl=False)
    elif score:
        typer.echo(score_answers(out, tasks, script=scorer), nl=False)


@app.command("answers-ceilings")
def answers_ceilings(
    corpus: Annotated[Path, typer.Option(help="Corpus JSONL: id, title, text, domain.")],
    tasks: Annotated[
        Path, typer.Option(help="Tasks JSONL with labels, references and gold passage ids.")
    ],
    out: Annotated[Path, typer.Option(help="Where to write the run JSONL.")] = Path(
        "answers-run.jsonl"
    ),
    results: Annotated[
        Path, typer.Option(help="Where to write answers-ceilings.json and .md.")
    ] = Path("benchmarks/results"),
    index_dir: Annotated[
        Path | None, typer.Option(help="Keep the index here and reuse it across runs.")
    ] = None,
    scorer: Annotated[
        Path | None, typer.Option(help="score.py to use (default: beside the tasks file).")
    ] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first N tasks.", min=1)] = None,
    embeddings: Annotated[
        str, typer.Option(help="hybrid, sparse or dense (a fresh index is built).")
    ] = "hybrid",
) -> None:
    """Run the answers benchmark and measure what its answer stage can reach (reads gold)."""
    from benchmarks.answers import score_answers
    from benchmarks.answers_ceilings import run_ceilings, write_report

    if embeddings not in ("hybrid", "sparse", "dense"):
        console.print("[red]--embeddings must be hybrid, sparse or dense[/red]")
        raise typer.Exit(2)
    summary, records = run_ceilings(
        corpus,
        tasks,
        out,
        scorer_path=scorer,
        index_dir=index_dir,
        embeddings=embeddings,
        limit=limit,
    )
    write_report(
        summary,
        records,
        results / "answers-ceilings.json",
        results / "answers-ceilings.md",
    )
    typer.echo((results / "answers-ceilings.md").read_text(encoding="utf-8"), nl=False)
    typer.echo(score_answers(out, tasks, script=scorer), nl=False)


# The argparse benchmarks: command name -> (module, one line of help). Imported only
# when run, so `--help` here stays fast and one benchmark's imports never load another's.
ARGPARSE_BENCHMARKS: dict[str, tuple[str, str]] = {
    "turns": ("benchmarks.turns", "Turn overhead without an LLM, per graph node, 1k-50k chunks."),
    "scale": (
        "benchmarks.scale",
        "Ingestion time and turn latency from 10k to 200k chunks, by part.",
    ),
    "document-routes": (
        "benchmarks.document_routes",
        "Routes and commands that read the index (listing, health, uploads), 10k-200k chunks.",
    ),
    "load": ("benchmarks.load", "POST /chat under load: concurrent conversations, a real server."),
    "store": ("benchmarks.store_bench", "Conversation store appends under contention."),
    "engine": ("benchmarks.engine_bench", "Vector engines: Qdrant Edge vs qdrant-client local."),
    "history": ("benchmarks.history", "History characters per turn in prompts, per history mode."),
    "conversations": (
        "benchmarks.conversations",
        "Past exchanges: recall on MTRAG, indexing exchanges/s, search latency at 10k-100k.",
    ),
    "models": ("benchmarks.models", "The dense models' cost: load, RSS, passages/s, latency."),
    "llm": ("benchmarks.llm", "The LLM path on a local model (llama.cpp): calls, tokens, latency."),
    "report": ("benchmarks.combined_report", "Merge result JSON files into one Markdown report."),
}


def _hand_over(module: str) -> Callable[[typer.Context], None]:
    """Make a command that runs ``module.main`` with the command's arguments, unparsed."""

    def command(ctx: typer.Context) -> None:
        code = importlib.import_module(module).main(list(ctx.args))
        raise typer.Exit(code or 0)

    return command


for _name, (_module, _help) in ARGPARSE_BENCHMARKS.items():
    app.command(
        _name,
        help=_help,
        # Every argument, --help too, goes to the benchmark's own parser.
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
        add_help_option=False,
    )(_hand_over(_module))
