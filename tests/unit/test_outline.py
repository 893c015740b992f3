"""Tests for the SUIVI outline parser and renderer (threadline.followups.outline)."""

from __future__ import annotations

import pytest

from threadline.followups.outline import OutlineSection, render_outline, split_outline

BODY = "Le parc a produit 312 GWh en 2023 [c1]. La disponibilité a atteint 97 % [c2]."
TITLES = ["Production", "Maintenance", "Biodiversité", "Retombées locales"]
CANONICAL = [OutlineSection(f"S{i}", t) for i, t in enumerate(TITLES, 1)]


def block(*lines: str) -> str:
    return "\n".join(lines)


def test_canonical_block():
    text = BODY + "\n\nSUIVI\n" + "\n".join(f"[S{i}] {t}" for i, t in enumerate(TITLES, 1))
    assert split_outline(text) == (BODY, CANONICAL)


@pytest.mark.parametrize(
    "keyword_line",
    [
        "SUIVI",
        "**SUIVI**",
        "### SUIVI",
        "SUIVI :",
        "SUIVI:",
        "  SUIVI  ",
        "## **SUIVI** :",
        "Suivi",
    ],
)
def test_keyword_variants(keyword_line):
    text = block(BODY, "", keyword_line, "[S1] Production", "[S2] Maintenance")
    answer, sections = split_outline(text)
    assert answer == BODY
    assert [s.title for s in sections] == ["Production", "Maintenance"]


@pytest.mark.parametrize(
    "line",
    [
        "[S1] Production",
        "- [S1] Production",
        "* [S1] Production",
        "**[S1]** Production",
        "[S1]: Production",
        "[S1] - Production",
        "[S1] — Production",
        "  [S1]    Production  ",
        "[s1] Production",
        "[ S1 ] Production",
        "**[S1] Production**",
        "[S1] *Production*.",
        "1. [S1] Production",
        "S1: Production",
        "[S1] Production :",
    ],
)
def test_section_line_variants(line):
    answer, sections = split_outline(block(BODY, "SUIVI", line))
    assert answer == BODY
    assert sections == [OutlineSection("S1", "Production")]


@pytest.mark.parametrize("stray", ["---", "N'hésitez pas si vous avez des questions.", "***"])
def test_one_stray_trailing_line_is_tolerated(stray):
    text = block(BODY, "SUIVI", "[S1] Production", "[S2] Maintenance", "", stray, "", "")
    answer, sections = split_outline(text)
    assert answer == BODY
    assert len(sections) == 2


def test_two_stray_lines_mean_no_outline():
    text = block(BODY, "SUIVI", "[S1] Production", "", "First stray.", "Second stray.")
    assert split_outline(text) == (text.strip(), [])


def test_blank_lines_inside_block():
    text = block(BODY, "", "SUIVI", "", "[S1] Production", "", "[S2] Maintenance", "")
    assert [s.id for s in split_outline(text)[1]] == ["S1", "S2"]


def test_block_in_the_middle_is_not_parsed():
    text = block(
        "Voici le plan proposé :",
        "SUIVI",
        "[S1] Production",
        "[S2] Maintenance",
        "",
        "Ensuite, le rapport détaille la production éolienne mois par mois.",
        "Il conclut sur les perspectives de renouvellement du parc.",
    )
    assert split_outline(text) == (text, [])


def test_bracket_ids_quoted_from_a_document_are_not_an_outline():
    text = block(
        "Le document indique :",
        "[S1] Production annuelle",
        "[S2] Maintenance préventive",
    )
    assert split_outline(text) == (text, [])


def test_user_text_with_keyword_mid_answer_then_real_block():
    text = block(
        "Vous avez écrit « SUIVI [S1] test ».",
        "SUIVI",
        "[S1] quoted",
        "",
        "Réponse détaillée ici.",
        "Et une autre ligne.",
        "",
        "SUIVI",
        "[S1] Production",
        "[S2] Maintenance",
    )
    answer, sections = split_outline(text)
    assert answer.endswith("Et une autre ligne.")
    assert "[S1] quoted" in answer
    assert [s.title for s in sections] == ["Production", "Maintenance"]


def test_more_than_eight_sections_are_truncated():
    lines = [f"[S{i}] Title {i}" for i in range(1, 11)]
    answer, sections = split_outline(block(BODY, "SUIVI", *lines))
    assert answer == BODY
    assert [s.id for s in sections] == [f"S{i}" for i in range(1, 9)]
    assert sections[-1].title == "Title 8"


def test_fewer_than_four_sections_still_stripped_and_returned():
    answer, sections = split_outline(block(BODY, "SUIVI", "[S1] Production"))
    assert answer == BODY
    assert sections == [OutlineSection("S1", "Production")]


@pytest.mark.parametrize(
    "numbers",
    [(1, 3, 4, 7), (2, 3, 4, 5), (0, 1, 2, 3), (1, 1, 2, 2), (4, 3, 2, 1)],
)
def test_ids_are_renumbered_when_not_consecutive(numbers):
    lines = [f"[S{n}] {t}" for n, t in zip(numbers, TITLES, strict=True)]
    assert split_outline(block(BODY, "SUIVI", *lines))[1] == CANONICAL


def test_no_block():
    assert split_outline("  Just an answer.  \n") == ("Just an answer.", [])
    assert split_outline("") == ("", [])


def test_keyword_alone_is_not_a_block():
    text = block(BODY, "SUIVI")
    assert split_outline(text) == (text, [])


def test_custom_keyword():
    text = block(BODY, "FOLLOW-UP", "[S1] Production")
    assert split_outline(text, keyword="FOLLOW-UP")[1] == [OutlineSection("S1", "Production")]
    assert split_outline(text)[1] == []


def test_crlf_line_endings():
    text = BODY + "\r\n\r\nSUIVI\r\n[S1] Production\r\n[S2] Maintenance\r\n"
    assert split_outline(text) == (BODY, CANONICAL[:2])


def test_render_canonical():
    assert render_outline(CANONICAL[:2]) == "SUIVI\n[S1] Production\n[S2] Maintenance"
    assert render_outline([]) == ""


def test_render_keeps_titles_on_one_line():
    rendered = render_outline([OutlineSection("S1", "Two\nlines")])
    assert rendered == "SUIVI\n[S1] Two lines"


@pytest.mark.parametrize("count", [1, 4, 8])
def test_round_trip(count):
    sections = [OutlineSection(f"S{i}", f"Titre numéro {i}") for i in range(1, count + 1)]
    text = BODY + "\n\n" + render_outline(sections)
    assert split_outline(text) == (BODY, sections)
    assert render_outline(split_outline(text)[1]) == render_outline(sections)
