"""Multi-turn answering benchmark: answer, decline or ask, and cite (bench/answers protocol).

For each task of `../shared/bench/answers/dev.jsonl` (and its held-out siblings): the
conversation's earlier turns are seeded into the conversation store with the
dataset's own assistant text as the answers (each earlier user turn is routed,
reformulated and searched by the graph's node functions, as the retrieval
benchmark does, so the stored search query, doc ids and titles are what the live
service would have stored); then the last user turn goes through the real graph
(`ChatService.run_turn`: router, reformulator, retriever, generator, persist),
searching only the task's domain. One run line per task:
`{"task_id", "outcome", "answer", "cited_doc_ids"}`.

Only `task_id`, `conversation_id`, `domain`, `turns`, `tenant` and `caller_app` of a
task are read: labels, references and gold passage ids are for the scorer alone.

Tasks written from users' feedback (`threadline bench cases`, `threadline.feedback_cases`)
are replayed the same way with three differences: their earlier answers carry the
metadata the service stored (search query, titles, outline...), which is seeded as it
is instead of being recomputed; they name the tenant and caller app whose documents
they search (`domain` null: the caller app's sources); and without `--corpus` they
run against the deployment's own index (the settings' data directory), with the
conversations seeded into a temporary store and log, never the deployment's.
`benchmarks.feedback_replay` then says what became of each flagged answer.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.retrieval import (
    CALLER_APP,
    TENANT,
    Progress,
    RetrievalBench,
    Task,
    Turn,
    index_corpus,
    load_corpus,
    open_index,
)
from threadline.chat import ChatService, TurnRequest, TurnResult
from threadline.models.errors import LLMError
from threadline.querylog import QueryLog
from threadline.services import Services
from threadline.settings import get_settings
from threadline.store import ConversationStore, TurnMetadata

READ_FIELDS = ("task_id", "conversation_id", "domain", "turns", "tenant", "caller_app")
"""The only task fields the benchmark reads."""


@dataclass(frozen=True)
class AnswerTask:
    """A conversation whose last user turn is the question to handle."""

    task_id: str
    conversation_id: str
    domain: str | None
    turns: tuple[Turn, ...]
    tenant: str = TENANT
    caller_app: str = CALLER_APP
    stored: tuple[dict[str, Any] | None, ...] = ()
    """Per turn, the metadata the service stored with an earlier answer (feedback cases)."""


@dataclass(frozen=True)
class AnswerLine:
    """One run line, plus what the turn did (for the summary, not the scorer)."""

    task_id: str
    outcome: str
    answer: str
    cited_doc_ids: list[str]
    stop_reason: str | None = None
    route: str = ""

    def to_json(self) -> str:
        """Return the run-file line score.py reads."""
        return json.dumps(
            {
                "task_id": self.task_id,
                "outcome": self.outcome,
                "answer": self.answer,
                "cited_doc_ids": self.cited_doc_ids,
                "stop_reason": self.stop_reason,
            },
            ensure_ascii=False,
        )


@dataclass
class AnswersReport:
    """Counts and timings of one run."""

    tasks: int = 0
    passages: int = 0
    indexed: int = 0
    index_seconds: float = 0.0
    answer_seconds: float = 0.0
    outcomes: dict[str, int] = field(default_factory=dict)
    stop_reasons: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        """One line for humans."""
        outcomes = ", ".join(f"{k}={v}" for k, v in sorted(self.outcomes.items()))
        reasons = ", ".join(f"{k}={v}" for k, v in sorted(self.stop_reasons.items()))
        return (
            f"{self.tasks} tasks, {self.passages} passages ({self.indexed} indexed in "
            f"{self.index_seconds:.1f}s); last turns answered in {self.answer_seconds:.1f}s; "
            f"outcomes: {outcomes}; stop reasons: {reasons}"
        )


def read_task(record: dict[str, Any]) -> AnswerTask:
    """Return the task fields the benchmark may use, read by name (nothing else is touched).

    Raises:
        ValueError: when the last turn is not a user turn.
    """
    task_id = str(record["task_id"])
    turns = tuple(Turn(str(t["role"]), str(t["text"])) for t in record["turns"])
    if not turns or turns[-1].role != "user":
        raise ValueError(f"task {task_id}: the last turn must be a user turn")
    stored = tuple(t.get("metadata") for t in record["turns"])
    domain = record["domain"]
    return AnswerTask(
        task_id=task_id,
        conversation_id=str(record["conversation_id"]),
        domain=None if domain is None else str(domain),
        turns=turns,
        tenant=str(record.get("tenant") or TENANT),
        caller_app=str(record.get("caller_app") or CALLER_APP),
        stored=stored if any(stored) else (),
    )


def load_answer_tasks(path: Path, limit: int | None = None) -> list[AnswerTask]:
    """Read a tasks JSONL file through `read_task`."""
    tasks: list[AnswerTask] = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                tasks.append(read_task(json.loads(line)))
                if limit is not None and len(tasks) >= limit:
                    break
    return tasks


def _pairs(task: AnswerTask) -> list[tuple[str, str]]:
    """(user question, dataset answer) pairs; the last question has no answer yet."""
    pairs: list[tuple[str, str]] = []
    for turn in task.turns:
        if turn.role == "user":
            pairs.append((turn.text, ""))
        elif pairs and not pairs[-1][1]:
            pairs[-1] = (pairs[-1][0], turn.text)
    return pairs


def thread_id_for(task: AnswerTask) -> str:
    """Return a store-safe session id per task (task ids hold characters ids may not)."""
    return f"answers-{hashlib.sha1(task.task_id.encode()).hexdigest()[:16]}"


class AnswersBench:
    """Seeds each task's earlier turns into the store, then runs the last turn for real."""

    def __init__(self, chat: ChatService) -> None:
        """Use `chat` (its services hold the benchmark index and store)."""
        self.chat = chat
        self.replay = RetrievalBench(chat.services)

    def seed(self, task: AnswerTask, thread_id: str) -> int:
        """Store the earlier turns with the dataset's answers; returns how many."""
        pairs = _pairs(task)[:-1]
        if not pairs:
            return 0
        if task.stored:
            return self.seed_stored(task, thread_id)
        as_task = Task(task.task_id, task.domain, task.turns)
        stored = self.replay._replay_prefix(as_task, pairs)
        store = self.chat.services.store
        for turn in stored:
            store.add_turn(
                tenant=task.tenant,
                caller_app=task.caller_app,
                session_id=thread_id,
                question=turn["question"],
                answer=turn["answer"],
                metadata=TurnMetadata(
                    search_query=turn["search_query"],
                    doc_ids=list(turn["doc_ids"]),
                    titles=list(turn["titles"]),
                    route=turn["route"],
                    outcome="grounded_answer",
                    stop_reason="completed",
                ),
                create=True,
            )
        return len(stored)

    def seed_stored(self, task: AnswerTask, thread_id: str) -> int:
        """Store the earlier turns with the answers and metadata the service stored."""
        store = self.chat.services.store
        question, seeded = None, 0
        for turn, stored in zip(task.turns[:-1], task.stored, strict=False):
            if turn.role == "user":
                question = turn.text
                continue
            if question is None:
                continue
            store.add_turn(
                tenant=task.tenant,
                caller_app=task.caller_app,
                session_id=thread_id,
                question=question,
                answer=turn.text,
                metadata=TurnMetadata.model_validate(stored or {}),
                create=True,
            )
            question, seeded = None, seeded + 1
        return seeded

    def answer(self, task: AnswerTask) -> TurnResult:
        """Seed the history, answer the last user turn through the graph; the whole result.

        The result's trace names the packed passages (`benchmarks.answers_ceilings` reads them).
        """
        thread_id = thread_id_for(task)
        self.seed(task, thread_id)
        return self.chat.run_turn(
            TurnRequest(
                query=task.turns[-1].text,
                thread_id=thread_id,
                tenant=task.tenant,
                caller_app=task.caller_app,
                sources=[task.domain] if task.domain is not None else None,
            )
        )

    def run_task(self, task: AnswerTask) -> AnswerLine:
        """Seed the history, answer the last user turn through the graph."""
        return answer_line(task, self.answer(task))

    def clear_sessions(self, tasks: Sequence[AnswerTask]) -> None:
        """Delete the tasks' sessions: a kept index directory also keeps an earlier run's."""
        for task in tasks:
            self.chat.services.store.delete_session(
                tenant=task.tenant, caller_app=task.caller_app, session_id=thread_id_for(task)
            )


