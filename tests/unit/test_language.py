"""The lead-in of answers whose evidence is in another language than the question."""

from __future__ import annotations

from threadline.knowledge.language import evidence_lead_in, frame_answer, text_language

REFUNDS = (
    "Brightwell accepts returns of phones and laptops within 30 days of delivery when the "
    "device is in its original packaging and in like-new condition, with proof of purchase."
)
RAPPORT = (
    "Les émissions de CO2 des scopes 1 et 2 de Brightwell ont atteint 6 800 tonnes "
    "d'équivalent CO2 en 2024, soit une baisse de 18 % par rapport à 2023."
)


def test_text_language_tells_french_from_english_passages() -> None:
    assert text_language(REFUNDS) == "en"
    assert text_language(RAPPORT) == "fr"
    assert text_language("Quelle est la politique de remboursement ?") == "fr"
    assert text_language("") == "en"


def test_no_lead_in_when_the_evidence_is_in_the_question_language() -> None:
    assert evidence_lead_in("en", [("Brightwell support policy", "en")]) == ""
    assert evidence_lead_in("fr", [("Rapport annuel 2024", "fr")]) == ""
    assert evidence_lead_in("fr", []) == ""


def test_french_question_over_one_english_source_names_it() -> None:
    lead = evidence_lead_in("fr", [("Brightwell support policy", "en")] * 2)
    assert lead == "D'après « Brightwell support policy » (en anglais) :"


def test_english_question_over_the_french_report() -> None:
    lead = evidence_lead_in("en", [("Rapport annuel 2024 de Brightwell Devices", "fr")])
    assert lead == 'From "Rapport annuel 2024 de Brightwell Devices" (in French):'


def test_several_foreign_sources_and_languages() -> None:
    lead = evidence_lead_in(
        "fr", [("Support policy", "en"), ("Security handbook", "en"), ("Rapport", "fr")]
    )
    assert lead == "D'après les sources citées (en partie en anglais) :"
    lead = evidence_lead_in("de", [("Support policy", "en"), ("Rapport", "fr")])
    assert lead == "From the cited sources (in English and in French):"


def test_sources_partly_in_the_question_language_name_no_single_title() -> None:
    # The quoted sentences may come from the report: the catalog is not "the" source.
    lead = evidence_lead_in("fr", [("Rapport annuel 2024", "fr"), ("Product catalog", "en")])
    assert lead == "D'après les sources citées (en partie en anglais) :"
    lead = evidence_lead_in("en", [("Support policy", "en"), ("Rapport annuel 2024", "fr")])
    assert lead == "From the cited sources (partly in French):"


def test_frame_answer_prepends_the_lead_in_only_when_needed() -> None:
    english = [{"title": "Brightwell support policy", "text": REFUNDS}]
    answer = "Brightwell accepts returns of phones and laptops within 30 days [1]"
    framed = frame_answer(answer, "fr", english)
    assert framed == f"D'après « Brightwell support policy » (en anglais) :\n{answer}"
    assert frame_answer(answer, "en", english) == answer
    french = [{"title": "Rapport annuel 2024", "text": RAPPORT}]
    assert frame_answer("Les émissions [1]", "fr", french) == "Les émissions [1]"
