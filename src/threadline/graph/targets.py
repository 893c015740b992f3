"""Requests that name a document ("Résume le manuel de sécurité", "summarise the support policy").

A message that names a kind of document (manual, handbook, report, policy, guide,
catalog, in French or English) is matched against the titles of the tenant's
documents, across the two languages, before any retrieval scoring: the turn then
works on that document. A small glossary maps the words people use for documents
and their usual topics between French and English; it is data, not a model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from threadline.text import fold, terms

# Words that name a kind of document, and their translations (folded forms).
_DOCUMENT_WORDS: dict[str, tuple[str, ...]] = {
    "manuel": ("manual", "handbook", "guide"),
    "manual": ("manuel", "handbook", "guide"),
    "handbook": ("manual", "manuel", "guide"),
    "guide": ("manual", "handbook", "manuel"),
    "rapport": ("report",),
    "report": ("rapport",),
    "politique": ("policy",),
    "policy": ("politique",),
    "charte": ("policy", "charter"),
    "catalogue": ("catalog",),
    "catalog": ("catalogue",),
    "procedure": ("procedure", "process"),
    "reglement": ("rules", "regulation"),
}
# Topic words often used in document names.
_TOPIC_WORDS: dict[str, tuple[str, ...]] = {
    "securite": ("security", "safety"),
    "security": ("securite",),
    "annuel": ("annual",),
    "annual": ("annuel",),
    "assistance": ("support",),
    "support": ("assistance",),
    "produits": ("product", "products"),
    "product": ("produits",),
    "confidentialite": ("privacy",),
    "privacy": ("confidentialite",),
    "employes": ("employee",),
    "employee": ("employes",),
}
_DOCUMENT_CUE = re.compile(r"\b(" + "|".join(_DOCUMENT_WORDS) + r")s?\b")
# The kind of document named as a thing: after a determiner ("le catalogue", "the
# handbook", "votre rapport"), not as a verb ("how do I report..."), and with no
# complement that says which one ("la politique de mots de passe" is a policy on
# passwords, which the support policy's title does not name).
# What opens a complement after the kind of document: a preposition, or a compound one
# or a condition that says which policy ("la politique en cas de perte...", "the policy
# in case of theft", "the rules when travelling") rather than naming the one document.
_COMPLEMENTS = (
    r"de",
    r"du",
    r"des",
    r"d'",
    r"of",
    r"on",
    r"for",
    r"about",
    r"sur",
    r"pour",
    r"concernant",
    r"regarding",
    r"en\s+cas",
    r"en\s+matiere",
    r"in\s+(?:the\s+)?(?:case|event)",
    r"au\s+sujet",
    r"a\s+propos",
    r"relatives?\s+(?:a|aux)",
    r"applicables?\s+(?:a|aux)",
    r"with\s+respect",
    r"when",
    r"if",
    r"si",
    r"lorsque",
    r"quand",
)
_KIND_AS_NOUN = re.compile(
    r"\b(?:the|this|that|your|our|le|la|l'|ce|cette|votre|notre|du|de la)\s*("
    + "|".join(_DOCUMENT_WORDS)
    + r")s?\b(?!\s*(?:"
    + "|".join(_COMPLEMENTS)
    + r")\b)"
)


def names_a_document(question: str) -> bool:
    """Whether the message uses a word for a kind of document."""
    return bool(_DOCUMENT_CUE.search(fold(question)))


def _expanded(text: str) -> set[str]:
    words = re.findall(r"[\w-]+", fold(text))
    out: set[str] = set()
    for word in words:
        out.update(terms(word))
        for table in (_DOCUMENT_WORDS, _TOPIC_WORDS):
            for translation in table.get(word, ()):
                out.update(terms(translation))
    return out


def named_document(question: str, documents: Iterable[tuple[str, str]]) -> str | None:
    """Return the id of the document a message names, or None.

    Args:
        question: The user's message.
        documents: (doc_id, title) of the documents the turn may use.

    Returns:
        The best-matching document: its title shares the document-kind word and at
        least one more word with the message (in either language), and no other
        title matches as well.
    """
    if not names_a_document(question):
        return None
    asked = _expanded(question)
    kinds = _kind_terms()
    scored: list[tuple[int, str]] = []
    by_kind_alone: list[str] = []
    for doc_id, title in documents:
        shared = asked & _title_terms(title)
        if shared & kinds and len(shared) >= 2:
            scored.append((len(shared), doc_id))
        elif shared & kinds:
            by_kind_alone.append(doc_id)
    scored.sort(reverse=True)
    if not scored and len(by_kind_alone) == 1 and _KIND_AS_NOUN.search(fold(question)):
        # "Résume le catalogue" with one catalog among the documents: "the catalogue"
        # says which document (the kind named as a thing, after its determiner: "how do I
        # report a phishing email?" names no report).
        return by_kind_alone[0]
    if not scored or (len(scored) > 1 and scored[0][0] == scored[1][0]):
        return None
    return scored[0][1]


@lru_cache(maxsize=1)
def _kind_terms() -> frozenset[str]:
    """Return the terms of the words naming a kind of document (static: built once)."""
    return frozenset(t for w in _DOCUMENT_WORDS for t in terms(w))


@lru_cache(maxsize=65536)
def _title_terms(title: str) -> frozenset[str]:
    """Return the terms of a document title, remembered.

    A turn that names a document compares it with every title of the tenant: analysing
    them all again on each such turn was a seventh of `retrieve`'s time in a profile at
    10k chunks (about 1,000 documents). Titles are short, hence the large bound.
    """
    return frozenset(terms(title))
