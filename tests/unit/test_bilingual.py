"""Query translation through the bilingual lexicon, and when the retriever uses it."""

from __future__ import annotations

import pytest

from threadline.graph.fusion import FusionConfig
from threadline.graph.reformulation import query_variants
from threadline.knowledge.bilingual import (
    content_words,
    french_spelling,
    lexicon,
    lexicon_phrases,
    translate_query,
    translate_vocabulary,
)
from threadline.text import terms


def test_french_questions_become_their_english_salient_words() -> None:
    assert translate_query("Quelle est la politique de remboursement ?", "fr", "en") == (
        "policy refund"
    )
    # Phrases win over their words; inflected forms find their entry.
    # "perdu" is "lost" and "lose": English stems keep the irregular past apart from
    # the "loses" a rule writes.
    assert translate_query("J'ai perdu mon ordinateur portable", "fr", "en") == "lost lose laptop"
    assert translate_query("Les remboursés sont-ils taxés ?", "fr", "en").startswith("refund")
    assert translate_query("mise à jour du mot de passe", "fr", "en") == "update password"


def test_names_numbers_and_unknown_words_are_kept() -> None:
    # The written form "garantie" decides over the stem it shares with "garantir".
    assert translate_query("Quelle est la garantie du Pixel 8a ?", "fr", "en") == (
        "warranty pixel 8a"
    )
    assert translate_query("Et la discrimination ?", "fr", "en") == "discrimination"
    assert translate_query("Et ça ?", "fr", "en") == ""


def test_a_word_known_only_by_its_stem_is_also_kept_as_typed() -> None:
    # "attention" is spelt alike in English, so the general lexicon has no entry for it;
    # its stem is that of "attente" (waiting), whose senses alone would lose the word.
    translated = translate_query("Et l'attention des enfants ?", "fr", "en").split()
    assert "attention" in translated
    assert "waiting" in translated
    # A written form the lexicon holds is translated alone.
    assert translate_query("la garantie", "fr", "en") == "warranty"


def test_a_feminine_word_finds_the_entry_of_its_masculine() -> None:
    # The lexicon lists "donneur = donor"; "donneuse" is read as it before any stem.
    assert translate_query("une donneuse", "fr", "en") == "donor"
    assert translate_query("des donneuses", "fr", "en") == "donor"


def test_a_regular_feminine_in_e_finds_its_masculine() -> None:
    # "courante", "prochaine", "connue": the masculine plus -e. Through its stem alone,
    # "courantes" was read as "courir" (run) and kept as typed.
    translated = translate_query("les fraudes courantes", "fr", "en").split()
    assert "current" in translated
    assert "run" not in translated
    assert "courantes" not in translated
    assert translate_query("la prochaine étape", "fr", "en") == "next step"
    assert translate_query("une erreur connue", "fr", "en") == "error known"
    # A noun that merely ends in -e is not cut: "vente" is no "vent" (wind).
    assert translate_query("une vente", "fr", "en") == "sale"


def test_a_phrase_is_found_by_its_content_words_alone() -> None:
    # A follow-up carries the previous query's salient words without their function
    # words ("mettre à jour" as "mettre jour"): the phrase is still the phrase.
    assert translate_query("cis benchmark mettre jour", "fr", "en") == "cis benchmark update"
    assert translate_query("espaces noms", "fr", "en") == "namespace"
    assert translate_query("pomme terre", "fr", "en") == "potato"
    # Written out in full, the words keep their own senses.
    assert translate_query("une pomme et de la terre", "fr", "en") == "apple earth"


def test_an_adjective_and_a_technical_cognate_have_their_senses() -> None:
    # Entries that listed a noun's senses only: "physique" is mostly the adjective
    # (physical), "courant" also "common", and a database's "schéma" is its schema.
    assert "physical" in translate_query("l'activité physique", "fr", "en").split()
    assert "common" in translate_query("les fraudes courantes", "fr", "en").split()
    assert "schema" in translate_query("créer un schéma", "fr", "en").split()


