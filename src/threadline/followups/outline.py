"""Parse and render the ``SUIVI`` outline block that ends a deliverable answer.

The generator is asked to finish summaries and reports with::

    SUIVI
    [S1] <short title>
    [S2] <short title>

The block is taken out of the answer shown to the user and kept as a structured outline,
which later turns point into ("détaille S2"). Models do not always follow the format to the
letter, so the parser tolerates Markdown decoration and one stray closing line, but it only
ever reads a block that ends the text: a ``SUIVI`` or ``[S1]`` quoted in the middle of an
answer (from a document or from the user) must never become an outline.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

DEFAULT_KEYWORD = "SUIVI"
MAX_SECTIONS = 8

# Markdown decoration a model may put around the keyword or a title: emphasis markers,
# inline code and heading hashes.
_DECORATION = re.compile(r"^(?:[#>\s*_`~]+)|(?:[\s*_`~]+)$")
# A bullet or list number in front of a section line.
_BULLET = r"(?:[-*+•·]\s+|\d{1,2}[.)]\s+)?"
# The id, bracketed ("[S1]", "**[S1]**") or bare but then followed by a separator
# ("S1: title"), since a bare "S1" alone could be the start of an ordinary sentence.
_SECTION_LINE = re.compile(
    r"^\s*" + _BULLET + r"(?:\*\*|__|\*|_)?"
    r"(?:\[\s*[sS]\s*(?P<num>\d{1,2})\s*\]|(?P<bare>[sS](?P<bnum>\d{1,2}))(?=\s*[:.)\-–—]))"
    r"(?:\*\*|__|\*|_)?\s*(?:[:.)\-–—]+\s*)?(?P<title>.*)$"
)
_TRAILING_PUNCT = ".,;:!?…·-–—"


@dataclass(frozen=True)
class OutlineSection:
    """One entry of an answer's outline.

    Attributes:
        id: Upper-case id, ``"S1"`` to ``"S8"``, consecutive from ``S1``.
        title: Short title, without Markdown emphasis or trailing punctuation.
    """

    id: str
    title: str


def _clean_title(raw: str) -> str:
    """Strip Markdown emphasis, surrounding space and trailing punctuation from a title."""
    title = raw.strip()
    # Loop because decoration and punctuation can interleave ("**Finances.**").
    while True:
        before = title
        title = _DECORATION.sub("", title).strip()
        title = title.rstrip(_TRAILING_PUNCT).strip()
        if title == before:
            return title


def _is_keyword_line(line: str, keyword: str) -> bool:
    """Tells whether a line is the keyword, possibly bold, a heading or followed by a colon."""
    core = _DECORATION.sub("", line.strip())
    core = core.rstrip(" :").strip()
    core = _DECORATION.sub("", core).strip()
    return core.casefold() == keyword.casefold()


def _parse_section_line(line: str) -> tuple[int, str] | None:
    """Read ``[S1] title`` in its tolerated variants.

    Returns:
        The written number and the cleaned title, or None when the line is not a section
        line or has an empty title.
    """
    match = _SECTION_LINE.match(line)
    if match is None:
        return None
    number = int(match.group("num") or match.group("bnum"))
    title = _clean_title(match.group("title"))
    if not title:
        return None
    return number, title


def split_outline(text: str, keyword: str = DEFAULT_KEYWORD) -> tuple[str, list[OutlineSection]]:
    """Separates a model answer from the outline block that ends it.

    The block is the last keyword line followed by section lines (blank lines allowed
    between them). After it, only blank lines and at most one stray non-empty line (a
    closing sentence, a ``---`` rule) may follow; anything more means the keyword was not
    the final block and nothing is parsed. The stray line is dropped with the block, since
    the contract puts nothing after it.

    Ids are normalised to ``S<n>``; when the written numbers are not exactly 1..n they are
    renumbered in order of appearance. Beyond :data:`MAX_SECTIONS` the extra sections are
    discarded. A block with fewer sections than the contract's minimum is still removed
    and its sections still returned: the caller decides whether that is enough.

    Args:
        text: The answer as produced by the model.
        keyword: The block keyword; ``SUIVI`` in every language.

    Returns:
        The answer without the block (stripped) and the sections found, or the stripped
        text and an empty list when it does not end with a block.
    """
    lines = text.splitlines()
    i = len(lines) - 1
    stray_seen = False

    # Walk up over the tolerated tail: blank lines and at most one stray line.
    while i >= 0:
        line = lines[i]
        if not line.strip():
            i -= 1
            continue
        if _parse_section_line(line) is not None or _is_keyword_line(line, keyword):
            break
        if stray_seen:
            return text.strip(), []
        stray_seen = True
        i -= 1

    parsed: list[tuple[int, str]] = []
    while i >= 0:
        line = lines[i]
        if not line.strip():
            i -= 1
            continue
        section = _parse_section_line(line)
        if section is None:
            break
        parsed.append(section)
        i -= 1

    if i < 0 or not parsed or not _is_keyword_line(lines[i], keyword):
        return text.strip(), []

    parsed.reverse()
    answer = "\n".join(lines[:i]).strip()
    return answer, _normalise_ids(parsed[:MAX_SECTIONS])


def _normalise_ids(parsed: Sequence[tuple[int, str]]) -> list[OutlineSection]:
    """Give the sections the ids ``S1..Sn`` in order of appearance.

    Written numbers that already run 1..n come out unchanged; anything else (gaps,
    duplicates, a list starting at S0) is renumbered by position, because later turns
    resolve "S3" against these ids and the order written is the one the user saw.
    """
    return [OutlineSection(id=f"S{n}", title=title) for n, (_, title) in enumerate(parsed, 1)]


def render_outline(sections: Sequence[OutlineSection], keyword: str = DEFAULT_KEYWORD) -> str:
    r"""Render sections as the canonical block, the inverse of :func:`split_outline`.

    Args:
        sections: The outline to render.
        keyword: The block keyword.

    Returns:
        ``"SUIVI\n[S1] title\n..."``, or an empty string for an empty outline.
    """
    if not sections:
        return ""
    # A title must stay on its line, or the block would no longer parse back.
    lines = [f"[{section.id}] {' '.join(section.title.split())}" for section in sections]
    return "\n".join([keyword, *lines])
