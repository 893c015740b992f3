"""Follow-ups on a catalog answer, through the chat service on the sample data.

A comparison between the products just shown ranks them and no others, an ordinal
after "du" points into the list, and a phone number asked for is no list of phones.
"""

from __future__ import annotations

import uuid

import pytest

from threadline.chat import ChatService, TurnRequest


@pytest.fixture(scope="module")
def chat(sample_services) -> ChatService:
    return ChatService(sample_services)


def conversation(chat: ChatService, *messages: str):
    thread = f"cat-{uuid.uuid4().hex[:8]}"
    return [chat.run_turn(TurnRequest(query=m, thread_id=thread)) for m in messages]


def test_which_one_is_lighter_after_a_comparison_ranks_the_two_compared(chat):
    _, lighter = conversation(
        chat, "Compare the MacBook Air and the Dell XPS 13", "which one is lighter?"
    )
    assert lighter.outcome == "tool_answer"
    # The Dell (1.19 kg) first, then the MacBook (1.24 kg); not the lightest laptop of
    # the catalog (the ThinkPad X1 Carbon, 1.09 kg), which was not compared.
    assert [c["title"] for c in lighter.citations] == [
        "Dell XPS 13 (9340)",
        "Apple MacBook Air 13 (M3)",
    ]
    first, second = lighter.answer.splitlines()[-2:]
    assert "1.19 kg" in first and "1.24 kg" in second


def test_an_ordinal_after_du_is_the_listed_product(chat):
    _, battery = conversation(
        chat, "Quels téléphones coûtent moins de 400 $ ?", "Quelle est l'autonomie du deuxième ?"
    )
    assert battery.outcome == "tool_answer"
    assert [c["title"] for c in battery.citations] == ["Motorola Moto G Power 5G (2024)"]
    assert "5000 mAh" in battery.answer


def test_their_phone_number_lists_no_phones(chat):
    _, number = conversation(chat, "Who handles escalations?", "what is their phone number?")
    assert number.route != "tool"
    assert not any(c["title"].startswith("Nokia") for c in number.citations)


def test_a_weight_bound_lists_the_laptops_under_it_and_cheapest_ranks_them(chat):
    light, cheapest = conversation(
        chat, "Which laptops weigh less than 1.3 kg?", "Which one is the cheapest?"
    )
    assert light.outcome == "tool_answer"
    weights = [
        float(line.split("weight: ")[1].split(" kg")[0]) for line in light.answer.splitlines()
    ]
    assert weights == sorted(weights) and len(weights) >= 2 and max(weights) <= 1.3
    # The cheapest of those light laptops, not of the whole catalog.
    assert cheapest.citations[0]["title"] == "ASUS Zenbook 14 OLED (UX3405)"
    assert {c["title"] for c in cheapest.citations} == {c["title"] for c in light.citations}


def test_more_than_a_bound_leaves_the_bound_out(chat):
    (strong,) = conversation(chat, "phones with more than 5000 mAh")
    titles = [c["title"] for c in strong.citations]
    assert titles[0] == "OnePlus 12"  # 5400 mAh first
    # The Nokia G42 and the Moto G Power have 5000 mAh: not more than 5000.
    assert "Nokia G42 5G" not in titles and "Motorola Moto G Power 5G (2024)" not in titles


def test_compare_the_first_two_of_a_list(chat):
    listed, compared = conversation(
        chat,
        "Quels ordinateurs portables avez-vous entre 800 et 1200 $ ?",
        "Compare les deux premiers",
    )
    assert compared.outcome == "tool_answer"
    assert [c["title"] for c in compared.citations] == [c["title"] for c in listed.citations][:2]
    assert all("weight:" in line for line in compared.answer.splitlines()[-2:])


def test_a_catalog_turn_hands_the_next_one_the_products_it_found(chat):
    # What the next turn's condensed query carries is the products' names, not the
    # tool call's argument names ("spec weight kg order asc").
    _, lighter, keyboard = conversation(
        chat,
        "Compare the MacBook Air and the Dell XPS 13",
        "which one is lighter?",
        "does it have a backlit keyboard?",
    )
    assert lighter.search_query == "Dell XPS 13 (9340); Apple MacBook Air 13 (M3)"
    searched = [
        a["query"]
        for t in keyboard.trace
        if t.get("node") == "retrieve"
        for a in t["attempts"]
        if a.get("variant") == "condensed"
    ]
    assert searched and "dell xps 13" in searched[0].lower()
    assert "spec" not in searched[0] and "order" not in searched[0]