def test_english_questions_become_french_words() -> None:
    assert translate_query("What was the revenue in 2024?", "en", "fr") == (
        "chiffre d'affaires recette 2024"
    )
    # "an" is also the English article: "par an" was read as nothing.
    assert translate_query("combien ça coûte par an ?", "fr", "en") == "costs per year annually"
    # The report's "41 000 ont été reconditionnés": "refurbished" was kept as typed.
    assert "reconditionné" in translate_query("How many devices were refurbished?", "en", "fr")


def test_only_french_and_english() -> None:
    assert len(lexicon("fr", "en").phrases) > 900
    with pytest.raises(ValueError):
        lexicon("fr", "de")


def test_a_question_is_translated_only_into_the_documents_languages() -> None:
    question = "Quelle est la politique de remboursement ?"
    english_docs = query_variants(question, None, followup=False, document_languages={"en": 1.0})
    # Over English documents the translation leads; the message as typed keeps a quarter,
    # shared by the sentence and its content words.
    assert [(v.name, v.text, v.weight) for v in english_docs] == [
        ("question", question, 0.125),
        ("translated", "policy refund", 1.0),
        ("content", "politique remboursement", 0.125),
    ]
    french_docs = query_variants(question, None, followup=False, document_languages={"fr": 1.0})
    assert [v.name for v in french_docs] == ["question"]
    mixed = query_variants(
        "What was the revenue?", None, followup=False, document_languages={"en": 0.8, "fr": 0.2}
    )
    assert [(v.name, round(v.weight, 3)) for v in mixed] == [
        ("question", 0.825),
        ("translated", 0.2),
        ("content", 0.025),
    ]
    assert [v.name for v in query_variants(question, None, followup=False)] == ["question"]
    # A language a few misdetected passages make up is not one the documents are in.
    misdetected = query_variants(
        "What was the revenue?", None, followup=False, document_languages={"en": 0.99, "fr": 0.01}
    )
    assert [(v.name, v.weight) for v in misdetected] == [("question", 1.0)]


def test_general_vocabulary_and_expressions_beyond_the_core() -> None:
    # Words and expressions of the general files, which the hand-curated core lacks.
    assert translate_query("Faut-il un prêt immobilier ?", "fr", "en") == "mortgage"
    assert translate_query("Est-ce héréditaire ?", "fr", "en") == "hereditary"
    assert translate_query("la pension alimentaire", "fr", "en") == "alimony support"
    # A plural finds the entry of its singular before the stem it shares with another
    # family ("parle" = speak; the core's "parlement" has the same stem).
    assert translate_query("dont tu parles", "fr", "en") == "speak talk"


def test_a_core_entry_keeps_its_senses_over_the_general_files() -> None:
    # "garantie" is in the core (warranty); the general files may not widen it.
    assert lexicon("fr", "en").forms[("garantie",)] == ("warranty",)


def test_history_words_of_a_french_conversation_recur_in_translation() -> None:
    from threadline.graph.condensation import PreviousTurn

    # The past French questions and the English answers name the same topic in two
    # languages: compared in translation, its words recur and are carried.
    previous = PreviousTurn(
        search_query="la pension alimentaire",
        answer="Spousal support is ordered by the court.",
        exchanges=(
            ("Comment fixer la pension alimentaire ?", "Alimony is set by the court."),
            ("Et pour la pension alimentaire des enfants ?", "Child support follows a guideline."),
        ),
    )
    variants = query_variants(
        "Combien de temps ?",
        previous,
        followup=True,
        document_languages={"en": 1.0},
    )
    recurring = next(v for v in variants if v.name == "recurring_translated")
    assert "alimony" in recurring.text.split()


def test_a_passage_vocabulary_translates_into_the_question_language() -> None:
    from threadline.knowledge.bilingual import translate_vocabulary
    from threadline.text import terms

    english = set(terms("Refunds are given within 30 days under the warranty."))
    french = translate_vocabulary(english, "en", "fr")
    assert set(terms("remboursement garantie")) <= french
    assert translate_vocabulary(english, "en", "de") == set()


