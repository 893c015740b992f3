"""Per-run settings: what a caller (or LangGraph Studio) may change for one run.

Fields left at None fall back to the process settings (`threadline.settings`).
The long-lived `Services` are not a per-run setting: a graph compiled for one
set of services carries them in its bound config (`bind_services`), and the
nodes reach them through `run_services()`; the module-level graph that Studio
loads binds none and uses the process-wide services, opened on first use.
They are not a `Context` field because a run given its own `Context` (the API's
knobs, a benchmark's history mode) must still use its graph's services, and a
`Services` has no place in the context schema Studio shows. The key starts with
"__" so LangChain never copies it into trace metadata.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_config

from threadline.graph import prompts
from threadline.graph.fusion import DEFAULT_FUSION, FusionConfig
from threadline.services import Services, get_services

SERVICES_KEY = "__threadline_services"
"""Key of the bound `Services` in a run's ``configurable`` (private: never traced)."""


@dataclass(kw_only=True)
class Context:
    """Knobs of one graph run."""

    top_k: int | None = field(
        default=None, metadata={"description": "Chunks retrieved before packing."}
    )
    min_score: float | None = field(
        default=None, metadata={"description": "Chunks scoring below are not packed."}
    )
    max_chunks: int | None = field(
        default=None, metadata={"description": "Most chunks packed into the context."}
    )
    max_chars: int | None = field(
        default=None, metadata={"description": "Most characters packed into the context."}
    )
    context_window_before: int | None = field(
        default=None,
        metadata={"description": "Neighbouring chunks packed before each hit (0 disables)."},
    )
    context_window_after: int | None = field(
        default=None,
        metadata={"description": "Neighbouring chunks packed after each hit (0 disables)."},
    )
    history_mode: str | None = field(
        default=None,
        metadata={"description": "minimal_trail | full | truncated | titles | none."},
    )
    fusion: FusionConfig = field(
        default=DEFAULT_FUSION,
        metadata={"description": "Weights of the query variants a search fuses."},
    )
    answer_system_prompt: str = field(
        default=prompts.ANSWER_SYSTEM_PROMPT,
        metadata={"description": "System prompt of the answer generator."},
    )
    condense_system_prompt: str = field(
        default=prompts.CONDENSE_SYSTEM_PROMPT,
        metadata={"description": "System prompt of the LLM reformulation."},
    )


def bind_services(services: Services) -> RunnableConfig:
    """Return the config that makes a compiled graph run over `services`.

    Args:
        services: The store, knowledge base, model and queries log to use.

    Returns:
        A config for `CompiledStateGraph.with_config`.
    """
    return {"configurable": {SERVICES_KEY: services}}


def run_services() -> Services:
    """Return the services of the run in progress (call from inside a node).

    Returns:
        The services bound to the graph, else the process-wide ones (Studio).
    """
    configurable = get_config().get("configurable") or {}
    bound = configurable.get(SERVICES_KEY)
    return bound if isinstance(bound, Services) else get_services()