def test_it_after_a_ranking_is_the_first_product_ranked(chat):
    # "What is the cheapest laptop?" lists three, the Acer first: "it" is the Acer, and
    # "and the battery life?" stays on it (the HP's page ranked first for "RAM").
    _, ram, battery = conversation(
        chat, "What is the cheapest laptop?", "How much RAM does it have?", "And the battery life?"
    )
    for turn, spec in ((ram, "ram: 8 GB"), (battery, "battery: 8 hours")):
        assert turn.outcome == "tool_answer", turn.answer
        assert [c["title"] for c in turn.citations] == ["Acer Aspire 5 (A515-58)"]
        assert spec in turn.answer
    assert "battery" not in ram.answer and "ram" not in battery.answer  # what was asked


def test_it_after_a_list_that_ranks_nothing_asks_which_product(chat):
    # Five phones listed, none ranked first: "it" is any of them, so the user is asked,
    # with the list as the choices (no phone outside it, no RAM of a guessed one).
    listed, ram = conversation(
        chat, "What phones do you have under $500?", "How much RAM does it have?"
    )
    assert ram.outcome == "clarify" and ram.stop_reason == "ambiguous"
    assert ram.citations == []
    shown = [c["title"] for c in listed.citations]
    assert [o["label"] for o in ram.clarify["options"]] == shown
    assert ram.clarify["reason"] == "ambiguous"
    assert all(name in ram.answer for name in shown)


def test_compare_it_with_compares_the_product_discussed(chat):
    _, compared = conversation(
        chat, "Tell me about the Pixel 8 Pro", "Compare it with the iPhone 15"
    )
    assert compared.outcome == "tool_answer"
    assert [c["title"] for c in compared.citations] == ["Google Pixel 8 Pro", "Apple iPhone 15"]


def test_a_spec_the_catalog_does_not_state_is_declined_naming_the_product(chat):
    # The catalog weighs laptops, not phones: the Moto G's weight is not in it, and its
    # other specs are no answer.
    *_, weight = conversation(
        chat,
        "Quels téléphones coûtent moins de 400 $ ?",
        "Quelle est l'autonomie du deuxième ?",
        "Et son poids ?",
    )
    assert weight.outcome == "clarify" and weight.stop_reason == "not_in_documents"
    assert weight.citations == []
    assert weight.answer == (
        "Le catalogue ne donne pas cette information pour « Motorola Moto G Power 5G (2024) »."
    )


def test_it_is_the_ranked_product_and_a_decline_does_not_change_the_subject(chat):
    # "it" after "Which phone has the biggest screen?" is the OnePlus 12, listed first: its
    # page says nothing of 5G, so the answer is no answer (not another phone whose name
    # holds "5G", nor the report's sales of smartphones); its warranty is the OnePlus's.
    _, five_g, warranty = conversation(
        chat,
        "Which phone has the biggest screen?",
        "Does it support 5G?",
        "What's its warranty?",
    )
    assert five_g.outcome == "clarify" and five_g.stop_reason == "not_in_documents"
    assert warranty.outcome == "tool_answer"
    assert [c["title"] for c in warranty.citations] == ["OnePlus 12"]
    assert "warranty: 2 years" in warranty.answer


@pytest.mark.parametrize(
    ("first", "then", "top"),
    [
        ("Quel est le téléphone le moins cher ?", "Et le plus cher ?", "Google Pixel 8 Pro"),
        ("Which laptop is the most expensive?", "and the cheapest?", "Acer Aspire 5 (A515-58)"),
    ],
)
def test_the_opposite_superlative_after_a_ranking_ranks_the_whole_category(chat, first, then, top):
    # The first answer shows the category's top three only: "the most expensive" next is
    # the category's, not the dearest of the three cheapest (the Xiaomi at $349).
    _, opposite, warranty = conversation(chat, first, then, "Quelle est sa garantie ?")
    assert opposite.outcome == "tool_answer"
    assert opposite.citations[0]["title"] == top
    assert [c["title"] for c in warranty.citations] == [top]