def test_an_elided_article_votes_french() -> None:
    from threadline.text.language import detect_language

    # "d" alone is also the English "I'd": only its elided form says French.
    assert detect_language("d'autres jeux ?") == "fr"
    assert detect_language("I'd like other games") == "en"


def test_a_message_nothing_marks_takes_the_conversation_language() -> None:
    from threadline.graph.condensation import PreviousTurn
    from threadline.text.language import detect_language

    assert detect_language("Donation") == "en"
    assert detect_language("Donation", fallback="fr") == "fr"
    assert detect_language("What about gifts?", fallback="fr") == "en"
    previous = PreviousTurn(
        search_query="Quelle est la valeur de la maison ?",
        answer="The value of a home depends on its place.",
        exchanges=(("Quelle est la valeur de la maison ?", "The value depends on its place."),),
    )
    variants = query_variants("Valeur", previous, followup=True, document_languages={"en": 1.0})
    # One French word after French questions is translated like a French question.
    assert ("translated", "value") in [(v.name, v.text) for v in variants]


def test_a_name_is_not_translated_through_a_word_sharing_its_stem() -> None:
    # "james" shares its French stem with "jamais" (never); capitalised within the
    # sentence, it is a name. The first word of a sentence says nothing.
    assert translate_query("Parle-moi de Letitia James", "fr", "en").split()[-2:] == [
        "letitia",
        "james",
    ]
    assert "never" in translate_query("James, jamais ?", "fr", "en").split()


def test_a_capitalised_word_the_lexicon_holds_is_also_kept_as_a_name() -> None:
    # French writes its months in lower case: "sur Mars" is the planet (or a game's name),
    # "en mars" the month.
    assert translate_query("le jeu sur Mars", "fr", "en").split() == ["game", "march", "mars"]
    assert translate_query("le jeu en mars", "fr", "en").split() == ["game", "march"]


def test_a_word_typed_with_accents_is_not_kept_as_an_english_word() -> None:
    # "améliorable" is found by its stem only; typed with an accent, it is no English word.
    assert translate_query("une version améliorable", "fr", "en") == "version improvement"


def test_a_french_plural_gives_the_english_irregular_plural() -> None:
    # The index's stemmer keeps "children" and "child" apart.
    assert translate_query("les enfants", "fr", "en") == "children"
    assert translate_query("un enfant", "fr", "en") == "child"
    assert translate_query("les personnes ciblées", "fr", "en").startswith("people")


def test_unknown_learned_words_find_their_english_twin_by_suffix() -> None:
    from threadline.text.morphology import english_cognate

    assert english_cognate("infertilite") == "infertility"
    assert english_cognate("fluviaux") == "fluvial"
    assert english_cognate("dangereuses") == "dangerous"
    assert english_cognate("site") is None
    # Typed with accents, the French form is not kept beside its twin.
    assert translate_query("l'infertilité", "fr", "en") == "infertility"


def test_french_function_words_the_lexicon_lacks_are_dropped() -> None:
    assert translate_query("chimio et fertilité, avant la puberté", "fr", "en") == (
        "chimio fertility puberty"
    )
    assert translate_query("une plainte auprès d'autres États", "fr", "en") == (
        "complaint other state"
    )


def test_a_feminine_in_eure_finds_its_masculine() -> None:
    # "supérieure", "meilleure": the regular feminine of -eur, read as its masculine.
    assert translate_query("la meilleure", "fr", "en") == translate_query("le meilleur", "fr", "en")


