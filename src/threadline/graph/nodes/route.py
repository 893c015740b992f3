"""The route_turn node: classify the message deterministically (no LLM)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from threadline.followups.outline import OutlineSection
from threadline.followups.reference_model import Reference
from threadline.graph.catalog_requests import (
    SUPERLATIVES,
    ToolRequest,
    asked_specs,
    asks_a_spec_of_it,
    asks_of_one_unnamed,
    best_without_criterion,
    chooses_among_shown,
    chosen_criterion,
    compared_pair,
    compared_to_it,
    corrects_one_ranked,
    is_comparison,
    kind_last_named,
    listed_product,
    named_product,
    parse_catalog_request,
    points_at_one_ranked,
    product_line,
    ranking_of_kind,
    ranks_a_category,
    reranked_on_another_spec,
    reranked_on_the_same_spec,
    spec_words,
    subject_product,
    terse_superlative,
    unknown_brand,
    without_product_reference,
)
from threadline.graph.catalog_requests.wording import (
    BUDGET,
    MAX_PRICE,
    MIN_PRICE,
    folded_message,
)
from threadline.graph.context import run_services
from threadline.graph.ellipsis import read_ellipsis, superlative_of_previous
from threadline.graph.question_terms import PRONOUN, content_terms, named_things, pointer_of
from threadline.graph.routing import TurnPlan, plan_turn
from threadline.graph.state import HistoryEntry, State, ToolCall, TurnFollowup
from threadline.knowledge.catalog import Catalog, Product
from threadline.policy import may_read_catalog
from threadline.services import Services


def shared_category(products: list[Product], names: list[str]) -> str | None:
    """Return the category every named product is in ("phone", "laptop"), or None."""
    categories = {p.category for p in products if p.name in names}
    return categories.pop() if len(categories) == 1 else None


def with_subject(tool: ToolRequest, found: list[Product], subject: str | None) -> ToolRequest:
    """Complete a comparison that names one product with the product under discussion.

    "Compare it with the iPhone 15" after an answer on the Pixel 8 Pro compares the two:
    "it" names no product, so the comparison found only the iPhone.
    """
    if tool.name != "compare_products" or len(found) >= 2 or not subject:
        return tool
    names = [subject, *(p.name for p in found if p.name != subject)]
    return ToolRequest("compare_products", {"names": names}) if len(names) >= 2 else tool


def one_ranked(
    plan: TurnPlan,
    question: str,
    products: list[Product],
    catalog: Catalog,
    tenant: str,
    previous_question: str = "",
) -> TurnPlan:
    """Resolve "the cheaper one" to the one product the ranking of those shown puts first.

    "tell me more about the cheaper one" after three phones is that phone's entry (or
    what is asked of it), not the three phones' prices: the ranking picks, the answer is
    the pick. A ranking of the whole category, or a message asking which, is kept.
    """
    tool = plan.tool
    if tool is None or tool.name != "rank_products" or not tool.args.get("names"):
        return plan
    if not (points_at_one_ranked(question) or corrects_one_ranked(question, previous_question)):
        return plan
    ranked = catalog.rank(tenant, **{**tool.args, "limit": 1})
    if not ranked:
        return plan
    shown = [p.name for p in catalog.find(tenant, list(tool.args["names"]))]
    pick = ranked[0].name
    reference = Reference(
        detected=True,
        resolved=True,
        ref_type="ordinal",
        document_index=shown.index(pick) + 1 if pick in shown else None,
        method="deterministic",
    )
    args = {"name": pick, "specs": asked_specs(question)}
    return dataclasses.replace(plan, reference=reference, tool=ToolRequest("get_product", args))


def several_specs_of_one(plan: TurnPlan, question: str, products: list[Product]) -> TurnPlan:
    """Look up the specs a message asks of one product it names, when it asks several.

    "price and weight of the XPS 13?", "Quel est le prix et la garantie du Pixel 8a ?":
    the catalog's entry states each; the product's page quoted one sentence, with the
    weight and no price. One spec asked ("the weight of the XPS 13?") stays a question
    for the documents, as a plan for another route (a list, a ranking) is kept.
    """
    if plan.route not in ("standalone", "followup_context") or spec_words(question) < 2:
        return plan
    if is_comparison(question):
        return plan
    name = named_product(question, [p.name for p in products])
    if name is None:
        return plan
    args = {"name": name, "specs": asked_specs(question)}
    return dataclasses.replace(plan, route="tool", tool=ToolRequest("get_product", args))


def switched_product(
    plan: TurnPlan, question: str, history: list[Any], catalog: Catalog, tenant: str
) -> TurnPlan:
    """Look up the specs the previous lookup asked of the product an ellipsis switches to.

    "and the battery?" on the Galaxy S24 (its catalog entry), then "what about the Pixel
    8 Pro?": the battery of the Pixel 8 Pro, not its page's first sentences. After a
    catalog list that asked no spec, the product named is looked up whole (the spec a
    ranking ranked on, when it was one). Only after a catalog answer, and for a message
    naming one product and nothing else to ask.
    """
    if plan.route not in ("standalone", "followup_context") or not history:
        return plan
    last = history[-1]
    ellipsis = read_ellipsis(question)
    if last["route"] != "tool" or ellipsis is None or asked_specs(question):
        return plan
    # The specs of the lookup switched from: "et l'iPhone 15 ?" after "what about the
    # Pixel 8 Pro?" (itself a switch) asks what was asked before it.
    specs: list[str] = []
    for past in reversed(history):
        past_question = str(past["question"] or "")
        if past["route"] != "tool":
            break
        specs = asked_specs(past_question)
        if specs or read_ellipsis(past_question) is None:
            break
    found = catalog.find(tenant, [ellipsis.core]) if specs else []
    if not specs and not is_comparison(str(last["question"] or "")):
        # "and on the redmi?" after "Which phones does Xiaomi sell?": a list asked no
        # spec, so the one product the phrase names by a word of its own is looked up
        # whole (a ranking's spec is what it ranked: "and the Pixel 8a?" after "the
        # cheapest phone" asks its price). A word several names share ("Samsung") is none.
        products = catalog.products(tenant)
        name = named_product(ellipsis.core, [p.name for p in products])
        ranked = parse_catalog_request(
            str(last["question"] or ""), sorted({p.brand for p in products})
        )
        if ranked is not None and ranked.name == "rank_products":
            specs = [str(ranked.args["spec"])]
        found = [p for p in products if p.name == name]
    if len(found) != 1:
        return plan
    args = {"name": found[0].name, "specs": specs}
    return dataclasses.replace(plan, route="tool", tool=ToolRequest("get_product", args))


def compared_with_subject(
    plan: TurnPlan,
    question: str,
    subject: str,
    products: list[Product],
    services: Services,
    tenant: str,
) -> TurnPlan:
    """Rank the product discussed with the one a comparative names ("is it cheaper than X?").

    The two are ranked on the spec compared, the answer first; a message naming no
    other product of the catalog keeps its plan.
    """
    category = next((p.category for p in products if p.name == subject), None)
    compared = compared_to_it(question, category)
    if compared is None:
        return plan
    spec, other = compared
    if spec.get("spec") == "battery":
        return plan  # the subject is no product: no unit to compare its battery in
    found = [p.name for p in services.kb.catalog.find(tenant, [other]) if p.name != subject]
    if not found:
        return plan
    args = {**spec, "names": [subject, found[0]], "limit": 2}
    return dataclasses.replace(plan, route="tool", tool=ToolRequest("rank_products", args))


def compared_named_pair(
    plan: TurnPlan, question: str, products: list[Product], services: Services, tenant: str
) -> TurnPlan:
    """Rank the two products "is X heavier than Y?" names on the spec compared.

    A message naming no two distinct products of the catalog keeps its plan.
    """
    category = products[0].category if len({p.category for p in products}) == 1 else None
    pair = compared_pair(question, category)
    if pair is None:
        return plan
    spec, first, other = pair
    found = services.kb.catalog.find(tenant, [first, other])
    if len(found) != 2:
        return plan
    if spec.get("spec") == "battery":
        # A battery is compared in the unit of the products' category: hours of a
        # laptop, mAh of a phone; a phone and a laptop have no battery spec in common.
        categories = {p.category for p in found}
        if len(categories) != 1:
            return plan
        unit = "battery_hours" if categories == {"laptop"} else "battery_mah"
        spec = {**spec, "spec": unit}
    args = {**spec, "names": [p.name for p in found], "limit": 2}
    return dataclasses.replace(plan, route="tool", tool=ToolRequest("rank_products", args))


# A pronoun standing for one thing: "is it light?", "combien pèse-t-il ?", "son prix ?".
_THE_ONE_THING = re.compile(r"\b(?:it|its|son|sa|ses)\b|-t-(?:il|elle)\b", re.I)


def _superlative_of_the_last_ranking(question: str, history: Sequence[Any]) -> str | None:
    """Return a terse superlative asked of what the conversation last spoke of, or None.

    `superlative_of_previous` over the previous turn; past turns that only ask about "it"
    ("how heavy is it?" after the cheapest laptop) speak of nothing of their own, so the
    turn before them says what "what about the most expensive one?" ranks. A tool
    answer's query lists the products shown; its question is what it ranked.
    """
    for past in reversed(history):
        question_asked = str(past["question"] or "")
        query = (question_asked if past["route"] == "tool" else "") or past["search_query"]
        ranked = superlative_of_previous(question, question_asked, str(query or ""))
        if ranked is not None or not PRONOUN.search(question_asked):
            return ranked
    return None


def _reranked_last_ranking(
    question: str, history: Sequence[Any], brands: Sequence[str]
) -> ToolRequest | None:
    """Return the last catalog ranking ranked the way a bare superlative says, or None.

    `reranked_on_the_same_spec` (or `reranked_on_another_spec`, the same products on
    the spec a terse superlative names) over the previous tool turn; past tool turns that only
    ask about "it" ("how much does it cost?" after the phone with the biggest battery)
    rank nothing of their own, so the turn before them says what "and the smallest one?"
    ranks, as `_superlative_of_the_last_ranking` reads them for a document answer.
    """
    for past in reversed(history):
        if past["route"] != "tool":
            return None
        question_asked = str(past["question"] or "")
        reranked = reranked_on_the_same_spec(
            question, question_asked, brands
        ) or reranked_on_another_spec(question, question_asked, brands)
        if reranked is not None or not PRONOUN.search(question_asked):
            return reranked
    return None


@dataclass(frozen=True)
class _ShownProducts:
    """The products the conversation last showed, which a message can choose among.

    Attributes:
        listed: The products the previous catalog answer listed, in the order shown.
        is_cut: Whether the last list was a cut of its category (a ranking's top), so a
            new superlative ranks the whole category again.
        compared: Whether the last list was a comparison's.
        discussed: The products a document answer about several was about.
    """

    listed: list[str]
    is_cut: bool
    compared: bool
    discussed: list[str]


def _listed_by_catalog_answers(
    history: Sequence[HistoryEntry], known: set[str]
) -> tuple[list[str], bool, bool]:
    """Return the products the last catalog answers listed, whether a cut, whether compared.

    The products the previous answer listed, in the order shown (a catalog answer). A
    lookup of one of them ("the second one") does not replace the list it came from.
    """
    listed: list[str] = []
    listed_is_cut = False
    listed_compared = False
    for past in reversed(history):
        if past["route"] != "tool":
            break
        titles = [t.split(" — ")[0] for t in past["titles"]]
        listed = [t for t in titles if t in known]
        if len(listed) >= 2:
            listed_is_cut = ranks_a_category(past["question"])
            listed_compared = is_comparison(past["question"])
            break
    return listed, listed_is_cut, listed_compared


def _one_product_a_turn(history: Sequence[HistoryEntry], known: set[str]) -> list[str]:
    """Return the product each of the last two turns showed ("" for a turn showing none).

    A document answer shows it as its section, a catalog lookup as its title.
    """
    return [
        next(
            (
                part
                for t in past["titles"]
                for part in (t.split(" — ")[-1], t.split(" — ")[0])
                if part in known
            ),
            "",
        )
        for past in history[-2:]
    ]


def _shown_products(
    history: Sequence[HistoryEntry], query: str, known: set[str], *, catalog: bool
) -> _ShownProducts:
    """Return the products the previous answers showed, listed or discussed."""
    listed, listed_is_cut, listed_compared = _listed_by_catalog_answers(history, known)
    # A document answer about several products (an overview of the catalog): the
    # products its cited sections are about, for "which of those is cheapest?".
    discussed: list[str] = []
    if history and history[-1]["route"] != "tool":
        sections = [t.split(" — ")[-1] for t in history[-1]["titles"] if " — " in t]
        discussed = list(dict.fromkeys(t for t in sections if t in known))
        # "Quel est le portable le plus cher ?" answered from the documents cites the
        # top of the category, as a ranking shows it: a cut of the category, so "et le
        # moins cher ?" ranks the whole category again, not the products cited.
        listed_is_cut = ranks_a_category(str(history[-1]["question"] or ""))
    if catalog and len(discussed) < 2 and chooses_among_shown(query):
        # "which one is cheaper?" after "Tell me about the iPhone 15" then "and the Pixel
        # 8a?": one product a turn, the two turns' products are those to choose among,
        # whether a document answer showed it (its section) or a catalog lookup (its
        # title: "how much does it weigh?" then "and the XPS 13?").
        recent = _one_product_a_turn(history, known)
        if len(set(recent)) == 2 and all(recent) and len(listed) < 2:
            # One product a lookup showed is no list to choose among: the two are.
            discussed, listed = recent, []
    return _ShownProducts(listed, listed_is_cut, listed_compared, discussed)


def _criterion_answered(
    query: str, history: Sequence[HistoryEntry], products: list[Product], brands: list[str]
) -> tuple[str, TurnPlan | None]:
    """Read a message after a question asked back: the criterion chosen, or still unsaid.

    A typed reply naming one of the criteria a "best" question was asked back with
    ("prix", "by price") is that criterion's chip: its ranking question.
    """
    # The question a run of questions back is about: "by weight" after "how heavy is
    # it?" (asked back again) answers the "best laptop" question before it.
    asked_back = str(history[-1]["question"] or "")
    for past in reversed(history):
        if past["route"] != "clarify":
            break
        if best_without_criterion(str(past["question"] or "")):
            asked_back = str(past["question"])
            break
    question = chosen_criterion(query, asked_back) or query
    if (
        question == query
        and best_without_criterion(asked_back)
        and (asks_a_spec_of_it(question, brands) or _THE_ONE_THING.search(question))
        and named_product(question, [p.name for p in products]) is None
    ):
        # "how heavy is it?" after "the best laptop for travel?" was asked back which
        # criterion: no laptop was given, so "it" stands for none; the criterion is
        # still the user's to say (it quoted three laptops' weights).
        unsaid = Reference(detected=True, resolved=False, reason="which_criterion")
        return question, TurnPlan("clarify", reference=unsaid)
    return question, None


def _kind_ranked_after_decline(
    question: str, history: Sequence[HistoryEntry], brands: list[str]
) -> TurnPlan | None:
    """Rank the kind of product last named with a terse superlative, or ask which kind.

    "le moins cher ?" right after a declined turn: the declined question's sources are
    none, so the superlative ranks the kind of product last named ("Je veux un
    téléphone ..."), or asks which kind; never the documents' words of the turn before
    (the report's 2025 target).
    """
    kind = kind_last_named([str(h["question"] or "") for h in history])
    ranked_kind = ranking_of_kind(question, kind, brands) if kind else None
    if kind is None:
        which = Reference(detected=True, resolved=False, reason="which_kind")
        return TurnPlan("clarify", reference=which)
    if ranked_kind is not None:
        return TurnPlan("tool", tool=ranked_kind)
    return None


def _points_at_nothing(question: str, history: Sequence[HistoryEntry], plan: TurnPlan) -> bool:
    """Whether a message's subject is a pronoun the previous answer gives nothing to stand for.

    "who is responsible for that?" after a decline and a question back: "that" stands for
    what the conversation showed, and the last answer showed no document. A message naming
    a thing of its own, or more than one content word beside the pronoun, says what it
    asks about.
    """
    # Small talk ("thanks") says nothing a pronoun could stand for, nor hides what did.
    said = [entry for entry in history if entry["route"] != "reply"]
    if not said or said[-1]["titles"] or pointer_of(question) is None:
        return False
    # A follow-up after a decline leans on the declined question, which the pronoun stands
    # for ("how much is it?" after the tablets: declined again); a message searched on its
    # own, or one after a question back, has nothing it could stand for.
    if not (
        plan.route == "standalone"
        or (plan.route == "followup_context" and said[-1]["route"] == "clarify")
    ):
        return False
    return len(content_terms(question)) <= 1 and not named_things(question)


def _product_chosen(
    query: str, history: Sequence[HistoryEntry], products: list[Product], brands: list[str]
) -> TurnPlan | None:
    """Return the lookup a product picked from a "which one?" asked of a list settles.

    "does it have 5G?" after a list was asked back which product "it" is, the list's
    products as chips; "the second one", "le deuxième", "the $299 one" typed instead
    points into that list: the product's catalog entry, with the specs the question
    asked back asks ("how much RAM does it have?": its RAM). None otherwise.
    """
    if len(history) < 2 or history[-1]["route"] != "clarify":
        return None
    asked_back = str(history[-1]["question"] or "")
    if not (asks_of_one_unnamed(asked_back, brands) or asks_a_spec_of_it(asked_back, brands)):
        return None
    listed, _, _ = _listed_by_catalog_answers(history[:-1], {p.name for p in products})
    found = listed_product(query, listed, {p.name: p.price_usd for p in products})
    # Only the pointer ("I mean the second one"): a message asking more asks of its own.
    if found is None or asked_specs(query) or len(without_product_reference(query).split()) > 3:
        return None
    rank, ref_type = found
    reference = Reference(
        detected=True, resolved=True, ref_type=ref_type, document_index=rank, method="deterministic"
    )
    args = {"name": listed[rank - 1], "specs": asked_specs(asked_back)}
    return TurnPlan("tool", reference=reference, tool=ToolRequest("get_product", args))


def _read_question(
    query: str,
    history: Sequence[HistoryEntry],
    products: list[Product],
    brands: list[str],
    shown: _ShownProducts,
    *,
    catalog: bool,
) -> tuple[str, TurnPlan | None]:
    """Return the question the message asks, and the plan it settles alone, if any."""
    question = query
    kind_plan: TurnPlan | None = None
    if catalog and history and history[-1]["route"] == "clarify":
        kind_plan = _product_chosen(query, history, products, brands)
        if kind_plan is not None:
            return question, kind_plan
        question, kind_plan = _criterion_answered(query, history, products, brands)
    if catalog and history and not shown.listed and len(shown.discussed) < 2:
        # "lequel est le plus léger ?" after "Parle-moi des ordinateurs portables" (a
        # document answer, no list shown): the superlative ranks the category the
        # previous question spoke of, "Quel est l'ordinateur portable le plus léger ?".
        ranked = _superlative_of_the_last_ranking(question, history)
        if ranked is not None and parse_catalog_request(ranked, brands) is not None:
            question = ranked
    declined = bool(history) and not history[-1].get("titles")
    if (
        catalog
        and declined
        and not kind_plan
        and not shown.listed
        and terse_superlative(question, brands)
    ):
        kind_plan = _kind_ranked_after_decline(question, history, brands)
    return question, kind_plan


def _plan_inputs(
    state: State,
    products: list[Product],
    brands: list[str],
    shown: _ShownProducts,
    subject: str | None,
) -> dict[str, Any]:
    """Return what `plan_turn` reads of the conversation and the catalog."""
    ts = state.thread_state
    return {
        "outline": [OutlineSection(o.id, o.title) for o in ts.last_outline],
        "source_titles": ts.last_titles,
        "has_previous_turn": bool(state.history),
        "brands": brands,
        "listed_products": shown.listed,
        "listed_category": shared_category(products, shown.listed or shown.discussed),
        "listed_is_cut": shown.is_cut,
        "listed_compared": shown.compared,
        "discussed_products": shown.discussed if len(shown.discussed) >= 2 else (),
        "prices": {p.name: p.price_usd for p in products},
        "subject_product": subject,
        "pointed_section": state.history[-1].get("section_id") if state.history else None,
    }


def _first_plan(
    question: str,
    history: Sequence[HistoryEntry],
    brands: list[str],
    planned: dict[str, Any],
    kind_plan: TurnPlan | None,
    *,
    catalog: bool,
) -> TurnPlan:
    """Return the plan settled by the question, a ranking again, or `plan_turn`'s."""
    reranked = _reranked_last_ranking(question, history, brands) if catalog else None
    return kind_plan or (
        TurnPlan("tool", tool=reranked)
        if reranked is not None
        else plan_turn(question, **planned, catalog=catalog)
    )


def _with_products_compared(
    plan: TurnPlan,
    question: str,
    products: list[Product],
    subject: str | None,
    services: Services,
    tenant: str,
    *,
    catalog: bool,
) -> TurnPlan:
    """Rank the two products a comparative compares, both named or one of them "it"."""
    paired = compared_named_pair(plan, question, products, services, tenant) if catalog else plan
    if paired is not plan:
        # "Is the MacBook Air heavier than the Dell XPS 13?": both products named.
        return paired
    if catalog and subject:
        # Before a ranking of those listed or a spec of "it": "is it cheaper than the
        # MacBook Air?" names the other product compared.
        return compared_with_subject(plan, question, subject, products, services, tenant)
    return plan


def _search_narrowed(
    plan: TurnPlan, question: str, products: list[Product], brands: list[str]
) -> TurnPlan:
    """Narrow a product search to the brand or the line of products the message names."""
    tool = plan.tool
    if tool is not None and tool.name == "search_products" and "brand" not in tool.args:
        # "any Huawei phones?": a brand no product has filters every product out, which
        # is the answer (not the whole category).
        words = [*brands, *(w for p in products for w in p.name.split())]
        if missing_brand := unknown_brand(question, words):
            plan = dataclasses.replace(
                plan, tool=ToolRequest("search_products", {**tool.args, "brand": missing_brand})
            )
        elif line := product_line(question, brands, [p.name for p in products]):
            # "Galaxy phones": a line of products, the Galaxy ones, not every phone.
            plan = dataclasses.replace(
                plan, tool=ToolRequest("search_products", {**tool.args, "line": line})
            )
    return plan


def _compared_in_catalog_or_documents(
    plan: TurnPlan,
    question: str,
    planned: dict[str, Any],
    subject: str | None,
    services: Services,
    tenant: str,
) -> TurnPlan:
    """Compare the catalog's products a comparison names, or plan it over the documents."""
    compared = plan.tool
    if compared is not None and compared.name == "compare_products":
        found = services.kb.catalog.find(tenant, list(compared.args.get("names", [])))
        if not found:
            # "Compare the Basic and Business plans", "the difference between a P2 and a
            # P3 incident": no product of the catalog is named, so the things compared
            # are the documents' (was declined: no matching products).
            plan = plan_turn(question, **planned, catalog=False)
        else:
            plan = dataclasses.replace(plan, tool=with_subject(compared, found, subject))
    return plan


# A price bound or a budget, as `_ranked_in_the_kind_stating_it` sets it aside.
_PRICE_BOUND = re.compile(rf"{MAX_PRICE.pattern}|{MIN_PRICE.pattern}|{BUDGET.pattern}")


def _ranked_in_the_kind_stating_it(
    plan: TurnPlan, question: str, products: list[Product], brands: list[str]
) -> TurnPlan:
    """Rank a superlative naming no kind in the one kind of product whose spec it ranks.

    « le plus léger sous 1000 $ ? »: the catalog weighs laptops only, so the lightest is
    a laptop's ranking, not a question for the documents (declined on « 1000 »). A spec
    several kinds state (a price, a battery) leaves the kind unsaid, and the plan as is.
    """
    if plan.route not in ("standalone", "followup_context") or kind_last_named([question]):
        return plan
    text = folded_message(question)
    # The superlative alone, a price bound aside: "what is the heaviest penalty?" asks of
    # a penalty, not of a product.
    if not terse_superlative(_PRICE_BOUND.sub(" ", text).strip(), brands):
        return plan
    specs = [spec for pattern, spec, _ in SUPERLATIVES if re.search(pattern, text)]
    if not specs or specs[0] == "battery":
        return plan
    kinds = {p.category for p in products if p.has_spec(specs[0])}
    if len(kinds) != 1:
        return plan
    ranked = ranking_of_kind(question, kinds.pop(), brands)
    return TurnPlan("tool", tool=ranked) if ranked is not None else plan


def _turn_followup(plan: TurnPlan) -> TurnFollowup:
    """Return how the planned message refers to the previous turns."""
    followup = TurnFollowup()
    if plan.route in ("followup_context",):
        followup = TurnFollowup(detected=True, ref_type="context")
    if plan.reference is not None:
        ref = plan.reference
        followup = TurnFollowup(
            detected=ref.detected,
            resolved=ref.resolved,
            ref_type=ref.ref_type,
            section_id=ref.section_id,
            also_sections=list(ref.also_sections),
            method=ref.method,
            document_index=ref.document_index,
            reason=ref.reason,
        )
    return followup


def route_turn(state: State) -> dict[str, Any]:
    """Classify the message: reply, tool, follow-up (reference or context) or standalone.

    Args:
        state: The turn's state after loading the conversation.

    Returns:
        The partial state update: route, followup, deliverable, tool_call, trace.
    """
    return route_update(state, run_services())


def route_update(state: State, services: Services) -> dict[str, Any]:
    """Run the body of `route_turn` over explicit services (the retrieval benchmark's)."""
    readable = may_read_catalog(services.settings.source_policy, state.caller_app, state.sources)
    products = services.kb.catalog.products(state.tenant) if readable else []
    # A tenant with no product catalog has no catalog turns: "which computer should I
    # buy?" over its documents is a question for them, not a ranking of nothing.
    catalog = bool(products)
    brands = sorted({p.brand for p in products})
    known = {p.name for p in products}
    shown = _shown_products(state.history, state.query, known, catalog=catalog)
    subject = subject_product(state.history, known)
    question, kind_plan = _read_question(
        state.query, state.history, products, brands, shown, catalog=catalog
    )
    planned = _plan_inputs(state, products, brands, shown, subject)
    plan = _first_plan(question, state.history, brands, planned, kind_plan, catalog=catalog)
    plan = _with_products_compared(
        plan, question, products, subject, services, state.tenant, catalog=catalog
    )
    plan = _search_narrowed(plan, question, products, brands)
    plan = _compared_in_catalog_or_documents(
        plan, question, planned, subject, services, state.tenant
    )
    if catalog:
        plan = _ranked_in_the_kind_stating_it(plan, question, products, brands)
        previous = str(state.history[-1]["question"] or "") if state.history else ""
        plan = one_ranked(plan, question, products, services.kb.catalog, state.tenant, previous)
        plan = several_specs_of_one(plan, question, products)
        plan = switched_product(plan, question, state.history, services.kb.catalog, state.tenant)
    if _points_at_nothing(question, state.history, plan):
        pointed = Reference(detected=True, resolved=False, reason="nothing_pointed_at")
        plan = TurnPlan("clarify", reference=pointed)
    route = plan.route
    if route == "followup_reference" and not (plan.reference and plan.reference.resolved):
        route = "clarify"
    tool_call = ToolCall(name=plan.tool.name, args=plan.tool.args) if plan.tool else None
    return {
        "route": route,
        "followup": _turn_followup(plan),
        "deliverable": plan.deliverable,
        "tool_call": tool_call,
        "discussed_product": subject,
        "trace": [{"node": "route_turn", "route": route}],
    }
