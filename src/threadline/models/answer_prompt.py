"""The answer prompt's tagged layout: its renderer and its parser, side by side.

A real LLM reads the answer prompt as instructions; the offline extractive
model (`threadline.models.extractive`) parses the very same text back into its
parts. Both directions live here so the contract between them is one module,
checked by a round-trip test, instead of a template in the graph and regular
expressions in the model that must silently agree.

Small models follow what they see last and what they can copy: each source is
preceded by its number written as a citation (`[2]`), and the message ends with the
answer's language and one short example of a cited sentence (`<answer_format>`).
The extractive model reads neither: its parse is unchanged by them.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

INSUFFICIENT_CONTEXT = "INSUFFICIENT_CONTEXT"
"""What a model answers when the sources do not contain the answer."""

ANSWER_USER_PROMPT = """<history>
{history}
</history>
<followup_reference>{followup_reference}</followup_reference>
<deliverable>{deliverable}</deliverable>
<answer_style>{answer_style}</answer_style>
<search_query>{search_query}</search_query>
<answer_type>{answer_type}</answer_type>
<context>
{context}
</context>
<question>{question}</question>"""

SOURCE_TEMPLATE = """[{id}] <source id="{id}" title="{title}" section="{section}">
{text}
</source>"""

ANSWER_FORMAT_TEMPLATE = """
<answer_format language="{language}">
Write the answer in {language_name}. End every sentence with the number of the source it \
comes from, in square brackets.
Example: {example}
</answer_format>"""
"""Appended to the answer prompt when its language is known (see `AnswerPrompt.language`)."""

# Per answer language: its name in the instruction, and an example of cited sentences that
# is visibly a template (a model that copies it writes a sentence no passage supports,
# which the support check drops).
_FORMAT_EXAMPLES = {
    "en": ("English", "A fact taken from source 2. [2] Another fact, from source 1. [1]"),
    "fr": ("French", "Un fait tiré de la source 2. [2] Un autre fait, tiré de la source 1. [1]"),
}

_ANSWER_FORMAT = re.compile(r'<answer_format language="([^"]*)">')

_SOURCE = re.compile(
    r'<source id="(?P<id>[^"]*)" title="(?P<title>[^"]*)" section="(?P<section>[^"]*)">\n?'
    r"(?P<text>.*?)\n?</source>",
    re.DOTALL,
)


@dataclass(frozen=True)
class PromptSource:
    """One numbered source of the context, as the model sees it."""

    id: str
    title: str
    section: str
    text: str


@dataclass(frozen=True)
class AnswerPrompt:
    """The parts of an answer prompt (the user message; the system prompt is separate)."""

    sources: Sequence[PromptSource]
    question: str
    history: str = ""
    followup_reference: str = ""
    deliverable: bool = False
    answer_style: str = "prose"
    search_query: str = ""
    answer_type: str = ""
    language: str = ""
    """The answer language's code ("en", "fr"); empty: no `<answer_format>` block."""


def render_sources(sources: Sequence[PromptSource]) -> str:
    """Return the `<source>` elements of the context, text escaped for the tagged layout.

    Args:
        sources: The sources, in the order the model sees them.

    Returns:
        One `<source>` element per source, newline separated.
    """
    return "\n".join(
        SOURCE_TEMPLATE.format(
            id=source.id,
            title=html.escape(source.title),
            section=html.escape(source.section),
            text=html.escape(source.text, quote=False),
        )
        for source in sources
    )


def render_answer_prompt(prompt: AnswerPrompt) -> str:
    """Return the answer prompt's user message.

    Args:
        prompt: Its parts, unescaped.

    Returns:
        The tagged text; every value is escaped so no part can close a tag early.
    """
    text = ANSWER_USER_PROMPT.format(
        history=html.escape(prompt.history, quote=False),
        followup_reference=html.escape(prompt.followup_reference),
        deliverable="yes" if prompt.deliverable else "no",
        answer_style=prompt.answer_style,
        search_query=html.escape(prompt.search_query, quote=False),
        answer_type=prompt.answer_type,
        context=render_sources(prompt.sources),
        question=html.escape(prompt.question, quote=False),
    )
    if prompt.language:
        base = prompt.language.split("-")[0].lower()  # "en-GB" reads as English
        name, example = _FORMAT_EXAMPLES.get(base, (prompt.language, ""))
        text += ANSWER_FORMAT_TEMPLATE.format(
            language=html.escape(prompt.language),
            language_name=name,
            example=example or _FORMAT_EXAMPLES["en"][1],
        )
    return text


def _tag(text: str, name: str) -> str:
    match = re.search(rf"<{name}>(.*?)</{name}>", text, re.DOTALL)
    return html.unescape(match.group(1).strip()) if match else ""


def parse_sources(text: str) -> list[PromptSource]:
    """Read the `<source>` elements of an answer prompt's `<context>`.

    Args:
        text: The prompt's user message.

    Returns:
        The sources, unescaped, in prompt order; none when there is no context.
    """
    context = re.search(r"<context>(.*?)</context>", text, re.DOTALL)
    if not context:
        return []
    return [
        PromptSource(
            id=html.unescape(m.group("id")),
            title=html.unescape(m.group("title")),
            section=html.unescape(m.group("section")),
            text=html.unescape(m.group("text")).strip(),
        )
        for m in _SOURCE.finditer(context.group(1))
    ]


def parse_answer_prompt(text: str) -> AnswerPrompt:
    """Read an answer prompt back into its parts (the inverse of `render_answer_prompt`).

    Args:
        text: The prompt's user message.

    Returns:
        Its parts, unescaped (surrounding whitespace of each part stripped).
    """
    language = _ANSWER_FORMAT.search(text)
    return AnswerPrompt(
        sources=parse_sources(text),
        question=_tag(text, "question"),
        history=_tag(text, "history"),
        followup_reference=_tag(text, "followup_reference"),
        deliverable=_tag(text, "deliverable") == "yes",
        answer_style=_tag(text, "answer_style") or "prose",
        search_query=_tag(text, "search_query"),
        answer_type=_tag(text, "answer_type"),
        language=html.unescape(language.group(1)) if language else "",
    )