def test_comparatives_and_superlatives_are_written_as_english_degrees() -> None:
    from threadline.text.morphology import degree

    # The index's stemmer keeps "largest" apart from "large".
    assert translate_query("le plus grand fleuve", "fr", "en") == "largest river"
    assert translate_query("plus grand que la Seine", "fr", "en").startswith("larger")
    assert translate_query("Lequel est le plus populaire ?", "fr", "en") == "most popular"
    # "meilleur" is a comparative of its own; the article makes it a superlative.
    assert translate_query("un meilleur investissement", "fr", "en") == "better investment"
    assert translate_query("la meilleure rivière", "fr", "en") == "best river"
    # "ne ... plus" is no comparison.
    assert translate_query("je ne peux plus payer", "fr", "en") == "more pay"
    assert degree("big", superlative=True) == "biggest"
    assert degree("easy", superlative=False) == "easier"
    assert degree("expensive", superlative=True) == "most expensive"


def test_a_degree_grades_the_adjective_senses_only() -> None:
    # "pratique = practice practical": "le plus pratique" is the most practical, and
    # "most practice" is no English a passage writes.
    assert translate_query("le plus pratique", "fr", "en") == "most practical"
    # A word with no adjective sense in the table keeps its senses.
    assert translate_query("le plus populaire", "fr", "en") == "most popular"


def test_a_verb_of_managing_before_an_infinitive_is_not_translated() -> None:
    # "arriver à" + infinitive is "manage to", which English asks with "can": the
    # infinitive is the topic, and "arrive happen" only added words.
    assert translate_query("je n'arrive pas à me connecter", "fr", "en") == "connect"
    assert translate_query("comment parvenir à réduire mes coûts", "fr", "en") == "reduce cost"
    # Without an infinitive after "à", "arriver" keeps its senses.
    assert translate_query("qu'est-ce qui arrive si je ne paie pas", "fr", "en") == (
        "arrive happen pay"
    )


def test_a_word_found_by_its_stem_only_takes_one_sense() -> None:
    # The stem "attent" is shared by "attente" (waiting, expectation), "attentif" and
    # "attentivement": through it, one sense, and the word as typed.
    assert translate_query("l'attention", "fr", "en") == "waiting attention"
    # A written form keeps all its senses.
    assert translate_query("le vol", "fr", "en") == "theft flight"


def test_the_typed_message_is_also_searched_as_its_content_words() -> None:
    # An English-only dense model reads French through the pieces it shares with English
    # (names, numbers, words spelt alike); the French function words around them only
    # pull its vector toward French text.
    question = "Est-ce que Vulnerability Advisor analyse les images chiffrées ?"
    assert content_words(question, "fr") == "Vulnerability Advisor analyse images chiffrées"
    assert content_words("Je suis aux US, donne-moi un taux de 3,5 % ici", "fr") == (
        "US donne taux 3,5"
    )
    assert content_words("comment je peux améliorer ma requête", "fr") == "améliorer requête"
    assert content_words("est-ce que c'est tout ?", "fr") == ""
    variants = query_variants(question, None, followup=False, document_languages={"en": 1.0})
    assert [(v.name, v.weight) for v in variants] == [
        ("question", 0.125),
        ("translated", 1.0),
        ("content", 0.125),
    ]
    # A message that is its content words already keeps its whole weight.
    bare = query_variants("garantie écran", None, followup=False, document_languages={"en": 1.0})
    assert [(v.name, v.weight) for v in bare if v.name != "translated"] == [("question", 0.25)]
    # Off, the sentence keeps the quarter alone.
    off = query_variants(
        question,
        None,
        followup=False,
        document_languages={"en": 1.0},
        config=FusionConfig(typed_content=0.0),
    )
    assert [(v.name, v.weight) for v in off] == [("question", 0.25), ("translated", 1.0)]


