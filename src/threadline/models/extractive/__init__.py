"""An offline, extractive LangChain chat model: answers made only of context sentences.

It reads the same tag-structured prompt a real LLM gets (parsed with
`threadline.models.answer_prompt`, beside the renderer the graph uses), picks
the sentences of the sources that best match the question, cites each one, and
for deliverables appends a `SUIVI` outline built from the sources' section
headings. Every fact it writes is a sentence copied from the context, so it
cannot invent one.

It is a drop-in chat model, like LangChain's fake tool-calling models:
`bind_tools` accepts tools and answers without calling any (its model profile
says `tool_calling: False`), and `with_structured_output` fills the answer
schema (verdict, answer, missing) from its text. It only matches words, so it
cannot judge whether the sources answer (`quotes_sources`): the graph's
evidence check decides for it.

One module per step: `model` (the LangChain interface and the prose answer composed
from one parsed prompt), `question` (what the question asks), `sentences` (a passage's
sentences and clauses), `definitions` ("what is X?"), `siblings` (a sibling of what is
asked), `coverage` (how much of the question a sentence says), `scoring` (the terms
weighed, every sentence scored), `answering_sentences` (choosing sentences),
`quoted_passages` (choosing passages and the lead's quote) and `answer_styles` (list
and deliverable).
"""

from threadline.models.extractive.definitions import (
    asks_for_members,
    defined_terms,
    defines,
    defines_under,
    defines_whole,
    enumerates,
    leads_with_asked,
    says_what_it_is,
)
from threadline.models.extractive.model import MODEL_NAME, ExtractiveChatModel
from threadline.models.extractive.question import (
    acted_request_terms,
    asked_action,
    own_terms,
    question_names,
    sentence_terms,
)
from threadline.models.extractive.sentences import (
    clauses,
    continues_previous,
    split_sentences,
    states_nothing,
)
from threadline.models.extractive.siblings import names_another

__all__ = [
    "ExtractiveChatModel",
    "MODEL_NAME",
    "acted_request_terms",
    "asked_action",
    "asks_for_members",
    "clauses",
    "continues_previous",
    "defined_terms",
    "defines",
    "defines_under",
    "defines_whole",
    "enumerates",
    "leads_with_asked",
    "names_another",
    "own_terms",
    "question_names",
    "says_what_it_is",
    "sentence_terms",
    "split_sentences",
    "states_nothing",
]