def answer_line(task: AnswerTask, result: TurnResult) -> AnswerLine:
    """Return the run line of a task's answered last turn."""
    return AnswerLine(
        task_id=task.task_id,
        outcome=result.outcome,
        answer=result.answer,
        cited_doc_ids=list(dict.fromkeys(c["doc_id"] for c in result.citations)),
        stop_reason=result.stop_reason,
        route=result.route,
    )


@contextmanager
def deployment_services() -> Iterator[Services]:
    """Yield the deployment's index, model and settings, with a temporary store and log.

    Feedback cases replay against what the service answers from now (its data
    directory's index, `THREADLINE_*` settings); their seeded conversations go to a
    throw-away store, so the deployment's conversations and log are never written.
    """
    scratch = Path(tempfile.mkdtemp(prefix="threadline-replay-"))
    services = Services(get_settings())
    # Set before first use: the store and log the services would open are never opened.
    services.__dict__["store"] = ConversationStore(scratch / "sessions")
    services.__dict__["querylog"] = QueryLog(scratch / "queries.sqlite3")
    try:
        yield services
    finally:
        services.close()
        shutil.rmtree(scratch, ignore_errors=True)


def run_answers_benchmark(
    corpus_path: Path | None,
    tasks_path: Path,
    out_path: Path,
    *,
    embeddings: str = "hybrid",
    limit: int | None = None,
    index_dir: Path | None = None,
    progress: Progress | None = None,
    settings_update: dict[str, Any] | None = None,
    on_answer: Callable[[AnswersBench, AnswerTask, TurnResult], None] | None = None,
) -> AnswersReport:
    """Index the corpus (a fresh temporary index by default), run every task, write the run.

    Args:
        corpus_path: Corpus JSONL (`id`, `title`, `text`, `domain`); `None` replays
            against the deployment's own index (`deployment_services`).
        tasks_path: Tasks JSONL (only `task_id`, `conversation_id`, `domain`, `turns`).
        out_path: Run JSONL (`task_id`, `outcome`, `answer`, `cited_doc_ids`).
        embeddings: hybrid, sparse or dense.
        limit: Only the first `limit` tasks.
        index_dir: Keep the index here and reuse it (sessions are stored beside it).
        progress: Called as (phase, done, total).
        settings_update: Settings to change for the run (the LLM benchmark points the
            chat model at a local server).
        on_answer: Called with each task's whole result once it is answered (an analysis
            of the run reads its trace: `benchmarks.answers_ceilings`); its time counts in
            the report's `answer_seconds`.

    Returns:
        Counts and timings.
    """
    passages = load_corpus(corpus_path) if corpus_path is not None else []
    tasks = load_answer_tasks(tasks_path, limit)
    report = AnswersReport(tasks=len(tasks), passages=len(passages))
    lines: list[AnswerLine] = []
    with _services(corpus_path, embeddings, index_dir) as services:
        if settings_update:
            services.settings = services.settings.model_copy(update=settings_update)
        started = time.perf_counter()
        report.indexed = index_corpus(services.kb, passages, progress) if passages else 0
        report.index_seconds = time.perf_counter() - started
        bench = AnswersBench(ChatService(services))
        bench.clear_sessions(tasks)
        started = time.perf_counter()
        for done, task in enumerate(tasks, 1):
            try:
                result = bench.answer(task)
            except LLMError as error:
                # A model that times out or fails on one task answers nothing for that
                # task, as the service's 503 `llm_unavailable` does; the run goes on,
                # and the line says why (a non-answer to the scorer).
                line = AnswerLine(
                    task.task_id, "error", "", [], f"llm_error:{type(error).__name__}"
                )
            else:
                if on_answer is not None:
                    on_answer(bench, task, result)
                line = answer_line(task, result)
            lines.append(line)
            report.outcomes[line.outcome] = report.outcomes.get(line.outcome, 0) + 1
            reason = (line.stop_reason or "").split(":")[0]
            report.stop_reasons[reason] = report.stop_reasons.get(reason, 0) + 1
            if progress:
                progress("tasks", done, len(tasks))
        report.answer_seconds = time.perf_counter() - started
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text("".join(line.to_json() + "\n" for line in lines), encoding="utf-8")
    return report


@contextmanager
def _services(
    corpus_path: Path | None, embeddings: str, index_dir: Path | None
) -> Iterator[Services]:
    if corpus_path is None:
        with deployment_services() as services:
            yield services
        return
    with open_index(embeddings, index_dir) as (services, _):
        yield services


def score_answers(
    run_path: Path, tasks_path: Path, *, script: Path | None = None, extra: Sequence[str] = ()
) -> str:
    """Score a run with the benchmark's own score.py (beside the tasks file) and return its output.

    Raises:
        FileNotFoundError: when score.py cannot be found.
        RuntimeError: when score.py fails.
    """
    script = script or tasks_path.with_name("score.py")
    if not script.exists():
        raise FileNotFoundError(f"no score.py at {script}")
    command = [sys.executable, str(script), str(run_path), str(tasks_path), *extra]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"score.py failed: {done.stderr.strip()}")
    return done.stdout
