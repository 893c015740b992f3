"""A number the question compares with a limit the documents state, in the same unit.

"Can I return a phone after 45 days?" names 45 days; the support policy says returns are
accepted "within 30 days of delivery". No passage holds "45", and none needs to: the
question measures its case against the stated limit, which answers it (quoted, the
limit says what the user needs; the offline model need not say "no" itself). A number
followed by a unit (days, hours, months, %, GB...) after a word that compares ("after",
"within", "more than", "après", "au-delà de") is such a measure when a passage states
a number in a unit of the same dimension ("30 days", "10 business days", "30 jours" for
"after 45 days" or "after 3 weeks");
then it is no name the passages must hold. So is the time elapsed in the user's own
case ("I bought it 40 days ago", « il y a 40 jours »), or the case the question supposes
("if uptime was 99.7%"). A number with no unit ("the P2 incident",
"the iPhone 15") or a unit no passage measures in stays a name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from threadline.text import fold

# Units and the one each stands for, in English and French.
_UNITS = {
    "minute": "minute",
    "minutes": "minute",
    "min": "minute",
    "hour": "hour",
    "hours": "hour",
    "heure": "hour",
    "heures": "hour",
    "h": "hour",
    "day": "day",
    "days": "day",
    "jour": "day",
    "jours": "day",
    "week": "week",
    "weeks": "week",
    "semaine": "week",
    "semaines": "week",
    "month": "month",
    "months": "month",
    "mois": "month",
    "year": "year",
    "years": "year",
    "an": "year",
    "ans": "year",
    "annee": "year",
    "annees": "year",
    "%": "percent",
    "percent": "percent",
    "gb": "gb",
    "go": "gb",
    "tb": "tb",
    "kg": "kg",
}
_UNIT = "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True))
# "45 days", "30 business days", "30 jours ouvrés" (a qualifier before or after the unit
# is read before it only: "business days"; French writes it after, which is fine).
_MEASURE = re.compile(
    rf"(?<![\w.,])(?P<number>\d+(?:[.,]\d+)?)\s*(?:[a-z]+\s+)?(?P<unit>{_UNIT})(?!\w)",
    re.I,
)


# What compares a case with a limit: "after 45 days", "more than 20 GB", "au-delà de 30
# jours". A number without one ("why the 46% drop?") is what the question is about.
_COMPARING = re.compile(
    r"(?:\b(?:after|before|over|under|beyond|past|within|more than|less than|longer than|"
    r"apres|avant|au-dela de|au bout de|plus de|moins de|dans|sous)\s+)$"
)


# What makes a duration the time elapsed in the user's own case: "I bought it 40 days
# ago", « je l'ai acheté il y a 40 jours », « depuis 40 jours ». The case is measured
# against the stated limit as "after 40 days" is.
_ELAPSED_BEFORE = re.compile(r"(?:\b(?:il y a|ca fait|voila|depuis)\s+)$")
_ELAPSED_AFTER = re.compile(r"^\s+(?:ago|back)\b")

# A measure the question supposes: "if uptime was 99.7%", « si la disponibilité tombe à
# 99,7 % ». The user's case again, within the clause the condition opens, measured against
# what the passages state in that unit (the SLA's "99.9% monthly uptime" and its credit rule).
_SUPPOSED = re.compile(r"\b(?:if|assuming|suppose|supposing|si|en cas de)\b[^,.;:!?]*$")


def _measures(text: str, compared: bool = False) -> list[tuple[str, str]]:
    return [(number, _UNITS[unit]) for number, unit in _measures_as_written(text, compared)]


def _measures_as_written(text: str, compared: bool = False) -> list[tuple[str, str]]:
    folded = fold(text)
    return [
        (m["number"], m["unit"].lower())
        for m in _MEASURE.finditer(folded)
        if not compared
        or _COMPARING.search(folded[: m.start()])
        or _SUPPOSED.search(folded[: m.start()])
        or (
            _DIMENSIONS.get(_UNITS[m["unit"].lower()]) == "time"
            and (
                _ELAPSED_BEFORE.search(folded[: m.start()])
                or _ELAPSED_AFTER.match(folded[m.end() :])
            )
        )
    ]


def compared_unit_words(question: str, passages: Sequence[Mapping[str, object]]) -> frozenset[str]:
    """Return the unit words of the question's compared measures, as written ("weeks").

    "after 3 weeks" against "within 30 days": the weeks are the user's measure, no word
    the passages must say, as the 3 is no name they must hold.
    """
    numbers = compared_numbers(question, passages)
    return frozenset(
        unit for number, unit in _measures_as_written(question, compared=True) if number in numbers
    )


# What a unit measures: a duration in weeks is compared with a limit in days ("Can I get
# a refund after 3 weeks?" against "within 30 days").
_DIMENSIONS = {
    "minute": "time",
    "hour": "time",
    "day": "time",
    "week": "time",
    "month": "time",
    "year": "time",
    "gb": "storage",
    "tb": "storage",
}


def compared_numbers(question: str, passages: Sequence[Mapping[str, object]]) -> frozenset[str]:
    """Return the question's numbers that measure against a limit a passage states.

    A number the passages also state is compared all the same: "après 10 jours" is
    measured against "within 30 days", whatever else "10 business days" says (a refund's
    delay); kept as a name, it made the refund delay the sentence quoted.

    Args:
        question: The question as asked.
        passages: The packed passages (`text`).

    Returns:
        The numbers as written in the question ("45") whose dimension (a duration, a
        share, a size) a passage states with a number; empty when none.
    """
    asked = _measures(question, compared=True)
    counted = _counts_of_limited_things(question, passages)
    if not asked:
        return counted
    stated: set[str] = set()
    for passage in passages:
        for _, unit in _measures(str(passage.get("text", ""))):
            stated.add(_DIMENSIONS.get(unit, unit))
    return counted | frozenset(
        number for number, unit in asked if _DIMENSIONS.get(unit, unit) in stated
    )


# A count of things ("500 devices") and a limit a passage states on the number of those
# things: "covers up to 100 devices", "an unlimited number of devices", « jusqu'à 10
# appareils », « un nombre illimité d'appareils ».
_COUNT = re.compile(r"(?<![\w.,$€£])(?P<number>\d+)\s+(?P<noun>[a-z][a-z-]+)")
_LIMITED = (
    r"(?:up to|at most|a maximum of|maximum|no more than|jusqu'a|au plus|au maximum)\s+"
    r"\d[\d,. ]*\s+{noun}|"
    r"(?:unlimited|any) number of\s+{noun}|unlimited\s+{noun}|"
    r"nombre illimite d(?:e\s+|')\s*{noun}|{noun}\s+illimite"
)


def _counts_of_limited_things(
    question: str, passages: Sequence[Mapping[str, object]]
) -> frozenset[str]:
    """Return the question's counts of things whose number a passage limits.

    "Does the Enterprise plan cover 500 devices?" measures its case against "covers an
    unlimited number of devices", as "after 45 days" is measured against "within 30 days":
    the 500 is no name the passages must write, and "up to 50% of the monthly fee" does
    not hold it.
    """
    folded = fold(question)
    counts = [(m["number"], m["noun"]) for m in _COUNT.finditer(folded) if m["noun"] not in _UNITS]
    if not counts:
        return frozenset()
    texts = [fold(str(passage.get("text", ""))) for passage in passages]
    found: set[str] = set()
    for number, noun in counts:
        # The noun as written or singular: "devices", "device"; « appareils ».
        forms = rf"(?:{re.escape(noun)}|{re.escape(noun.rstrip('s'))}s?)\b"
        limited = re.compile(_LIMITED.format(noun=forms))
        if any(limited.search(text) for text in texts):
            found.add(number)
    return frozenset(found)
