"""The fixed texts of a turn that does not answer: decline, ask which one, say what is missing.

Each returns the text shown to the user and the machine-readable `clarify` object
(`{"reason", "options": [{"label", "query"}]}`): `label` is what a chip shows,
`query` what it sends when clicked.
"""

from __future__ import annotations

from collections.abc import Sequence

from threadline.graph.grounding import neutralize_markers
from threadline.graph.state import Clarify, ClarifyOption
from threadline.store.models import OutlineItem


def _quote(items: Sequence[str], fr: bool) -> str:
    # Names come from documents (titles, products): their `[1]`, `[S2]` are defused as a
    # passage's are, so a reply shows no citation or outline marker nothing backs.
    quoted = [f"« {neutralize_markers(i)} »" if fr else f'"{neutralize_markers(i)}"' for i in items]
    if len(quoted) <= 1:
        return "".join(quoted)
    joiner = " ou " if fr else " or "
    return ", ".join(quoted[:-1]) + joiner + quoted[-1]


def decline(
    *,
    language: str,
    missing: Sequence[str],
    closest: Sequence[str],
    asks_for: str | None = None,
    aim: str = "",
    quality: str = "",
) -> tuple[str, Clarify]:
    """Return a plain "not in the documents", naming what is missing and the closest titles.

    `quality`: for "is X <quality>?", the quality no passage about X states (X is the
    one `missing` thing): said as such.
    `aim`: what the documents state instead of what happened (a target for the year
    asked), quoted and named as a target so that it is not read as the result.
    """
    fr = language == "fr"
    if aim:
        head = (
            f"Les documents ne donnent pas de résultat pour cette question, seulement un "
            f"objectif : « {aim} »"
            if fr
            else f'The documents give no result for this question, only a target: "{aim}"'
        )
    elif quality and missing:
        # "Is the iPhone 15 waterproof?": the thing and the quality asked of it.
        head = (
            f"Les documents ne disent pas si « {missing[0]} » est « {quality} »."
            if fr
            else f'The documents do not say whether "{missing[0]}" is "{quality}".'
        )
    elif missing:
        what = _quote(missing, fr)
        head = (
            f"Les documents ne disent rien sur {what}."
            if fr
            else f"The documents say nothing about {what}."
        )
    elif asks_for:
        kinds_fr = {
            "price": "de prix",
            "pay": "de montant de rémunération",
            "quantity": "de nombre",
            "date": "de date",
            "duration": "de durée",
            "frequency": "de fréquence",
            "weight": "de poids",
            "person": "de nom de personne",
            "phone": "de numéro de téléphone",
            "email": "d'adresse e-mail",
            "rank": "de classement",
        }
        kinds_en = {
            "price": "a price",
            "pay": "an amount of pay",
            "quantity": "a number",
            "date": "a date",
            "duration": "a duration",
            "frequency": "a frequency",
            "weight": "a weight",
            "person": "a person's name",
            "phone": "a phone number",
            "email": "an email address",
            "rank": "a ranking",
        }
        kind_missing = kinds_fr.get(asks_for, "l'information") if fr else kinds_en.get(asks_for)
        head = (
            f"Les documents ne donnent pas {kind_missing} pour répondre à cette question."
            if fr
            else f"The documents do not give {kind_missing or 'the information'} "
            "that answers this question."
        )
    else:
        head = (
            "Les documents ne répondent pas à cette question."
            if fr
            else "The documents do not answer this question."
        )
    if closest:
        listing = "; ".join(neutralize_markers(title) for title in closest)
        tail = (
            f" Les documents les plus proches : {listing}."
            if fr
            else f" The closest documents are: {listing}."
        )
    else:
        tail = ""
    options = [ClarifyOption(label=title, query=title) for title in closest]
    return head + tail, {"reason": "not_in_documents", "options": options}


def ask_which(
    *, language: str, candidates: Sequence[str], question: str, phrase: str = ""
) -> tuple[str, Clarify]:
    """Return a question back naming the candidates that fit equally.

    `phrase` is what the question pointed at without naming it ("the actor").
    """
    fr = language == "fr"
    names = _quote(candidates, fr)
    if fr:
        about = f"« {phrase} »" if phrase else "cela"
        text = f"De quoi parlez-vous exactement par {about} ?"
        if candidates:
            text = f"{text} Par exemple : {names} ?"
    else:
        about = f'"{phrase}"' if phrase else "that"
        text = f"Which one do you mean by {about}?"
        if candidates:
            text = f"{text} For example: {names}?"
    options = [ClarifyOption(label=c, query=f"{c}: {question}") for c in candidates]
    return text, {"reason": "ambiguous", "options": options}


