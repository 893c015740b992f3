"""Which questions the catalog tool answers: a list of products, not any mention of one."""

from __future__ import annotations

import pytest

from threadline.graph.routing import parse_catalog_request

BRANDS = ["Samsung", "Apple", "Google", "Dell"]


@pytest.mark.parametrize(
    ("question", "args"),
    [
        ("Which laptops do you sell?", {"category": "laptop"}),
        ("What 5G phones are there?", {"category": "phone"}),
        ("What kind of laptops do you have?", {"category": "laptop"}),
        ("Show me laptops", {"category": "laptop"}),
        ("Quels sont les téléphones Samsung ?", {"category": "phone", "brand": "Samsung"}),
        ("Quels ordinateurs portables avez-vous ?", {"category": "laptop"}),
        ("Do you have phones?", {"category": "phone"}),
        ("What phones do you have under $500?", {"category": "phone", "max_price": 500.0}),
    ],
)
def test_a_question_asking_which_products_is_a_catalog_search(question, args):
    call = parse_catalog_request(question, BRANDS)
    assert call is not None and call.name == "search_products" and call.args == args


@pytest.mark.parametrize(
    "question",
    [
        "What should I do if I lose my laptop?",
        "J'ai perdu mon ordinateur portable, que dois-je faire ?",
        "What is the warranty on my laptop?",
        "Which rules apply when I work remotely with my laptop?",
    ],
)
def test_a_question_about_a_laptop_is_a_document_question(question):
    assert parse_catalog_request(question, BRANDS) is None
