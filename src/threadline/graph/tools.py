"""Catalog tools with typed arguments; their results are citable sources like chunks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from threadline.graph.state import PackedChunk
from threadline.knowledge.catalog import Catalog, Product


class SearchProductsArgs(BaseModel):
    """Filters for a catalog search."""

    category: Literal["phone", "laptop"] | None = Field(
        default=None, description="Product category."
    )
    brand: str | None = Field(default=None, description="Brand name, e.g. Samsung.")
    min_price: float | None = Field(default=None, ge=0, description="Lowest price in USD.")
    max_price: float | None = Field(default=None, ge=0, description="Highest price in USD.")


class CompareProductsArgs(BaseModel):
    """Products to compare side by side."""

    names: list[str] = Field(min_length=2, max_length=4, description="Product names.")


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


class GetProductArgs(BaseModel):
    """One product by name."""

    name: str = Field(min_length=1, description="Product name, e.g. Galaxy A55.")


def make_catalog_tools(catalog: Catalog, tenant: str) -> list[BaseTool]:
    """Return the tools of one tenant's catalog (each returns products, cheapest first)."""

    def search_products(
        category: str | None = None,
        brand: str | None = None,
        min_price: float | None = None,
        max_price: float | None = None,
    ) -> list[Product]:
        return catalog.search(
            tenant, category=category, brand=brand, min_price=min_price, max_price=max_price
        )

    def compare_products(names: list[str]) -> list[Product]:
        return catalog.find(tenant, names)

    def rank_products(
        spec: str, order: str = "desc", category: str | None = None, limit: int = 3
    ) -> list[Product]:
        return catalog.rank(tenant, spec=spec, order=order, category=category, limit=limit)

    def get_product(name: str) -> list[Product]:
        return catalog.find(tenant, [name])

    return [
        StructuredTool.from_function(
            search_products,
            name="search_products",
            description="List catalog products filtered by category, brand and price range.",
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


def products_as_sources(
    products: list[Product], call: Mapping[str, Any] | None = None
) -> list[PackedChunk]:
    """Tool results in the same shape as packed chunks, so the generator cites them.

    Each text starts with the sentence the call is about (a list answer quotes the first
    sentence of each source): the price for a search, the ranked spec for a superlative,
    every spec for a comparison or a single product.
    """
    name = (call or {}).get("name")
    args = (call or {}).get("args") or {}

    def lead(product: Product) -> str:
        if name == "rank_products":
            return product.spec_line([args["spec"]] if args.get("spec") != "price_usd" else [])
        if name in ("compare_products", "get_product"):
            return product.spec_line()
        return ""

    return [
        PackedChunk(
            label=str(i),
            chunk_id=product.id,
            doc_id=f"catalog:{product.catalog}",
            title=product.name,
            section=f"{product.brand} {product.category}",
            source="catalog",
            text=" ".join(t for t in (lead(product), product.describe()) if t),
            score=1.0,
        )
        for i, product in enumerate(products, 1)
    ]
