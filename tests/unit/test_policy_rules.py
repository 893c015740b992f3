"""A policy asked about X is a rule the documents state about X (`graph.rules`)."""

from __future__ import annotations

import pytest

from threadline.graph.anchors import unanchored_reference, unanchored_references
from threadline.graph.evidence import decide
from threadline.graph.rules import policy_topic, states_rules_about

XPS = {
    "label": "1",
    "title": "Brightwell product catalog 2024",
    "section": "Dell XPS 13 (9340)",
    "text": "The Dell XPS 13 is a premium compact laptop for professionals who travel often.",
}
REMOTE = {
    "label": "2",
    "title": "Brightwell security handbook",
    "section": "Remote work",
    "text": "On public Wi-Fi networks, Brightwell employees must keep the VPN enabled at all "
    "times and must not leave their laptop unattended or unlocked.",
}
RETURNS = {
    "label": "3",
    "title": "Brightwell support policy",
    "section": "Refunds and returns",
    "text": "Brightwell accepts returns of phones and laptops within 30 days of delivery.",
}

RETURNS_AND_FEES = {
    "label": "4",
    "title": "Brightwell support policy",
    "section": "Refunds and returns",
    "text": "Opened devices returned within 30 days are refunded in full unless they are "
    "damaged, in which case Brightwell may deduct a restocking fee of up to 15%.",
}


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("What is the parental leave policy?", "parental leave"),
        ("What is the travel policy?", "travel"),
        # Any owner's policy: a company's name is no word the rule knows in advance.
        ("What is Acme's travel policy?", "travel"),
        ("What is Brightwell's parental leave policy?", "parental leave"),
        ("Quelle est la politique de congé parental ?", "congé parental"),
        ("Quelles sont les règles pour le télétravail ?", "télétravail"),
        ("What are the rules for remote work?", "remote work"),
        ("What is the policy?", ""),
        # A noun's complement is part of what the rules are about, its "de" no word of it:
        # travel expenses, not "remboursement des frais".
        (
            "Quelle est la politique de remboursement des frais de déplacement ?",
            "remboursement des frais de déplacement",
        ),
        ("Quelle est la politique de sécurité des données ?", "sécurité des données"),
        # A compound preposition is a condition, not what the rules are about.
        ("Quelle est la politique en cas de perte d'un téléphone ?", ""),
    ],
)
def test_the_topic_of_a_policy_is_the_words_that_name_it(question, topic):
    assert policy_topic(question) == topic


def test_the_x_policy_names_no_x_to_choose_between():
    assert list(unanchored_references("What is the parental leave policy?", [])) == []


def test_a_mention_of_the_topic_is_no_rule_about_it():
    assert not states_rules_about("travel", XPS, "en")
    # Stated under a heading naming it, or in a sentence that makes a rule.
    assert states_rules_about("return", RETURNS, "en")
    assert states_rules_about("VPN", REMOTE, "en")


def test_a_translated_word_is_read_as_it_is_not_in_its_near_forms():
    # "leave" translates to "partent" ("they leave"), a near form of "parent".
    assert not states_rules_about("congé parental", REMOTE, "fr")
    assert states_rules_about("télétravail", REMOTE, "fr")


@pytest.mark.parametrize(
    "question", ["What is the travel policy?", "What is the parental leave policy?"]
)
def test_a_policy_no_passage_states_is_declined(question):
    evidence = decide(question, [XPS, REMOTE, RETURNS], language="en")
    assert evidence.verdict == "not_in_documents"
    assert evidence.reason == "no_rules_about_the_topic"


def test_a_refund_rule_is_no_rule_on_refunding_travel_expenses():
    # "remboursement" and "frais" (a fee) are both in the return rules; "déplacement" is not.
    question = "Quelle est la politique de remboursement des frais de déplacement ?"
    evidence = decide(question, [XPS, REMOTE, RETURNS_AND_FEES], language="fr")
    assert evidence.verdict == "not_in_documents"
    assert evidence.reason == "no_rules_about_the_topic"


def test_a_policy_a_section_states_is_answered():
    evidence = decide("What is the return policy?", [XPS, REMOTE, RETURNS], language="en")
    assert evidence.verdict == "answer"
    assert evidence.supporting == ("3",)


def test_a_declined_policy_names_the_documents_of_rules_first():
    evidence = decide("What is the travel policy?", [XPS, REMOTE, RETURNS], language="en")
    assert evidence.closest == (
        "Brightwell security handbook",
        "Brightwell support policy",
        "Brightwell product catalog 2024",
    )


def test_the_x_said_in_the_conversations_other_language_is_anchored():
    # Round 12: "Quel est le prix ?" after an English quote stating "the monthly price"
    # was asked back (« le prix ») with unrelated options; "What is the price?" was not.
    earlier = [
        "Combien coûte le plan Business ?",
        "The Business plan costs $149 per month. Every plan can be paid annually at ten "
        "times the monthly price.",
    ]
    assert unanchored_reference("Quel est le prix ?", earlier) is None
    assert unanchored_reference("Quel est le prix ?", []) == "le prix"
    assert unanchored_reference("Quelle est la garantie ?", earlier) == "la garantie"
