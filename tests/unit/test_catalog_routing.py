"""Which questions the catalog tool answers: a list of products, not any mention of one."""

from __future__ import annotations

import pytest

from threadline.graph.catalog_requests import (
    RANKING_CRITERIA,
    best_without_criterion,
    chosen_criterion,
    listed_product,
    parse_catalog_request,
    reranked_on_the_same_spec,
    with_catalog_capitals,
)
from threadline.graph.routing import plan_turn

BRANDS = ["Samsung", "Apple", "Google", "Dell"]


@pytest.mark.parametrize(
    ("question", "args"),
    [
        ("Which laptops do you sell?", {"category": "laptop"}),
        ("What 5G phones are there?", {"category": "phone"}),
        ("What kind of laptops do you have?", {"category": "laptop"}),
        ("Show me laptops", {"category": "laptop"}),
        ("Quels sont les téléphones Samsung ?", {"category": "phone", "brand": "Samsung"}),
        ("Quels ordinateurs portables avez-vous ?", {"category": "laptop"}),
        ("Do you have phones?", {"category": "phone"}),
        ("What phones do you have under $500?", {"category": "phone", "max_price": 500.0}),
        # Round 12: "en dessous de" was no bound, and every phone was listed, $999 too.
        (
            "quels telephones vous avez en dessous de 500 dollars ?",
            {"category": "phone", "max_price": 500.0},
        ),
        (
            "Des portables au-dessus de 1000 $ ?",
            {"category": "laptop", "min_price": 1000.0},
        ),
    ],
)
def test_a_question_asking_which_products_is_a_catalog_search(question, args):
    call = parse_catalog_request(question, BRANDS)
    assert call is not None and call.name == "search_products" and call.args == args


@pytest.mark.parametrize(
    "question",
    [
        "What should I do if I lose my laptop?",
        "J'ai perdu mon ordinateur portable, que dois-je faire ?",
        "What is the warranty on my laptop?",
        "Which rules apply when I work remotely with my laptop?",
        "what about encryption on phones?",
        "any rules on phones?",
        "quelles règles pour les téléphones ?",
    ],
)
def test_a_question_about_a_laptop_is_a_document_question(question):
    assert parse_catalog_request(question, BRANDS) is None


@pytest.mark.parametrize(
    "question",
    [
        "what is their phone number?",
        "Quel est le numéro de téléphone du support ?",
        "Can I reach support by phone?",
        "Which phone line handles P1 incidents?",
    ],
)
def test_a_phone_as_a_way_to_call_is_no_product_category(question):
    assert parse_catalog_request(question, BRANDS) is None


LISTED = ["Apple MacBook Air 13 (M3)", "Dell XPS 13 (9340)"]


@pytest.mark.parametrize(
    ("question", "spec", "order"),
    [
        ("which one is lighter?", "weight_kg", "asc"),
        ("Lequel est le plus léger ?", "weight_kg", "asc"),
        ("which is cheaper?", "price_usd", "asc"),
        ("lequel est le moins cher ?", "price_usd", "asc"),
        ("which has the longer battery?", "battery_hours", "desc"),
        ("and which one has the biggest screen?", "display", "desc"),
    ],
)
def test_a_comparison_after_a_list_ranks_the_listed_products(question, spec, order):
    plan = plan_turn(
        question,
        outline=[],
        source_titles=LISTED,
        has_previous_turn=True,
        listed_products=LISTED,
        listed_category="laptop",
    )
    assert plan.route == "tool" and plan.tool is not None
    assert plan.tool.name == "rank_products"
    assert plan.tool.args == {"spec": spec, "order": order, "names": LISTED, "limit": 2}


def test_a_comparison_naming_a_category_ranks_the_whole_category():
    plan = plan_turn(
        "which laptop is the lightest?",
        outline=[],
        source_titles=LISTED,
        has_previous_turn=True,
        listed_products=LISTED,
        listed_category="laptop",
    )
    assert plan.tool is not None and "names" not in plan.tool.args
    assert plan.tool.args["category"] == "laptop"


CHEAPEST = ["Acer Aspire 5 (A515-58)", "HP Pavilion 15", "Lenovo IdeaPad Slim 5 14"]


def after_the_cheapest_laptops(question):
    """Plan a message after "What is the cheapest laptop?" (the three cheapest shown)."""
    return plan_turn(
        question,
        outline=[],
        source_titles=CHEAPEST,
        has_previous_turn=True,
        listed_products=CHEAPEST,
        listed_category="laptop",
        listed_is_cut=True,
    )


