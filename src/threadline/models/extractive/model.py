"""The offline extractive chat model: the LangChain interface and the composed answer."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput, ModelProfile
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

from threadline.knowledge.bilingual import lexicon_phrases, translate_query
from threadline.knowledge.facts import KINDS, asks_what_is_now, asks_what_was
from threadline.knowledge.limits import compared_numbers
from threadline.models.answer_prompt import INSUFFICIENT_CONTEXT, PromptSource, parse_answer_prompt
from threadline.models.extractive.answer_styles import deliverable, list_answer
from threadline.models.extractive.answering_sentences import answering_sentences
from threadline.models.extractive.coverage import heading_coverage, question_coverage, sentence_fit
from threadline.models.extractive.definitions import (
    asks_to_compare,
    contrasted_terms,
    defined_terms,
    name_asked_about,
    states_what_it_is_or_does,
)
from threadline.models.extractive.question import closed_compounds, sentence_terms, translated_terms
from threadline.models.extractive.quoted_passages import gathered
from threadline.models.extractive.scoring import question_weights, scored_sentences
from threadline.models.extractive.sentences import Row
from threadline.models.extractive.siblings import names_another, sibling_patterns
from threadline.text import terms
from threadline.text.language import detect_language

MODEL_NAME = "threadline-extractive"


class ExtractiveChatModel(BaseChatModel):
    """Composes grounded answers from the context sentences; no network, no weights."""

    max_sources: int = 3
    """Passages a plain answer quotes: the best-ranked one and the next with an answer."""
    answer_words: int = 60
    """Words quoted from the leading passage: the length of a useful answer's core."""
    detail_sentences: int = 6
    """Sentences when the user asks about one section of the previous answer."""
    outline_keyword: str = "SUIVI"
    """The outline block keyword (never translated)."""
    max_outline_sections: int = 8
    profile: ModelProfile | None = Field(
        default_factory=lambda: ModelProfile(tool_calling=False, structured_output=True),
        exclude=True,
    )
    """It cannot choose a tool; it fills the answer schema."""
    quotes_sources: bool = True
    """Every sentence it writes is copied from a source: it cannot judge or translate."""

    @property
    def _llm_type(self) -> str:
        return MODEL_NAME

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": MODEL_NAME}

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        text = self.compose(messages)
        message = AIMessage(content=text, response_metadata={"model_name": MODEL_NAME})
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        text = self.compose(messages)
        for piece in re.findall(r"\S+\s*|\s+", text):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
        yield ChatGenerationChunk(
            message=AIMessageChunk(content="", response_metadata={"model_name": MODEL_NAME})
        )

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Accept tools, as LangChain's fake tool-calling models do; it never calls one.

        Args:
            tools: The tools a real model could call (ignored).
            tool_choice: Ignored.
            **kwargs: Ignored.

        Returns:
            This model: its replies carry no tool calls, so a caller keeps its own.
        """
        return self

    def with_structured_output(
        self,
        schema: dict[str, Any] | type,
        *,
        include_raw: bool = False,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, dict[str, Any] | BaseModel]:
        """Fill the answer schema (verdict, answer, missing) from the composed text.

        The text is the answer when it quotes anything (verdict "answer"), else the
        verdict is "not_in_documents" with an empty answer. The raw message keeps the
        plain text, so a stream of it reads like any model's answer.

        Args:
            schema: A JSON schema or pydantic class with `verdict` and `answer` fields.
            include_raw: Return `{"raw", "parsed", "parsing_error"}` like LangChain's models.
            **kwargs: Ignored (the method, strictness...).

        Returns:
            A runnable from messages to the filled schema.

        Raises:
            ValueError: For a schema without `verdict` and `answer` fields.
        """
        model = schema if isinstance(schema, type) and issubclass(schema, BaseModel) else None
        properties = (
            set(model.model_fields)
            if model is not None
            else set(schema.get("properties", {}) if isinstance(schema, dict) else ())
        )
        if not {"verdict", "answer"} <= properties:
            raise ValueError(
                f"{MODEL_NAME} fills only the answer schema (verdict, answer, missing); "
                f"got fields {sorted(properties)}"
            )

        def fill(message: AIMessage) -> dict[str, Any] | BaseModel:
            text = message.text.strip()
            declined = not text or text.startswith(INSUFFICIENT_CONTEXT)
            values: dict[str, Any] = {
                "verdict": "not_in_documents" if declined else "answer",
                "answer": "" if declined else text,
                "missing": [],
            }
            parsed: dict[str, Any] | BaseModel = (
                model.model_validate(values) if model is not None else values
            )
            if include_raw:
                return {"raw": message, "parsed": parsed, "parsing_error": None}
            return parsed

        return self | RunnableLambda(fill)

    # --- composition -----------------------------------------------------------
    def compose(self, messages: list[BaseMessage]) -> str:
        """Build the answer text for an answer prompt."""
        prompt = parse_answer_prompt("\n".join(m.text for m in messages if m.type == "human"))
        sources = list(prompt.sources)
        if not sources:
            return INSUFFICIENT_CONTEXT
        question, search_query = prompt.question, prompt.search_query
        if prompt.answer_style == "list":
            return list_answer(sources)
        if prompt.deliverable:
            return deliverable(
                sources,
                question,
                search_query,
                max_outline_sections=self.max_outline_sections,
                outline_keyword=self.outline_keyword,
            )
        return self._answer(
            sources, question, search_query, prompt.followup_reference, prompt.answer_type
        )

    def _answer(
        self,
        sources: list[PromptSource],
        question: str,
        search_query: str,
        reference: str,
        answer_type: str = "",
    ) -> str:
        translated = translated_terms(question, sources, answer_type) | closed_compounds(question)
        compared = compared_numbers(question, [{"text": source.text} for source in sources])
        weights = question_weights(question, search_query, translated, answer_type, compared)
        carried: set[str] = set()
        if search_query and search_query != question:
            # The words a follow-up carries from the conversation are searched in the
            # sources' language too: "combien de temps ? (obtenir remboursement)" finds
            # the English "Refunds are paid ... within 10 business days".
            carried = translated_terms(search_query, sources, answer_type)
            for term in carried:
                weights[term] = max(weights[term], 1)
        in_a_row, together = _asked_phrases(question)
        rows = scored_sentences(sources, weights, in_a_row, together)
        read_in_order = sorted(rows, key=lambda r: (r[1], r[2]))
        if reference:
            if siblings := sibling_patterns(question, [source.text for source in sources]):
                # « quel est le délai pour un P1 ? » on the response times: the section's
                # sentences on P1, not those naming P2, P3 or P4 instead.
                rows = [r for r in rows if not names_another(r[3], siblings)] or rows
            chosen = _of_the_sections_asked(rows, sources, reference, self.detail_sentences)
        else:
            if rows:
                asked_in = detect_language(question)
                native = frozenset(
                    si
                    for si, source in enumerate(sources)
                    if detect_language(f"{source.title} {source.text}") == asked_in
                )
                texts = [source.text for source in sources]
                rows = answering_sentences(
                    rows,
                    question,
                    answer_type,
                    translated,
                    native,
                    texts,
                    [source.section for source in sources],
                    # What a follow-up's search carried is what its pronoun stands for.
                    referred=search_query if search_query != question else "",
                )
            named = name_asked_about(question)
            if named and all(named <= sentence_terms(f"{s.title} {s.text}") for s in sources):
                # A name every source holds chooses no passage ("What is Brightwell?" on
                # Brightwell's documents): what X is or does is said by the sentences
                # with X as the subject of "is", "offers", "sells"..., or by none.
                rows = [r for r in rows if states_what_it_is_or_does(r[3], named)]
            chosen = gathered(
                rows,
                question_coverage(question, sources, answer_type=answer_type, compared=compared),
                max_sources=self.max_sources,
                answer_words=self.answer_words,
                # A count or a share asked in the present ("How many stores does
                # Brightwell have?", "What percentage of revenue comes from support
                # contracts?") is what there is, as a result is: a plan ("porter la part
                # des contrats de support à 14 %") neither leads nor follows it.
                past=asks_what_was(question)
                or (answer_type in ("quantity", "share") and asks_what_is_now(question)),
                tie_break=question_coverage(
                    question, sources, with_section=True, answer_type=answer_type, compared=compared
                ),
                heading=heading_coverage(question, sources, answer_type),
                fit=sentence_fit(question, answer_type, translated | carried, compared),
                passages=read_in_order,
                one_fact=answer_type in KINDS,
                defined=defined_terms(question),
                sections=[source.section for source in sources],
                contrasted=contrasted_terms(question),
                compared=asks_to_compare(question),
            )
        if not chosen:
            return INSUFFICIENT_CONTEXT
        return " ".join(f"{sentence} [{sources[si].id}]" for _, si, _, sentence in chosen)


def _asked_phrases(question: str) -> tuple[list[list[str]], list[list[str]]]:
    """Return the terms of each lexicon phrase a question asks, as French writes it.

    A French question's as typed ("mot de passe"), to be written in a row; an English
    question's in its French translation ("gross margin": « marge brute »), by its
    French words alone (an English sentence's "credit" is the question's own word, not
    « carte de crédit »), two of them to be written in one sentence
    (`scored_sentences`): « une marge opérationnelle de 8,0 % » is no gross margin.
    """
    language = detect_language(question)
    if language not in ("fr", "en"):
        return [], []
    typed = Counter(terms(question))
    phrases = lexicon_phrases(question, language)
    within = Counter(t for phrase, _ in phrases for t in terms(phrase))
    said = [
        terms(phrase)
        if language == "fr"
        else [t for t in terms(translate_query(phrase, "en", "fr")) if t not in terms(phrase)]
        for phrase, _ in phrases
        # A word the question also asks on its own is no part of the phrase only: "the
        # gross margin and the operating margin" asks of a margin twice.
        if all(typed[t] <= within[t] for t in terms(phrase))
    ]
    found = [written for words in said if len(written := list(dict.fromkeys(words))) > 1]
    return (found, []) if language == "fr" else ([], found)


def _of_the_sections_asked(
    rows: list[Row], sources: list[PromptSource], reference: str, most: int
) -> list[Row]:
    """Return the best sentences of the sections a follow-up asks about, in reading order.

    "Détaille S2": the user wants that section, so give more of it (up to `most`
    sentences, all sections' when none is among the sources). "compare S1 and S3" names
    several (`FOLLOWUP_REFERENCE=S1: ...; S3: ...`): each gets its share of the
    sentences, one section after the other, so both are read side by side.
    """
    named = [part.split(":", 1)[-1] for part in reference.split("=", 1)[-1].split("; ")]
    shares: list[list[Row]] = []
    for title in named:
        ref_terms = set(terms(title))
        matching = {
            idx
            for idx, s in enumerate(sources)
            if ref_terms and ref_terms <= set(terms(f"{s.section} {s.title}"))
        }
        if matching:
            # A sentence of a section asked is worth one more than its score says.
            shares.append([r for r in rows if r[1] in matching and r[0] + 1.0 > 0])
    if not shares:
        shares = [[r for r in rows if r[0] > 0]]
    each = max(2, most // len(shares))
    chosen: list[Row] = []
    for share in shares:
        best = sorted((r for r in share if r not in chosen), key=lambda r: -r[0])
        chosen += sorted(best[:each], key=lambda r: (r[1], r[2]))
    return chosen
