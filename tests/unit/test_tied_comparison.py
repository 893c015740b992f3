"""Two products compared on a spec whose values are equal (issue 11, round 11).

"Which is cheaper, the iPhone 15 or the Galaxy S24?" listed both at $799, the first
reading as the cheaper one: each row now says it is the same as the other's.
"""

from __future__ import annotations

from threadline.graph.tools import products_as_sources
from threadline.knowledge.catalog import Product


def phone(name: str, price: float, ram: int) -> Product:
    return Product(
        id=name.lower().replace(" ", "-"),
        name=name,
        brand=name.split()[0],
        category="phone",
        price_usd=price,
        specs={"ram_gb": ram},
        highlights="",
        catalog="catalog",
    )


def ranked(products: list[Product], spec: str) -> list[str]:
    call = {"name": "rank_products", "args": {"spec": spec, "names": [p.name for p in products]}}
    return [str(c["text"]) for c in products_as_sources(products, call)]


def test_a_tie_says_each_is_the_same_as_the_other():
    first, second = phone("Acme One", 799, 8), phone("Bolt Two", 799, 6)
    texts = ranked([first, second], "price_usd")
    lead = "Acme One (Acme phone): price: $799, the same price as the Bolt Two."
    assert texts[0].startswith(lead)
    assert "the same price as the Acme One." in texts[1]


def test_different_values_are_ranked_without_a_tie():
    first, second = phone("Acme One", 499, 8), phone("Bolt Two", 799, 8)
    assert not any("the same" in text for text in ranked([first, second], "price_usd"))
    # Equal on the spec ranked: the RAM, not the price.
    assert all("the same" in text for text in ranked([first, second], "ram_gb"))
