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


def test_two_named_products_compared_are_read_with_the_spec():
    from threadline.graph.catalog_requests import compared_pair

    assert compared_pair("Is the MacBook Air heavier than the Dell XPS 13?", None) == (
        {"spec": "weight_kg", "order": "desc"},
        "macbook air",
        "the dell xps 13",
    )
    # "est-ce que" opens the question: its "que" is no "than".
    assert compared_pair("Est-ce que le Galaxy S24 est moins cher que le Pixel 8a ?", None) == (
        {"spec": "price_usd", "order": "asc"},
        "galaxy s24",
        "le pixel 8a",
    )
    # "it" is the product discussed, read by compared_to_it with the conversation.
    assert compared_pair("is it cheaper than the MacBook Air?", None) is None


def test_what_is_the_spec_asks_a_spec_of_the_product_discussed():
    from threadline.graph.catalog_requests import asks_a_spec_of_it

    assert asks_a_spec_of_it("what's the battery capacity?")
    assert asks_a_spec_of_it("Quel est le poids ?")
    # A question on a document's subject is none.
    assert not asks_a_spec_of_it("What is the refund policy?")
    assert not asks_a_spec_of_it("what are the support hours?")


def test_an_amount_of_a_spec_alone_asks_it_of_the_product_discussed():
    from threadline.graph.catalog_requests import asks_a_spec_of_it

    # "how much RAM?" after the OnePlus 12 quoted three phones' spec sentences.
    assert asks_a_spec_of_it("how much RAM?")
    assert asks_a_spec_of_it("combien de stockage ?")
    assert asks_a_spec_of_it("combien d'autonomie ?")
    assert not asks_a_spec_of_it("android phones?")
    assert not asks_a_spec_of_it("How much storage space do I need for photos and videos?")


_NAMES = [
    "Dell XPS 13 (9340)",
    "Apple MacBook Air 13 (M3)",
    "Lenovo ThinkPad X1 Carbon Gen 12",
    "Lenovo IdeaPad Slim 5 14",
    "Google Pixel 8a",
    "Google Pixel 8 Pro",
    "Samsung Galaxy S24",
    "Samsung Galaxy A55 5G",
]


def test_a_product_is_named_by_a_word_only_its_name_has():
    from threadline.graph.catalog_requests import named_product

    assert named_product("price and weight of the XPS 13?", _NAMES) == "Dell XPS 13 (9340)"
    assert named_product("le prix et la garantie du Pixel 8a ?", _NAMES) == "Google Pixel 8a"
    assert named_product("the lenovo thinkpad, how much?", _NAMES) == (
        "Lenovo ThinkPad X1 Carbon Gen 12"
    )
    # Shared words name none; a model number no name has names no product; two, neither.
    assert named_product("price of the Galaxy?", _NAMES) is None
    assert named_product("How much does the Galaxy S25 cost?", _NAMES) is None
    assert named_product("the MacBook Air and the XPS 13", _NAMES) is None


def test_a_multi_part_question_counts_each_spec_it_asks():
    from threadline.graph.catalog_requests import asked_specs, spec_words

    assert spec_words("price and weight of the XPS 13?") == 2
    assert spec_words("Quel est le poids et l'autonomie du MacBook Air ?") == 2
    assert spec_words("What is the battery life of the XPS 13?") == 1
    # "how much is it" asks the price, beside what the rest asks.
    assert asked_specs("how much is it and how much does it weigh?") == ["price_usd", "weight_kg"]


def test_a_function_or_number_word_before_a_category_word_is_no_unknown_brand():
    from threadline.graph.catalog_requests import unknown_brand

    for question in ("list the laptops", "show me three phones", "show me your laptops"):
        assert unknown_brand(question, BRANDS) is None, question
    assert unknown_brand("any huawei phones?", BRANDS) == "huawei"


