"""The list and deliverable answer styles.

A list quotes each source's first sentence; a deliverable each section's best two, then
its outline.
"""

from __future__ import annotations

from threadline.models.answer_prompt import INSUFFICIENT_CONTEXT, PromptSource
from threadline.models.extractive.scoring import question_weights
from threadline.models.extractive.sentences import split_sentences
from threadline.text import terms


def list_answer(sources: list[PromptSource]) -> str:
    """Return a list answer: the first sentence of each source, cited."""
    lines = []
    for source in sources:
        sentences = split_sentences(source.text)
        if sentences:
            lines.append(f"- {sentences[0]} [{source.id}]")
    return "\n".join(lines) if lines else INSUFFICIENT_CONTEXT


def deliverable(
    sources: list[PromptSource],
    question: str,
    search_query: str,
    *,
    max_outline_sections: int,
    outline_keyword: str,
) -> str:
    """Return a deliverable: each section's two best sentences, cited, then its outline."""
    weights = question_weights(question, search_query)
    sections: dict[str, list[PromptSource]] = {}
    for source in sources:
        sections.setdefault(source.section or source.title, []).append(source)
    paragraphs = []
    for name, members in sections.items():
        best: list[tuple[float, str, str]] = []
        for member in members:
            for i, sentence in enumerate(split_sentences(member.text)):
                score = sum(weights[t] for t in set(terms(sentence)) if t in weights)
                # The lead sentence of a section usually states its main fact.
                best.append((score + (2.0 if i == 0 else 0.0), sentence, member.id))
        best.sort(key=lambda r: -r[0])
        picked = best[:2]
        if picked:
            body = " ".join(f"{sentence} [{sid}]" for _, sentence, sid in picked)
            paragraphs.append(f"**{name}**: {body}")
    if not paragraphs:
        return INSUFFICIENT_CONTEXT
    names = list(sections)[:max_outline_sections]
    answer = "\n\n".join(paragraphs)
    if len(names) >= 4:
        outline = "\n".join(f"[S{i}] {name}" for i, name in enumerate(names, 1))
        answer += f"\n\n{outline_keyword}\n{outline}"
    return answer
