"""Catalog questions read without the catalog's data: product lines, choices among shown."""

from __future__ import annotations

from threadline.graph.catalog_requests import chooses_among_shown, product_line

BRANDS = ["Samsung", "Google", "Apple", "Lenovo"]
NAMES = ["Samsung Galaxy A55 5G", "Samsung Galaxy S24", "Google Pixel 8a", "Lenovo ThinkPad X1"]


def test_a_word_of_some_products_names_against_a_category_is_a_product_line():
    # "Do you sell Galaxy phones?" listed every phone: a line is no brand.
    assert product_line("Do you sell Galaxy phones?", BRANDS, NAMES) == "Galaxy"
    assert product_line("Avez-vous des téléphones Pixel ?", BRANDS, NAMES) == "Pixel"
    # A brand filters by brand; a word no product has is an unknown brand, not a line.
    assert product_line("Do you sell Samsung phones?", BRANDS, NAMES) is None
    assert product_line("Do you have any Huawei phones?", BRANDS, NAMES) is None


def test_which_one_chooses_among_the_products_shown():
    assert chooses_among_shown("which one is cheaper?")
    assert chooses_among_shown("lequel est le plus léger ?")
    assert not chooses_among_shown("What is the cheapest phone?")
