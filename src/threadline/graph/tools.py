"""Catalog tools with typed arguments; their results are citable sources like chunks.

A model's tool call is checked against the user's words and the router's parse
(`reconcile_tool_call`) before it runs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Literal

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from threadline.graph.state import PackedChunk
from threadline.knowledge.catalog import Catalog, Product, spec_label
from threadline.policy import CATALOG_SOURCE
from threadline.text.normalize import fold
from threadline.text.tokenize import tokenize


class SearchProductsArgs(BaseModel):
    """Filters for a catalog search."""

    category: Literal["phone", "laptop"] | None = Field(
        default=None, description="Product category."
    )
    brand: str | None = Field(default=None, description="Brand name, e.g. Samsung.")
    min_price: float | None = Field(default=None, ge=0, description="Lowest price in USD.")
    max_price: float | None = Field(default=None, ge=0, description="Highest price in USD.")
    line: str | None = Field(
        default=None, description="Product line, a word of the products' names, e.g. Galaxy."
    )
    os: str | None = Field(
        default=None, description="Operating system, with its version if asked: Android 14, iOS."
    )


class CompareProductsArgs(BaseModel):
    """Products to compare side by side."""

    names: list[str] = Field(min_length=2, max_length=4, description="Product names.")
    specs: list[str] = Field(
        default_factory=list,
        description="Only these specs (e.g. warranty_years, battery_mah); empty for all of them.",
    )


SPECS = (
    "price_usd",
    "weight_kg",
    "battery_hours",
    "battery_mah",
    "display",
    "storage_gb",
    "ram_gb",
    "camera_mp",
    "release_year",
    "warranty_years",
)


class RankProductsArgs(BaseModel):
    """A superlative: the products with the most (or least) of one spec."""

    spec: Literal[SPECS] = Field(description="The spec to rank by.")  # type: ignore[valid-type]
    order: Literal["asc", "desc"] = Field(
        default="desc", description="desc: largest first (biggest, longest); asc: smallest first."
    )
    category: Literal["phone", "laptop"] | None = Field(default=None)
    limit: int = Field(default=3, ge=1, le=10)
    names: list[str] | None = Field(
        default=None,
        max_length=10,
        description="Rank only these products (e.g. the ones just compared); default: all.",
    )
    min_value: float | None = Field(default=None, description="Keep specs at least this.")
    max_value: float | None = Field(default=None, description="Keep specs at most this.")
    exclusive: bool = Field(
        default=False, description="Exclude the bounds themselves ('more than', 'under')."
    )
    os: str | None = Field(
        default=None,
        description="Rank only products running this operating system: Android 13, iOS.",
    )
    min_price: float | None = Field(default=None, ge=0, description="Lowest price in USD.")
    max_price: float | None = Field(default=None, ge=0, description="Highest price in USD.")
    brand: str | None = Field(default=None, description="Rank only this brand's products.")


class GetProductArgs(BaseModel):
    """One product by name."""

    name: str = Field(min_length=1, description="Product name, e.g. Galaxy A55.")
    specs: list[str] = Field(
        default_factory=list,
        description="Only these specs (e.g. ram_gb, weight_kg, battery_hours, price_usd); "
        "empty for all of them.",
    )


def make_catalog_tools(catalog: Catalog, tenant: str) -> list[BaseTool]:
    """Return the tools of one tenant's catalog (each returns products, cheapest first)."""

    def search_products(
        category: str | None = None,
        brand: str | None = None,
        min_price: float | None = None,
        max_price: float | None = None,
        line: str | None = None,
        os: str | None = None,
    ) -> list[Product]:
        return catalog.search(
            tenant,
            category=category,
            brand=brand,
            min_price=min_price,
            max_price=max_price,
            line=line,
            os=os,
        )

    def compare_products(names: list[str], specs: list[str] | None = None) -> list[Product]:
        # `specs` chooses what each product's line shows (`products_as_sources`), not
        # which products: "what about the warranty?" after a comparison shows them all.
        return catalog.find(tenant, names)

    def rank_products(
        spec: str,
        order: str = "desc",
        category: str | None = None,
        limit: int = 3,
        names: list[str] | None = None,
        min_value: float | None = None,
        max_value: float | None = None,
        exclusive: bool = False,
        os: str | None = None,
        min_price: float | None = None,
        max_price: float | None = None,
        brand: str | None = None,
    ) -> list[Product]:
        return catalog.rank(
            tenant,
            spec=spec,
            order=order,
            category=category,
            limit=limit,
            names=names,
            min_value=min_value,
            max_value=max_value,
            exclusive=exclusive,
            os=os,
            min_price=min_price,
            max_price=max_price,
            brand=brand,
        )

    def get_product(name: str, specs: list[str] | None = None) -> list[Product]:
        found = catalog.find(tenant, [name])
        # A spec the catalog does not state for the product is no answer: "what does the
        # Moto G weigh?" finds no phone weight, not the Moto G's other specs.
        return [p for p in found if not specs or any(p.has_spec(k) for k in specs)]

    return [
        StructuredTool.from_function(
            search_products,
            name="search_products",
            description="List catalog products filtered by category, brand, product line and "
            "price range.",
            args_schema=SearchProductsArgs,
        ),
        StructuredTool.from_function(
            compare_products,
            name="compare_products",
            description="Fetch two to four named products to compare their prices and specs.",
            args_schema=CompareProductsArgs,
        ),
        StructuredTool.from_function(
            rank_products,
            name="rank_products",
            description="The products with the most or least of one spec (lightest, "
            "cheapest, longest battery, biggest screen...).",
            args_schema=RankProductsArgs,
        ),
        StructuredTool.from_function(
            get_product,
            name="get_product",
            description="One product by name, with all its specs.",
            args_schema=GetProductArgs,
        ),
    ]