def test_a_french_superlative_or_comparative_of_size_ranks_its_spec():
    from threadline.graph.catalog_requests import compared_pair, parse_catalog_request

    def ranked(question: str) -> tuple[str, str] | None:
        request = parse_catalog_request(question, BRANDS)
        if request is None or request.name != "rank_products":
            return None
        return request.args["spec"], request.args["order"]

    # The adjective before or after its noun, « plus » or « moins », « le plus de ».
    assert ranked("Quel téléphone a la plus grosse batterie ?") == ("battery_mah", "desc")
    assert ranked("quel smartphone a la batterie la plus grosse ?") == ("battery_mah", "desc")
    assert ranked("quel telephone a la moins grosse batterie ?") == ("battery_mah", "asc")
    assert ranked("le portable dont l'ecran est le plus petit") == ("display", "asc")
    assert ranked("quel pc portable a l'autonomie la plus faible ?") == ("battery_hours", "asc")
    assert ranked("le telephone avec le plus de mémoire vive") == ("ram_gb", "desc")
    assert ranked("quel laptop a le moins de stockage ?") == ("storage_gb", "asc")
    assert ranked("quel telephone a le prix le plus bas ?") == ("price_usd", "asc")
    # "le meilleur prix" is the lowest, not the highest: no direction read from "meilleur".
    assert ranked("quel telephone a le meilleur prix ?") is None
    # Without its article, the comparative: between two named products.
    assert compared_pair(
        "Est-ce que le Galaxy S24 a une plus grosse batterie que le Pixel 8a ?", "phone"
    ) == ({"spec": "battery_mah", "order": "desc"}, "galaxy s24", "le pixel 8a")


def test_a_sort_of_the_products_shown_orders_them_on_the_spec_asked():
    from threadline.graph.catalog_requests import sort_listed

    shown = ["Dell XPS 13 (9340)", "HP Pavilion 15", "Acer Aspire 5 (A515-58)"]

    def sorted_on(question: str, category: str | None = "laptop") -> tuple[str, str] | None:
        request = sort_listed(question, shown, category)
        if request is None:
            return None
        assert request.args["names"] == shown and request.args["limit"] == len(shown)
        return request.args["spec"], request.args["order"]

    assert sorted_on("sort them by price") == ("price_usd", "asc")
    assert sorted_on("order those by weight, heaviest first") == ("weight_kg", "desc")
    # No end said: the better end first, the most of a spec that is better bigger.
    assert sorted_on("trie-les par autonomie") == ("battery_hours", "desc")
    assert sorted_on("sort them by RAM") == ("ram_gb", "desc")
    assert sorted_on("sort them by weight") == ("weight_kg", "asc")
    assert sorted_on("trie-les par autonomie, par ordre croissant") == ("battery_hours", "asc")
    assert sorted_on("sort them by battery, smallest first") == ("battery_hours", "asc")
    assert sorted_on("classe-les du plus cher au moins cher") == ("price_usd", "desc")
    assert sorted_on("rank them from cheapest to most expensive") == ("price_usd", "asc")
    assert sorted_on("order them by camera, best first") == ("camera_mp", "desc")
    assert sorted_on("sort them by price, best first") == ("price_usd", "asc")
    assert sorted_on("trie-les par garantie, la plus longue garantie en premier") == (
        "warranty_years",
        "desc",
    )
    # No sort, another kind of product, or a battery of no known unit: no sort of those.
    assert sorted_on("how do I order the cheaper one?") is None
    assert sorted_on("can I order them online?") is None
    assert sorted_on("sort the phones by price") is None
    assert sorted_on("sort them by battery", None) is None


def test_a_budget_bounds_the_price():
    from threadline.graph.catalog_requests import best_without_criterion, parse_catalog_request

    def max_price(question: str) -> float | None:
        request = parse_catalog_request(question, BRANDS)
        assert request is not None and request.name == "search_products", question
        return request.args.get("max_price")

    assert max_price("I need a phone for my field technicians, budget 300 dollars") == 300
    assert max_price("my budget is $1,200, which laptop?") == 1200
    assert max_price("un téléphone pour un budget de 450 $") == 450
    assert max_price("a $500 budget phone") == 500
    assert max_price("quel portable pour 800 $ de budget ?") == 800
    assert max_price("budget de 1 200 € pour un portable") == 1200
    # A budget is a criterion: "what phones can I get?" is not "best on which criterion?".
    assert max_price("My budget is $450, what phones can I get?") == 450
    assert best_without_criterion("My budget is $450, what phones can I get?") is None
    # A year is no amount of money: the list is not bounded by it.
    assert max_price("which laptops are in the budget 2025?") is None


def test_one_product_asked_of_without_its_name():
    from threadline.graph.catalog_requests import asks_of_one_unnamed

    for question in ("does it have 5G?", "Is it waterproof?", "what's its screen?",
                     "A-t-il la 5G ?", "Quel est son écran ?",
                     "est-ce qu'il a la 5G ?"):  # fmt: skip
        assert asks_of_one_unnamed(question, BRANDS), question
    for question in ("is it possible to pay in three instalments?", "how long does it take?",
                     "does the Samsung have 5G?", "which ones have 5G?"):  # fmt: skip
        assert not asks_of_one_unnamed(question, BRANDS), question
