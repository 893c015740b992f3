"""Messages that lean on the previous turn: bare elaboration requests and follow-up cues.

* :func:`is_pure_anaphora`: "tell me more", "détaille ça": more, about nothing named.
* :func:`looks_like_followup`: does a message lean on the previous turn at all?
* :func:`read_correction`: does a message correct the question asked just before
  ("No, I meant photos in the air.", "je parlais du continent, pas des États-Unis")?
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from threadline.followups.matching import Context, active
from threadline.text.normalize import fold_with_origin

__all__ = [
    "SHORT_QUESTION_WORDS",
    "Correction",
    "is_pure_anaphora",
    "looks_like_followup",
    "read_correction",
]

# A question of at most this many words after a retrieved turn is taken as a follow-up:
# "and in 2023?", "the cheaper one?" carry too little to stand alone.
SHORT_QUESTION_WORDS = 4


def _cover(words: Sequence[str], phrases: Sequence[tuple[str, ...]], covered: list[bool]) -> bool:
    """Mark the words belonging to any phrase; True if at least one phrase occurred."""
    found = False
    for phrase in phrases:
        n = len(phrase)
        for i in range(len(words) - n + 1):
            if tuple(words[i : i + n]) == phrase:
                covered[i : i + n] = [True] * n
                found = True
    return found


def pure_anaphora(ctx: Context) -> bool:
    """Tell whether a question asks for more about nothing named (:func:`is_pure_anaphora`)."""
    comp, words = ctx.comp, ctx.words
    if not words:
        return False
    covered = [False] * len(words)
    if not _cover(words, comp.elaboration, covered):
        return False
    for phrases in (comp.anaphora, comp.politeness):
        _cover(words, phrases, covered)
    return all(
        done or w in comp.stopwords or w in comp.question_words or w in comp.one_words
        for w, done in zip(words, covered, strict=True)
    )


def is_pure_anaphora(question: str, languages: Sequence[str] | None = None) -> bool:
    """Tells whether a question asks for more without saying about what.

    True for "détaille ça", "tell me more (about that)", "can you elaborate?", "go on":
    an elaboration request whose other words are all pronouns, courtesy or function
    words. False as soon as something names a subject ("tell me more about the Samsung
    one", "détaille S2") or when there is no elaboration request at all ("and for P2?").

    Args:
        question: The user's message.
        languages: Lexicon codes to use; None means all.

    Returns:
        Whether the message is a content-free elaboration request.
    """
    return pure_anaphora(Context(question, active(languages)))


def continues_the_subject(question: str, languages: Sequence[str] | None = None) -> bool:
    """Tell whether a message opens as a continuation of the subject under discussion.

    A leading "and"/"et" or a follow-up cue ("what about", "et pour", "qu'en est-il"):
    "Et le nombre de tickets traités ?" asks about the same thing as the answer before.

    Args:
        question: The user's message.
        languages: Lexicon codes to use; None means all.
    """
    comp = active(languages)
    ctx = Context(question, comp)
    if not ctx.words:
        return False
    return ctx.words[0] in comp.leading_conjunctions or ctx.has_phrase(comp.followup_cues)


def looks_like_followup(question: str, languages: Sequence[str] | None = None) -> bool:
    """Tells whether a question probably leans on the previous turn.

    Meant to be asked only when a previous turn retrieved something. Signals: very short
    questions, a leading "and"/"et", follow-up cues ("what about", "et pour", "qu'en
    est-il"), elaboration requests, pronouns pointing back ("it", "celui-ci", "ce
    dernier", "the Samsung one"), comparisons with no subject ("which is cheaper?"),
    measures of nothing named ("how many days do I have?") and messages of function
    words only ("what do I do now?").

    Args:
        question: The user's message.
        languages: Lexicon codes to use; None means all.

    Returns:
        Whether the question should be condensed with the previous turn's context.
    """
    comp = active(languages)
    ctx = Context(question, comp)
    words = ctx.words
    if not words:
        return False
    if len(words) <= SHORT_QUESTION_WORDS:
        return True
    if words[0] in comp.leading_conjunctions:
        return True
    if any(ctx.has_phrase(p) for p in (comp.followup_cues, comp.elaboration, comp.back_references)):
        return True
    # "the Samsung one", "that cheaper one": an item named by the previous answer.
    pointers = comp.determiners | comp.anaphora_words
    # "how fast will Business respond to that?", "what if I fail one?": a demonstrative or
    # "one" ending the message has no noun after it, so it stands for something said
    # before (a determiner ends no message: « la », « les » are left out); "one" after a
    # noun that makes it a number ("step one", "day one") is none.
    last = words[-1]
    if last in comp.anaphora_words - comp.determiners - comp.one_words or (
        last in comp.one_words
        and not (
            len(words) >= 2
            and (words[-2] in comp.known - comp.stopwords or words[-2] in comp.measure_units)
        )
    ):
        return True
    for i, word in enumerate(words):
        if word in comp.one_words and i >= 2 and words[i - 2] in pointers:
            return True
    # "how many days do I have?", "combien de jours ai-je ?": a measure of nothing named,
    # so of what the conversation is about.
    content = [w for w in words if w not in comp.stopwords]
    if content and all(w in comp.measure_units for w in content):
        return True
    # "what do I do now?", "what can we do about it then?": function words only name
    # nothing of their own, so they ask of what the conversation is about.
    if not content:
        return True
    # "which is cheaper?", "lequel est le moins cher ?": a choice among earlier items.
    return words[0] in comp.choice_words and ctx.has_phrase(comp.comparatives)


# --- corrections: the user narrows or corrects the question asked just before ----------

# How a speaker says the previous question was misread, at the start of a clause, on
# folded text (no accents, hyphens as spaces). A closed class of discourse formulas of
# each language, not vocabulary: what follows them is the question as meant.
_CORRECTION_FORMULAS = (
    # English
    r"i (?:only |just |actually |really )?(?:meant|mean)(?: to ask)?",
    r"what i (?:meant|mean|asked|was asking|am asking|'m asking)(?: (?:was|is))?",
    r"i(?: was| am|'m) (?:asking|talking|speaking) (?:about|of)",
    r"i was thinking (?:about|of)",  # "I'm thinking of buying" asks, it corrects nothing
    r"i(?: was| am|'m) (?:referring|refering) to",
    r"i (?:asked|said) about",
    r"when i (?:say|said|wrote|write|ask|asked about)",
    r"by that i (?:mean|meant)",
    r"let me (?:rephrase|clarify)",
    r"to (?:clarify|be clear)",
    r"i should have said",
    r"(?:that|this|it) (?:is|was|'s) not (?:my question|what i (?:asked|meant|mean|wanted))",
    r"you (?:misunderstood|misunderstand|got it wrong)",
    # French
    # Not "je voulais savoir" nor "je pense à": a polite question, a plan.
    r"je (?:voulais|veux) (?:dire|parler d[e'])",
    r"je (?:parlais|parle|pensais|demandais) (?:de|d'|du|des|a|au|aux)",
    r"je (?:faisais|fais) (?:allusion|reference) (?:a|au|aux)",
    r"quand je (?:dis|disais|parle|parlais)(?: de| d'| du| des)?",
    r"ce que je (?:voulais|veux) dire(?: c'est)?",
    r"(?:ce|c'|ca|cela) (?:n'est|n'etait|est|etait) pas (?:ma question|ce que je"
    r" (?:demandais|voulais|veux|demande))",
    r"tu (?:m'as|as) mal compris",
    r"vous (?:m'avez|avez) mal compris",
    r"pour (?:preciser|etre clair)",
)
# Words before the formula that say no more than it does: "No, sorry, I meant ...".
_CORRECTION_OPENERS = r"(?:(?:no|nope|sorry|actually|oh|well|non|pardon|desole|en fait)\b[\s,.!]*)*"
_CORRECTION = re.compile(
    rf"(?:^|(?<=[.!?;,\"]) ?){_CORRECTION_OPENERS}(?:{'|'.join(_CORRECTION_FORMULAS)})\b[\s,:]*"
)
# A bare "No," or "Non," opening the message corrects what the answer took it to mean.
_BARE_NO = re.compile(r"^(?:no|nope|non)\b\s*[,.!:;]\s*")
# Contrastive negation: what the speaker did not mean, up to the clause's end. "X, not Y",
# "not Y but X", "Y rather than"; French "X, pas Y", "et non Y", "plutôt que Y".
_CLAUSE_END = r"[^,.;:!?()\"]+"
_REJECTED = re.compile(
    rf"(?:(?:^|[,;:(]) ?(?:and |but |et |mais )?(?:not|non pas|pas|non|et non) "
    rf"|\b(?:rather than|instead of|as opposed to|plutot que|au lieu d[e'] ?|et non pas|"
    rf"et non) ?)(?P<rejected>{_CLAUSE_END})"
)


@dataclass(frozen=True)
class Correction:
    """What a correcting message means, read apart from how it corrects.

    Attributes:
        meant: The message without its correcting formulas and without what it rejects,
            as typed (case and accents kept); empty when nothing else is said.
        rejected: What the message says it did not mean, as typed ("the United States
            of America"), clauses joined by spaces; empty when nothing is rejected.
    """

    meant: str
    rejected: str


def _original(origin: Sequence[int], original: str, start: int, end: int) -> str:
    """Return the original text behind a span of the folded text."""
    if start >= end:
        return ""
    return original[origin[start] : origin[end - 1] + 1]


def read_correction(question: str) -> Correction | None:
    """Read a message that corrects or narrows the question asked just before.

    "No, I meant photos in the air." after "who takes photos of planes in the air" asks
    the previous question again with the correction applied; "When I say 'America', I'm
    referring to the continent, not the United States" also names what it does not
    mean, which a search must not look for. A message is a correction when a clause
    opens with a formula of correction ("I meant", "I'm referring to", "that was not my
    question", "je voulais dire", "je parlais de") or the message opens with a bare
    "No,". Its contrastive negations ("X, not Y", "rather than Y", "pas Y") give what is
    rejected; a verb's negation ("I do not know how") rejects nothing.

    Args:
        question: The user's message.

    Returns:
        The correction read, or None when the message corrects nothing.
    """
    folded = fold_with_origin(question)
    text = folded.text
    formulas = list(_CORRECTION.finditer(text))
    bare_no = _BARE_NO.match(text)
    if not formulas and not bare_no:
        return None
    removed = [(m.start(), m.end()) for m in formulas if m.end() > m.start()]
    if bare_no:
        removed.append((bare_no.start(), bare_no.end()))
    rejected: list[str] = []
    for match in _REJECTED.finditer(text):
        start, end = match.span("rejected")
        rejected.append(_original(folded.origin, question, start, end).strip())
        removed.append((match.start(), end))
    kept: list[str] = []
    position = 0
    for start, end in sorted(removed):
        if start > position:
            kept.append(_original(folded.origin, question, position, start))
        position = max(position, end)
    kept.append(_original(folded.origin, question, position, len(text)))
    meant = re.sub(r"\s+", " ", " ".join(kept))
    meant = re.sub(r" (?=[,.;:!?])", "", meant).strip(" ,.;:-")
    return Correction(meant=meant, rejected=" ".join(r for r in rejected if r))