# How the two ends of a ranking on a spec are said: (ascending, descending).
_ENDS = {
    "display": ("smallest", "largest"),
    "battery_hours": ("shortest", "longest"),
    "warranty_years": ("shortest", "longest"),
    "release_year": ("oldest", "newest"),
    "ram_gb": ("least", "most"),
    "storage_gb": ("least", "most"),
}
# A spec named as what is ranked when its label alone reads wrong ("the highest camera").
_RANKED_NAMES = {
    "camera_mp": "camera resolution",
    "display": "screen",
    "ram_gb": "RAM",
    "release_year": "model",
}


def products_as_sources(
    products: list[Product], call: Mapping[str, Any] | None = None
) -> list[PackedChunk]:
    """Tool results in the same shape as packed chunks, so the generator cites them.

    Each text starts with the sentence the call is about (a list answer quotes the first
    sentence of each source): the price for a search, the ranked spec for a superlative,
    every spec for a comparison or a single product (those asked for, when some were).
    """
    name = (call or {}).get("name")
    args = (call or {}).get("args") or {}
    # "Which is cheaper, the iPhone 15 or the Galaxy S24?": two named products ranked on
    # a spec they share the value of. Listed one above the other, the first reads as the
    # cheaper one; each says it is the same as the other's.
    spec = str(args.get("spec") or "price_usd")
    values = {p.spec_number(spec) for p in products}
    tied = (
        name == "rank_products"
        and len(args.get("names") or []) == 2
        and len(products) == 2
        and len(values) == 1
        and None not in values
    )

    label = "price" if spec == "price_usd" else spec_label(spec)
    # "le moins cher de ceux-là ?", "which has the longest warranty?" over the products
    # shown: all of them ranked, and the first line says it is the pick (when no other
    # has the same value), so the answer names the product asked for.
    ranked_shown = name == "rank_products" and len(args.get("names") or []) >= 2
    top = [p.spec_number(spec) for p in products[:2]]
    picked = ranked_shown and len(products) >= 2 and None not in top and top[0] != top[1]
    # "which one has the biggest screen?" over three laptops, two of them 15.6": no one
    # is the pick, the first ones tie; each of them says it shares the first value.
    first_tied = (
        [p for p in products if p.spec_number(spec) == top[0]]
        if ranked_shown and not tied and len(products) >= 2 and None not in top
        else []
    )
    if len(first_tied) < 2:
        first_tied = []

    def lead(product: Product) -> str:
        if name == "rank_products":
            line = product.spec_line([args["spec"]] if args.get("spec") != "price_usd" else [])
            if tied:
                other = next(p for p in products if p is not product)
                line = f"{line[:-1]}, the same {label} as the {other.name}."
            elif picked and product is products[0]:
                end = _ENDS.get(spec, ("lowest", "highest"))[args.get("order") == "desc"]
                named = _RANKED_NAMES.get(spec, label)
                line = f"{line[:-1]}, the {end} {named} of these {len(products)}."
            elif product in first_tied:
                end = _ENDS.get(spec, ("lowest", "highest"))[args.get("order") == "desc"]
                named = _RANKED_NAMES.get(spec, label)
                others = " and the ".join(p.name for p in first_tied if p is not product)
                if len(first_tied) == len(products):
                    line = f"{line[:-1]}, the same {label} as the {others}."
                else:
                    line = (
                        f"{line[:-1]}, tied with the {others} for the {end} {named} "
                        f"of these {len(products)}."
                    )
            return line
        if name in ("get_product", "compare_products") and args.get("specs"):
            return product.spec_line(
                [k for k in args["specs"] if k != "price_usd" and product.has_spec(k)]
            )
        if name in ("compare_products", "get_product"):
            return product.spec_line()
        if name == "search_products" and args.get("os"):
            return product.spec_line(["os"])  # the filter shown: "os: Android 14"
        return ""

    return [
        PackedChunk(
            label=str(i),
            chunk_id=product.id,
            doc_id=f"catalog:{product.catalog}",
            title=product.name,
            section=f"{product.brand} {product.category}",
            source=CATALOG_SOURCE,
            text=" ".join(t for t in (lead(product), product.describe()) if t),
            score=1.0,
        )
        for i, product in enumerate(products, 1)
    ]