def test_a_bilingual_dense_model_reads_the_typed_sentence_whole() -> None:
    from threadline.graph.fusion import DEFAULT_FUSION, fusion_for_embeddings
    from threadline.settings import Settings

    # The split into content words is for English-only dense models (MiniLM, BM25 alone);
    # multilingual-e5-small reads the French sentence as it is, and lost turn 1 with it.
    for embeddings, model in (("hybrid", "minilm"), ("hybrid", "minilm-int8"), ("sparse", "")):
        settings = Settings(_env_file=None, embeddings=embeddings, dense_model=model or "minilm")
        assert fusion_for_embeddings(settings) == DEFAULT_FUSION
    e5 = Settings(_env_file=None, embeddings="hybrid", dense_model="e5-small")
    assert fusion_for_embeddings(e5).typed_content == 0.0
    assert fusion_for_embeddings(e5).untranslated == DEFAULT_FUSION.untranslated


def test_an_english_irregular_plural_is_translated_as_its_singular() -> None:
    # "and women?" over the French report: the lexicon lists "woman", and no -s ending
    # tells "women" is its plural, so the question found no "femmes".
    assert "femme" in translate_query("and women?", "en", "fr").split()
    # Read the other way, "femmes" is "women" as well as "woman" (two English stems).
    assert "women" in translate_vocabulary(set(terms("les femmes")), "fr", "en")


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("remboursment", "remboursement"),
        ("garentie", "garantie"),
        ("politque", "politique"),
        ("horraires", "horaires"),
    ],
)
def test_a_misspelt_french_word_is_the_lexicons_word_one_edit_away(typed, read):
    assert french_spelling(typed) == read


@pytest.mark.parametrize("word", ["remboursement", "internet", "samsung", "pase", "porte"])
def test_known_english_short_and_lexicon_words_are_no_misspellings(word):
    assert french_spelling(word) is None


def test_a_misspelt_french_question_is_translated_as_spelt_right():
    assert "refund" in translate_query("quelle est la politique de remboursment ?", "fr", "en")
    # Phrases too: "chiffre d'affaires" is the revenue.
    assert "revenue" in translate_query("Quel est le chiffre d'afaires 2024 ?", "fr", "en")


def test_the_phrases_a_question_holds_are_the_lexicons_multiword_keys():
    assert lexicon_phrases("Combien de jours de congés payés ai-je ?", "fr") == [
        ("conges payes", "leave")
    ]
    assert lexicon_phrases("Quel est le prix ?", "fr") == []


def test_a_french_clipping_is_read_as_its_words_unless_it_continues_a_name():
    # Round 12: "mon telephone pro" searched "pro" and quoted the Pixel 8 Pro; a
    # clipping is read as the word it clips, before the lexicon's phrases.
    from threadline.knowledge.bilingual import clipped_word, translate_query

    assert translate_query("que faire si je perd mon telephone pro ?", "fr", "en") == (
        "lose company phone"
    )
    assert "password" in translate_query("mon mdp doit faire combien de caracteres ?", "fr", "en")
    assert clipped_word("pro", "8") is None  # "pixel 8 pro"
    assert clipped_word("pro", "galaxy", names={"galaxy"}) is None
    assert clipped_word("pro", "telephone") == ("professionnel",)


def test_a_negated_verb_is_read_as_the_word_for_its_negation():
    # Round 12: "n'est pas respecté" was searched and checked as "respect"; the policy
    # says "misses". Read on the French side only (the lexicon is also read backwards).
    from threadline.knowledge.bilingual import read_negations, translate_query

    assert read_negations("Que se passe-t-il si le SLA n'est pas respecté ?") == (
        "Que se passe-t-il si le SLA manquer ?"
    )
    assert read_negations("Si Brightwell ne respecte pas le SLA") == "Si Brightwell manquer le SLA"
    assert read_negations("si le délai n'a pas été respecté") == "si le délai manquer"
    assert read_negations("le SLA non respecté") == "le SLA manquer"
    assert read_negations("Est-ce que le SLA est respecté ?") == "Est-ce que le SLA est respecté ?"
    assert read_negations("je ne veux pas") == "je ne veux pas"
    assert "miss" in translate_query("Que se passe-t-il si le SLA n'est pas respecté ?", "fr", "en")
    assert "respect" not in translate_query("that the SLA is missed", "en", "fr").split()
