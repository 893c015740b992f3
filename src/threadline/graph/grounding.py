"""What makes a generated answer citable: markers only from the generator, sentences supported.

* `neutralize_markers`: text inside a document that looks like a citation (`[7]`) or
  an outline line (`[S2] ...`, a line reading `SUIVI`) is rewritten before it
  reaches a prompt, so a model that copies it (the extractive model copies whole
  sentences) never produces a citation or an outline it did not mean.
* `support_check`: every cited sentence must be supported by the passages it
  cites: most of its content words are in them. A sentence that is not either
  loses its citations or is dropped (`THREADLINE_UNSUPPORTED_SENTENCES`).
* `attribute_sentences`: an answer whose model wrote no valid `[n]` marker (small
  models forget them) gets each sentence cited to the packed passage that supports
  it best, by the same support measure; a sentence no passage supports is handled
  as the support check handles an unsupported one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from threadline.graph.question_terms import COVERAGE_MAJORITY, content_terms
from threadline.graph.question_terms import matches_term as _matches
from threadline.text import terms
from threadline.text.sentences import sentences

CITATION = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
"""A citation the generator writes: `[2]` or `[1, 3]`."""

# Brackets around a short token: citation-like ("[7]", "[S2]", "[12, 3]").
_BRACKETED = re.compile(r"\[([^\[\]\n]{1,16})\]")
# Fullwidth brackets look the same to a reader and match no citation or outline pattern.
_OPEN, _CLOSE = "\uff3b", "\uff3d"

UnsupportedPolicy = Literal["drop", "uncite"]


def neutralize_markers(text: str, keyword: str = "SUIVI") -> str:
    """Document text with citation-like brackets and outline keyword lines defused.

    Args:
        text: A passage's text as stored.
        keyword: The outline keyword (a line holding only it would open an outline).

    Returns:
        The text with `[x]` written `［x］` and a keyword line quoted.
    """
    text = _BRACKETED.sub(lambda m: f"{_OPEN}{m.group(1)}{_CLOSE}", text)
    lines = []
    for line in text.split("\n"):
        core = re.sub(r"[#>*_`~\s:]", "", line)
        lines.append(f"“{line.strip()}”" if core.casefold() == keyword.casefold() else line)
    return "\n".join(lines)


@dataclass
class SupportReport:
    """The answer after the check, and what was removed."""

    text: str
    dropped: list[str] = field(default_factory=list)
    uncited: list[str] = field(default_factory=list)


def _sentence_terms(sentence: str) -> list[str]:
    """Return the content terms a passage must hold to support the sentence."""
    return [t for t in content_terms(CITATION.sub(" ", sentence)) if not t.isdigit()]


def _vocabulary(passages: Sequence[Mapping[str, object]]) -> set[str]:
    """Return the stems of the passages' titles, sections and texts."""
    vocabulary: set[str] = set()
    for passage in passages:
        vocabulary |= set(
            terms(f"{passage.get('title', '')} {passage.get('section', '')} {passage['text']}")
        )
    return vocabulary


def _coverage(words: Sequence[str], vocabulary: set[str]) -> float:
    """Return the share of the words that the vocabulary holds."""
    return sum(1 for t in words if _matches(t, vocabulary)) / len(words)


def sentence_supported(sentence: str, passages: Sequence[Mapping[str, object]]) -> bool:
    """Whether most of a sentence's content words are in the passages it cites."""
    words = _sentence_terms(sentence)
    if not words:
        return True
    return _coverage(words, _vocabulary(passages)) > COVERAGE_MAJORITY


def support_check(
    body: str, chunks: Mapping[str, Mapping[str, object]], policy: UnsupportedPolicy = "drop"
) -> SupportReport:
    """Check each cited sentence of `body` against the passages it cites.

    Args:
        body: The answer (citations already restricted to labels in `chunks`).
        chunks: Packed chunks by label.
        policy: `drop` removes an unsupported sentence, `uncite` keeps it without
            its citations.

    Returns:
        The checked text and the sentences dropped or uncited.
    """
    report = SupportReport(text="")
    out_lines = []
    for line in body.split("\n"):
        kept = []
        for sentence in _split_keep(line):
            labels = [i.strip() for m in CITATION.findall(sentence) for i in m.split(",")]
            cited = [chunks[label] for label in labels if label in chunks]
            if not cited or sentence_supported(sentence, cited):
                kept.append(sentence)
            elif policy == "drop":
                report.dropped.append(sentence.strip())
            else:
                report.uncited.append(sentence.strip())
                kept.append(CITATION.sub("", sentence).rstrip() + " ")
        rebuilt = "".join(kept).rstrip()
        # A line whose every sentence went is dropped whole (no empty bullets).
        if rebuilt.strip(" -*•") or not line.strip():
            out_lines.append(rebuilt)
    report.text = re.sub(r"\n{3,}", "\n\n", "\n".join(out_lines)).strip()
    return report