@pytest.mark.parametrize(
    "question",
    ["Which laptops have 16 GB of RAM?", "Quels ordinateurs portables ont 16 Go de RAM ?"],
)
def test_a_spec_value_lists_only_the_products_with_it(chat, question):
    (listed,) = conversation(chat, question)
    assert listed.outcome == "tool_answer"
    assert [c["title"] for c in listed.citations] == [
        "HP Pavilion 15",
        "Lenovo IdeaPad Slim 5 14",
        "ASUS Zenbook 14 OLED (UX3405)",
        "Dell XPS 13 (9340)",
    ]
    assert all("ram: 16 GB" in line for line in listed.answer.splitlines()[-4:])


@pytest.mark.parametrize(
    ("first", "then", "pick", "shown"),
    [
        # Of the three biggest batteries, the Xiaomi ($349) is the cheaper: its entry.
        (
            "Which phone has the biggest battery?",
            "tell me more about the cheaper one",
            "Xiaomi Redmi Note 13 Pro 5G",
            "camera: 200 MP",
        ),
        # Of the two compared, the Dell (1.19 kg) is the lighter: what is asked of it.
        (
            "Compare the MacBook Air and the Dell XPS 13",
            "what's the battery of the lighter one?",
            "Dell XPS 13 (9340)",
            "battery: 14 hours",
        ),
    ],
)
def test_the_cheaper_one_is_the_one_product_the_comparison_picks(chat, first, then, pick, shown):
    # A comparative in "the ... one" points at one product of those shown: its entry,
    # not the ranking of all of them (three prices were listed).
    _, one = conversation(chat, first, then)
    assert one.outcome == "tool_answer", one.answer
    assert [c["title"] for c in one.citations] == [pick]
    assert shown in one.answer
    assert one.followup["resolved"] and one.followup["method"] == "deterministic"


def test_a_spec_asked_after_a_comparison_is_asked_of_every_product_compared(chat):
    # "what about the warranty?" after comparing two phones: both warranties, not a
    # question back on which one (nor one phone's alone).
    _, warranty = conversation(
        chat, "Compare the Pixel 8a and the Galaxy A55", "what about the warranty?"
    )
    assert warranty.outcome == "tool_answer", warranty.answer
    assert [c["title"] for c in warranty.citations] == ["Google Pixel 8a", "Samsung Galaxy A55 5G"]
    lines = warranty.answer.splitlines()[-2:]
    assert all("warranty: 2 years" in line for line in lines), warranty.answer
    assert not any("camera:" in line for line in lines)  # what was asked, not every spec


GUIDE = """---
title: Equipment buying guide
---
## Laptops
Engineers should buy the 14-inch model with 32 GB of memory; sales staff take the
13-inch model, which weighs under 1.2 kg. Order through the IT portal.

## Phones
Every employee may buy one company phone every three years, from the approved list.
"""