def ask_criterion(
    *, language: str, criteria: Sequence[tuple[str, str, str, str]]
) -> tuple[str, Clarify]:
    """Ask on which criterion "the best" product is meant, one chip per ranking offered.

    `criteria` are (English label, French label, English question, French question).
    """
    fr = language == "fr"
    labels = [c[1] if fr else c[0] for c in criteria]
    names = ", ".join(labels[:-1]) + (" ou " if fr else " or ") + labels[-1]
    text = (
        f"Le meilleur selon quel critère ? Par exemple : {names}."
        if fr
        else f"Best on which criterion? For example: {names}."
    )
    options = [
        ClarifyOption(label=label, query=c[3] if fr else c[2])
        for label, c in zip(labels, criteria, strict=True)
    ]
    return text, {"reason": "ambiguous", "options": options}


def no_ratings(
    kind: str, *, language: str, criteria: Sequence[tuple[str, str, str, str]]
) -> tuple[str, Clarify]:
    """Say the catalog rates no product of a kind, and offer the rankings it has instead.

    `kind` is the category in the user's language ("phones"); `criteria` are (English
    label, French label, English question, French question), one chip each.
    """
    fr = language == "fr"
    labels = [c[1] if fr else c[0] for c in criteria]
    names = ", ".join(labels[:-1]) + (" ou " if fr else " or ") + labels[-1] if labels else ""
    if fr:
        text = f"Le catalogue ne donne pas de notes ni d'avis pour les {kind or 'produits'}."
        text += f" Il peut les classer par {names}." if names else ""
    else:
        text = f"The catalog gives no ratings or reviews for {kind or 'products'}."
        text += f" It can rank them by {names}." if names else ""
    options = [
        ClarifyOption(label=label, query=c[3] if fr else c[2])
        for label, c in zip(labels, criteria, strict=True)
    ]
    return text, {"reason": "ambiguous", "options": options}


def which_section_options(outline: Sequence[OutlineItem], language: str) -> Clarify:
    """Chips for "which part do you mean?": one per section of the previous outline."""
    verb = "Détaille" if language == "fr" else "Expand"
    return {
        "reason": "which_section",
        "options": [{"label": f"{o.id} · {o.title}", "query": f"{verb} {o.id}"} for o in outline],
    }


def partial_note(language: str, missing: Sequence[str]) -> str:
    """Return the sentence a partial answer ends with: what the documents do not cover."""
    fr = language == "fr"
    what = ", ".join(missing)
    return (
        f"Les documents ne couvrent pas : {what}." if fr else f"The documents do not cover: {what}."
    )


def left_out_note(language: str, sections: Sequence[str]) -> str:
    """Return the sentence a summary cut by the budgets ends with: the sections it left out."""
    what = ", ".join(sections)
    count = len(sections)
    if language == "fr":
        noun = "section" if count == 1 else "sections"
        return (
            f"Ce résumé ne couvre pas {count} {noun} du document : {what}. "
            "Posez une question sur l'une d'elles en la nommant."
        )
    noun = "section" if count == 1 else "sections"
    return (
        f"This summary leaves out {count} {noun} of the document: {what}. "
        "Ask about any of them by name."
    )


_SMALL_TALK = {
    ("thanks", True): "Avec plaisir ! Une autre question sur vos documents ?",
    ("thanks", False): "You're welcome! Anything else about your documents?",
    ("bye", True): "Au revoir ! La conversation reste disponible.",
    ("bye", False): "Goodbye! This conversation stays here when you come back.",
    ("greeting", True): (
        "Bonjour ! Je réponds uniquement à partir des documents de votre équipe, en "
        "citant mes sources. Posez une question, demandez un résumé, puis "
        "« Détaille S2 » pour approfondir une partie."
    ),
    ("greeting", False): (
        "Hello! I answer only from your team's documents, and I cite my sources. "
        'Ask a question or for a summary, then say "Expand S2" to go deeper into '
        "one part of it."
    ),
}