@pytest.mark.parametrize("question", ["and the most expensive?", "Et le plus cher ?"])
def test_a_new_superlative_after_the_top_of_a_category_ranks_the_category(question):
    # The three cheapest are a cut of the laptops: the most expensive of them is the
    # third cheapest, not the most expensive laptop.
    plan = after_the_cheapest_laptops(question)
    assert plan.tool is not None and plan.tool.name == "rank_products"
    assert plan.tool.args == {"spec": "price_usd", "order": "desc", "category": "laptop"}


def test_a_new_superlative_after_a_document_answer_ranking_a_category_ranks_it_all():
    # "Quel est le portable le plus cher ?" answered from the documents cited the
    # ThinkPad and the Dell: "et le moins cher ?" ranked those two, not the laptops.
    plan = plan_turn(
        "et le moins cher ?",
        outline=[],
        source_titles=[],
        has_previous_turn=True,
        discussed_products=["Lenovo ThinkPad X1 Carbon Gen 12", "Dell XPS 13 (9340)"],
        listed_category="laptop",
        listed_is_cut=True,
    )
    assert plan.tool is not None and plan.tool.name == "rank_products"
    assert plan.tool.args == {"spec": "price_usd", "order": "asc", "category": "laptop"}


@pytest.mark.parametrize("question", ["which one is the lightest?", "lequel est le plus léger ?"])
def test_a_superlative_chosen_among_the_top_shown_ranks_those(question):
    plan = after_the_cheapest_laptops(question)
    assert plan.tool is not None and plan.tool.args["names"] == CHEAPEST


@pytest.mark.parametrize(
    ("question", "rank"),
    [("Quelle est l'autonomie du deuxième ?", 2), ("the second one", 2), ("et du dernier ?", 2)],
)
def test_an_ordinal_after_de_or_a_points_into_the_list(question, rank):
    assert listed_product(question, LISTED) == (rank, "ordinal")


@pytest.mark.parametrize(
    ("question", "args"),
    [
        (
            "Which laptops weigh less than 1.3 kg?",
            {"spec": "weight_kg", "order": "asc", "category": "laptop", "max_value": 1.3}
            | {"exclusive": True},
        ),
        (
            "phones with more than 5000 mAh",
            {"spec": "battery_mah", "order": "desc", "category": "phone", "min_value": 5000.0}
            | {"exclusive": True},
        ),
        (
            "laptops with at least 16 GB of RAM",
            {"spec": "ram_gb", "order": "desc", "category": "laptop", "min_value": 16.0},
        ),
        (
            "ordinateurs portables de plus de 1 To",
            {"spec": "storage_gb", "order": "desc", "category": "laptop", "min_value": 1000.0}
            | {"exclusive": True},
        ),
    ],
)
def test_a_bound_with_a_unit_filters_that_spec_not_the_price(question, args):
    call = parse_catalog_request(question, BRANDS)
    assert call is not None and call.name == "rank_products"
    assert call.args == {**args, "limit": 10}


@pytest.mark.parametrize(
    ("question", "spec", "low", "high"),
    [
        ("Which laptops have 16 GB of RAM?", "ram_gb", 16.0, 16.0),
        ("Quels ordinateurs portables ont 16 Go de RAM ?", "ram_gb", 16.0, 16.0),
        ("phones with 256 GB", "storage_gb", 256.0, 256.0),
        ("laptops with 1 TB of storage", "storage_gb", 1024.0, 1024.0),
        ("laptops from 8 to 16 GB of RAM", "ram_gb", 8.0, 16.0),
        ("ordinateurs portables entre 1 et 1,3 kg", "weight_kg", 1.0, 1.3),
    ],
)
def test_a_spec_value_with_its_unit_lists_the_products_with_that_value(question, spec, low, high):
    # Listed before as every laptop (a listing cue and a category): the 8 GB ones too.
    call = parse_catalog_request(question, BRANDS)
    assert call is not None and call.name == "rank_products"
    assert call.args["spec"] == spec and call.args["category"] in ("phone", "laptop")
    assert (call.args["min_value"], call.args["max_value"]) == (low, high)


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("Compare les deux premiers", LISTED[:2]),
        ("compare the first two", LISTED[:2]),
        ("compare them", LISTED),
        ("Compare-les", LISTED),
    ],
)
def test_compare_without_names_compares_the_listed_products(question, names):
    plan = plan_turn(
        question, outline=[], source_titles=[], has_previous_turn=True, listed_products=LISTED
    )
    assert plan.tool is not None and plan.tool.name == "compare_products"
    assert plan.tool.args == {"names": names}


