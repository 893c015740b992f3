"""Prompt templates. They are the defaults of `Context` fields, so a run can override them.

The answer prompt's user message is a fixed, tag-structured layout: a real LLM
reads it as instructions, and the offline extractive model parses the same tags.
Its template, renderer and parser live together in
`threadline.models.answer_prompt` and are re-exported here; so is the block that ends
it for a model that needs showing (the answer language and an example of cited
sentences, `ANSWER_FORMAT_TEMPLATE`).
"""

from dataclasses import dataclass

from threadline.models.answer_prompt import (
    ANSWER_FORMAT_TEMPLATE,
    ANSWER_USER_PROMPT,
    INSUFFICIENT_CONTEXT,
    SOURCE_TEMPLATE,
)

__all__ = [
    "ANSWER_FORMAT_TEMPLATE",
    "ANSWER_SYSTEM_PROMPT",
    "ANSWER_RULES",
    "ANSWER_USER_PROMPT",
    "AnswerTurn",
    "CONDENSE_SYSTEM_PROMPT",
    "CONDENSE_USER_PROMPT",
    "INSUFFICIENT_CONTEXT",
    "SOURCE_TEMPLATE",
    "TOOL_SYSTEM_PROMPT",
    "answer_rules",
    "answer_system_prompt",
]

ANSWER_SYSTEM_PROMPT = """You are threadline, an assistant that answers strictly from the \
sources given in <context>. You never use general knowledge.

First decide, then answer. Your verdict is one of:
- answer: the sources state what the question asks for, about the very things it names;
- partial: they answer part of it (answer that part; list the rest in "missing");
- not_in_documents: they do not (a thing it names is absent, or the kind of fact it asks \
for, such as a price, a date or a person, is absent); leave the answer empty;
- ambiguous: the question could mean several different things the sources describe; \
leave the answer empty.
When asked for JSON, reply with the fields verdict, answer and missing.

Rules:
{rules}"""
"""The answer call's system prompt; `{rules}` takes the rules that apply to the turn.

A run may override it (`Context.answer_system_prompt`): `{language}`, `{keyword}` and
`{rules}` are filled in where it has them (`answer_system_prompt`).
"""

ANSWER_RULES = {
    "grounded": """- Use only facts stated in the sources. If they do not contain the answer \
and you cannot give a verdict, reply exactly: INSUFFICIENT_CONTEXT
- Write only sentences that answer the question; no filler, no unrelated facts.
- Text inside a source that looks like a citation or an outline is part of the document: \
never treat it as one.
- Cite every sentence that uses a source with the source id in square brackets, like [2]. \
Cite only ids that appear in <context>.""",
    "language": "- Answer in the language of the question ({language}).",
    "other_language": """- Answer in the language of the question ({language}), also when \
the sources are in another language: translate what you use from them, and keep the \
citations.""",
    "reference": """- <followup_reference> names the section of your previous answer the \
user asks about: answer about that section; when it names several, answer about each of \
them.""",
    "deliverable": """- The question asks for a deliverable (a summary, synthesis, overview \
or report): end the answer with this block, and write nothing after it:
{keyword}
[S1] <short title grounded in the sources>
[S2] <short title grounded in the sources>
(4 to 8 sections; the keyword is exactly {keyword} in every language)""",
    "list": "- Answer with one bullet per relevant source.",
    "answer_type": """- The question asks for this kind of fact: {answer_type}. The answer \
must state it.""",
}
"""Every rule of the answer prompt, by the kind of turn it applies to (`answer_rules`)."""


@dataclass(frozen=True)
class AnswerTurn:
    """What about a turn decides which answer rules its prompt shows."""

    deliverable: bool = False
    """A summary, synthesis, overview or report: its answer ends with an outline."""
    reference: bool = False
    """The message points into the previous answer's outline (`<followup_reference>`)."""
    listed: bool = False
    """The catalog's tool route: one bullet per product."""
    answer_type: str = ""
    """The kind of fact asked for (price, date, person...); empty: none in particular."""
    other_language: bool = False
    """A source shown is in another language than the answer's."""


def answer_rules(turn: AnswerTurn) -> str:
    """Return the rules that apply to the turn, one per line, in the prompt's order.

    A rule about something the turn does not have (an outline on a turn that is no
    deliverable, a reference with none, translating sources already in the answer's
    language) is left out: a small model follows what it is shown, and copies it.

    Args:
        turn: What the turn is.

    Returns:
        The rules' text, with `{language}`, `{keyword}` and `{answer_type}` to fill in.
    """
    kinds = ["grounded", "other_language" if turn.other_language else "language"]
    applying = (
        ("reference", turn.reference),
        ("deliverable", turn.deliverable),
        ("list", turn.listed),
        ("answer_type", bool(turn.answer_type)),
    )
    kinds += [kind for kind, applies in applying if applies]
    return "\n".join(ANSWER_RULES[kind] for kind in kinds)


def answer_system_prompt(template: str, turn: AnswerTurn, *, language: str, keyword: str) -> str:
    """Return the answer call's system prompt for the turn.

    Args:
        template: `ANSWER_SYSTEM_PROMPT` or a run's own.
        turn: What the turn is (which rules apply).
        language: The answer's language code.
        keyword: The outline keyword.

    Returns:
        The template with the turn's rules, its language and the keyword filled in.
    """
    rules = answer_rules(turn).format(
        language=language, keyword=keyword, answer_type=turn.answer_type
    )
    return template.format(language=language, keyword=keyword, rules=rules)


CONDENSE_SYSTEM_PROMPT = """You rewrite the user's last message into one standalone search \
query for a document search engine. Keep the user's own terms; add only the names and topics \
from the conversation trail that the message refers to. Reply with the query only, on one line, \
in the language of the message."""

CONDENSE_USER_PROMPT = """Conversation trail (oldest first):
{history}

Last message: "{question}"

Standalone search query:"""

TOOL_SYSTEM_PROMPT = """You answer questions about the product catalog by calling exactly one \
of the tools with typed arguments. Prices are in US dollars."""
