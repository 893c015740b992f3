"""The text package: one fold for search and phrases, stopwords per language, package data."""

from __future__ import annotations

import tomllib

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
