"""A model's tool arguments are checked against the user's words and the router's parse."""

from __future__ import annotations

from threadline.graph.tools import reconcile_tool_call, said_numbers, unsaid_arguments

PARSE = {"name": "search_products", "args": {"category": "phone", "max_price": 500.0}}


def test_numbers_as_users_write_them():
    assert said_numbers("phones under $500") == {500.0}
    assert said_numbers("between 1,200 and 1.5k") == {1200.0, 1500.0}


def test_an_unsaid_price_or_brand_is_found():
    call = {"name": "search_products", "args": {"brand": "Samsung", "max_price": 10.99}}
    assert unsaid_arguments(call, "phones under $500") == ["brand", "max_price"]
    said = {"name": "search_products", "args": {"brand": "Samsung", "max_price": 500}}
    assert unsaid_arguments(said, "Samsung phones under $500") == []
    # A product named in part counts as said; a ranking's limit is the model's choice.
    assert unsaid_arguments({"args": {"name": "Galaxy A55"}}, "price of the A55?") == []
    assert unsaid_arguments({"args": {"spec": "weight_kg", "limit": 3}}, "lightest laptop") == []


def test_the_parse_wins_over_a_model_call_with_unsaid_arguments():
    model = {"name": "search_products", "args": {"brand": "Samsung", "max_price": 10.99}}
    call, note = reconcile_tool_call(model, PARSE, "phones under $500")
    assert call == PARSE
    assert note["parse_wins"] and note["unsaid"] == ["brand", "max_price"]
    assert note["model_call"] == model


def test_the_parse_wins_when_the_model_picks_another_tool():
    model = {"name": "rank_products", "args": {"spec": "price_usd", "order": "asc"}}
    call, note = reconcile_tool_call(model, PARSE, "phones under $500")
    assert call == PARSE and note["differ"] == ["name"]


def test_a_model_call_that_agrees_and_adds_what_was_said_stands():
    model = {
        "name": "search_products",
        "args": {"category": "phone", "max_price": 500, "brand": "Samsung"},
    }
    call, note = reconcile_tool_call(model, PARSE, "Samsung phones under $500")
    assert call == model and note == {}


def test_without_a_parse_unsaid_arguments_are_dropped():
    model = {"name": "search_products", "args": {"category": "laptop", "max_price": 99}}
    call, note = reconcile_tool_call(model, None, "show me laptops")
    assert call == {"name": "search_products", "args": {"category": "laptop"}}
    assert note == {"dropped_unsaid": ["max_price"]}
