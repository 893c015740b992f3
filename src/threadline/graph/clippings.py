"""Clipped words read by the conversation: « et la marge opé ? » after an answer on margins.

A clipping ("opé", "dispo", "ordi") stands for the word it begins, and which word is
what the conversation says: « opé » begins « opérationnelle » and « opération » alike,
and after an answer quoting « une marge opérationnelle d'au moins 8,5 % » it is that
one. A word of the message that no language knows and that begins exactly one longer
word of the previous answer is read as that word; any other word is left as typed.
"""

from __future__ import annotations

import re

from threadline.text import fold
from threadline.text.lexicons import fr
from threadline.text.matching import is_dictionary_word

__all__ = ["with_clippings_read"]

_WORD = re.compile(r"[^\W\d_]+")
MIN_CLIPPING = 3
"""Shorter words begin too many words to stand for one ("et le CA ?")."""
MIN_CUT = 3
"""Letters a clipping leaves out at least: "garantie" is no clipping of "garanties"."""


def with_clippings_read(question: str, previous_answer: str) -> str:
    """Return the message with each clipped word written as the previous answer's word.

    Args:
        question: The user's message (« et la marge opé ? »).
        previous_answer: The answer given before it.

    Returns:
        The message with its clippings replaced (« et la marge opérationnelle ? »), or
        as typed.
    """
    answered: dict[str, str] = {}
    for word in _WORD.findall(previous_answer):
        answered.setdefault(fold(word.lower()), word.lower())
    out, last = [], 0
    for match in _WORD.finditer(question):
        word = match[0]
        folded = fold(word.lower())
        if len(folded) < MIN_CLIPPING or folded in answered or _known(folded) or word.isupper():
            continue
        begun = {
            whole
            for key, whole in answered.items()
            if key.startswith(folded) and len(key) - len(folded) >= MIN_CUT
        }
        if len(begun) != 1:
            continue
        out += [question[last : match.start()], begun.pop()]
        last = match.end()
    out.append(question[last:])
    return "".join(out)


def _known(folded: str) -> bool:
    """Whether English or French knows the word (a real word is no clipping)."""
    from threadline.knowledge.bilingual import lexicon

    if folded in fr.AUXILIARY_FORMS or folded in fr.FUNCTION_WORDS:
        return True
    if is_dictionary_word(folded):
        return True
    return lexicon("fr", "en").lookup((folded,), ()) is not None