@pytest.fixture(scope="module")
def no_catalog_chat(tmp_path_factory):
    from support.services import make_services

    root = tmp_path_factory.mktemp("no-catalog")
    guide = root / "guide.md"
    guide.write_text(GUIDE, encoding="utf-8")
    services = make_services(root / "data", corpus=[guide])
    assert services.kb.catalog.products("default") == []
    yield ChatService(services)
    services.close()


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        ("Which laptop should I buy?", "14-inch model with 32 GB"),
        ("What's the best laptop?", "14-inch model with 32 GB"),
        ("How often can I buy a phone?", "every three years"),
    ],
)
def test_a_tenant_without_a_catalog_asks_its_documents(no_catalog_chat, question, quoted):
    # With no product catalog, "the best laptop" was asked back with rankings of products
    # that do not exist, and "phones" questions went to a catalog tool that found none.
    (result,) = conversation(no_catalog_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert quoted in result.answer
    assert {c["title"] for c in result.citations} == {"Equipment buying guide"}


def test_a_bare_superlative_after_a_question_about_it_reranks_the_ranking_before(chat):
    # "and the smallest one?" after "how much does it cost?" (the phone with the biggest
    # battery) was declined: the turn about "it" ranks nothing, the one before it does.
    *_, smallest = conversation(
        chat,
        "Which phone has the biggest battery?",
        "how much does it cost?",
        "and the smallest one?",
    )
    assert smallest.outcome == "tool_answer", smallest.answer
    assert smallest.answer.startswith("- Apple iPhone 15 (Apple phone): price: $799; battery: 3349")


@pytest.mark.parametrize(
    ("then", "spec", "descending"),
    [
        ("sort them by price", "price_usd", False),
        ("trie-les par poids, le plus lourd en premier", "weight_kg", True),
        # No end said: the better end first, the longest battery (was the shortest).
        ("trie-les par autonomie", "battery_hours", True),
    ],
)
def test_a_sort_after_a_list_orders_the_products_listed(chat, then, spec, descending):
    # "sort them by price" was declined: the five laptops shown, cheapest first (not the
    # catalog's other laptops), read from the catalog's values.
    listed, ordered = conversation(chat, "List all laptops with at least 16 GB of RAM", then)
    assert ordered.outcome == "tool_answer", ordered.answer
    shown = [c["title"] for c in listed.citations]
    titles = [c["title"] for c in ordered.citations]
    assert sorted(titles) == sorted(shown) and len(shown) == 5
    catalog = {p.name: p for p in chat.services.kb.catalog.products("default")}
    values = [catalog[t].spec_number(spec) for t in titles]
    assert values == sorted(values, reverse=descending)


@pytest.mark.parametrize(
    ("first", "then", "pick", "said"),
    [
        (
            "quels téléphones ont plus de 8 Go de RAM ?",
            "le moins cher de ceux-là ?",
            "OnePlus 12",
            "price: $799, the lowest price of these 2.",
        ),
        (
            "List all laptops with at least 16 GB of RAM",
            "which has the longest warranty?",
            "Lenovo ThinkPad X1 Carbon Gen 12",
            "warranty: 3 years, the longest warranty of these 5.",
        ),
        (
            "Which phones cost less than $500?",
            "which of them has the best camera?",
            "Xiaomi Redmi Note 13 Pro 5G",
            "camera: 200 MP, the highest camera resolution of these 5.",
        ),
    ],
)
def test_a_superlative_among_those_listed_says_which_one_it_is(chat, first, then, pick, said):
    # Both phones were listed with their prices and nothing said which was the cheaper:
    # the first line now says it is the one asked for, of those listed only.
    listed, ranked = conversation(chat, first, then)
    assert ranked.outcome == "tool_answer", ranked.answer
    assert ranked.citations[0]["title"] == pick
    assert {c["title"] for c in ranked.citations} == {c["title"] for c in listed.citations}
    lines = [line for line in ranked.answer.splitlines() if line.startswith("- ")]
    assert pick in lines[0] and said in lines[0]
    assert not any(said.split(",")[1] in line for line in lines[1:])


def test_two_products_asked_of_in_a_row_are_those_lequel_ranks(chat):
    *_, dearer = conversation(
        chat,
        "Quelle est la garantie du MacBook ?",
        "et du Pixel 8a ?",
        "lequel est le plus cher ?",
    )
    assert dearer.outcome == "tool_answer", dearer.answer
    titles = [c["title"] for c in dearer.citations]
    assert titles == ["Apple MacBook Air 13 (M3)", "Google Pixel 8a"]
    assert "price: $1,099, the highest price of these 2." in dearer.answer


@pytest.mark.parametrize(
    ("question", "shown"),
    [
        (
            "I need a phone for my field technicians, budget 300 dollars",
            ["Nokia G42 5G", "Motorola Moto G Power 5G (2024)"],
        ),
        (
            "Je cherche un ordinateur portable, mon budget est de 800 $",
            ["Acer Aspire 5 (A515-58)", "HP Pavilion 15", "Lenovo IdeaPad Slim 5 14"],
        ),
    ],
)
def test_a_budget_lists_the_products_within_it_and_it_is_asked_back(chat, question, shown):
    # A budget is a price bound (was declined); "does it have 5G?" after it is any of the
    # products listed (it quoted three phones' pages, one over the budget): asked which.
    listed, five_g = conversation(chat, question, "does it have 5G?")
    assert listed.outcome == "tool_answer", listed.answer
    assert [c["title"] for c in listed.citations] == shown
    assert five_g.outcome == "clarify" and five_g.stop_reason == "ambiguous"
    assert [o["label"] for o in five_g.clarify["options"]] == shown
    assert five_g.citations == []


@pytest.mark.parametrize(
    ("compare", "then", "said"),
    [
        (
            "Compare the iPhone 15 and the Pixel 8 Pro",
            "which is heavier?",
            "The catalog gives no weight for these phones.",
        ),
        (
            "Compare l'iPhone 15 et le Pixel 8 Pro",
            "lequel est le plus léger ?",
            "Le catalogue ne donne pas de poids pour ces téléphones.",
        ),
    ],
)
def test_a_spec_none_of_the_products_compared_has_is_declined_naming_it(chat, compare, then, said):
    # Right to decline (phones have no weight in the catalog), but "The documents do not
    # answer this question" said nothing of what is missing.
    _, ranked = conversation(chat, compare, then)
    assert ranked.outcome == "clarify" and ranked.stop_reason == "not_in_documents"
    assert ranked.answer == said
    assert ranked.citations == []


@pytest.mark.parametrize(
    "question",
    [
        "Which phone should I buy for my mother? She wants something simple and cheap",
        "Quel téléphone acheter pour ma mère ? Quelque chose de simple et pas cher",
    ],
)
def test_a_recommendation_asking_for_cheap_lists_the_cheapest_first(chat, question):
    # "cheap" names the price: was asked back "Best on which criterion?".
    (result,) = conversation(chat, question)
    assert result.outcome == "tool_answer" and result.route == "tool", result.answer
    listed = [line for line in result.answer.splitlines() if line.startswith("- ")]
    assert listed[0].startswith("- Nokia G42 5G"), result.answer
    assert result.citations[0]["title"].startswith("Nokia G42 5G"), result.citations[0]


@pytest.mark.parametrize(
    ("asked", "said", "first_chip"),
    [
        (
            "what's the top-rated phone?",
            "The catalog gives no ratings or reviews for phones. It can rank them by price,",
            "Which phone is the cheapest?",
        ),
        (
            "quel est l'ordinateur portable le mieux noté ?",
            "Le catalogue ne donne pas de notes ni d'avis pour les ordinateurs portables.",
            "Quel est l'ordinateur portable le moins cher ?",
        ),
    ],
)
def test_a_ranking_on_ratings_says_the_catalog_rates_nothing(chat, asked, said, first_chip):
    # Round 20: "what's the top-rated phone?" quoted the Nokia G42's page and the Pixel 8
    # Pro's "Google's top smartphone": the catalog states no rating, which is the answer,
    # with the rankings it has as chips. No LLM call.
    (unrated,) = conversation(chat, asked)
    assert unrated.outcome == "clarify" and not unrated.citations
    assert unrated.answer.startswith(said), unrated.answer
    assert unrated.clarify["options"][0]["query"] == first_chip
    assert unrated.llm_calls == 0


@pytest.mark.parametrize(
    ("asked", "spec", "count"),
    [
        ("what's the warranty on phones?", "warranty_years", 9),
        ("quelle est la duree de la garantie des telephones ?", "warranty_years", 9),
        ("what is the battery life of your laptops?", "battery_hours", 7),
        ("combien pèsent les ordinateurs portables ?", "weight_kg", 7),
    ],
)
def test_a_spec_asked_of_a_kind_lists_each_products_value(chat, asked, spec, count):
    # Round 20: "what's the warranty on phones?" was asked back among five phones and the
    # refunds section: each phone's warranty from the catalog answers it, the better end
    # first (the longest warranty, the lightest laptop).
    (listed,) = conversation(chat, asked)
    assert listed.outcome == "tool_answer", listed.answer
    titles = [c["title"] for c in listed.citations]
    catalog = {p.name: p for p in chat.services.kb.catalog.products("default")}
    assert len(titles) == count
    values = [catalog[t].spec_number(spec) for t in titles]
    assert values == sorted(values, reverse=spec != "weight_kg")


@pytest.mark.parametrize(
    ("question", "then"),
    [
        (
            "Which phone should I buy for my mother? She wants something simple and cheap",
            "does it have a good battery?",
        ),
        (
            "Quel téléphone acheter pour ma mère ? Quelque chose de simple et pas cher",
            "a-t-il une bonne batterie ?",
        ),
    ],
)
def test_it_after_a_recommendation_is_the_phone_recommended(chat, question, then):
    # Round 20: asked which of the three phones, where "it" after "what are the cheapest
    # phones?" was already the first: the first of a ranking is the pick, whether the
    # ranking is a superlative or a quality wanted ("cheap").
    _, battery = conversation(chat, question, then)
    assert battery.outcome == "tool_answer", battery.answer
    assert [c["title"] for c in battery.citations] == ["Nokia G42 5G"]
    assert "battery: 5000 mAh" in battery.answer


@pytest.mark.parametrize(
    ("asked", "pointer", "product", "said"),
    [
        ("does it have 5G?", "the second one", "Motorola Moto G Power 5G (2024)", "$299"),
        ("how much RAM does it have?", "le troisième", "Xiaomi Redmi Note 13 Pro 5G", "ram: 8 GB"),
        ("is it waterproof?", "the $449 one", "Samsung Galaxy A55 5G", "$449"),
    ],
)
def test_a_pointer_typed_after_which_one_points_into_the_list(chat, asked, pointer, product, said):
    # Round 20: "the second one" typed after the "which one?" a list's "it" gets was
    # searched in the documents ("nothing about 'second'"): the list was looked for in the
    # turn right before the message only. It is the list's product, as its chip is.
    *_, picked = conversation(chat, "what phones under $500?", asked, pointer)
    assert picked.outcome == "tool_answer", picked.answer
    assert [c["title"] for c in picked.citations] == [product]
    assert said in picked.answer
    assert picked.llm_calls <= 1  # the answer's composition only: no model resolves it


@pytest.mark.parametrize(
    ("listed", "then"),
    [
        ("Which phones does Xiaomi sell?", "and on the redmi?"),
        ("what phones under $500?", "et le redmi ?"),
    ],
)
def test_an_ellipsis_naming_one_product_after_a_list_looks_it_up(chat, listed, then):
    # Round 20: "and on the redmi?" after the Xiaomi phones was declined (searched in the
    # documents); the list asked no spec, so the product named is looked up whole.
    _, entry = conversation(chat, listed, then)
    assert entry.outcome == "tool_answer", entry.answer
    assert [c["title"] for c in entry.citations] == ["Xiaomi Redmi Note 13 Pro 5G"]
    assert "camera: 200 MP" in entry.answer


@pytest.mark.parametrize(
    "asked", ["the lightest laptop under $1000", "le plus léger sous 1000 $ ?"]
)
def test_a_superlative_with_a_price_bound_ranks_within_the_bound(chat, asked):
    # Round 20: "the lightest laptop under $1000" ranked every laptop (the ThinkPad X1,
    # $2,199, first), the bound dropped; « le plus léger sous 1000 $ ? » named no kind and
    # was declined on « 1000 »: the catalog weighs laptops only, so it ranks laptops.
    (lightest,) = conversation(chat, asked)
    assert lightest.outcome == "tool_answer", lightest.answer
    assert lightest.citations[0]["title"] == "ASUS Zenbook 14 OLED (UX3405)"
    catalog = {p.name: p for p in chat.services.kb.catalog.products("default")}
    assert all(catalog[c["title"]].price_usd <= 1000 for c in lightest.citations)


@pytest.mark.parametrize(
    ("asked", "first", "brand"),
    [
        ("which samsung phone is the cheapest?", "Samsung Galaxy A55 5G", "Samsung"),
        ("quel est le téléphone Google le plus cher ?", "Google Pixel 8 Pro", "Google"),
    ],
)
def test_a_superlative_naming_a_brand_ranks_that_brand(chat, asked, first, brand):
    # Round 20 (ours): "which samsung phone is the cheapest?" listed the Nokia G42, the
    # Moto G Power and the Redmi, the brand dropped from the ranking.
    (ranked,) = conversation(chat, asked)
    assert ranked.outcome == "tool_answer", ranked.answer
    assert ranked.citations[0]["title"] == first
    assert all(c["title"].startswith(brand) for c in ranked.citations)


@pytest.mark.parametrize(
    ("asked", "then"),
    [
        ("What's the cheapest Samsung?", "and the most expensive?"),
        ("Quel est le Samsung le moins cher ?", "et le plus cher ?"),
    ],
)
def test_a_superlative_on_a_brand_ranks_the_brand_and_the_next_one_keeps_it(chat, asked, then):
    # Round 21: "What's the cheapest Samsung?" named no kind and was a document answer
    # leading with the Galaxy S24 at $799; then "and the most expensive?" ranked every
    # phone (the Pixel 8 Pro). A brand names its products; the next superlative ranks
    # the same products.
    cheapest, dearest = conversation(chat, asked, then)
    assert cheapest.outcome == "tool_answer", cheapest.answer
    assert [c["title"] for c in cheapest.citations] == [
        "Samsung Galaxy A55 5G",
        "Samsung Galaxy S24",
    ]
    assert "$449" in cheapest.answer.splitlines()[-2]
    assert dearest.outcome == "tool_answer", dearest.answer
    assert [c["title"] for c in dearest.citations] == [
        "Samsung Galaxy S24",
        "Samsung Galaxy A55 5G",
    ]


@pytest.mark.parametrize(
    "asked",
    [
        "What do I need to set up on a new Windows laptop?",
        "Que dois-je configurer sur un nouveau portable Windows ?",
    ],
)
def test_a_question_about_doing_something_on_a_kind_of_product_searches_no_products(chat, asked):
    # Round 21: the system named made it a list of Windows laptops ("The documents say
    # nothing about 'Windows laptops'", no_matching_products): it asks what to do on one.
    (result,) = conversation(chat, asked)
    assert result.route != "tool"
    assert result.stop_reason != "no_matching_products"


def test_looking_for_a_light_portable_ranks_the_laptops_by_weight_and_it_is_the_pick(chat):
    # Round 21: « Je cherche un portable léger pour voyager » was declined, then « combien
    # il pèse ? » quoted three laptops' pages and « il coûte combien ? » was declined.
    # Looking for one product with a quality wanted ranks on that quality, as a
    # recommendation does; a portable that is light is a laptop (the catalog weighs those).
    looked, weight, price = conversation(
        chat, "Je cherche un portable léger pour voyager", "combien il pèse ?", "il coûte combien ?"
    )
    assert looked.outcome == "tool_answer", looked.answer
    assert looked.citations[0]["title"] == "Lenovo ThinkPad X1 Carbon Gen 12"
    assert "weight: 1.09 kg" in looked.answer
    assert [c["title"] for c in weight.citations] == ["Lenovo ThinkPad X1 Carbon Gen 12"]
    assert "1.09 kg" in weight.answer
    assert price.outcome == "tool_answer", price.answer
    assert [c["title"] for c in price.citations] == ["Lenovo ThinkPad X1 Carbon Gen 12"]
    assert "$2,199" in price.answer


@pytest.mark.parametrize(
    ("ranking", "then", "said"),
    [
        ("Which laptop has the best battery life?", "how many hours?", "battery: 18 hours"),
        ("Quel ordinateur portable a la meilleure autonomie ?", "combien d'heures ?", "18 hours"),
        ("Which phone has the biggest battery?", "how many mAh?", "battery: 5400 mAh"),
    ],
)
def test_a_count_in_a_specs_unit_asks_that_spec_of_the_pick(chat, ranking, then, said):
    # Round 21: "how many hours?" after the longest battery quoted three laptops' pages;
    # the unit names the spec, asked of the one the ranking picked.
    first, count = conversation(chat, ranking, then)
    assert count.outcome == "tool_answer", count.answer
    assert [c["title"] for c in count.citations] == [first.citations[0]["title"]]
    assert said in count.answer


@pytest.mark.parametrize(
    ("asked", "spec", "pick", "tied_with"),
    [
        ("which one has the biggest screen?", 'display: 15.6"', "Acer", "HP Pavilion 15"),
        ("which one has the most RAM?", "ram: 16 GB", "HP Pavilion 15", "Lenovo IdeaPad"),
    ],
)
def test_the_first_ones_tied_among_those_listed_say_they_tie(chat, asked, spec, pick, tied_with):
    # Round 21: after the laptops under $800, "which one has the biggest screen?" listed
    # the three with their displays and named no pick: two are 15.6", a tie to say.
    _, ranked = conversation(chat, "What laptops are under $800?", asked)
    assert ranked.outcome == "tool_answer", ranked.answer
    lines = [line for line in ranked.answer.splitlines() if line.startswith("- ")]
    assert len(lines) == 3
    assert pick in lines[0] and spec in lines[0]
    assert f"tied with the {tied_with}" in lines[0] and "of these 3" in lines[0]
    assert "tied with" in lines[1] and "tied with" not in lines[2]