@dataclass
class AttributionReport:
    """A marker-less answer after attribution: cited text, and what was not attributed."""

    text: str
    attributed: int = 0
    dropped: list[str] = field(default_factory=list)
    uncited: list[str] = field(default_factory=list)


ATTRIBUTED_MIN_TERMS = 2
"""Content words a sentence without a marker needs to be cited to a passage.

One word a passage also holds does not show that the sentence says what the passage
says: SmolLM2's "enfin de la question" (its one content word "enfin", copied from the
annual report) would be cited to the report. Nor do words the passage writes in
different places: "financier nettement de la question" takes "financier" from the
report's heading and "nettement" from one of its sentences. A sentence with a marker is
judged by the support check as before.
"""


def attribute_sentences(
    body: str, chunks: Mapping[str, Mapping[str, object]], policy: UnsupportedPolicy = "drop"
) -> AttributionReport:
    """Cite each sentence of an answer without markers to the passage that supports it.

    The measure is the support check's (:func:`sentence_supported`), read in one place:
    a passage supports a sentence when one of its sentences holds most of the sentence's
    content words. Of the passages that do, the one holding the largest share is cited
    (the earliest packed on a tie). A sentence with no content word ("Sure.") or a
    single one (`ATTRIBUTED_MIN_TERMS`) is not attributed.

    Args:
        body: The answer, with no citation markers.
        chunks: Packed chunks by label, in packing order.
        policy: For a sentence no passage supports: `drop` removes it, `uncite` keeps
            it without a citation.

    Returns:
        The cited text, how many sentences were attributed, and the others.
    """
    # Each passage's sentences, read one by one: what a sentence says, the passage says
    # in one place (a word of its heading and one of a sentence say nothing together).
    stated = {
        label: [set(terms(s)) for s in sentences(str(chunk["text"]))]
        for label, chunk in chunks.items()
    }
    report = AttributionReport(text="")
    out_lines = []
    for line in body.split("\n"):
        kept = []
        for sentence in _split_keep(line):
            core, trailing = sentence.rstrip(), sentence[len(sentence.rstrip()) :]
            words = _sentence_terms(core)
            shares = {
                label: max((_coverage(words, vocabulary) for vocabulary in said), default=0.0)
                if len(words) >= ATTRIBUTED_MIN_TERMS
                else 0.0
                for label, said in stated.items()
            }
            best = max(shares, key=lambda label: shares[label], default=None)
            if best is not None and shares[best] > COVERAGE_MAJORITY:
                report.attributed += 1
                kept.append(f"{core} [{best}]{trailing or ' '}")
            elif not core.strip(" -*•"):
                kept.append(sentence)
            elif policy == "drop":
                report.dropped.append(core.strip())
            else:
                report.uncited.append(core.strip())
                kept.append(sentence)
        rebuilt = "".join(kept).rstrip()
        # A line whose every sentence went is dropped whole (no empty bullets).
        if rebuilt.strip(" -*•") or not line.strip():
            out_lines.append(rebuilt)
    report.text = re.sub(r"\n{3,}", "\n\n", "\n".join(out_lines)).strip()
    return report


def _split_keep(line: str) -> list[str]:
    """Sentences of one line, each keeping its trailing space and citations.

    A citation written after the full stop ("... costs $449. [4]") belongs to the
    sentence before it.
    """
    parts: list[str] = []
    start = 0
    for match in re.finditer(r"[.!?](?:\s*\[\d+(?:\s*,\s*\d+)*\])*\s+(?=[^\s\[])", line):
        parts.append(line[start : match.end()])
        start = match.end()
    if start < len(line):
        parts.append(line[start:])
    return parts
