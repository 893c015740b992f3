"""The text package: one fold for search and phrases, stopwords per language, package data."""

from __future__ import annotations

import tomllib

import pytest

from support.paths import ROOT
from threadline.text import STOPWORDS, fold, fold_with_origin, words
from threadline.text.lexicons import BILINGUAL_LEXICON_FILE, LEXICONS, en, fr


def test_phrase_fold_is_the_search_fold_plus_phrase_punctuation() -> None:
    text = "Parle-moi du n° 2 — Łódź, « Sécurité » et l’Œuvre  de Søren"
    folded = fold_with_origin(text)
    assert folded.text == 'parle moi du no 2 lodz, " securite " et l\'oeuvre de soren'
    # Letters fold exactly as the sparse index folds them.
    search = fold(text).replace("°", "o")
    assert folded.text.split() == search.replace("-", " ").replace("—", " ").split()


def test_phrase_fold_maps_back_to_the_original() -> None:
    folded = fold_with_origin("  Détaille   S2 ")
    start = folded.text.index("s2")
    assert folded.original[folded.origin[start]] == "S"
    assert folded.text == "detaille s2"
    assert words(folded.text) == ["detaille", "s2"]


def test_index_stopwords_are_the_union_of_each_language() -> None:
    assert STOPWORDS == en.SEARCH_STOPWORDS | fr.SEARCH_STOPWORDS
    # Folded French forms that are English content words stay searchable.
    assert not {"son", "car", "plus", "ai", "eu"} & STOPWORDS


def test_every_language_has_its_followup_lexicon() -> None:
    assert LEXICONS == {"en": en.FOLLOWUPS, "fr": fr.FOLLOWUPS}


def test_bilingual_lexicon_ships_as_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["threadline"]
    package = ROOT / "src" / "threadline"
    shipped = {p for pattern in patterns for p in package.glob(pattern)}
    assert BILINGUAL_LEXICON_FILE in shipped
    assert BILINGUAL_LEXICON_FILE.read_text(encoding="utf-8").count(" = ") > 900


def test_remembered_analyses_hand_each_caller_its_own_copy() -> None:
    # `terms` and `acronyms` remember their results by text; a caller that edits what it
    # got (a set it extends, a list it filters) must not change the next caller's.
    from threadline.text import terms
    from threadline.text.matching import acronyms

    text = "The United States office refunds the Net Promoter Score survey."
    first = terms(text)
    first.append("injected")
    first_acronyms = acronyms(text)
    first_acronyms.add("injected")
    assert "injected" not in terms(text)
    assert "injected" not in acronyms(text)
    assert terms(text) == ["unit", "state", "offic", "refund", "net", "promot", "score", "survey"]
    assert {"us", "usa", "nps"} <= acronyms(text)


def test_the_language_vote_follows_a_lexicon_added_after_a_text_was_voted_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The vote is remembered per text; a lexicon added later must take part all the same.
    from threadline.text.language import detect_language
    from threadline.text.lexicons.base import Lexicon

    text = "Erzähl mir mehr über den Teil und das Ende"
    before = detect_language(text)
    german = Lexicon(
        code="de",
        section_nouns=("abschnitt",),
        point_nouns=("punkt",),
        document_nouns=("dokument",),
        ordinal_words={"ersten": 1},
        definite_articles=("den", "der", "die", "das"),
        elaboration=("mehr dazu",),
        anaphora=("dazu",),
        stopwords=("der", "die", "das", "und", "mir", "mehr", "über", "den"),
    )
    monkeypatch.setitem(LEXICONS, "de", german)
    assert detect_language(text) == "de"
    monkeypatch.delitem(LEXICONS, "de")
    assert detect_language(text) == before
    assert detect_language("Zzyzx", fallback="fr") == "fr"


def test_a_french_adverb_is_no_stem_of_an_english_noun() -> None:
    # English stemming makes "environment" "environ", the French "about".
    from threadline.text import terms

    assert not set(terms("recruter environ 300 personnes")) & set(terms("the environment"))
