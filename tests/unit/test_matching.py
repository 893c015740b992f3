"""How a reader matches a question's words with a passage's: derivations, typos, verb forms."""

from __future__ import annotations

import pytest

from threadline.graph import question_terms
from threadline.graph.evidence import decide
from threadline.text import matching, terms
from threadline.text.matching import (
    acronyms,
    matches_same_sense,
    matches_synonym,
    matches_term,
    verb_lemma_stems,
)


def held(question_word: str, passage: str) -> bool:
    (term,) = terms(question_word)
    return matches_term(term, set(terms(passage)))


@pytest.mark.parametrize(
    ("asked", "written"),
    [
        # English irregular verbs: Snowball leaves each form as it is written.
        ("lost", "An employee who loses a laptop"),
        ("lose", "the laptop was lost"),
        ("sold", "we sell refurbished phones"),
        ("bought", "when buying a phone"),
        ("paid", "customers pay monthly"),
        ("wrote", "the report was written in March"),
        ("taken", "photos take time"),
    ],
)
def test_a_form_of_an_irregular_verb_finds_the_others(asked, written):
    assert held(asked, written)


@pytest.mark.parametrize(
    ("asked", "written", "held_there"),
    [
        # A Latin verb and its noun change the stem's end: one word family still.
        ("emit", "CO2 emissions fell by 18%", True),
        ("emissions", "the stores emit less CO2", True),
        ("admit", "admission is free", True),
        ("receive", "the reception desk", True),
        ("emit", "a permission is needed", False),
    ],
)
def test_a_latin_verb_finds_its_noun(asked, written, held_there):
    assert held(asked, written) is held_there


@pytest.mark.parametrize(
    ("asked", "written"),
    [
        ("lost", "An employee who loses a laptop"),
        ("wrote", "the report was written in March"),
        ("leave", "she left the company"),
        ("laptop", "the report was written in March"),  # no verb form either way
    ],
)
def test_a_vocabularys_verb_forms_read_once_match_as_read_per_term(asked, written):
    # The extractive answer reads a sentence's verb forms once for all the question's
    # terms: the same answer as reading them again for each term.
    (term,) = terms(asked)
    vocabulary = set(terms(written))
    forms = matching.verb_forms(vocabulary)
    assert matching.matches_verb_form(term, vocabulary, forms) == matching.matches_verb_form(
        term, vocabulary
    )


def test_what_matched_before_still_matches():
    assert held("photos", "aviation photography")  # a derivation: five letters shared
    assert held("mortage", "a mortgage broker")  # a long word, one typo
    assert not held("tax", "taxi drivers")  # a short word only as itself


def test_compounds_of_one_first_word_with_different_heads_are_different_words():
    # "smart" + "watch" is no form of "smart" + "phone"; a suffix still derives a word.
    assert not held("smartwatches", "we sell smartphones")
    assert not held("workplace", "every workstation")
    assert held("refunds", "devices are refunded")
    assert held("accountant", "your account")
    assert held("photos", "aviation photography")


def test_a_head_snowball_shortens_below_four_letters_is_read_back():
    # "firewall" stems "firewal": its head "wal" is "wall", a noun, as "work" is.
    assert not held("firework", "every laptop runs a firewall")
    assert not held("firewalls", "fireworks at the launch")
    assert held("firewalls", "the firewall is on")
    assert held("skilled", "a skill")


def test_a_form_that_is_also_a_noun_is_read_as_written():
    # "Roses" are no form of "rise", nor a "saw" of "see": such forms are left alone.
    assert not held("roses", "prices rise in spring")
    assert not held("saw", "we see the sea")
    assert verb_lemma_stems("rose") == frozenset()
    assert verb_lemma_stems("lost") == {"lose"}


def test_the_graph_still_reads_the_shared_matching():
    assert question_terms.matches_term is matching.matches_term


def test_the_acronym_of_a_name_written_out():
    found = acronyms("Le Net Promoter Score est passé de 41 à 48.")
    assert "nps" in found


def test_a_lost_laptop_is_a_laptop_someone_loses():
    # "I lost my laptop" was declined: no passage held "lost".
    chunks = [
        {
            "label": "1",
            "title": "Security handbook",
            "section": "Device encryption",
            "text": "An employee who loses a laptop or phone must report the loss within 1 hour.",
        }
    ]
    assert decide("I lost my laptop", chunks).verdict == "answer"


