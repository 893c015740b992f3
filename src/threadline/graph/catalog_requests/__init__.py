"""Catalog requests: a message read as a typed call to one catalog tool, without an LLM.

A list ("what phones under $500?"), a ranking ("the lightest laptop", "laptops under
1.3 kg"), a comparison, and the follow-ups on a list just shown ("the second one",
"which one is lighter?", "compare the first two"). Each row of the grammar pairs the
English and French phrasings of one category, bound or spec, read together. The router
(`threadline.graph.routing`) asks these first: a tool request comes before any other
route.

One module per part of the grammar: `wording` (the words every reading shares),
`parsing` (a question read as one tool call), `comparisons`, `products` (the products
and specs a message names), `superlatives` (terse rankings), `listed` (follow-ups on
the list shown) and `criteria` ("best" with no criterion).
"""

from threadline.graph.catalog_requests.comparisons import (
    compared_pair,
    compared_to_it,
    compares_on_a_spec,
    is_comparison,
    without_comparatives,
)
from threadline.graph.catalog_requests.criteria import (
    RANKING_CRITERIA,
    best_without_criterion,
    chosen_criterion,
    ranked_on_ratings,
)
from threadline.graph.catalog_requests.listed import (
    chooses_among_shown,
    compare_listed,
    corrects_one_ranked,
    listed_product,
    points_at_one_ranked,
    rank_listed,
    ranks_a_category,
    sort_listed,
    subject_product,
    without_product_reference,
)
from threadline.graph.catalog_requests.parsing import counts_on_offer, parse_catalog_request
from threadline.graph.catalog_requests.products import (
    asked_specs,
    asks_a_spec_of_it,
    asks_of_one_unnamed,
    named_product,
    product_line,
    spec_words,
    unknown_brand,
    with_catalog_capitals,
)
from threadline.graph.catalog_requests.superlatives import (
    asks_for_a_ranking,
    kind_last_named,
    ranking_of_kind,
    reranked_on_another_spec,
    reranked_on_the_same_spec,
    terse_superlative,
)
from threadline.graph.catalog_requests.wording import (
    CATEGORY_WORDS,
    COMPARATIVES,
    SUPERLATIVES,
    ToolRequest,
    without_kind_words,
)

__all__ = [
    "CATEGORY_WORDS",
    "COMPARATIVES",
    "RANKING_CRITERIA",
    "SUPERLATIVES",
    "ToolRequest",
    "asked_specs",
    "asks_a_spec_of_it",
    "asks_of_one_unnamed",
    "asks_for_a_ranking",
    "best_without_criterion",
    "chooses_among_shown",
    "chosen_criterion",
    "compare_listed",
    "compared_pair",
    "compared_to_it",
    "counts_on_offer",
    "compares_on_a_spec",
    "is_comparison",
    "kind_last_named",
    "listed_product",
    "named_product",
    "parse_catalog_request",
    "corrects_one_ranked",
    "points_at_one_ranked",
    "product_line",
    "rank_listed",
    "ranked_on_ratings",
    "ranking_of_kind",
    "ranks_a_category",
    "reranked_on_another_spec",
    "reranked_on_the_same_spec",
    "sort_listed",
    "spec_words",
    "subject_product",
    "terse_superlative",
    "unknown_brand",
    "with_catalog_capitals",
    "without_comparatives",
    "without_kind_words",
    "without_product_reference",
]
