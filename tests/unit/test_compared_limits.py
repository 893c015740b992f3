"""A number the question measures against a stated limit is no name (`knowledge.limits`)."""

from __future__ import annotations

import pytest

from threadline.graph.evidence import decide
from threadline.knowledge.limits import compared_numbers, compared_unit_words

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
        # The passage holds it: compared all the same ("10 business days" is a refund's
        # delay, which quoted as a name answered "après 10 jours").
        ("Can I return it after 30 days?", {"30"}),
        ("Puis-je retourner un ordinateur après 10 jours ?", {"10"}),
        # A duration in weeks or months is measured against a limit in days.
        ("Can I get a refund after 3 weeks?", {"3"}),
        ("Can I return it after 2 months?", {"2"}),
        ("Can I return it after 2 GB?", set()),  # no size is stated
        ("What is the P2 response time?", set()),  # no unit: a name
        # The time elapsed in the user's own case is measured as "after" it is.
        ("I bought a laptop 40 days ago, can I return it?", {"40"}),
        ("Je l'ai acheté il y a 40 jours, je peux le rendre ?", {"40"}),
        ("Ça fait 3 semaines que je l'ai, je peux le retourner ?", {"3"}),
        # Not compared: the number is what the question asks about.
        ("Why the 25 days delay?", set()),
        ("What happened in the last 40 days?", set()),
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


def test_the_unit_of_a_compared_measure_is_no_word_asked():
    # "weeks" is in no passage: with "refund" it left half the question uncovered.
    assert compared_unit_words("Can I get a refund after 3 weeks?", [RETURNS]) == {"weeks"}
    evidence = decide("Can I get a refund after 3 weeks?", [RETURNS], language="en")
    assert evidence.verdict == "answer", evidence