def test_a_stolen_thing_is_a_lost_one_not_the_reverse():
    # "what should I do if my laptop is stolen?" was declined: "stolen" was in no passage,
    # and the handbook's rule is for an employee "who loses a laptop".
    loses = set(terms("An employee who loses a laptop must report the loss within 1 hour."))
    assert matches_term(terms("stolen")[0], loses)
    assert matches_term(terms("theft")[0], loses)
    # A rule on thefts says nothing of a laptop left on a train.
    assert not matches_term(terms("lost")[0], set(terms("Report a stolen laptop to the police.")))
    # French: « volé » only, « vol » being a flight too.
    perte = set(terms("un employé qui perd son ordinateur doit signaler la perte"))
    assert matches_term(terms("volé")[0], perte)
    assert not matches_term(terms("vol")[0], perte)


def test_a_word_naming_the_same_thing_matches():
    # "What is the screen size of the OnePlus 12?" was declined: its page gives a
    # "6.82-inch display", and "screen" was in no passage.
    assert matches_term(terms("screen")[0], set(terms("a 6.82-inch AMOLED display")))
    assert not matches_term(terms("screen")[0], set(terms("a 5,400 mAh battery")))


def test_a_word_naming_the_same_thing_matches_in_a_derivation():
    # "who should I contact?" after an escalation answer: the duty support manager is
    # "reachable through the Escalate button"; "contact" and "reach" name one thing.
    reachable = set(terms("the duty support manager, reachable through the Escalate button"))
    assert matches_term(terms("contact")[0], reachable)
    assert matches_same_sense(terms("contact")[0], reachable)
    assert not matches_same_sense(terms("contact")[0], set(terms("a restocking fee of 15%")))


def test_the_days_of_a_week_name_one_thing():
    # "and on weekends?" of hours stated "Monday to Friday".
    from threadline.text import terms
    from threadline.text.matching import matches_term

    assert matches_term("weekend", set(terms("Monday to Friday, 8:00 to 20:00")))
    assert matches_term("samedi", set(terms("du lundi au vendredi")))
    assert not matches_term("weekend", set(terms("within 10 business days")))


@pytest.mark.parametrize(
    ("question", "term"), [("Et le week-end ?", "weekend"), ("send an e-mail", "email")]
)
def test_a_hyphenated_compound_written_closed_is_one_word(question, term):
    # "Et le week-end ?" after the support hours was declined: "week" and "end" were
    # two terms, and no passage holds "end" with the hours.
    assert term in question_terms.content_terms(question)


def test_a_hyphenated_pair_that_is_no_word_stays_two_words():
    assert question_terms.closed_compounds("parle-moi du week-end") == "parle-moi du weekend"
    assert question_terms.closed_compounds("est-il ouvert ?") == "est-il ouvert ?"


def test_a_french_weekend_is_answered_by_the_days_a_schedule_states():
    chunks = [
        {
            "label": "1",
            "title": "Support policy",
            "section": "Support hours",
            "text": "Brightwell business hours are Monday to Friday, 8:00 to 20:00.",
        }
    ]
    assert decide("le support est-il ouvert le week-end ?", chunks).verdict == "answer"


@pytest.mark.parametrize(
    ("question", "kept", "left"),
    [
        ("des montres connectées ?", "montr", ""),
        ("When does the show start?", "show", ""),
        ("Montre-moi les plans", "plan", "montr"),
        ("show me the prices", "price", "show"),
    ],
)
def test_a_request_verb_after_a_determiner_is_a_noun(question, kept, left):
    # "des montres connectées ?" after "Do you sell tablets?" quoted the VPN rule
    # ("connect"): "montres" was read as the request "montre-moi" and left out.
    found = question_terms.content_terms(question)
    assert kept in found
    assert not left or left not in found


def test_watches_no_passage_holds_are_declined():
    chunks = [
        {
            "label": "1",
            "title": "Security handbook",
            "section": "Remote work",
            "text": "Employees working remotely must connect through the company VPN.",
        }
    ]
    assert decide("des montres connectées ?", chunks).verdict == "not_in_documents"


def test_a_synonym_is_read_in_any_of_its_forms():
    # "purchase" and "bought" / "purchased" are a pair (one French word's translations,
    # close for MiniLM too), and "buy" is a form of "bought".
    assert matches_synonym("purchas", set(terms("you can just buy it")))
    assert matches_synonym("remov", set(terms("you can delete the project")))
    # Not every word shares a sense: neither a word's own form nor an unrelated one.
    assert not matches_synonym("purchas", set(terms("you can sell it")))
    # matches_term, which the evidence check reads, does not read synonyms.
    assert not matches_term("purchas", set(terms("you can just buy it")))
