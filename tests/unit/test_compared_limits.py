"""A number the question measures against a stated limit is no name (`graph.limits`)."""

from __future__ import annotations

import pytest

from threadline.graph.evidence import decide
from threadline.graph.limits import compared_numbers

RETURNS = {
    "label": "1",
    "title": "Brightwell support policy",
    "section": "Refunds and returns",
    "text": "Brightwell accepts returns of phones and laptops within 30 days of delivery. "
    "Refunds are paid within 10 business days.",
}


@pytest.mark.parametrize(
    ("question", "compared"),
    [
        ("Can I return a phone after 45 days?", {"45"}),
        ("Puis-je retourner un téléphone après 45 jours ?", {"45"}),
        ("Can I return it after 30 days?", set()),  # the passage holds it
        ("Can I return it after 2 months?", set()),  # no limit in months is stated
        ("What is the P2 response time?", set()),  # no unit: a name
        # Not compared: the number is what the question asks about.
        ("Why the 25 days delay?", set()),
    ],
)
def test_a_number_in_a_stated_unit_is_compared(question, compared):
    assert compared_numbers(question, [RETURNS]) == compared


@pytest.mark.parametrize(
    "question",
    ["Can I return a phone after 45 days?", "Puis-je retourner un téléphone après 45 jours ?"],
)
def test_a_case_beyond_a_stated_limit_is_answered_by_the_limit(question):
    # Declined before: "45" was a name no passage holds.
    evidence = decide(question, [RETURNS], language="fr" if "jours" in question else "en")
    assert evidence.verdict == "answer", evidence
    assert evidence.supporting == ("1",)
