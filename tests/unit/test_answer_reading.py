"""How the answer stage reads: passages in translation, sections as things, kinds of fact."""

from __future__ import annotations

from threadline.graph.referents import distinct_things, names_a_thing
from threadline.knowledge.bilingual import translate_passage_terms, translate_vocabulary
from threadline.text import terms


def test_a_french_passage_is_read_with_its_phrases():
    read = translate_passage_terms("Le résultat net atteint 27,1 millions.", "fr", "en")
    assert set(terms("net income")) <= read
    read = translate_passage_terms("La marge brute atteint 27,4 %.", "fr", "en")
    assert set(terms("gross margin")) <= read


def test_an_english_word_is_read_as_each_french_word_it_is_a_sense_of():
    # "horaire = schedule hours timetable": "hours" is also "horaires".
    read = translate_vocabulary(set(terms("business hours")), "en", "fr")
    assert set(terms("horaires")) <= read and set(terms("heures")) <= read
    # "brut = gross raw crude": each sense, not the three words as one phrase.
    assert set(terms("brut")) <= translate_vocabulary(set(terms("gross")), "en", "fr")


def test_headings_naming_things_and_topics():
    assert names_a_thing("Google Pixel 8a") and names_a_thing("Apple iPhone 15")
    assert names_a_thing("Lenovo ThinkPad X1 Carbon Gen 12")
    assert not names_a_thing("Résultats financiers")
    assert not names_a_thing("Perspectives 2025")
    assert not names_a_thing("Support hours and channels")


def test_topical_sections_of_one_document_are_one_thing():
    report = [
        {"label": str(i), "title": "Rapport annuel 2024", "section": section}
        for i, section in enumerate(
            ["Faits marquants", "Résultats financiers", "Perspectives 2025"]
        )
    ]
    assert distinct_things(report, ["0", "1", "2"]) == ["Rapport annuel 2024"]
    catalog = [
        {"label": "a", "title": "Catalog", "section": "Google Pixel 8a"},
        {"label": "b", "title": "Catalog", "section": "Nokia G42 5G"},
        {"label": "c", "title": "Other page", "section": ""},
    ]
    assert distinct_things(catalog, ["a", "b", "c"]) == [
        "Google Pixel 8a",
        "Nokia G42 5G",
        "Other page",
    ]


def test_a_message_continuing_the_subject():
    from threadline.followups.anaphora import continues_the_subject

    assert continues_the_subject("Et le nombre de tickets traités ?")
    assert continues_the_subject("and the operating margin?")
    assert continues_the_subject("What about the Enterprise plan?")
    assert not continues_the_subject("Is there a daily limit to hunt the animal in California?")


def test_contact_details_are_kinds_of_fact():
    from threadline.knowledge.facts import asked_type, has_answer_type

    assert asked_type("what is their phone number?") == "phone"
    assert asked_type("Quel est le numéro de téléphone du support ?") == "phone"
    assert asked_type("What is the support email address?") == "email"
    assert asked_type("How many phones do you sell?") == "quantity"
    for number in ("+33 1 23 45 67 89", "1-800-555-0199", "(555) 123-4567", "5551234567"):
        assert has_answer_type("phone", f"Call {number} now.")
    for text in ("a 24/7 phone line", "312 000 demandes", "8:00 to 20:00", "4 870 entreprises"):
        assert not has_answer_type("phone", text)
    assert has_answer_type("email", "write to support@brightwell.example today")


def test_a_price_written_after_its_number():
    from threadline.knowledge.facts import has_answer_type

    assert has_answer_type("price", "Le Galaxy A55, vendu 449 $, a été le plus vendu.")
    assert has_answer_type("price", "à 1 099 €.")
    assert not has_answer_type("price", "en 2024, 52 % des ventes")


def test_a_later_turn_carries_no_word_of_the_lead_in():
    from threadline.knowledge.language import without_lead_in

    framed = "D'après « Brightwell product catalog 2024 » (en anglais) :\nThe Galaxy S24 [1]"
    assert without_lead_in(framed) == "The Galaxy S24 [1]"
    assert without_lead_in("From the cited sources (partly in French):\nX [1]") == "X [1]"
    assert without_lead_in("Plain answer [1]") == "Plain answer [1]"
