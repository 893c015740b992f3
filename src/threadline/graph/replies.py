"""The fixed texts of a turn that does not answer: decline, ask which one, say what is missing.

Each returns the text shown to the user and the machine-readable `clarify` object
(`{"reason", "options": [{"label", "query"}]}`): `label` is what a chip shows,
`query` what it sends when clicked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _quote(items: Sequence[str], fr: bool) -> str:
    quoted = [f"« {i} »" if fr else f'"{i}"' for i in items]
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
) -> tuple[str, dict[str, Any]]:
    """A plain "not in the documents", naming what is missing and the closest titles."""
    fr = language == "fr"
    if missing:
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
            "weight": "de poids",
            "person": "de nom de personne",
        }
        kinds_en = {
            "price": "a price",
            "pay": "an amount of pay",
            "quantity": "a number",
            "date": "a date",
            "duration": "a duration",
            "weight": "a weight",
            "person": "a person's name",
        }
        head = (
            f"Les documents ne donnent pas {kinds_fr.get(asks_for, 'cette information')} "
            "pour répondre à cette question."
            if fr
            else f"The documents do not give {kinds_en.get(asks_for, 'that information')} "
            "that answers this question."
        )
    else:
        head = (
            "Les documents ne répondent pas à cette question."
            if fr
            else "The documents do not answer this question."
        )
    if closest:
        listing = "; ".join(closest)
        tail = (
            f" Les documents les plus proches : {listing}."
            if fr
            else f" The closest documents are: {listing}."
        )
    else:
        tail = ""
    options = [{"label": title, "query": title} for title in closest]
    return head + tail, {"reason": "not_in_documents", "options": options}


def ask_which(
    *, language: str, candidates: Sequence[str], question: str, phrase: str = ""
) -> tuple[str, dict[str, Any]]:
    """A question back naming the candidates that fit equally.

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
    options = [{"label": c, "query": f"{c}: {question}"} for c in candidates]
    return text, {"reason": "ambiguous", "options": options}


def which_section_options(outline: Sequence[dict[str, str]], language: str) -> dict[str, Any]:
    """Chips for "which part do you mean?": one per section of the previous outline."""
    verb = "Détaille" if language == "fr" else "Expand"
    return {
        "reason": "which_section",
        "options": [
            {"label": f"{o['id']} · {o['title']}", "query": f"{verb} {o['id']}"} for o in outline
        ],
    }


def partial_note(language: str, missing: Sequence[str]) -> str:
    """The sentence a partial answer ends with: what the documents do not cover."""
    fr = language == "fr"
    what = ", ".join(missing)
    return (
        f"Les documents ne couvrent pas : {what}." if fr else f"The documents do not cover: {what}."
    )
