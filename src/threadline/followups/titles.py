"""Title references: a section named by its title words ("détaille la partie sécurité")."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from threadline.followups.matching import Compiled, Context, fold_phrase
from threadline.followups.outline import OutlineSection
from threadline.followups.reference_model import DETERMINISTIC, REASON_AMBIGUOUS_TITLE, Reference
from threadline.text.tokenize import words


def _stem_match(a: str, b: str) -> bool:
    """Equal words, or long enough words sharing most of their beginning.

    This catches inflection and the French/English cognates of outline titles
    ("reduction"/"reduce", "securite"/"security", "finances"/"financial") without a
    stemmer per language.
    """
    if a == b:
        return True
    shorter = min(len(a), len(b))
    if shorter < 4 or a.isdigit() or b.isdigit():
        return False
    prefix = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        prefix += 1
    return prefix >= max(4, 0.75 * shorter)


def _title_tokens(title: str, comp: Compiled) -> set[str]:
    """Content words of a title (all its words if it has only function words)."""
    found = words(fold_phrase(title))
    content = {w for w in found if w not in comp.stopwords and (len(w) > 1 or w.isdigit())}
    return content or set(found)


def match_title(
    ctx: Context,
    outline: Sequence[OutlineSection],
    translations: Callable[[str], Iterable[str]] | None = None,
) -> Reference | None:
    """Find the section a question names by its title words.

    A title is a candidate when the question covers all of its content words, or when
    most of the question's own content words belong to it (a single word unique to one
    title is enough when it is most of what the question says). Among candidates, the
    fully covered title with the most distinctive matched words wins; two equally good
    ones make the reference ambiguous rather than a guess.

    ``translations`` gives a question word's readings in the other language: a French
    follow-up names the sections of an English document in French ("les horaires du
    support ?" for "Support hours and channels"), and the reverse.
    """
    comp = ctx.comp
    match_words = {
        w for w in ctx.words if w not in comp.not_title_words and (len(w) > 1 or w.isdigit())
    }
    # Lexicon nouns ("point", "aspect") do not count as what the question is about,
    # unless they are all it has: a title may be just "Sources" or "Questions".
    content = {w for w in match_words if w not in comp.known} or match_words
    if not content:
        return None
    titles = [_title_tokens(section.title, comp) for section in outline]
    readings = {
        word: {word}
        | {
            r
            for r in (fold_phrase(t) for t in (translations(word) if translations else ()))
            if r not in comp.stopwords and len(r) > 1
        }
        for word in match_words
    }

    def same(title_word: str, question_word: str) -> bool:
        return any(_stem_match(title_word, reading) for reading in readings[question_word])

    elaborates = ctx.has_phrase(comp.elaboration)

    def doc_freq(title_word: str) -> int:
        return sum(any(_stem_match(title_word, other) for other in tokens) for tokens in titles)

    scored = []
    for section, tokens in zip(outline, titles, strict=True):
        if not tokens:
            continue
        matched = {t for t in tokens if any(same(t, q) for q in match_words)}
        covered = {q for q in content if any(same(t, q) for t in tokens)}
        if not matched or not covered:
            continue
        title_cov = len(matched) / len(tokens)
        question_cov = len(covered) / len(content)
        distinctive = any(doc_freq(t) == 1 for t in matched)
        # A full title inside a longer question ("what is the production capacity of
        # the farm in 2023?") is only a reference when the user asks to elaborate or
        # the title is a good part of what the question is about.
        full = title_cov == 1.0 and (question_cov >= 0.5 or elaborates)
        if not (full or question_cov >= 0.6 or (distinctive and question_cov >= 0.5)):
            continue
        weight = sum(1 / doc_freq(t) for t in matched)
        key = (title_cov == 1.0, round(weight, 6), round(title_cov, 6))
        scored.append((key, question_cov, section))
    if not scored:
        return None
    scored.sort(key=lambda item: item[0], reverse=True)
    best_key, best_cov, best = scored[0]
    shaped = (
        elaborates
        or ctx.has_phrase(comp.followup_cues)
        or "?" in ctx.folded.original
        or any(w in comp.question_words for w in ctx.words[:1])
    )
    if not shaped and best_cov < 1.0:
        return None
    if len(scored) > 1 and scored[1][0] == best_key:
        return Reference(True, False, "title", method=DETERMINISTIC, reason=REASON_AMBIGUOUS_TITLE)
    return Reference(True, True, "title", section_id=best.id, method=DETERMINISTIC)