def test_which_of_those_ranks_the_products_a_summary_was_about():
    overview = ["Nokia G42 5G", "Google Pixel 8a", "Apple iPhone 15"]
    plan = plan_turn(
        "which of those is cheapest?",
        outline=[],
        source_titles=[],
        has_previous_turn=True,
        discussed_products=overview,
        listed_category="phone",
    )
    assert plan.tool is not None and plan.tool.args["names"] == overview
    # An ordinal stays a reference into the summary's outline, not into its products.
    second = plan_turn(
        "tell me more about the second one",
        outline=[],
        source_titles=[],
        has_previous_turn=True,
        discussed_products=overview,
    )
    assert second.tool is None


def after_an_answer_on(question: str, subject: str | None):
    """The plan of a message after an answer about `subject` (None: about no product)."""
    return plan_turn(
        question,
        outline=[],
        source_titles=[],
        has_previous_turn=True,
        brands=BRANDS,
        subject_product=subject,
    )


@pytest.mark.parametrize(
    ("question", "specs"),
    [
        ("How much RAM does it have?", ["ram_gb"]),
        ("And the battery life?", ["battery_hours", "battery_mah"]),
        ("Et son poids ?", ["weight_kg"]),
        ("Combien coûte-t-il ?", ["price_usd"]),
        ("How much does it cost?", ["price_usd"]),
        ("does it have an OLED screen?", ["display"]),
        ("What about the warranty?", ["warranty_years"]),
    ],
)
def test_a_spec_asked_of_the_product_discussed_is_looked_up(question, specs):
    plan = after_an_answer_on(question, "Acer Aspire 5 (A515-58)")
    assert plan.route == "tool" and plan.tool is not None
    assert plan.tool.name == "get_product"
    assert plan.tool.args == {"name": "Acer Aspire 5 (A515-58)", "specs": specs}
    assert plan.reference is not None and plan.reference.ref_type == "anaphora"


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        # No product under discussion (a list that ranks nothing): the documents answer.
        ("How much RAM does it have?", None),
        # No spec word: the documents say what the catalog does not.
        ("is it water resistant?", "Acer Aspire 5 (A515-58)"),
        ("And the Enterprise plan?", "Acer Aspire 5 (A515-58)"),
        # A brand named: a question about that brand's product.
        ("How much does the Samsung cost?", "Acer Aspire 5 (A515-58)"),
    ],
)
def test_other_follow_ups_are_no_lookup_of_the_product_discussed(question, subject):
    plan = after_an_answer_on(question, subject)
    assert plan.tool is None or plan.tool.name != "get_product"


def after_a_list(question: str):
    """The plan of a message after a list of two phones that ranks neither first."""
    return plan_turn(
        question,
        outline=[],
        source_titles=[],
        has_previous_turn=True,
        brands=BRANDS,
        listed_products=["Nokia G42 5G", "Motorola Moto G Power 5G (2024)"],
    )


def test_an_ordinal_with_a_spec_looks_up_that_spec():
    plan = after_a_list("Quelle est l'autonomie du deuxième ?")
    assert plan.tool is not None and plan.tool.args == {
        "name": "Motorola Moto G Power 5G (2024)",
        "specs": ["battery_hours", "battery_mah"],
    }


def test_a_spec_of_it_after_a_list_that_ranks_nothing_asks_which():
    plan = after_a_list("How much RAM does it have?")
    assert plan.route == "clarify" and plan.tool is None
    assert plan.reference is not None and plan.reference.reason == "which_product"