# --- the model's arguments checked against the user's words ----------------------

_NUMBER = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(k\b)?", re.I)
_FREE_TEXT_ARGS = ("brand", "name", "names")
"""Arguments naming something the user must have written (a brand, a product)."""
_UNCHECKED_NUMBERS = ("limit",)
"""Numbers the model may choose itself (how many products to show)."""


def said_numbers(query: str) -> set[float]:
    """Return the numbers written in the query (`$500`, `1,200`, `1.5k`)."""
    found: set[float] = set()
    for digits, thousands in _NUMBER.findall(query):
        try:
            value = float(digits.replace(",", ""))
        except ValueError:
            continue
        found.add(value * 1000 if thousands else value)
    return found


def unsaid_arguments(call: Mapping[str, Any], query: str) -> list[str]:
    """Return the names of the call's arguments the user did not write.

    A number must be one of the query's numbers; a brand or product name must share a
    word with the query (a product named in part, "the A55", counts as said). Choices
    from a closed list (a category, a spec, an order) are not checked here.
    """
    numbers, words = said_numbers(query), set(tokenize(query))
    unsaid = []
    for key, value in (call.get("args") or {}).items():
        if value is None:
            continue
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float) and key not in _UNCHECKED_NUMBERS:
            if not any(math.isclose(float(value), n) for n in numbers):
                unsaid.append(key)
        elif key in _FREE_TEXT_ARGS:
            names = value if isinstance(value, list) else [value]
            if not all(words & set(tokenize(str(name))) for name in names):
                unsaid.append(key)
    return unsaid


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(float(a), float(b))
    if isinstance(a, str) and isinstance(b, str):
        return fold(a) == fold(b)
    return bool(a == b)


def disagreements(model: Mapping[str, Any], parsed: Mapping[str, Any]) -> list[str]:
    """Return where the model's call departs from the parse.

    That is the tool, or an argument the parse set to another value; an argument only
    the model gives is no disagreement.
    """
    if model.get("name") != parsed.get("name"):
        return ["name"]
    model_args, parsed_args = model.get("args") or {}, parsed.get("args") or {}
    return [
        key
        for key, value in parsed_args.items()
        if value is not None and not _same(model_args.get(key), value)
    ]


def reconcile_tool_call(
    model: Mapping[str, Any], parsed: Mapping[str, Any] | None, query: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Choose between the model's tool call and the deterministic parse of the words.

    The parse wins when the two disagree or when the model gives an argument the user
    did not write ("phones under $500" is never `max_price=10.99`). With no parse, the
    model's unsaid arguments are dropped.

    Args:
        model: The model's call (`name`, `args`), already validated against the tool.
        parsed: The router's parse of the message, if it made one.
        query: The user's message.

    Returns:
        The call to run, and what the trace should say about the choice (empty when the
        model's call stands as it is).
    """
    unsaid = unsaid_arguments(model, query)
    if parsed:
        differ = disagreements(model, parsed)
        if differ or unsaid:
            note = {"parse_wins": True, "model_call": dict(model), "differ": differ}
            note["unsaid"] = unsaid
            return {"name": parsed["name"], "args": dict(parsed["args"])}, note
        return {"name": model["name"], "args": dict(model["args"])}, {}
    if unsaid:
        args = {k: v for k, v in (model.get("args") or {}).items() if k not in unsaid}
        return {"name": model["name"], "args": args}, {"dropped_unsaid": unsaid}
    return {"name": model["name"], "args": dict(model.get("args") or {})}, {}