def small_talk(kind: str, language: str) -> str:
    """Return the answer to a greeting, a thanks or a goodbye: never a fact.

    Args:
        kind: "greeting", "thanks" or "bye"; any other kind gets the greeting.
        language: The answer language (fr answers in French, anything else in English).

    Returns:
        The reply text.
    """
    fr = language == "fr"
    return _SMALL_TALK.get((kind, fr), _SMALL_TALK[("greeting", fr)])


def about_the_assistant(titles: Sequence[str], language: str) -> str:
    """Return what the assistant does and the documents it reads for the caller.

    Args:
        titles: The titles of the documents the caller may read (their tenant and
            sources only), in the index's order.
        language: The answer language (fr answers in French, anything else in English).

    Returns:
        The reply text: no fact of any document, only their titles.
    """
    fr = language == "fr"
    listing = "\n".join(f"- {neutralize_markers(title)}" for title in titles)
    if fr:
        intro = (
            "Je réponds à vos questions uniquement à partir des documents de votre équipe, "
            "en citant mes sources ; quand ils ne répondent pas, je le dis. Je peux aussi "
            "résumer un document, puis « Détaille S2 » pour approfondir une partie."
        )
        if not listing:
            return intro + " Aucun document ne vous est accessible pour l'instant."
        return f"{intro}\nLes documents que je peux consulter pour vous :\n{listing}"
    intro = (
        "I answer your questions only from your team's documents, and I cite my sources; "
        "when they do not answer, I say so. I can also summarise a document, then "
        '"Expand S2" goes deeper into one part of it.'
    )
    if not listing:
        return intro + " No document is available to you yet."
    return f"{intro}\nThe documents I can search for you:\n{listing}"


def which_section(outline: Sequence[OutlineItem], language: str) -> str:
    """Ask "Which part do you mean?" after a bare "tell me more", listing the outline."""
    listing = "\n".join(f"- {o.id}: {o.title}" for o in outline)
    if language == "fr":
        return f"Quelle partie voulez-vous approfondir ?\n{listing}\nPar exemple : « Détaille S2 »."
    return f'Which part do you mean?\n{listing}\nFor example: "Expand S2".'


def which_sections_to_compare(outline: Sequence[OutlineItem], language: str) -> str:
    """Ask which parts to compare after a bare "compare them", listing the outline."""
    listing = "\n".join(f"- {o.id}: {o.title}" for o in outline)
    first, second = outline[0].id, outline[1].id
    if language == "fr":
        return (
            f"Quelles parties voulez-vous comparer ?\n{listing}\n"
            f"Par exemple : « Compare {first} et {second} »."
        )
    example = f'For example: "Compare {first} and {second}".'
    return f"Which parts do you want to compare?\n{listing}\n{example}"


def which_source(count: int, language: str) -> str:
    """Return a reference to a source number the previous answer does not have."""
    if count == 1:  # nothing to choose between: say so rather than ask "which one?"
        if language == "fr":
            return "La réponse précédente ne cite qu'une source, la 1re."
        return "The previous answer cites only one source, the 1st."
    if language == "fr":
        return f"La réponse précédente ne cite que {count} sources. Laquelle voulez-vous ?"
    return f"The previous answer cites {count} sources. Which one do you mean?"


def nothing_pointed_at(pointer: str, language: str) -> str:
    """Return a question back on a pronoun the last answers give nothing to stand for."""
    if language == "fr":
        return (
            f"À quoi renvoie « {pointer} » ? La réponse précédente ne citait aucun document. "
            "Précisez de quoi vous parlez."
        )
    return (
        f'What does "{pointer}" refer to? The previous answer quoted no document. '
        "Please say what you are asking about."
    )


def no_such_part(outline: Sequence[OutlineItem], language: str) -> str:
    """Return a reference into the previous outline that does not resolve."""
    fr = language == "fr"
    listing = "\n".join(f"- {o.id}: {o.title}" for o in outline)
    if outline:
        return (
            f"Cette partie n'existe pas. La réponse précédente contient :\n{listing}"
            if fr
            else f"There is no such part. The previous answer has:\n{listing}"
        )
    return (
        "La réponse précédente n'a pas de plan à détailler. Que cherchez-vous ?"
        if fr
        else "The previous answer has no outline to point into. What are you looking for?"
    )