def test_the_product_discussed_is_the_last_answer_with_sources():
    from threadline.graph.catalog_requests import subject_product

    known = {"OnePlus 12", "Motorola Moto G Power 5G (2024)", "Google Pixel 8 Pro"}
    ranking = {
        "question": "Which phone has the biggest screen?",
        "route": "tool",
        "titles": [
            "OnePlus 12 — OnePlus phone",
            "Motorola Moto G Power 5G (2024) — Motorola phone",
            "Google Pixel 8 Pro — Google phone",
        ],
    }
    declined = {"question": "Does it support 5G?", "route": "followup_context", "titles": []}
    listing = {**ranking, "question": "Which phones cost less than $1000?"}
    assert subject_product([ranking], known) == "OnePlus 12"  # the first of a ranking
    assert subject_product([ranking, declined], known) == "OnePlus 12"
    assert subject_product([listing], known) is None  # a list ranks nothing
    page = {
        "question": "Tell me about the Pixel 8 Pro",
        "route": "standalone",
        "titles": ["Brightwell product catalog 2024 — Google Pixel 8 Pro"],
    }
    assert subject_product([ranking, page], known) == "Google Pixel 8 Pro"
    # A declined question asked on its own leaves the product: "how much is it?" after
    # "Do you sell tablets?" is no question about the Pixel 8 Pro.
    tablets = {"question": "Do you sell tablets?", "route": "followup_context", "titles": []}
    assert subject_product([page, tablets], known) is None
    price = {"question": "le prix ?", "route": "followup_context", "titles": []}
    assert subject_product([page, price], known) == "Google Pixel 8 Pro"


@pytest.mark.parametrize(
    ("question", "of_the_subject"),
    [
        ("Does it support 5G?", True),
        ("Et son poids ?", True),
        ("and the battery?", True),
        ("le prix ?", True),
        ("Do you sell tablets?", False),
        ("des montres connectées ?", False),
    ],
)
def test_a_question_is_asked_of_the_subject_or_names_its_own(question, of_the_subject):
    from threadline.graph.question_terms import asks_of_the_subject

    assert asks_of_the_subject(question) is of_the_subject


@pytest.mark.parametrize(
    ("question", "category"),
    [
        ("Quel est le meilleur téléphone ?", "phone"),
        ("What's the best laptop?", "laptop"),
        ("Which phone is the best?", "phone"),
        # Asking what to buy names no criterion either: it was a list of every phone.
        ("Which phone should I buy?", "phone"),
        ("What laptop would you recommend?", "laptop"),
        ("Can you recommend me a phone?", "phone"),
        ("Quel téléphone acheter ?", "phone"),
        ("Quel ordinateur portable me conseillez-vous ?", "laptop"),
        ("Recommande-moi un téléphone", "phone"),
    ],
)
def test_best_with_no_criterion_is_asked_back(question, category):
    assert best_without_criterion(question) == category
    plan = plan_turn(question, outline=[], source_titles=[], has_previous_turn=False)
    assert plan.route == "clarify" and plan.tool is None
    assert plan.reference is not None and plan.reference.reason == "which_criterion"


@pytest.mark.parametrize(
    "question",
    [
        "Which phone has the best camera?",
        "Quel ordinateur portable a la meilleure autonomie ?",
        "What is the best-selling phone?",
        "What is the best phone under $500?",
        "What is the best way to secure my laptop?",
        "Which phone should I buy for the best camera?",
        "Which laptop should I buy under $1000?",
        "Which phone do you recommend with the biggest battery?",
        "Quel téléphone acheter à moins de 500 $ ?",
        "Which phone do I need to enrol in MFA?",
    ],
)
def test_best_with_a_criterion_is_not_asked_back(question):
    # A spec, a sale count, a price bound: something to rank on; "the best way" is the
    # best of a way, not of a laptop (a document question).
    assert best_without_criterion(question) is None


@pytest.mark.parametrize("category", sorted(RANKING_CRITERIA))
def test_every_criterion_offered_is_a_ranking_of_its_category(category):
    # A chip clicked sends its question: it must rank the category, in either language.
    for _, _, english, french in RANKING_CRITERIA[category]:
        for question in (english, french):
            call = parse_catalog_request(question, BRANDS)
            assert call is not None and call.name == "rank_products", question
            assert call.args["category"] == category, question


@pytest.mark.parametrize(
    ("reply", "meant"),
    [
        ("prix", "Quel est le téléphone le moins cher ?"),
        ("le prix", "Quel est le téléphone le moins cher ?"),
        ("Batterie", "Quel téléphone a la plus grande batterie ?"),
        ("by price", "Which phone is the cheapest?"),
        ("battery", "Which phone has the biggest battery?"),
        ("the camera please", "Which phone has the best camera?"),
    ],
)
def test_a_typed_criterion_after_best_asked_back_is_its_ranking(reply, meant):
    assert chosen_criterion(reply, "Quel est le meilleur téléphone ?") == meant


