"""Query translation through the bilingual lexicon, and when the retriever uses it."""

from __future__ import annotations

import pytest

from threadline.graph.reformulation import query_variants
from threadline.knowledge.bilingual import lexicon, translate_query


def test_french_questions_become_their_english_salient_words() -> None:
    assert translate_query("Quelle est la politique de remboursement ?", "fr", "en") == (
        "policy refund"
    )
    # Phrases win over their words; inflected forms find their entry.
    assert translate_query("J'ai perdu mon ordinateur portable", "fr", "en") == "lost laptop"
    assert translate_query("Les remboursés sont-ils taxés ?", "fr", "en").startswith("refund")
    assert translate_query("mise à jour du mot de passe", "fr", "en") == "update password"


def test_names_numbers_and_unknown_words_are_kept() -> None:
    assert translate_query("Quelle est la garantie du Pixel 8a ?", "fr", "en") == (
        "warranty guarantee pixel 8a"
    )
    assert translate_query("Et la discrimination ?", "fr", "en") == "discrimination"
    assert translate_query("Et ça ?", "fr", "en") == ""


def test_english_questions_become_french_words() -> None:
    assert translate_query("What was the revenue in 2024?", "en", "fr") == (
        "chiffre d'affaires recette 2024"
    )


def test_only_french_and_english() -> None:
    assert len(lexicon("fr", "en").phrases) > 900
    with pytest.raises(ValueError):
        lexicon("fr", "de")


def test_a_question_is_translated_only_into_the_documents_languages() -> None:
    question = "Quelle est la politique de remboursement ?"
    english_docs = query_variants(question, None, followup=False, document_languages={"en": 1.0})
    assert [(v.name, v.text, v.weight) for v in english_docs] == [
        ("question", question, 1.0),
        ("translated", "policy refund", 1.0),
    ]
    french_docs = query_variants(question, None, followup=False, document_languages={"fr": 1.0})
    assert [v.name for v in french_docs] == ["question"]
    mixed = query_variants(
        "What was the revenue?", None, followup=False, document_languages={"en": 0.8, "fr": 0.2}
    )
    assert [(v.name, round(v.weight, 2)) for v in mixed] == [
        ("question", 1.0),
        ("translated", 0.2),
    ]
    assert [v.name for v in query_variants(question, None, followup=False)] == ["question"]
