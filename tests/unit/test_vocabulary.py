"""Reading a query's spelling against the index's vocabulary (issues 11 and 17)."""

from __future__ import annotations

import pytest

from threadline.knowledge.vocabulary import Vocabulary, document_terms

CHUNKS = [
    "The SanBruno park and the doesnt-list.",
    "The Nokia G42 is the cheapest phone of the catalog, at $199.",
    "Phones are replaced within 30 days. Model SKU-4471 ships in March.",
    "On public Wi-Fi networks keep the VPN on; send an e-mail to security.",
    "Le remboursement du téléphone est fait sous 30 jours.",
    "The warranty covers the battery.",
    "Le support est fermé le week-end.",
]


@pytest.fixture(scope="module")
def vocabulary() -> Vocabulary:
    return Vocabulary(document_terms(CHUNKS))


def test_document_terms_count_the_chunks_holding_each_term():
    counts = document_terms(CHUNKS)
    assert counts["phone"] == 2  # "phone" and "Phones", each chunk once
    assert counts["wifi"] == 1  # the closed form of "Wi-Fi", as the sparse index holds it
    assert counts["the"] == 0  # a stopword is no index term


@pytest.mark.parametrize(
    ("query", "written", "word"),
    [
        ("cheapest fone?", "fone", "phone"),  # "ph" read as "f"
        # Written as the word the term stems from, one edit from the typed one: the
        # index's term ("batteri") is no word a reader writes.
        ("the batery", "batery", "battery"),  # one letter left out
        ("le téléphnoe", "téléphnoe", "telephone"),  # two letters swapped: one edit
        ("Fone prices", "Fone", "phone"),  # a capital opening the message is no name
    ],
)
def test_a_word_no_chunk_holds_is_read_as_the_one_term_it_misspells(
    vocabulary, query, written, word
):
    [fix] = vocabulary.spelling_fixes(query)
    assert (fix.written, fix.word) == (written, word)
    assert query[fix.start : fix.end] == written


@pytest.mark.parametrize(
    "query",
    [
        "cheapest phone?",  # known words
        "le remboursement",
        "SKU-4472",  # a product code: digits
        "the G43 model",
        "price in 2025",  # a number
        "call Fone now",  # capitalised within the sentence: a name
        "the NOKA",  # capitals past the first letter: an acronym or a code
        "is it done",  # an English word the documents do not use is no typo
        "the bat",  # too short
        "a tone",  # a dictionary word, and another first letter than "phone"
        "it doesn't",  # "doesn" is half of "doesn't", not a typo of "doesnt"
        "near San Bruno",  # a name of two capitalised words is no compound
    ],
)
def test_known_words_numbers_codes_names_and_real_words_are_left_alone(vocabulary, query):
    assert vocabulary.spelling_fixes(query) == []
    assert vocabulary.searched_with_fixes(query) == query


def test_a_tie_between_close_terms_corrects_nothing_unless_one_is_far_more_frequent():
    # "f" is a neighbouring key of both "t" and "d": two slips as close.
    tied = Vocabulary({"cart": 3, "card": 3})
    assert tied.correction("carf") is None
    dominant = Vocabulary({"cart": 40, "card": 3})
    assert dominant.correction("carf") == "cart"


def test_two_edits_are_not_a_typo(vocabulary):
    assert vocabulary.correction("telephoxx") is None


@pytest.mark.parametrize(
    ("query", "closed"),
    [
        ("Can I use public wi fi?", "wifi"),  # two fragments
        ("send an e mail", "email"),  # the closed form is a word
        ("ouvert le week end ?", "weekend"),
    ],
)
def test_two_words_whose_closed_form_is_indexed_are_also_searched_closed(vocabulary, query, closed):
    [fix] = vocabulary.spelling_fixes(query)
    assert fix.word == closed
    assert vocabulary.searched_with_fixes(query) == f"{query} {closed}"


def test_words_joined_only_by_space_make_a_compound(vocabulary):
    # Across punctuation, or when the closed form is unknown, two words stay two.
    assert vocabulary.spelling_fixes("wi, fi") == []
    assert vocabulary.spelling_fixes("public networks") == []


def test_the_search_keeps_the_words_typed_and_the_check_reads_the_known_spelling(vocabulary):
    assert vocabulary.searched_with_fixes("cheapest fone?") == "cheapest fone? phone"
    assert vocabulary.respelt("cheapest fone? and wi fi") == "cheapest phone? and wifi"


ENGLISH = Vocabulary(
    document_terms(["Refunds are paid within 10 days.", "The warranty is 2 years."])
)


@pytest.mark.parametrize(
    ("query", "written", "word"),
    [
        # Over English documents no indexed term is one edit from a French typo: the
        # lexicon's French words are (the evidence check then translates them).
        ("quelle est la politique de remboursment ?", "remboursment", "remboursement"),
        ("quelle est la garentie du pixel 8a ?", "garentie", "garantie"),
        # The word after an elision is a word of its own.
        ("Quel est le chiffre d'afaires ?", "afaires", "affaires"),
    ],
)
def test_a_misspelt_french_word_is_read_as_the_lexicons_word(query, written, word):
    [fix] = ENGLISH.spelling_fixes(query)
    assert (fix.written, fix.word) == (written, word)


@pytest.mark.parametrize(
    "query",
    [
        "what is the retrun polcy?",  # English: no French word is read into it
        "quelle est la politique de remboursement ?",  # spelt right
        "le mot de pase",  # too short: "passe", "base", "page" are as close
        "la porte du magasin",  # a French word the lexicon lacks is no typo of "perte"
    ],
)
def test_no_french_reading_for_english_real_or_short_words(query):
    assert ENGLISH.spelling_fixes(query) == []