@pytest.mark.parametrize(
    ("reply", "previous"),
    [
        ("prix", "Quel est le SLA du plan Business ?"),  # no "best" asked back
        ("le prix du Pixel 8a", "Quel est le meilleur téléphone ?"),  # more than a criterion
        ("weight", "Which is the best phone?"),  # not a phone's criterion
    ],
)
def test_other_replies_choose_no_criterion(reply, previous):
    assert chosen_criterion(reply, previous) is None


@pytest.mark.parametrize(
    ("message", "previous", "args"),
    [
        (
            "and the smallest?",
            "Which phone has the biggest screen?",
            {"spec": "display", "order": "asc", "category": "phone"},
        ),
        (
            "et la plus petite ?",
            "Quel téléphone a la plus grande batterie ?",
            {"spec": "battery_mah", "order": "asc", "category": "phone"},
        ),
    ],
)
def test_a_bare_superlative_after_a_ranking_ranks_the_same_spec_its_way(message, previous, args):
    tool = reranked_on_the_same_spec(message, previous, ["Samsung", "Google"])
    assert tool is not None and tool.args == args


@pytest.mark.parametrize(
    ("message", "previous"),
    [
        ("et le moins cher ?", "Quel ordinateur portable a la plus grande autonomie ?"),
        ("and the smallest?", "What is the SLA of the Business plan?"),
    ],
)
def test_a_superlative_with_its_own_spec_or_after_no_ranking_is_read_as_usual(message, previous):
    assert reranked_on_the_same_spec(message, previous, ["Samsung"]) is None


_NAMES = ["Google Pixel 8 Pro", "Google Pixel 8a", "Motorola Moto G Power 5G (2024)"]


@pytest.mark.parametrize(
    ("typed", "written"),
    [
        ("is the pixel 8 pro waterproof", "is the Pixel 8 Pro waterproof"),
        ("does the moto g have good battery power", "does the Moto G have good battery power"),
        ("is the pixel waterproof", "is the pixel waterproof"),  # one word: no name in a row
    ],
)
def test_a_catalog_name_typed_in_lower_case_takes_its_capitals(typed, written):
    assert with_catalog_capitals(typed, _NAMES) == written


def test_a_ranking_honours_the_system_named():
    request = parse_catalog_request("What is the cheapest phone running Android 13?", [])
    assert request is not None and request.name == "rank_products"
    assert request.args["os"] == "android 13"


@pytest.mark.parametrize(
    ("question", "route"),
    [
        # What the assistant does and which documents it reads: its own answer.
        ("What can you help me with?", "reply"),
        ("Which files do you have access to?", "reply"),
        ("what kind of documents can you read?", "reply"),
        ("Quels sujets couvrez-vous ?", "reply"),
        ("en quoi peux-tu m'aider ?", "reply"),
        ("vous pouvez faire quoi pour moi ?", "reply"),
        # The documents or the catalog asked a question: a search or a tool.
        ("What documents do I need to return a phone?", "standalone"),
        ("What can you tell me about the Business plan?", "standalone"),
        ("Quels documents faut-il pour un retour ?", "standalone"),
        ("What phones do you have?", "tool"),
    ],
)
def test_a_question_about_the_assistant_is_answered_by_it_not_searched(question, route):
    plan = plan_turn(question, outline=[], source_titles=[], has_previous_turn=False)
    assert plan.route == route


@pytest.mark.parametrize(
    ("question", "spec", "category"),
    [
        ("Which phone should I buy for my dad? Nothing fancy, affordable", "price_usd", "phone"),
        ("Quel téléphone me conseillez-vous ? Je veux un truc pas cher", "price_usd", "phone"),
        ("Which laptop would you recommend? It has to be lightweight", "weight_kg", "laptop"),
    ],
)
def test_a_recommendation_with_a_quality_wanted_ranks_on_it(question, spec, category):
    # "cheap" names the price, "light" the weight: the cheapest (lightest) first, not
    # "Best on which criterion?".
    assert best_without_criterion(question) is None
    request = parse_catalog_request(question, BRANDS)
    assert request is not None and request.name == "rank_products"
    assert request.args == {"spec": spec, "order": "asc", "category": category}
    # Asked of a product named, the quality is a question about it, no ranking.
    assert parse_catalog_request("is the Pixel 8a cheap?", BRANDS) is None
