"""Multi-turn retrieval benchmark (MTRAG protocol): replay conversations, rank passages.

Protocol (bench/README.md): index the corpus with each passage as one document
whose source is its domain; for each task, replay the conversation turn by turn
through the service's own router, reformulator and retriever (the graph's node
functions, not a copy of them), with the dataset's assistant turns standing in
for the answers; then retrieve for the last user turn, restricted to the task's
domain, and write the ranked passage ids.

What the replay keeps between turns is exactly what the live service keeps:
the history entries `load_conversation` builds (question, search query, titles,
answer, route) and the thread state the store derives (last search query, last
doc ids and titles). With no answer generated, the packed context stands in for
the answer's citations.

Tasks are read by field name and only `task_id`, `domain` and `turns` are
used: a task's human rewrite is never read.

One module of about 600 lines on purpose: the protocol (reading tasks, the
replay graph, the run file, scoring) is read top to bottom as one procedure.
"""

from __future__ import annotations

import dataclasses
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
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, cast

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from threadline.graph.context import Context, bind_services
from threadline.graph.fusion import DEFAULT_FUSION, FusionConfig
from threadline.graph.nodes import reformulate, retrieve, route_turn
from threadline.graph.nodes.load import history_entries
from threadline.graph.nodes.persist import source_title
from threadline.graph.state import State, TurnFollowup
from threadline.knowledge.documents import SourceDocument
from threadline.knowledge.index import KnowledgeBase
from threadline.services import Services
from threadline.settings import Settings
from threadline.store import Message, Session, ThreadState, TurnMetadata

TENANT = "default"
CALLER_APP = "bench"
# The routes that retrieve; any other route (greeting, tool, clarify) does not search.
RETRIEVAL_ROUTES = ("standalone", "followup_context", "followup_reference")
# Chunks fetched per wanted passage: long passages are cut into several chunks.
CHUNKS_PER_PASSAGE = 3
_PASSAGE_KEY = "passage_id"
_INDEX_MARKER = "bench-index.json"
# Stored messages need a time; the thread state's `updated_at` is all it changes.
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)

Progress = Callable[[str, int, int], None]
"""Called as (phase, done, total); phases are "index" and "tasks"."""


@dataclass(frozen=True)
class Passage:
    """One corpus passage: indexed as one document whose source is its domain."""

    id: str
    title: str
    text: str
    domain: str


@dataclass(frozen=True)
class Turn:
    """One conversation turn: `role` is "user" or "assistant"."""

    role: str
    text: str


@dataclass(frozen=True)
class Task:
    """A conversation whose last user turn is the question to retrieve for."""

    task_id: str
    domain: str
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class RunLine:
    """One line of the run file."""

    task_id: str
    query: str
    doc_ids: list[str]
    route: str
    variants: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> str:
        """Return the run-file line (task_id, query, doc_ids), the fields score.py reads."""
        return json.dumps(
            {"task_id": self.task_id, "query": self.query, "doc_ids": self.doc_ids},
            ensure_ascii=False,
        )


@dataclass
class BenchReport:
    """What a benchmark run did and how long it took."""

    tasks: int = 0
    passages: int = 0
    indexed: int = 0
    index_seconds: float = 0.0
    replay_seconds: float = 0.0
    turns_replayed: int = 0
    searches: int = 0
    routes: dict[str, int] = field(default_factory=dict)
    forced_retrieval: int = 0
    min_doc_ids: int = 0

    def summary(self) -> str:
        """One line for humans."""
        routes = ", ".join(f"{k}={v}" for k, v in sorted(self.routes.items()))
        return (
            f"{self.tasks} tasks, {self.passages} passages ({self.indexed} indexed in "
            f"{self.index_seconds:.1f}s); replayed {self.turns_replayed} turns with "
            f"{self.searches} searches in {self.replay_seconds:.1f}s; last-turn routes: "
            f"{routes}; forced to retrieve: {self.forced_retrieval}; "
            f"fewest ids in a line: {self.min_doc_ids}"
        )


def load_corpus(path: Path) -> list[Passage]:
    """Read a corpus JSONL file of `{"id", "title", "text", "domain"}` records."""
    passages = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                rec = json.loads(line)
                passages.append(
                    Passage(
                        id=str(rec["id"]),
                        title=str(rec.get("title") or ""),
                        text=str(rec.get("text") or ""),
                        domain=str(rec["domain"]),
                    )
                )
    return passages


