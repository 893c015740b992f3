"""`threadline bench`: flagged answers as test cases, and the replay benchmarks.

`threadline bench cases --from-feedback down --out cases.jsonl` is the product's own
command: it reads the store and the queries log (`threadline.feedback_cases`).

The benchmarks stay the top-level `benchmarks` package of the repository, run with
`python -m benchmarks NAME` (benchmarks/README.md says why they are not in the
installed package). `threadline bench answers ...` and `threadline bench retrieval
...` hand every argument to `python -m benchmarks` in a child process started in the
current directory, so they work from the repository root and say so in one line
anywhere else; nothing of `benchmarks` is imported here.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Annotated, Literal

import typer

from threadline.cli_common import console, open_services_unchecked

bench_app = typer.Typer(
    no_args_is_help=True,
    help="Flagged answers as test cases; the replay benchmarks (from the repository root).",
)

DELEGATED = {
    "answers": "Replay answer tasks (MTRAG, or the cases of `bench cases`) through the graph.",
    "retrieval": "Replay multi-turn retrieval tasks and rank passages.",
}
EXIT_NO_CHECKOUT = 2


@bench_app.command("cases")
def bench_cases(
    out: Annotated[Path, typer.Option(help="Where to write the tasks (JSON lines).")],
    from_feedback: Annotated[
        Literal["down", "up"],
        typer.Option("--from-feedback", help="Turns whose latest rating is this one."),
    ] = "down",
    tenant: Annotated[str | None, typer.Option(help="Only this tenant.")] = None,
    caller_app: Annotated[str | None, typer.Option(help="Only this caller app.")] = None,
) -> None:
    """Write the turns users flagged as tasks of the answers benchmark."""
    from threadline.feedback_cases import flagged_cases, write_cases

    services = open_services_unchecked()
    try:
        cases = flagged_cases(services, rating=from_feedback, tenant=tenant, caller_app=caller_app)
    finally:
        services.close()
    written = write_cases(cases, out)
    console.print(f"{written} flagged turn(s) written to {out}", highlight=False)


def _delegate(name: str) -> None:
    def command(ctx: typer.Context) -> None:
        if not (Path.cwd() / "benchmarks" / "__main__.py").exists():
            console.print(
                f"[red]threadline bench {name} runs the repository's benchmarks:[/red] run it "
                "from the threadline checkout's root (or `python -m benchmarks` there).",
                highlight=False,
            )
            raise typer.Exit(EXIT_NO_CHECKOUT)
        done = subprocess.run([sys.executable, "-m", "benchmarks", name, *ctx.args], check=False)
        raise typer.Exit(done.returncode)

    bench_app.command(
        name,
        help=DELEGATED[name] + " Same as `python -m benchmarks " + name + " ...`.",
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
        add_help_option=False,
    )(command)


for _name in DELEGATED:
    _delegate(_name)
