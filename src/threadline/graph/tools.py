"""Catalog tools with typed arguments; their results are citable sources like chunks."""

from __future__ import annotations

from typing import Literal

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

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


def make_catalog_tools(catalog: Catalog, tenant: str) -> list[BaseTool]:
    """The tools of one tenant's catalog (each returns products, cheapest first)."""

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
    ]


def products_as_sources(products: list[Product]) -> list[dict]:
    """Tool results in the same shape as packed chunks, so the generator cites them."""
    return [
        {
            "label": str(i),
            "chunk_id": product.id,
            "doc_id": f"catalog:{product.catalog}",
            "title": product.name,
            "section": f"{product.brand} {product.category}",
            "source": "catalog",
            "text": product.describe(),
            "score": 1.0,
        }
        for i, product in enumerate(products, 1)
    ]
