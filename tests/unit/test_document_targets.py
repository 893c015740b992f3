"""A message that names a document works on that document (`graph.targets`)."""

from __future__ import annotations

import pytest

from threadline.graph.targets import named_document

SAMPLE_TITLES = [
    ("catalog", "Brightwell product catalog 2024"),
    ("handbook", "Brightwell security handbook"),
    ("report", "Rapport annuel 2024 de Brightwell"),
    ("policy", "Brightwell support policy"),
]


@pytest.mark.parametrize(
    ("message", "doc_id"),
    [
        # The kind alone names the one document of that kind, in either language.
        ("Résume le catalogue", "catalog"),
        ("Summarise the catalog", "catalog"),
        ("What does the handbook say about passwords?", "handbook"),
        ("Résume le rapport", "report"),
        # The kind and a topic word, across the languages.
        ("Résume le manuel de sécurité", "handbook"),
        ("Summarise the annual report", "report"),
    ],
)
def test_a_named_document_is_that_document(message, doc_id):
    assert named_document(message, SAMPLE_TITLES) == doc_id


@pytest.mark.parametrize(
    "message",
    [
        "How do I report a phishing email?",  # "report" as a verb names no report
        "Summarise the policy",  # two documents are policies: the kind alone says neither
    ],
)
def test_a_kind_word_that_names_no_one_document_scopes_nothing(message):
    titles = [*SAMPLE_TITLES, ("refunds", "Refund policy for stores")]
    assert named_document(message, titles) is None


def test_a_kind_with_its_complement_is_not_named_by_the_kind_alone():
    # A policy on passwords: the handbook's section, not the document titled "support policy".
    assert named_document("Quelle est la politique de mots de passe ?", SAMPLE_TITLES) is None
    assert named_document("What is the policy on passwords?", SAMPLE_TITLES) is None


@pytest.mark.parametrize(
    "question",
    [
        "la politique en cas de perte d'un téléphone professionnel",
        "the policy in case of theft",
        "la politique si je perds mon badge",
    ],
)
def test_a_kind_of_document_with_a_condition_names_no_document(question):
    # "la politique en cas de perte..." kept the search to the support policy.
    documents = [
        ("handbook", "Brightwell security handbook"),
        ("policy", "Brightwell support policy"),
    ]
    assert named_document(question, documents) is None
    assert named_document("Résume la politique", documents) == "policy"