def load_tasks(path: Path, limit: int | None = None) -> list[Task]:
    """Read a task JSONL file, keeping only task_id, domain and turns.

    Any other field of a record (labels, the human rewrite...) is dropped here,
    so nothing downstream can read it.
    """
    tasks = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            rec = json.loads(line)
            turns = tuple(Turn(str(t["role"]), str(t["text"])) for t in rec["turns"])
            if not turns or turns[-1].role != "user":
                raise ValueError(f"task {rec['task_id']}: the last turn must be a user turn")
            tasks.append(Task(str(rec["task_id"]), str(rec["domain"]), turns))
            if limit is not None and len(tasks) >= limit:
                break
    return tasks


def passage_document(passage: Passage) -> SourceDocument:
    """Return the document a passage becomes; its original id also rides in the metadata."""
    return SourceDocument(
        doc_id=passage.id,
        title=passage.title,
        text=passage.text,
        source=passage.domain,
        path="",
        metadata={_PASSAGE_KEY: passage.id},
    )


def bench_settings(data_dir: Path, embeddings: str, dense_model: str = "minilm") -> Settings:
    """Service settings for a benchmark index, isolated from the environment.

    The budgets are the service defaults except `max_top_k`, raised so the last
    turn can ask for enough chunks to rank the wanted number of passages.
    """
    return Settings(
        _env_file=None,
        data_dir=data_dir,
        embeddings=embeddings,
        dense_model=dense_model,
        llm="offline",
        qdrant_url=None,
        openai_api_key=None,
        openai_base_url=None,
        source_policy={},
        max_top_k=100,
    )


def index_corpus(
    kb: KnowledgeBase, passages: Sequence[Passage], progress: Progress | None = None
) -> int:
    """Ingest the passages that the index does not already hold unchanged.

    Returns:
        How many passages were (re)indexed.

    Raises:
        ValueError: when a passage id does not come back from the index unchanged.
    """
    known = {info.doc_id: info.content_hash for info in kb.list_documents(tenant=TENANT)}
    written = 0
    for done, passage in enumerate(passages, 1):
        doc = passage_document(passage)
        if known.get(doc.doc_id) != doc.content_hash:
            kb.ingest_document(doc, tenant=TENANT)
            written += 1
        if progress:
            progress("index", done, len(passages))
    stored = {info.doc_id for info in kb.list_documents(tenant=TENANT)}
    missing = {p.id for p in passages if p.text.strip()} - stored
    if missing:
        raise ValueError(f"passage ids did not survive indexing: {sorted(missing)[:5]}")
    return written


def _as_messages(stored: Sequence[dict[str, Any]]) -> list[Message]:
    """Replayed turns as the store would hold them: a user and an assistant message each."""
    messages: list[Message] = []
    for i, turn in enumerate(stored):
        metadata = TurnMetadata(
            search_query=turn["search_query"],
            doc_ids=list(turn["doc_ids"]),
            titles=list(turn["titles"]),
            route=turn["route"],
        )
        messages.append(
            Message(id=f"q{i}", role="user", content=turn["question"], created_at=_EPOCH)
        )
        messages.append(
            Message(
                id=f"a{i}",
                role="assistant",
                content=turn["answer"],
                created_at=_EPOCH,
                metadata=metadata,
            )
        )
    return messages


def _conversation(task: Task) -> list[tuple[str, str]]:
    """(user question, assistant answer) pairs; the last one has no answer yet."""
    pairs: list[tuple[str, str]] = []
    for turn in task.turns:
        if turn.role == "user":
            pairs.append((turn.text, ""))
        elif pairs and not pairs[-1][1]:
            pairs[-1] = (pairs[-1][0], turn.text)
    return pairs


def _forget_route(state: State) -> dict[str, Any]:
    """Search a last turn the service would not search (greeting, tool, clarify).

    The benchmark needs a ranking for every last turn, so such a turn is searched as
    a question: a follow-up in context when the conversation has a past, else alone.
    """
    return {
        "route": "followup_context" if state.history else "standalone",
        "followup": TurnFollowup(),
    }


def _searches(state: State) -> Literal["reformulate", "__end__"]:
    return "reformulate" if state.route in RETRIEVAL_ROUTES else "__end__"


