"""What the offline answer stage can reach on the answers benchmark: ceilings, measured.

An analysis of one `benchmarks answers` run, never part of the pipeline: it replays
the same tasks through the same code (`benchmarks.answers.run_answers_benchmark`,
with a hook that keeps each turn's whole result), then reads the gold passage ids and
the reference answers, which the pipeline never sees. Per ANSWERABLE/PARTIAL task it
records the passages retrieved (ranked as the retrieval benchmark ranks them: the
last turn replayed through router, reformulator and retriever, `RetrievalBench`), the
passages packed into the generator's context (the turn's stored trace), where the
gold passages are among them, and the outcome. From that:

* **cite_hit ceilings.** An answer can only cite a passage it was given: the share of
  A+P tasks whose packed context holds a gold passage bounds cite_hit for any answer
  stage over the current retrieval and packing; the share with a gold passage in the
  top 10 retrieved bounds it for a packing that kept all ten.
* **ROUGE-L ceilings of an extractive answer.** For each A+P task, the best ROUGE-L
  (the benchmark's own scorer, imported from its `score.py`) of a contiguous window of
  whole sentences (the offline model's own sentence split) of one packed passage, up
  to a number of words, with the window chosen by an oracle that reads the references;
  the same over the gold passages (oracle retrieval too). Averaged over all A+P tasks,
  and with the run's own decisions (a task not answered scores 0, as in the benchmark).
* **Length.** Words of our answers, of the references and of the oracle windows; and
  ROUGE-L of our answers cut to their first N words (what a shorter answer would score).

`python -m benchmarks answers-ceilings --corpus ... --tasks ... --index-dir ...` writes
the run (as `benchmarks answers` does), `answers-ceilings.json` and `.md`.
"""

from __future__ import annotations

import importlib.util
import json
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from benchmarks.answers import AnswersBench, AnswerTask, answer_line, run_answers_benchmark
from benchmarks.retrieval import TENANT, Task, load_corpus
from threadline.chat import TurnResult
from threadline.graph.grounding import CITATION
from threadline.models.extractive import split_sentences

SHOULD_ANSWER = frozenset({"ANSWERABLE", "PARTIAL"})
ANSWERED_OUTCOMES = frozenset({"grounded_answer", "tool_answer"})
WINDOW_WORDS = (40, 60, 100)
"""Longest windows measured, in words; 100 is the headline ceiling (~the brief's cap)."""
HEADLINE_WORDS = 100
PREFIX_WORDS = (20, 30, 40, 60, 80, 100)
"""Our answers cut to their first N words (the sweep that says whether length costs)."""

RougeL = Callable[[str, str], float]