def not_allowed(stop_reason: str, language: str) -> str:
    """Return a search the caller application's source policy refuses."""
    if language == "fr":
        return (
            "Cette recherche n'est pas autorisée pour cette application "
            f"({stop_reason}). Reformulez ou limitez-vous aux sources permises."
        )
    return (
        f"This search is not allowed for this application ({stop_reason}). "
        "Rephrase, or ask within the sources it may use."
    )


def cannot_search(stop_reason: str, language: str) -> str:
    """Say why a question could not be searched, in the user's words, not the reason code.

    The reason codes (`invalid_intent:query_too_long`...) stay in `stop_reason` for
    clients and traces; the text tells the user what to change.
    """
    too_long = stop_reason.endswith("query_too_long")
    if language == "fr":
        if too_long:
            return "Cette question est trop longue pour une recherche. Posez-la en moins de mots."
        return "Je n'ai rien trouvé à chercher dans ce message. Que voulez-vous savoir ?"
    if too_long:
        return "This question is too long to search. Ask it in fewer words."
    return "I found nothing to search for in this message. What would you like to know?"


def spec_not_stated(product: str, language: str) -> str:
    """Say the catalog has the product but does not state what was asked of it."""
    if language == "fr":
        return f"Le catalogue ne donne pas cette information pour « {product} »."
    return f'The catalog does not give this for "{product}".'


# Each spec the catalog may rank, named in a sentence: (English, French with its article).
_SPEC_NAMES = {
    "price_usd": ("price", "de prix"),
    "weight_kg": ("weight", "de poids"),
    "battery_hours": ("battery life", "d'autonomie"),
    "battery_mah": ("battery capacity", "de capacité de batterie"),
    "display": ("screen", "d'écran"),
    "storage_gb": ("storage", "de stockage"),
    "ram_gb": ("RAM", "de RAM"),
    "camera_mp": ("camera", "d'appareil photo"),
    "release_year": ("release year", "d'année de sortie"),
    "warranty_years": ("warranty", "de garantie"),
}


def spec_not_stated_for(spec: str, kind: str, language: str) -> str:
    """Say the catalog states a spec for none of the products asked about, naming the spec.

    "which is heavier?" after comparing two phones: "The catalog gives no weight for these
    phones." (`kind` is the products' category in the user's language, or empty when
    they are of several kinds.)
    """
    english, french = _SPEC_NAMES.get(spec, (spec.replace("_", " "), f"de {spec}"))
    if language == "fr":
        return f"Le catalogue ne donne pas {french} pour ces {kind or 'produits'}."
    return f"The catalog gives no {english} for these {kind or 'products'}."


def spec_stated_for_none(spec: str, kind: str, language: str) -> str:
    """Say the catalog states a spec for none of a kind's products ("no weight for phones")."""
    english, french = _SPEC_NAMES.get(spec, ("this information", "cette information"))
    if language == "fr":
        where = f" pour les {kind}" if kind else ""
        return f"Le catalogue ne donne pas {french}{where}."
    where = f" for {kind}" if kind else ""
    return f"The catalog gives no {english}{where}."


def catalog_count(count: int, kind: str, language: str) -> str:
    """Say how many products of a kind the catalog lists ("The catalog lists 9 phones.")."""
    words = {"phone": ("phones", "téléphones"), "laptop": ("laptops", "ordinateurs portables")}
    *brand, category = kind.split() or [""]
    english, french = words.get(category, ("products", "produits"))
    named = " ".join([*brand, english]) if brand else english
    if language == "fr":
        named_fr = " ".join([french, *brand])
        return f"Le catalogue compte {count} {named_fr}."
    return f"The catalog lists {count} {named}."


def not_in_catalog(name: str, close: Sequence[str], language: str) -> str:
    """Say the catalog has no product of that name, naming those whose names are close."""
    listing = "; ".join(neutralize_markers(n) for n in close)
    if language == "fr":
        head = f"Le catalogue n'a pas de « {name} »."
        return f"{head} Les plus proches : {listing}." if close else head
    head = f'The catalog has no "{name}".'
    return f"{head} The closest products are: {listing}." if close else head


def nothing_found(language: str) -> str:
    """No context to answer from: ask for a rephrasing or a document."""
    if language == "fr":
        return (
            "Je n'ai pas trouvé de quoi répondre dans les documents. Pouvez-vous préciser "
            "la question ou le document concerné ?"
        )
    return (
        "I could not find this in the documents. Could you rephrase, or name the "
        "document or topic you mean?"
    )