def _searches_always(state: State) -> Literal["reformulate", "_forget_route"]:
    return "reformulate" if state.route in RETRIEVAL_ROUTES else "_forget_route"


def replay_graph(
    services: Services, *, last: bool
) -> CompiledStateGraph[State, Context, State, State]:
    """Compile the graph's own route → reformulate → retrieve nodes as a smaller graph.

    Args:
        services: The services the nodes use (the benchmark index).
        last: For a task's last turn: a turn the router would not search is searched
            anyway (`_forget_route`); an earlier turn that does not search stops.

    Returns:
        The compiled graph over `services`.
    """
    builder = StateGraph(State, context_schema=Context)
    builder.add_node(route_turn)
    builder.add_node(reformulate)
    builder.add_node(retrieve)
    builder.add_edge(START, "route_turn")
    if last:
        builder.add_node(_forget_route)
        builder.add_conditional_edges("route_turn", _searches_always)
        builder.add_edge("_forget_route", "reformulate")
    else:
        builder.add_conditional_edges("route_turn", _searches)
    builder.add_edge("reformulate", "retrieve")
    builder.add_edge("retrieve", END)
    return builder.compile(name="retrieval-replay").with_config(bind_services(services))


class RetrievalBench:
    """Replays tasks through the graph's node functions over one knowledge base.

    Args:
        services: Services over the benchmark index (offline LLM).
        k: Passages to rank per task.
        fusion: Query-variant weights passed to the retriever.
    """

    def __init__(
        self, services: Services, *, k: int = 20, fusion: FusionConfig = DEFAULT_FUSION
    ) -> None:
        """Keep the services; nothing runs until `run_task`."""
        self.services = services
        self.k = k
        self.fusion = fusion
        self.chunk_k = min(max(k * CHUNKS_PER_PASSAGE, k), services.settings.max_top_k)
        self.searches = 0
        self.turns_replayed = 0
        self._graphs = {last: replay_graph(services, last=last) for last in (False, True)}
        # Stored turns per conversation prefix replayed already: the tasks of one
        # conversation share their earlier turns, and a replay is a pure function of them.
        self._prefixes: dict[str, list[dict[str, Any]]] = {}

    def _state(self, task: Task, question: str, stored: Sequence[dict[str, Any]]) -> State:
        """Return the state `load_conversation` would give this question after `stored`."""
        limit = self.services.settings.history_turns
        messages = _as_messages(stored)
        history = history_entries(messages)
        session = Session(
            id="bench",
            tenant=TENANT,
            caller_app=CALLER_APP,
            created_at=_EPOCH,
            updated_at=_EPOCH,
            messages=messages,
        )
        return State(
            query=question,
            thread_id=f"bench-{hashlib.sha1(task.task_id.encode()).hexdigest()[:12]}",
            tenant=TENANT,
            caller_app=CALLER_APP,
            sources=[task.domain],
            history=history[-limit:] if limit else [],
            thread_state=session.thread_state() if stored else ThreadState(),
            followup=TurnFollowup(),
            trace=[],
        )

    def _turn(
        self, state: State, *, last: bool, context: Context
    ) -> tuple[State, str, list[dict[str, Any]], list[dict[str, Any]]]:
        """Route, reformulate and retrieve one user turn through the graph's nodes.

        Returns:
            The state after retrieval, the router's own route, the fused candidates and
            the retriever's attempts.
        """
        routed = ""
        candidates: list[dict[str, Any]] = []
        values: dict[str, Any] = {}
        context = dataclasses.replace(context, fusion=self.fusion)
        graph = self._graphs[last]
        events = graph.stream(state, context=context, stream_mode=["updates", "custom", "values"])
        for mode, chunk in cast(Iterator[tuple[str, Any]], events):
            if mode == "updates" and "route_turn" in chunk:
                routed = chunk["route_turn"]["route"]
            elif mode == "custom":
                candidates = chunk["candidates"]
            elif mode == "values":
                values = chunk
        state = State(**values)
        if state.route not in RETRIEVAL_ROUTES:
            return state, routed, [], []
        attempts: list[dict[str, Any]] = next(
            (t.get("attempts", []) for t in state.trace if t.get("node") == "retrieve"), []
        )
        self.searches += sum(1 for a in attempts if "query" in a)
        self.turns_replayed += 1
        return state, routed, candidates, attempts

    def _replay_prefix(self, task: Task, pairs: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
        """Return the stored turns after replaying `pairs` (each with its dataset answer).

        Each turn is a dict of question, answer, route, search_query, doc_ids and titles
        (the answers benchmark seeds its store from them).
        """
        stored: list[dict[str, Any]] = []
        for i in range(len(pairs)):
            key = json.dumps([task.domain, pairs[: i + 1]], ensure_ascii=False)
            cached = self._prefixes.get(key)
            if cached is not None:
                stored = cached
                continue
            question, answer = pairs[i]
            state = self._state(task, question, stored)
            state, _, _, _ = self._turn(state, last=False, context=Context())
            chunks = state.chunks if state.route in RETRIEVAL_ROUTES else []
            stored = stored + [
                {
                    "question": question,
                    "answer": answer,
                    "route": state.route,
                    "search_query": state.search_query or None,
                    # No answer is generated: the packed context stands in for its citations.
                    "doc_ids": [c["doc_id"] for c in chunks],
                    "titles": [source_title(c["title"], c["section"]) for c in chunks],
                }
            ]
            self._prefixes[key] = stored
        return stored

    def run_task(self, task: Task) -> RunLine:
        """Replay a task's earlier turns, then rank passages for its last user turn."""
        pairs = _conversation(task)
        stored = self._replay_prefix(task, pairs[:-1])
        state = self._state(task, pairs[-1][0], stored)
        state, routed, candidates, attempts = self._turn(
            state, last=True, context=Context(top_k=self.chunk_k)
        )
        doc_ids: list[str] = []
        for item in candidates:
            passage_id = item["metadata"].get(_PASSAGE_KEY, item["doc_id"])
            if passage_id not in doc_ids:
                doc_ids.append(passage_id)
        return RunLine(
            task_id=task.task_id,
            query=state.search_query or state.reformulated_query or state.query,
            doc_ids=doc_ids[: self.k],
            route=routed,
            variants=[a for a in attempts if "variant" in a],
        )


@contextmanager
def open_index(
    embeddings: str,
    index_dir: Path | None = None,
    *,
    dense_model: str = "minilm",
    vector_cache: Path | None = None,
) -> Iterator[tuple[Services, Path]]:
    """Services over a benchmark data directory: a fresh temporary one by default.

    With `index_dir`, the directory is kept and reused by later runs with the same
    embeddings (unchanged passages are not re-embedded). With `vector_cache`, dense
    vectors are read from and written to that SQLite file (see
    `threadline.bench.embedding_cache`), so rebuilding an index costs no model time.

    Raises:
        ValueError: when `index_dir` holds an index built with other embeddings.
    """
    temp = index_dir is None
    data_dir = Path(tempfile.mkdtemp(prefix="threadline-bench-")) if temp else index_dir
    data_dir.mkdir(parents=True, exist_ok=True)
    marker = data_dir / _INDEX_MARKER
    wanted = embeddings if embeddings == "sparse" else f"{embeddings}:{dense_model}"
    if marker.exists():
        built = json.loads(marker.read_text(encoding="utf-8")).get("embeddings")
        # Markers written before the dense model was recorded mean MiniLM.
        built = built if built == "sparse" or ":" in str(built) else f"{built}:minilm"
        if built != wanted:
            raise ValueError(f"{data_dir} holds a {built} index, not {wanted}")
    marker.write_text(json.dumps({"embeddings": wanted}) + "\n", encoding="utf-8")
    settings = bench_settings(data_dir, embeddings, dense_model)
    setup = None
    if vector_cache is not None and embeddings != "sparse":
        from benchmarks.embedding_cache import CachedEmbeddings
        from threadline.knowledge.embeddings import create_embedding_setup

        configured = create_embedding_setup(settings)
        assert configured.dense is not None
        setup = dataclasses.replace(
            configured,
            dense=CachedEmbeddings(
                configured.dense, model=configured.dense_model, path=vector_cache
            ),
        )
    services = Services(settings, embeddings=setup)
    try:
        yield services, data_dir
    finally:
        services.close()
        if setup is not None:
            setup.dense.close()  # type: ignore[union-attr]
        if temp:
            shutil.rmtree(data_dir, ignore_errors=True)


def run_benchmark(
    corpus_path: Path,
    tasks_path: Path,
    out_path: Path,
    *,
    embeddings: str = "hybrid",
    dense_model: str = "minilm",
    k: int = 20,
    limit: int | None = None,
    index_dir: Path | None = None,
    vector_cache: Path | None = None,
    fusion: FusionConfig = DEFAULT_FUSION,
    progress: Progress | None = None,
    trace_path: Path | None = None,
) -> BenchReport:
    """Index the corpus, replay every task and write the run file.

    Args:
        corpus_path: Corpus JSONL (`id`, `title`, `text`, `domain`).
        tasks_path: Tasks JSONL (`task_id`, `domain`, `turns`).
        out_path: Where the run JSONL goes (`task_id`, `query`, `doc_ids`).
        embeddings: hybrid, sparse or dense.
        dense_model: The bundled dense model (minilm, e5-small, minilm-static).
        k: Passage ids per task.
        limit: Only the first `limit` tasks.
        index_dir: Keep the index here and reuse it (default: a temporary directory).
        vector_cache: A SQLite file of dense vectors to reuse across index builds.
        fusion: Query-variant weights (for ablations).
        progress: Progress callback.
        trace_path: Also write, per task, the route and the variants searched.

    Returns:
        Counts and timings of the run.
    """
    passages = load_corpus(corpus_path)
    tasks = load_tasks(tasks_path, limit)
    report = BenchReport(tasks=len(tasks), passages=len(passages))
    with open_index(embeddings, index_dir, dense_model=dense_model, vector_cache=vector_cache) as (
        services,
        _,
    ):
        started = time.perf_counter()
        report.indexed = index_corpus(services.kb, passages, progress)
        report.index_seconds = time.perf_counter() - started
        bench = RetrievalBench(services, k=k, fusion=fusion)
        started = time.perf_counter()
        lines = []
        for done, task in enumerate(tasks, 1):
            line = bench.run_task(task)
            lines.append(line)
            report.routes[line.route] = report.routes.get(line.route, 0) + 1
            report.forced_retrieval += line.route not in RETRIEVAL_ROUTES
            if progress:
                progress("tasks", done, len(tasks))
        report.replay_seconds = time.perf_counter() - started
        report.turns_replayed = bench.turns_replayed
        report.searches = bench.searches
    report.min_doc_ids = min((len(line.doc_ids) for line in lines), default=0)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text("".join(line.to_json() + "\n" for line in lines), encoding="utf-8")
    if trace_path is not None:
        trace_path.parent.mkdir(parents=True, exist_ok=True)
        trace_path.write_text(
            "".join(
                json.dumps(
                    {"task_id": line.task_id, "route": line.route, "variants": line.variants},
                    ensure_ascii=False,
                )
                + "\n"
                for line in lines
            ),
            encoding="utf-8",
        )
    return report


def parse_fusion(overrides: Sequence[str]) -> FusionConfig:
    """Return a fusion config from `name=value` overrides of the defaults ("answer=0", ...).

    Raises:
        ValueError: on an unknown name or a value that is not a number.
    """
    names = {f.name: f for f in dataclasses.fields(FusionConfig)}
    values: dict[str, Any] = {}
    for item in overrides:
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep or name not in names:
            raise ValueError(f"expected NAME=VALUE with NAME in {sorted(names)}, got {item!r}")
        number = float(raw)
        values[name] = int(number) if names[name].type in ("int", int) else number
    return dataclasses.replace(DEFAULT_FUSION, **values)


def score_run(
    run_path: Path,
    qrels_path: Path,
    *,
    tasks_path: Path | None = None,
    script: Path | None = None,
) -> str:
    """Score a run with the benchmark's own score.py and return what it prints.

    Args:
        run_path: The run JSONL.
        qrels_path: BEIR qrels TSV.
        tasks_path: Task JSONL for the per-label and per-turn breakdowns.
        script: score.py; by default the one next to the qrels file.

    Raises:
        FileNotFoundError: when score.py cannot be found.
        RuntimeError: when score.py fails.
    """
    script = script or qrels_path.with_name("score.py")
    if not script.exists():
        raise FileNotFoundError(f"no score.py at {script}")
    command = [sys.executable, str(script), str(run_path), str(qrels_path)]
    if tasks_path is not None:
        command += ["--tasks", str(tasks_path)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"score.py failed: {done.stderr.strip()}")
    return done.stdout