def load_scorer(path: Path) -> ModuleType:
    """Import the benchmark's `score.py` (its ROUGE-L and tokenisation) from `path`.

    Raises:
        FileNotFoundError: when there is no such file.
    """
    if not path.is_file():
        raise FileNotFoundError(f"no score.py at {path}")
    spec = importlib.util.spec_from_file_location("answers_bench_score", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- pure scoring ------------------------------------------------------------------


def sentence_windows(text: str, max_words: int) -> list[tuple[str, int, int]]:
    """Every contiguous run of whole sentences of `text` up to `max_words` words.

    A sentence longer than `max_words` is still a window on its own (a quote of one
    whole sentence); a run of several stops before it passes `max_words`.

    Returns:
        (window text, its words, its sentences), each window once, in reading order.
    """
    sentences = [s for s in split_sentences(text) if s.strip()]
    lengths = [len(s.split()) for s in sentences]
    windows: list[tuple[str, int, int]] = []
    for start in range(len(sentences)):
        words = 0
        for end in range(start, len(sentences)):
            words += lengths[end]
            if end > start and words > max_words:
                break
            windows.append((" ".join(sentences[start : end + 1]), words, end - start + 1))
    return windows


def best_score(answer: str, references: Sequence[str], rouge_l: RougeL) -> float:
    """Return the benchmark's score of an answer: its ROUGE-L against the best reference."""
    return max((rouge_l(answer, r) for r in references), default=0.0)


@dataclass(frozen=True)
class WindowCeiling:
    """The best window of some passages for one task, per word cap."""

    score: dict[int, float]
    """Best ROUGE-L per cap (words)."""
    words: dict[int, int]
    """Words of the best window per cap (0 when there was no window)."""


def window_ceiling(
    texts: Iterable[str],
    references: Sequence[str],
    rouge_l: RougeL,
    caps: Sequence[int] = WINDOW_WORDS,
) -> WindowCeiling:
    """Return the best ROUGE-L of a window of whole sentences of one of `texts`, per cap.

    The oracle reads the references to choose the window: this bounds what quoting
    those passages can score, whatever chooses the sentences.
    """
    largest = max(caps)
    score = dict.fromkeys(caps, 0.0)
    words = dict.fromkeys(caps, 0)
    for text in texts:
        for window, count, sentences in sentence_windows(text, largest):
            value = best_score(window, references, rouge_l)
            for cap in caps:
                # A lone sentence over the cap is a window under every cap (see above).
                if (count <= cap or sentences == 1) and value > score[cap]:
                    score[cap], words[cap] = value, count
    return WindowCeiling(score, words)


def first_words(text: str, n: int) -> str:
    """Return the first `n` whitespace-separated words of `text`."""
    return " ".join(text.split()[:n])


def unmarked(answer: str) -> str:
    """Return the answer without its citation markers (`[1]`, `[2, 3]`)."""
    return " ".join(CITATION.sub(" ", answer).split())


def holds_gold(ids: Iterable[str], gold: Iterable[str]) -> bool:
    """Whether any of `ids` is a gold passage id."""
    return not set(gold).isdisjoint(ids)


def share(flags: Iterable[bool]) -> float:
    """Return the share of true flags (0.0 when there are none)."""
    values = list(flags)
    return sum(values) / len(values) if values else 0.0


def mean(values: Iterable[float]) -> float:
    """Return the mean (0.0 when there are none)."""
    items = list(values)
    return sum(items) / len(items) if items else 0.0


def length_summary(values: Sequence[int]) -> dict[str, float]:
    """Mean, median, 10th and 90th percentile of word counts."""
    if not values:
        return {"n": 0, "mean": 0.0, "median": 0.0, "p10": 0.0, "p90": 0.0}
    ordered = sorted(values)
    deciles = statistics.quantiles(ordered, n=10) if len(ordered) > 1 else [ordered[0]] * 9
    return {
        "n": len(ordered),
        "mean": round(statistics.fmean(ordered), 1),
        "median": float(statistics.median(ordered)),
        "p10": round(deciles[0], 1),
        "p90": round(deciles[-1], 1),
    }


# --- per task ----------------------------------------------------------------------


@dataclass
class TaskRecord:
    """What one A+P task's last turn was given and did, against its gold."""

    task_id: str
    label: str
    domain: str
    outcome: str
    answered: bool
    retrieved: list[str]
    """Passage ids, best first (the retrieval benchmark's ranking of the last turn)."""
    packed: list[str]
    """Passage ids packed into the generator's context, in the context's order."""
    cited: list[str]
    gold: list[str]
    about: list[str]
    """Packed passages the evidence check found about the question's subject."""
    supporting: list[str]
    """Packed passages holding most of the question (the quoting model's, past the lead)."""
    gold_packed: bool
    gold_top5: bool
    gold_top10: bool
    cite_hit: bool
    rouge_l: float
    """Our answer's score (0 when not answered), the scorer's own."""
    answer_words: int
    reference_words: int
    """Words of the reference our answer scores best against (the first one if none)."""
    packed_ceiling: dict[int, float] = field(default_factory=dict)
    packed_window_words: dict[int, int] = field(default_factory=dict)
    gold_ceiling: dict[int, float] = field(default_factory=dict)
    gold_window_words: dict[int, int] = field(default_factory=dict)
    unmarked_rouge_l: float = 0.0
    """Our answer without its `[n]` citation markers (each one is a token to the scorer)."""
    prefix_rouge_l: dict[int, float] = field(default_factory=dict)
    """Our answer cut to its first N words (0 when not answered)."""
    lead_rouge_l: dict[int, float] = field(default_factory=dict)
    """The first N words of the first packed passage, had it been the answer (0 when
    the run did not answer): the README's "first 80 words" point without the oracle."""


def task_record(
    task: Mapping[str, Any],
    line: Mapping[str, Any],
    retrieved: Sequence[str],
    packed: Sequence[tuple[str, str]],
    passages: Mapping[str, str],
    scorer: ModuleType,
    evidence: Mapping[str, Sequence[str]] | None = None,
) -> TaskRecord:
    """Score one A+P task's turn against its gold passages and references.

    Args:
        task: The task as the dataset writes it (labels, references, gold ids).
        line: Its run line (`outcome`, `answer`, `cited_doc_ids`).
        retrieved: Passage ids, best first.
        packed: (passage id, packed text) in the context's order.
        passages: Corpus passage text by id (for the gold passages).
        scorer: The benchmark's `score.py`.
        evidence: The evidence check's `about` and `supporting` passage ids.
    """
    evidence = evidence or {}
    rouge_l: RougeL = scorer.rouge_l
    references = [str(r) for r in task["references"]]
    gold = [str(g) for g in task["gold_passage_ids"]]
    cited = [str(c) for c in line.get("cited_doc_ids") or []]
    answer = str(line.get("answer") or "")
    answered = line.get("outcome") in ANSWERED_OUTCOMES and bool(cited)
    packed_ids = list(dict.fromkeys(pid for pid, _ in packed))
    ours = best_score(answer, references, rouge_l) if answered else 0.0
    closest = max(references, key=lambda r: rouge_l(answer, r)) if references else ""
    packed_best = window_ceiling([text for _, text in packed], references, rouge_l)
    gold_best = window_ceiling([passages[g] for g in gold if g in passages], references, rouge_l)
    lead = packed[0][1] if packed else ""
    return TaskRecord(
        task_id=str(task["task_id"]),
        label=str(task["labels"]["answerability"]),
        domain=str(task.get("domain") or ""),
        outcome=str(line.get("outcome") or ""),
        answered=answered,
        retrieved=list(retrieved),
        packed=packed_ids,
        cited=cited,
        gold=gold,
        about=list(evidence.get("about", [])),
        supporting=list(evidence.get("supporting", [])),
        gold_packed=holds_gold(packed_ids, gold),
        gold_top5=holds_gold(retrieved[:5], gold),
        gold_top10=holds_gold(retrieved[:10], gold),
        cite_hit=answered and holds_gold(cited, gold),
        rouge_l=ours,
        answer_words=len(scorer.rouge_tokens(answer)) if answered else 0,
        reference_words=len(scorer.rouge_tokens(closest)),
        packed_ceiling=packed_best.score,
        packed_window_words=packed_best.words,
        gold_ceiling=gold_best.score,
        gold_window_words=gold_best.words,
        unmarked_rouge_l=best_score(unmarked(answer), references, rouge_l) if answered else 0.0,
        prefix_rouge_l={
            n: best_score(first_words(answer, n), references, rouge_l) if answered else 0.0
            for n in PREFIX_WORDS
        },
        lead_rouge_l={
            n: best_score(first_words(lead, n), references, rouge_l) if answered and lead else 0.0
            for n in PREFIX_WORDS
        },
    )


def summarise(records: Sequence[TaskRecord]) -> dict[str, Any]:
    """Return the ceilings and length statistics over the A+P tasks' records."""
    answered = [r for r in records if r.answered]
    caps = sorted({cap for r in records for cap in r.packed_ceiling})
    decided = {
        "packed": {
            cap: mean(r.packed_ceiling[cap] if r.answered else 0.0 for r in records) for cap in caps
        },
        "gold": {
            cap: mean(r.gold_ceiling[cap] if r.answered else 0.0 for r in records) for cap in caps
        },
    }
    return {
        "tasks": len(records),
        "answered": len(answered),
        "cite_hit": {
            "run": share(r.cite_hit for r in records),
            "ceiling_packed": share(r.gold_packed for r in records),
            "ceiling_packed_answered": share(r.gold_packed and r.answered for r in records),
            "ceiling_top5": share(r.gold_top5 for r in records),
            "ceiling_top10": share(r.gold_top10 for r in records),
            "answered_gold_packed_not_cited": sum(
                r.answered and r.gold_packed and not r.cite_hit for r in records
            ),
            "not_answered_gold_packed": sum(not r.answered and r.gold_packed for r in records),
            "not_cited_gold_supporting": sum(
                r.answered and not r.cite_hit and holds_gold(r.supporting, r.gold) for r in records
            ),
            "not_cited_gold_about_only": sum(
                r.answered
                and not r.cite_hit
                and holds_gold(r.about, r.gold)
                and not holds_gold(r.supporting, r.gold)
                for r in records
            ),
        },
        "rouge_l": {
            "run": mean(r.rouge_l for r in records),
            "run_answered": mean(r.rouge_l for r in answered),
            "run_unmarked": mean(r.unmarked_rouge_l for r in records),
            "run_above_packed_window": sum(
                r.rouge_l > r.packed_ceiling[HEADLINE_WORDS] for r in records
            ),
            "packed_all": {cap: mean(r.packed_ceiling[cap] for r in records) for cap in caps},
            "packed_decided": decided["packed"],
            "gold_all": {cap: mean(r.gold_ceiling[cap] for r in records) for cap in caps},
            "gold_decided": decided["gold"],
            "packed_answered": {cap: mean(r.packed_ceiling[cap] for r in answered) for cap in caps},
            "prefix": {n: mean(r.prefix_rouge_l[n] for r in records) for n in PREFIX_WORDS},
            "lead_passage": {n: mean(r.lead_rouge_l[n] for r in records) for n in PREFIX_WORDS},
        },
        "words": {
            "answers": length_summary([r.answer_words for r in answered]),
            "references": length_summary([r.reference_words for r in records]),
            "best_packed_window": length_summary(
                [r.packed_window_words[HEADLINE_WORDS] for r in records if r.packed]
            ),
        },
    }


# --- the run -----------------------------------------------------------------------


def evidence_passages(result: TurnResult) -> dict[str, list[str]]:
    """Return the evidence check's `about` and `supporting` packed passages, as passage ids."""
    ids = {label: doc_id for label, doc_id in _packed_labels(result)}
    for entry in result.trace:
        evidence = entry.get("evidence") if entry.get("node") == "generate" else None
        if isinstance(evidence, dict):
            return {
                key: list(dict.fromkeys(ids[x] for x in evidence.get(key, []) if x in ids))
                for key in ("about", "supporting")
            }
    return {"about": [], "supporting": []}


def _packed_labels(result: TurnResult) -> list[tuple[str, str]]:
    for entry in result.kept_trace:
        if entry.get("node") == "context":
            return [(str(p["label"]), str(p["doc_id"])) for p in entry.get("packed", [])]
    return []


def packed_passages(result: TurnResult) -> list[tuple[str, str]]:
    """(passage id, chunk id) of the generator's context, from the turn's stored trace."""
    for entry in result.kept_trace:
        if entry.get("node") == "context":
            return [(str(p["doc_id"]), str(p["chunk_id"])) for p in entry.get("packed", [])]
    return []


@dataclass
class TurnCapture:
    """What the hook keeps of one answered turn."""

    retrieved: list[str]
    packed: list[tuple[str, str]]
    """(passage id, packed chunk text)."""
    line: dict[str, Any]
    evidence: dict[str, list[str]]


def capture_turn(bench: AnswersBench, task: AnswerTask, result: TurnResult) -> TurnCapture:
    """Read what the turn was given: the ranking of its last turn and its packed text."""
    ranking = bench.replay.run_task(Task(task.task_id, task.domain, task.turns))
    kb = bench.chat.services.kb
    texts: dict[str, str] = {}
    packed: list[tuple[str, str]] = []
    for doc_id, chunk_id in packed_passages(result):
        if chunk_id not in texts:
            texts.update({c.chunk_id: c.text for c in kb.document_chunks(doc_id, tenant=TENANT)})
        packed.append((doc_id, texts.get(chunk_id, "")))
    line = json.loads(answer_line(task, result).to_json())
    return TurnCapture(list(ranking.doc_ids), packed, line, evidence_passages(result))


def run_ceilings(
    corpus_path: Path,
    tasks_path: Path,
    out_path: Path,
    *,
    scorer_path: Path | None = None,
    index_dir: Path | None = None,
    embeddings: str = "hybrid",
    limit: int | None = None,
) -> tuple[dict[str, Any], list[TaskRecord]]:
    """Run the answers benchmark with the capture hook, then score the A+P tasks."""
    scorer = load_scorer(scorer_path or tasks_path.with_name("score.py"))
    captured: dict[str, TurnCapture] = {}

    def keep(bench: AnswersBench, task: AnswerTask, result: TurnResult) -> None:
        captured[task.task_id] = capture_turn(bench, task, result)

    run_answers_benchmark(
        corpus_path,
        tasks_path,
        out_path,
        embeddings=embeddings,
        limit=limit,
        index_dir=index_dir,
        on_answer=keep,
    )
    passages = {p.id: p.text for p in load_corpus(corpus_path)}
    records: list[TaskRecord] = []
    with tasks_path.open(encoding="utf-8") as f:
        for raw in f:
            if not raw.strip():
                continue
            task = json.loads(raw)
            if task["labels"]["answerability"] not in SHOULD_ANSWER:
                continue
            turn = captured.get(str(task["task_id"]))
            if turn is None:  # past --limit
                continue
            records.append(
                task_record(
                    task, turn.line, turn.retrieved, turn.packed, passages, scorer, turn.evidence
                )
            )
    return summarise(records), records


# --- report ------------------------------------------------------------------------


def _f(value: float) -> str:
    return f"{value:.3f}"


def markdown(summary: Mapping[str, Any], targets: Mapping[str, float]) -> str:
    """Return the Markdown report of a summary (`summarise`)."""
    cite, rouge, words = summary["cite_hit"], summary["rouge_l"], summary["words"]
    caps = sorted(rouge["packed_all"])
    lines = [
        "# Answers benchmark: ceilings of the offline answer stage",
        "",
        f"{summary['tasks']} ANSWERABLE+PARTIAL tasks, {summary['answered']} answered by the run.",
        "Written by `python -m benchmarks answers-ceilings` (`benchmarks/answers_ceilings.py`).",
        "",
        "## cite_hit",
        "",
        "| | share of A+P tasks |",
        "| --- | ---: |",
        f"| the run's cite_hit | {_f(cite['run'])} |",
        f"| ceiling: a gold passage packed (any answer stage, current retrieval and packing) "
        f"| {_f(cite['ceiling_packed'])} |",
        f"| ceiling with the run's decisions: a gold passage packed and the task answered "
        f"| {_f(cite['ceiling_packed_answered'])} |",
        f"| a gold passage in the top 5 retrieved | {_f(cite['ceiling_top5'])} |",
        f"| ceiling if packing kept the top 10: a gold passage in the top 10 retrieved "
        f"| {_f(cite['ceiling_top10'])} |",
        f"| target (issue 11) | {targets['cite_hit']:.2f} |",
        "",
        f"Answered with a gold passage packed but not cited: "
        f"{cite['answered_gold_packed_not_cited']} (a gold passage among those the evidence "
        f"check found supporting: {cite['not_cited_gold_supporting']}; only about the "
        f"subject: {cite['not_cited_gold_about_only']}); not answered with a gold passage "
        f"packed: {cite['not_answered_gold_packed']}.",
        "",
        "## ROUGE-L of an extractive answer (oracle choice of the window)",
        "",
        "A window is a run of whole sentences of one passage (the offline model's sentence "
        "split), chosen by an oracle that reads the references; `score.py`'s ROUGE-L. An "
        "answer quoting several passages can score more than one window: "
        f"{rouge['run_above_packed_window']} of the run's answers do.",
        "",
        "| | " + " | ".join(f"≤ {c} words" for c in caps) + " |",
        "| --- | " + " | ".join("---:" for _ in caps) + " |",
        "| packed passages, every A+P task | "
        + " | ".join(_f(rouge["packed_all"][c]) for c in caps)
        + " |",
        "| packed passages, the run's decisions (non-answers 0) | "
        + " | ".join(_f(rouge["packed_decided"][c]) for c in caps)
        + " |",
        "| gold passages (oracle retrieval too), every A+P task | "
        + " | ".join(_f(rouge["gold_all"][c]) for c in caps)
        + " |",
        "| gold passages, the run's decisions | "
        + " | ".join(_f(rouge["gold_decided"][c]) for c in caps)
        + " |",
        "| packed passages, over the answered tasks only | "
        + " | ".join(_f(rouge["packed_answered"][c]) for c in caps)
        + " |",
        "",
        f"The run: ROUGE-L {_f(rouge['run'])} (over answered tasks {_f(rouge['run_answered'])}); "
        f"target {targets['rouge_l']:.2f}. The same answers without their `[n]` citation "
        f"markers (each is a token to the scorer): {_f(rouge['run_unmarked'])}.",
        "",
        "## Length",
        "",
        "| words (score.py tokens) | n | mean | median | p10 | p90 |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, key in (
        ("our answers (answered)", "answers"),
        ("references (the one our answer scores best against)", "references"),
        ("best packed window (≤ 100 words)", "best_packed_window"),
    ):
        w = words[key]
        lines.append(
            f"| {name} | {w['n']} | {w['mean']} | {w['median']} | {w['p10']} | {w['p90']} |"
        )
    lines += [
        "",
        "ROUGE-L over the A+P tasks (the run's decisions) of our answers cut to their first N "
        "words, and of the first N words of the first packed passage instead of the answer:",
        "",
        "| N words | " + " | ".join(str(n) for n in PREFIX_WORDS) + " |",
        "| --- | " + " | ".join("---:" for _ in PREFIX_WORDS) + " |",
        "| our answer, first N words | "
        + " | ".join(_f(rouge["prefix"][n]) for n in PREFIX_WORDS)
        + " |",
        "| first packed passage, first N words | "
        + " | ".join(_f(rouge["lead_passage"][n]) for n in PREFIX_WORDS)
        + " |",
        "",
    ]
    return "\n".join(lines)


TARGETS = {"cite_hit": 0.85, "rouge_l": 0.25}
"""Issue 11's targets the ceilings bound."""


def report_json(summary: Mapping[str, Any], tasks: Sequence[Mapping[str, Any]]) -> str:
    """Return the JSON report: the summary indented, then one line per task (diffable)."""
    rows = ",\n".join(f"  {json.dumps(task, ensure_ascii=False)}" for task in tasks)
    head = json.dumps(summary, indent=1, ensure_ascii=False)
    return f'{{"summary": {head},\n "tasks": [\n{rows}\n ]}}\n'


def write_report(
    summary: Mapping[str, Any], records: Sequence[TaskRecord], json_path: Path, md_path: Path
) -> None:
    """Write the summary and per-task records (JSON) and the Markdown report."""
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(report_json(summary, [asdict(r) for r in records]), "utf-8")
    md_path.write_text(markdown(summary, TARGETS), encoding="utf-8")
