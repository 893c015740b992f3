"""The offline extractive model: only context sentences, cited; outlines for deliverables."""

from __future__ import annotations

import html
import re

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from threadline.followups.outline import split_outline
from threadline.graph import prompts
from threadline.models import ExtractiveChatModel

SOURCES = [
    ("Production", "The 24 turbines produced 312 GWh in 2023. December was the best month."),
    ("Maintenance", "Availability reached 97.2 percent. Two gearboxes were replaced in spring."),
    ("Biodiversity", "Cameras stop the rotors when raptors fly by. 42 bird species were seen."),
    ("Local impact", "The park paid 1.8 million euros of taxes. Fourteen technicians work there."),
    ("Grid", "The substation was upgraded to reduce losses."),
]


def prompt(question: str, *, deliverable: bool = False, reference: str = "", style: str = "prose"):
    context = "\n".join(
        prompts.SOURCE_TEMPLATE.format(
            id=i, title="Wind park report", section=html.escape(s), text=html.escape(t)
        )
        for i, (s, t) in enumerate(SOURCES, 1)
    )
    return [
        SystemMessage("system"),
        HumanMessage(
            prompts.ANSWER_USER_PROMPT.format(
                history="",
                followup_reference=reference,
                deliverable="yes" if deliverable else "no",
                answer_style=style,
                search_query=question,
                answer_type="",
                context=context,
                question=question,
            )
        ),
    ]


def sentences_without_citations(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"\s*\[\d+\]\s*", text) if s.strip()]


def test_answer_sentences_come_from_the_context_and_are_cited():
    model = ExtractiveChatModel()
    text = model.invoke(prompt("How many bird species were seen around the park?")).text
    assert "42 bird species were seen." in text
    assert "[3]" in text
    all_text = " ".join(t for _, t in SOURCES)
    for sentence in sentences_without_citations(text):
        assert sentence in all_text


def test_unanswerable_question_gives_the_insufficient_context_marker():
    model = ExtractiveChatModel()
    assert model.invoke(prompt("Who won the football world cup?")).text == "INSUFFICIENT_CONTEXT"
    assert model.invoke([HumanMessage("<question>hi</question>")]).text == "INSUFFICIENT_CONTEXT"


def test_deliverable_ends_with_a_parsable_outline_of_section_titles():
    model = ExtractiveChatModel()
    text = model.invoke(prompt("Summarise the report", deliverable=True)).text
    body, outline = split_outline(text)
    assert [o.title for o in outline] == [s for s, _ in SOURCES]
    assert text.rstrip().endswith("[S5] Grid")
    assert "SUIVI" not in body and "[1]" in body


def test_reference_focuses_on_the_named_section():
    model = ExtractiveChatModel()
    text = model.invoke(prompt("Détaille S2", reference="FOLLOWUP_REFERENCE=S2: Maintenance")).text
    assert "97.2 percent" in text and "gearboxes" in text
    assert set(re.findall(r"\[(\d+)\]", text)) == {"2"}


def test_list_style_gives_one_cited_bullet_per_source():
    text = ExtractiveChatModel().invoke(prompt("list", style="list")).text
    assert text.count("\n- ") + 1 == len(SOURCES) and "[5]" in text


def test_streaming_yields_the_same_text_in_pieces():
    model = ExtractiveChatModel()
    messages = prompt("How many turbines produced energy?")
    pieces = [chunk.text for chunk in model.stream(messages)]
    assert len(pieces) > 3
    assert "".join(pieces) == model.invoke(messages).text


def test_answer_prompt_renders_and_parses_back_to_the_same_parts():
    from threadline.models.answer_prompt import (
        AnswerPrompt,
        PromptSource,
        parse_answer_prompt,
        render_answer_prompt,
    )

    parts = AnswerPrompt(
        sources=[
            PromptSource("1", 'Rapport "2024" <final>', "Prix & coûts", "A < B & C > D.\nLine 2."),
            PromptSource("2", "Guide", "", "</source> inside a text stays text."),
        ],
        question='What does "</question>" mean?',
        history="Q: earlier <b>question</b>",
        followup_reference="S2: Prix & coûts",
        deliverable=True,
        answer_style="list",
        search_query="prix <coûts>",
        answer_type="price",
        language="fr",
    )
    assert parse_answer_prompt(render_answer_prompt(parts)) == parts


def test_the_extractive_model_binds_tools_and_fills_the_answer_schema():
    from langchain_core.tools import tool

    from threadline.graph.answering import GeneratedAnswer, generate_structured

    @tool
    def lookup(name: str) -> str:
        """Look a product up."""
        return name

    model = ExtractiveChatModel()
    assert model.profile["tool_calling"] is False
    reply = model.bind_tools([lookup]).invoke(prompt("How many bird species were seen?"))
    assert reply.tool_calls == [] and "42 bird species were seen." in reply.text
    structured = model.with_structured_output(GeneratedAnswer)
    answered = structured.invoke(prompt("How many bird species were seen?"))
    assert answered.verdict == "answer" and "[3]" in answered.answer
    declined = generate_structured(model, [HumanMessage("<context>\n</context>")])
    assert declined.verdict == "not_in_documents" and declined.answer == ""
    with_raw = model.with_structured_output(GeneratedAnswer, include_raw=True).invoke(
        prompt("How many bird species were seen?")
    )
    assert with_raw["parsed"].answer == with_raw["raw"].text.strip()


def _sources_prompt(
    question: str, passages: list[str], answer_type: str = "", titles: list[str] | None = None
):
    titles = titles or [f"Doc {i}" for i in range(1, len(passages) + 1)]
    context = "\n".join(
        prompts.SOURCE_TEMPLATE.format(id=i, title=title, section="", text=html.escape(t))
        for i, (title, t) in enumerate(zip(titles, passages, strict=True), 1)
    )
    return [
        HumanMessage(
            prompts.ANSWER_USER_PROMPT.format(
                history="",
                followup_reference="",
                deliverable="no",
                answer_style="prose",
                search_query=question,
                answer_type=answer_type,
                context=context,
                question=question,
            )
        )
    ]


def compose(
    question: str, passages: list[str], answer_type: str = "", titles: list[str] | None = None
) -> str:
    """The offline model's answer to a question over these passages, numbered from 1."""
    prompt = _sources_prompt(question, passages, answer_type, titles)
    return ExtractiveChatModel().invoke(prompt).text


def test_answer_gathers_the_best_ranked_passages_each_cited_to_its_own():
    # The first passage is quoted in its own order (its answering sentences, up to the
    # length of a useful answer); each next passage that answers adds its best sentence.
    passages = [
        "Tide pools form on rocky shores. Tide pools hold crabs and anemones. "
        "Visitors should not remove animals from tide pools.",
        "Crabs hide under rocks in tide pools at low tide. The harbour opened in 1901.",
        "Anemones in tide pools close when touched.",
        "Tide pools also hold sea stars.",
    ]
    text = compose("What lives in tide pools?", passages)
    quoted = sentences_without_citations(text)
    assert quoted[:3] == [
        "Tide pools form on rocky shores.",
        "Tide pools hold crabs and anemones.",
        "Visitors should not remove animals from tide pools.",
    ]
    assert "Crabs hide under rocks in tide pools at low tide." in quoted
    assert "The harbour opened in 1901." not in text  # no word of the question
    assert set(re.findall(r"\[(\d+)\]", text)) == {"1", "2", "3"}  # three passages at most
    assert text.index("[1]") < text.index("[2]") < text.index("[3]")


def test_the_lead_passage_is_quoted_from_its_best_sentence_on():
    # "How much does the Enterprise plan cost?": the answer starts with the Enterprise
    # price, not the Basic and Business prices the passage writes before it.
    passages = [
        "The Basic plan costs $29 per month. The Business plan costs $149 per month. "
        "The Enterprise plan costs $899 per month. Every plan can be paid annually."
    ]
    question = "How much does the Enterprise plan cost?"
    quoted = sentences_without_citations(compose(question, passages))
    assert quoted[0] == "The Enterprise plan costs $899 per month."
    assert "The Basic plan costs $29 per month." not in quoted


def test_a_sentence_naming_only_the_subject_does_not_answer():
    # "What is the warranty of the Pixel 8a?": a sentence on the Pixel 8a's sales names
    # the subject, not what is asked.
    passages = [
        "The Pixel 8a comes with a two-year warranty.",
        "The Pixel 8a was the second best-selling phone of the year.",
    ]
    question = "What is the warranty of the Pixel 8a?"
    text = compose(question, passages)
    assert text == "The Pixel 8a comes with a two-year warranty. [1]"


def test_a_line_repeating_the_title_is_a_heading_not_an_answer():
    # Pages open with their title on a line of its own: it names the page, states nothing.
    pages = [
        ("River sources", "River sources\nThe river rises in north-central Maine."),
        ("River fishing", "River fishing\nBoats anchor there in summer."),
    ]
    context = "\n".join(
        prompts.SOURCE_TEMPLATE.format(id=i, title=title, section="", text=html.escape(text))
        for i, (title, text) in enumerate(pages, 1)
    )
    question = "where does the river rise?"
    message = HumanMessage(
        prompts.ANSWER_USER_PROMPT.format(
            history="",
            followup_reference="",
            deliverable="no",
            answer_style="prose",
            search_query=question,
            answer_type="",
            context=context,
            question=question,
        )
    )
    text = ExtractiveChatModel().invoke([message]).text
    assert text == "The river rises in north-central Maine. [1]"


def test_a_word_for_the_kind_of_answer_is_not_what_a_sentence_must_hold():
    # The differences are stated by what each thing is, not with the word "difference".
    passages = [
        "Fixed: a monthly charge that is never adjusted. Metered: you pay for what you use.",
        "Different charges apply to different features.",
    ]
    question = "What is the difference among Fixed and Metered?"
    text = compose(question, passages)
    assert "Fixed: a monthly charge that is never adjusted. [1]" in text
    assert "Metered: you pay for what you use. [1]" in text


def test_an_open_compound_finds_its_closed_form():
    # "book keeping" in the question, "bookkeeping" in the passage: the same word.
    passages = [
        "Shares are bought from a broker or from the company.",
        "FIFO simplifies the bookkeeping of sold lots.",
    ]
    question = "That's a complicated book keeping!"
    text = compose(question, passages)
    assert text == "FIFO simplifies the bookkeeping of sold lots. [2]"


def test_a_best_ranked_passage_that_says_half_of_what_is_asked_gives_way():
    # "What should I do if I lose my laptop?": retrieval ranks a laptop's description
    # first, whose best sentence holds "laptop" alone; the handbook's sentence on a lost
    # laptop leads, and the description, which answers nothing, is not quoted after it.
    passages = [
        "The Aspire 5 is an entry-level laptop. The Aspire 5 laptop has a 15.6-inch display.",
        "An employee who loses a laptop must report the loss within 1 hour.",
    ]
    question = "What should I do if I lose my laptop?"
    text = compose(question, passages)
    assert text == "An employee who loses a laptop must report the loss within 1 hour. [2]"


def test_the_best_ranked_passage_keeps_the_lead_when_it_says_most_of_what_is_asked():
    # A lower-ranked sentence that holds one more of the question's words does not
    # displace a best-ranked one that holds most of them: retrieval judges the rest.
    passages = [
        "On the Enterprise plan, P1 incidents get a first response within 15 minutes.",
        "In 2024, 98.6% of P1 incidents got a first response within the response time.",
    ]
    question = "What is the response time for a P1 incident?"
    quoted = sentences_without_citations(compose(question, passages))
    assert quoted[0] == passages[0]


def test_a_sentence_in_another_language_is_read_with_its_translations_for_the_lead():
    # A French question over an English policy and a French report: the policy's
    # sentence holds "response" and "P1 incidents", which are the question's "réponse"
    # and "incident P1", so it says most of what is asked and keeps the lead.
    passages = [
        "On the Enterprise plan, P1 incidents get a first response within 15 minutes, 24/7.",
        "En 2024, 98,6 % des incidents P1 ont reçu une première réponse dans le délai prévu.",
    ]
    question = "Quel est le délai de réponse pour un incident P1 ?"
    quoted = sentences_without_citations(compose(question, passages))
    assert quoted[0] == passages[0]


def test_an_acronym_finds_the_sentence_that_writes_the_name_out():
    # "What is the NPS?" was answered with nothing: no sentence holds "nps".
    passages = [
        "Support handled 312,000 requests in 2024.",
        "Customer satisfaction reached 91% and the Net Promoter Score rose from 41 to 48.",
    ]
    text = compose("What is the NPS?", passages)
    assert text == f"{passages[1]} [2]"


def test_a_past_form_finds_the_sentence_that_writes_the_verb_otherwise():
    # "lost" and "loses" are one verb: the handbook's sentence says all of "I lost my
    # laptop" and leads over a laptop's description ranked first.
    passages = [
        "The Aspire 5 is an entry-level laptop. The Aspire 5 laptop has a 15.6-inch display.",
        "An employee who loses a laptop must report the loss within 1 hour.",
    ]
    text = compose("I lost my laptop", passages)
    assert text == "An employee who loses a laptop must report the loss within 1 hour. [2]"


def test_a_french_how_to_question_is_read_without_its_auxiliary():
    # "Que faire si je perds mon téléphone ?": "faire" asks how, as English "do" does;
    # counted as a word to find, it kept the handbook's sentence at half the question.
    passages = [
        "The Nokia G42 is an entry-level phone. The Nokia G42 phone has a 6.56-inch display.",
        "An employee who loses a laptop or phone must report the loss within 1 hour.",
    ]
    question = "Que faire si je perds mon téléphone professionnel ?"
    quoted = sentences_without_citations(compose(question, passages))
    assert quoted[0] == passages[1]


def test_a_count_is_of_the_head_of_the_counted_phrase():
    # "How many support requests": a number of requests, not of support contracts.
    passages = [
        "Brightwell sold 4,870 support contracts in 2024. Support handled 312,000 requests in 2024."
    ]
    question = "How many support requests were handled in 2024?"
    text = compose(question, passages, "quantity")
    assert text == "Support handled 312,000 requests in 2024. [1]"


def test_a_part_asked_for_is_a_word_of_the_question():
    # "la part des smartphones" asks a share: "part" is content here, not the "part"
    # of "tell me about the second part"; the revenue growth says half of it at most.
    passages = [
        "Le chiffre d'affaires a progressé de 11,8 % pour atteindre 486,3 millions de dollars.",
        "Les ventes de smartphones représentent 52 % du chiffre d'affaires, les ordinateurs "
        "portables 31 %.",
    ]
    question = "Quelle est la part des smartphones dans le chiffre d'affaires ?"
    quoted = sentences_without_citations(compose(question, passages))
    assert quoted[0].startswith("Les ventes de smartphones représentent 52 %")


def test_a_source_saying_more_of_the_question_is_read_in_its_language():
    # Two English passages and one French: the French report was never read in French,
    # so its « ventes en ligne ... 41 % du chiffre d'affaires » scored nothing and the
    # help centre's "online" led.
    passages = [
        "Customers can still get return help in any store or through the online help centre.",
        "Brightwell business hours are Monday to Friday, 8:00 to 20:00.",
        "Les ventes en ligne de Brightwell représentent désormais 41 % du chiffre d'affaires.",
    ]
    question = "how much of the revenue comes from online sales?"
    quoted = sentences_without_citations(compose(question, passages, "share"))
    assert quoted == [passages[2]]
    # A source sharing one translated word says less than the English ones: not read.
    passages[2] = "Le service client a traité 312 000 demandes, dont 64 % par e-mail."
    quoted = sentences_without_citations(compose("what is the support email?", passages))
    assert passages[2] not in quoted


def test_a_ranking_asked_is_answered_by_the_ranking_stated():
    # "the best-selling phone": a sentence saying a phone is sold is no answer; the one
    # saying which sold best is, in whatever language it is written.
    passages = [
        "The Nokia G42 5G is the cheapest phone sold by Brightwell, at $199.",
        "Le Samsung Galaxy A55 5G a été le smartphone le plus vendu de l'année.",
    ]
    text = compose("What is the best-selling phone?", passages, answer_type="rank")
    assert sentences_without_citations(text) == [passages[1]]


def test_a_question_on_what_was_is_not_led_by_an_aim():
    # "What was the operating margin?" was answered with the 2025 target, ranked first,
    # and the gross margin tied with the operating margin in the results passage.
    passages = [
        "For 2025, Brightwell aims for revenue of $540 million and an operating margin "
        "of at least 8.5%.",
        "The gross margin reached 27.4% of revenue. The operating income was $38.9 million, "
        "an operating margin of 8.0%.",
    ]
    quoted = sentences_without_citations(compose("What was the operating margin?", passages))
    assert quoted[0] == "The operating income was $38.9 million, an operating margin of 8.0%."
    # Asked of the target, the aim answers.
    quoted = sentences_without_citations(compose("What is the operating margin target?", passages))
    assert quoted[0] == passages[0]


def test_a_question_on_what_was_answered_by_a_result_quotes_no_aim_after_it():
    # "What was the revenue in 2024?" also quoted the outlook's 2025 target, third.
    passages = [
        "Revenue reached $486.3 million in 2024, up from $435.0 million in 2023.",
        "For 2025, Brightwell aims for revenue between $530 and $545 million.",
    ]
    quoted = sentences_without_citations(compose("What was the revenue in 2024?", passages))
    assert quoted == [passages[0]]


def test_of_a_passages_sentences_tied_on_score_the_one_holding_more_of_the_question_is_best():
    # Translated, "operating margin" scores "marge brute" and "marge opérationnelle"
    # alike (one shared word each); the second holds all of the question.
    passages = [
        "La marge brute atteint 27,4 % du chiffre d'affaires. Le résultat "
        "opérationnel s'établit à 38,9 millions de dollars, soit une marge opérationnelle "
        "de 8,0 %."
    ]
    quoted = sentences_without_citations(compose("What is the operating margin?", passages))
    assert quoted[0].startswith("Le résultat opérationnel")


def test_a_sentence_already_quoted_is_not_quoted_again_from_another_passage():
    # Corpora hold the same sentence in several passages (a page and its copy, a shared
    # step): the answer says it once, and a next passage adds its best other sentence.
    passages = [
        "Open the cost estimator. Enter your estimated usage, and click Calculate Cost.",
        "Enter your estimated usage, and click Calculate Cost. The estimate shows the "
        "usage cost per month.",
        "Enter your estimated usage, and click Calculate Cost.",
    ]
    text = compose("How do I estimate the usage cost?", passages)
    quoted = sentences_without_citations(text)
    assert quoted.count("Enter your estimated usage, and click Calculate Cost.") == 1, text
    assert "The estimate shows the usage cost per month." in quoted
    assert "[3]" not in text  # its only sentence is already said


def test_of_passages_saying_as_much_the_one_whose_heading_names_the_subject_leads():
    # Retrieval ranks first a passage that only mentions the subject in passing ("Device
    # encryption": "wiped remotely"); the passage under the heading "Remote work" says as
    # much of the question and is about it: it leads, the other follows.
    sections = [
        ("Device encryption", "A lost laptop is wiped remotely when work data is at risk."),
        ("Remote work", "Employees working remotely must use the VPN on public networks."),
    ]
    context = "\n".join(
        prompts.SOURCE_TEMPLATE.format(id=i, title="Handbook", section=s, text=html.escape(t))
        for i, (s, t) in enumerate(sections, 1)
    )
    question = "What are the rules for remote work?"
    message = HumanMessage(
        prompts.ANSWER_USER_PROMPT.format(
            history="",
            followup_reference="",
            deliverable="no",
            answer_style="prose",
            search_query=question,
            answer_type="",
            context=context,
            question=question,
        )
    )
    text = ExtractiveChatModel().invoke([message]).text
    assert text.startswith(sections[1][1] + " [2]"), text
    # The passage it displaced only mentions remote wiping: its heading names nothing of
    # remote work, so it does not support the answer and is not quoted after it.
    assert "[1]" not in text


def compose_sections(
    question: str,
    sections: list[tuple[str, str]],
    *,
    search_query: str = "",
    answer_type: str = "",
) -> str:
    """The offline model's answer over (heading, text) passages of one document."""
    context = "\n".join(
        prompts.SOURCE_TEMPLATE.format(id=i, title="Policy", section=s, text=html.escape(t))
        for i, (s, t) in enumerate(sections, 1)
    )
    message = HumanMessage(
        prompts.ANSWER_USER_PROMPT.format(
            history="",
            followup_reference="",
            deliverable="no",
            answer_style="prose",
            search_query=search_query or question,
            answer_type=answer_type,
            context=context,
            question=question,
        )
    )
    return ExtractiveChatModel().invoke([message]).text


def test_the_words_asking_for_a_duration_are_not_words_a_sentence_must_hold():
    # "pendant combien de temps ?" after a talk on SMS codes: "temps" is "time", which
    # "at all times" holds; what is asked is a duration of what the conversation carried.
    sections = [
        ("Remote work", "On public networks, employees must keep the VPN enabled at all times."),
        ("Passwords", "SMS codes are allowed only as a temporary fallback for 7 days."),
    ]
    text = compose_sections(
        "pendant combien de temps ?",
        sections,
        search_query="pendant combien de temps ? (sms codes)",
        answer_type="duration",
    )
    assert text.startswith(sections[1][1] + " [2]"), text
    assert "VPN" not in text


def test_a_sentence_scores_what_one_of_its_clauses_states():
    # Every word of "the uptime commitment of the Basic plan" is in the first sentence,
    # in two statements (the commitment missed; Basic customers and credits); the second
    # states the Basic plan's uptime.
    passage = (
        "When the SLA uptime commitment is missed, customers receive a service credit; "
        "Basic plan customers are not eligible for service credits. "
        "The Basic plan SLA guarantees 99.5% monthly uptime."
    )
    text = compose_sections("What's the uptime commitment of the Basic plan?", [("SLA", passage)])
    assert sentences_without_citations(text)[0] == (
        "The Basic plan SLA guarantees 99.5% monthly uptime."
    ), text


@pytest.mark.parametrize(
    ("question", "passage", "other"),
    [
        (
            "What is a P2 incident?",
            "A P2 incident is a major loss of functionality. A P3 incident is a problem "
            "affecting a single user. If a P1 or P2 incident is not resolved, it is escalated.",
            "A P3 incident is a problem affecting a single user.",
        ),
        (
            "What's the uptime of the Basic plan?",
            "The Basic plan guarantees 99.5% monthly uptime. The Business plan guarantees "
            "99.9% monthly uptime.",
            "The Business plan guarantees 99.9% monthly uptime.",
        ),
        (
            "Quelle est la disponibilité du plan Basic ?",
            "Le plan Basic garantit une disponibilité de 99,5 %. Le plan Business garantit "
            "une disponibilité de 99,9 %.",
            "Le plan Business garantit une disponibilité de 99,9 %.",
        ),
    ],
)
def test_a_sentence_naming_another_thing_of_the_kind_asked_does_not_answer(
    question, passage, other
):
    # "P3" beside "P2", "the Business plan" beside "the Basic plan": another incident,
    # another plan. A sentence naming the one asked too still speaks of it.
    quoted = sentences_without_citations(compose_sections(question, [("Priorities", passage)]))
    assert other not in quoted, quoted
    assert quoted[0] == passage.split(". ")[0] + "."


def test_a_what_is_question_is_led_by_the_passage_that_defines_it():
    # Both passages hold "P2" and "incident"; neither heading names it. The one that says
    # what a P2 incident is leads, the response times follow.
    sections = [
        ("Response times", "On the Enterprise plan, P2 incidents get a first response in 1 hour."),
        ("Priorities", "A P2 (high) incident is a major loss of functionality."),
    ]
    for question in ("What is a P2 incident?", "Qu'est-ce qu'un incident P2 ?"):
        text = compose_sections(question, sections)
        assert text.startswith(sections[1][1] + " [2]"), text


def test_of_tied_sentences_the_one_whose_subject_is_asked_about_is_best():
    # "refunds" in both (a stem), the duration in both: "Refunds are paid..." is about
    # refunds, "Opened devices ... are refunded" about the devices.
    passage = (
        "Opened devices returned within 30 days are refunded in full. "
        "Refunds are paid to the original payment method within 10 business days."
    )
    text = compose_sections(
        "how long do refunds take to arrive?",
        [("Refunds and returns", passage)],
        answer_type="duration",
    )
    assert sentences_without_citations(text)[0].startswith("Refunds are paid"), text


def test_the_questions_words_are_read_in_their_derivations_in_its_language():
    # "What are the data classification levels?" quoted only Restricted: "classifies"
    # was not read as "classification", and "data" was held by that sentence alone.
    passage = (
        "Brightwell classifies all information into four levels: Public, Internal and "
        "Restricted. Public information includes the catalog. Restricted information covers "
        "payment card data."
    )
    quoted = sentences_without_citations(
        compose("What are the data classification levels?", [passage])
    )
    assert quoted[0].startswith("Brightwell classifies all information into four levels")


def test_can_i_do_something_is_answered_by_a_sentence_stating_the_action():
    # The prices hold "monthly" and "plan" and lead retrieval's ranking; only the
    # cancellation rule says anything of cancelling.
    passages = [
        "The Basic plan costs $29 per month. The Business plan costs $149 per month.",
        "Monthly support plans can be cancelled at any time and stop at the end of the month.",
    ]
    quoted = sentences_without_citations(compose("Can I cancel a monthly plan?", passages))
    assert quoted == [
        "Monthly support plans can be cancelled at any time and stop at the end of the month."
    ]


def test_a_word_capitalised_inside_is_a_name_not_what_is_asked():
    # "iPhone" names the subject: a sentence naming it and no warranty does not answer.
    passages = [
        "Brightwell covers the iPhone 15 with a 1-year warranty.",
        "The best-selling phones were the Galaxy A55, the Pixel 8a and the iPhone 15.",
    ]
    quoted = sentences_without_citations(compose("the iPhone 15 warranty", passages))
    assert quoted == ["Brightwell covers the iPhone 15 with a 1-year warranty."]


def test_a_day_of_the_week_is_no_name_the_answer_must_hold():
    # "Can I get support on Sunday?" led with "Consumers ... can still get ... help":
    # "Sunday" was read as a name, so only sentences writing "support" answered, and
    # the hours ("Monday to Friday"), under the heading that says "support", did not.
    passage = (
        "Business hours are Monday to Friday, 8:00 to 20:00 Eastern Time. "
        "Consumers without a support plan can still get warranty help in any store."
    )
    text = compose_sections("Can I get support on Sunday?", [("Support hours", passage)])
    assert text.startswith("Business hours are Monday to Friday, 8:00 to 20:00"), text


def test_a_sentence_opening_on_a_pronoun_continues_the_sentence_quoted_before_it():
    # "This type of photography..." holds no word of the question, but speaks of what the
    # quoted sentence before it answered with; one that does not follow a quoted sentence
    # is left out, and so is a sentence that neither answers nor continues.
    passage = (
        "In ground-to-air photography, photos of aircraft in flight are taken from the "
        "ground. This type of photography is common at airshows or airports. "
        "Lenses of 400 mm are usual. It costs little."
    )
    quoted = sentences_without_citations(
        compose("Who takes photos of aircraft in flight?", [passage])
    )
    assert quoted == [
        "In ground-to-air photography, photos of aircraft in flight are taken from the ground.",
        "This type of photography is common at airshows or airports.",
    ]


def test_a_continuation_is_prose_and_may_open_on_cela():
    # "Cela" refers back as "this" does; a heading line opening on "This" after the
    # quoted sentence states nothing of it and is not quoted, nor what follows it.
    passage = (
        "Le télétravail est autorisé deux jours par semaine. Cela vaut pour tous les "
        "salariés. Ces jours sont fixés avec le manager. This week's offers\n"
        "Les bureaux ferment à 20 h."
    )
    quoted = sentences_without_citations(compose("Le télétravail est-il autorisé ?", [passage]))
    assert quoted == [
        "Le télétravail est autorisé deux jours par semaine.",
        "Cela vaut pour tous les salariés.",
        "Ces jours sont fixés avec le manager.",
    ]


def test_a_question_or_a_heading_in_a_passage_is_not_quoted():
    # A page's FAQ heading restates the user's question, every word of it, and a heading
    # line names a topic: neither answers, the sentences after them do.
    passage = (
        "Why can't I apply a subscription code?\n"
        "Subscription code errors\n"
        "A subscription code cannot be applied when it has expired or you lack the "
        "Editor role."
    )
    text = compose("Why can't I apply a subscription code?", [passage])
    assert text.startswith("A subscription code cannot be applied when it has expired"), text
    assert "?" not in text and "Subscription code errors" not in text


def test_a_passage_with_only_a_question_to_quote_still_answers_with_it():
    # Left out only when the passage has something else to quote: a passage holding the
    # question's words only in a question is still read (the evidence check decided).
    text = compose("How do I reset a subscription code?", ["How do I reset a subscription code?"])
    assert "[1]" in text


def test_a_question_asking_for_the_members_of_a_kind_quotes_the_list():
    # "Quels sont les niveaux de classification ?" over the English handbook: the
    # sentence listing the levels writes "classifies", no whole translation of
    # "classification"; only the Restricted sentence (holding "data") was quoted.
    passages = [
        "Brightwell classifies all information into four levels: Public, Internal, "
        "Confidential and Restricted. Public information includes published prices. "
        "Restricted information covers payment card data and must be encrypted."
    ]
    question = "Quels sont les niveaux de classification des données ?"
    quoted = sentences_without_citations(compose(question, passages))
    assert quoted[0].startswith("Brightwell classifies all information into four levels")


def test_a_question_asking_one_fact_quotes_no_other_fact_after_it():
    # "Combien de clients satisfaits ?": the satisfaction rate answers; the count of
    # business clients after it holds "clients" alone, another fact.
    passages = [
        "La satisfaction client du support a atteint 91 %, contre 88 % en 2023. "
        "Le nombre de clients professionnels abonnés a progressé de 23 % pour atteindre "
        "4 870 entreprises."
    ]
    text = compose("Combien de clients satisfaits ?", passages, "quantity")
    assert sentences_without_citations(text) == [
        "La satisfaction client du support a atteint 91 %, contre 88 % en 2023."
    ]


def test_a_next_passage_under_a_heading_naming_less_of_the_question_is_not_quoted():
    # "What are the support hours?": the escalation rule holds "4 hours" and "customer
    # support" apart; its heading names nothing of the support hours.
    sections = [
        ("Support hours", "Support hours are Monday to Friday, 8:00 to 20:00."),
        ("Escalation", "An incident unresolved after 4 hours goes to customer support."),
    ]
    text = compose_sections("What are the support hours?", sections)
    assert text == "Support hours are Monday to Friday, 8:00 to 20:00. [1]"


def test_a_lead_saying_under_half_gives_way_to_one_saying_half():
    # "la politique en cas de perte d'un téléphone professionnel": the P2 definition
    # holds "loss" (of functionality), the lost-device rule "loss" and "phone". "cas"
    # of "en cas de" is no thing asked about.
    passages = [
        "A P2 incident is a major loss of functionality affecting many users.",
        "An employee who loses a laptop or phone must report the loss within 1 hour.",
    ]
    question = "la politique en cas de perte d'un téléphone professionnel"
    text = compose(question, passages)
    assert text == passages[1] + " [2]"


def test_a_word_pointed_at_as_a_word_is_led_by_the_passage_that_defines_it():
    # "the word Kubernetes ... this term" asks what Kubernetes is. Both passages hold
    # "Kubernetes"; the first, ranked first, only links to its version notes.
    sections = [
        ("Versions", "See the Kubernetes version information for supported versions."),
        ("FAQ", "Kubernetes is an open source platform for managing containerized workloads."),
    ]
    question = "I keep seeing the word Kubernetes, but I am not understanding this term"
    text = compose_sections(question, sections)
    assert text.startswith(sections[1][1] + " [2]"), text


def test_a_request_verb_with_a_doer_of_its_own_is_what_is_asked():
    # "report" asks for a document in "Give me a report"; in "Where can people report a
    # scam?" it is the act asked about. The first passage names scams and people only.
    passages = [
        "The email scam asks people to sign up for instant cash. This is not real.",
        "If you are affected by a scam, report it to the police and to the FTC.",
    ]
    quoted = sentences_without_citations(
        compose("Where can people report a scam that they have been affected by?", passages)
    )
    assert quoted[0].startswith("If you are affected by a scam, report it"), quoted


def test_a_count_asked_in_the_present_is_not_led_by_a_plan():
    # "How many stores does Brightwell have?" led with the 2025 plan, ranked first.
    passages = [
        "Brightwell plans to open five new stores in 2025.",
        "Brightwell opened four new stores in 2024, bringing its network to 38 stores.",
    ]
    quoted = sentences_without_citations(
        compose("How many stores does Brightwell have?", passages, answer_type="quantity")
    )
    assert quoted == [passages[1]]
    # Asked of the future, the plan answers.
    quoted = sentences_without_citations(
        compose("How many stores will Brightwell open in 2025?", passages, answer_type="quantity")
    )
    assert quoted[0] == passages[0]


def test_a_number_measured_against_a_limit_does_not_choose_the_sentence():
    # "après 10 jours" quoted the refund delay ("within 10 business days") for holding 10;
    # under "Refunds and returns" every sentence holds "returns".
    text = (
        "Brightwell accepts returns of phones and laptops within 30 days of delivery. "
        "Defects found after 30 days are handled under the product warranty. "
        "Refunds are paid to the original payment method within 10 business days."
    )
    quoted = sentences_without_citations(
        compose_sections(
            "Est-ce que je peux retourner un ordinateur après 10 jours ?",
            [("Refunds and returns", text)],
        )
    )
    assert quoted[0].startswith("Brightwell accepts returns")


def test_a_french_phrase_is_one_thing_asked_about_in_the_sentence_choice():
    # "ordinateur portable" is a laptop: one thing, counted once. The catalog laptop holds
    # it, not "perdu"; it led (two words of three) over the lost-device rule.
    passages = [
        "The IdeaPad Slim 5 is a light laptop priced at $749.",
        "An employee who loses a laptop or phone must report the loss within 1 hour.",
    ]
    question = "J'ai perdu mon ordinateur portable, que dois-je faire ?"
    text = compose(question, passages)
    assert text.startswith(passages[1] + " [2]")


def test_the_lead_passage_is_quoted_from_its_first_sentence_saying_as_much_of_the_question():
    # "returns?" after a talk on a laptop: the last sentence scores best (it also holds
    # the carried "opened", "laptop", "box"), but the passage states its point first,
    # and that sentence says as much of "returns".
    passage = (
        "Returns are accepted within 30 days of delivery. "
        "Items must be in their original packaging. "
        "An opened laptop box can still be returned if all accessories are included."
    )
    text = compose_sections(
        "returns?", [("Returns", passage)], search_query="returns? (opened laptop box)"
    )
    first = sentences_without_citations(text)[0]
    assert first == "Returns are accepted within 30 days of delivery.", text
    assert "opened laptop box" in text  # and goes on to what the conversation carried


def test_a_next_passage_adds_its_first_sentence_saying_as_much_of_the_question():
    # As the lead: the second passage's last sentence scores best (it also holds the
    # carried "opened", "laptop", "box"), but its first says as much of "returns".
    sections = [
        ("Returns", "Returns are accepted within 30 days of delivery."),
        (
            "Returns",
            "Store returns are checked by the warehouse team. "
            "An opened laptop box can still be returned with every accessory.",
        ),
    ]
    text = compose_sections("returns?", sections, search_query="returns? (opened laptop box)")
    quoted = sentences_without_citations(text)
    assert quoted[1] == "Store returns are checked by the warehouse team.", text


def test_a_sentence_saying_what_is_asked_with_a_synonym_answers():
    # "remove" is written "delete": the sentence that says it answers; the one that only
    # names Watson Studio does not.
    sources = [
        (
            "Watson Studio",
            "Watson Studio holds your projects and assets. "
            "You can delete Watson Studio from the resource list.",
        )
    ]
    question = "How do I remove Watson Studio?"
    text = compose(question, [x for _, x in sources], titles=[t for t, _ in sources])
    assert text == "You can delete Watson Studio from the resource list. [1]"


def test_a_passage_saying_more_of_the_question_with_a_synonym_leads():
    # The first passage holds "backups" only; the second says "remove" as "delete" too,
    # so it says more of the question and leads, the first left out.
    sources = [
        ("Backups", "Backups are kept for 30 days."),
        ("Console", "You can delete backups from the console."),
    ]
    question = "How do I remove backups?"
    text = compose(question, [x for _, x in sources], titles=[t for t, _ in sources])
    assert text == "You can delete backups from the console. [2]"


def test_a_plan_named_in_lower_case_leaves_the_other_plans_sentences_out():
    # "on business": the passages write "the Business plan", so the Basic plan's sentence
    # (which holds "business" in "4 business hours") speaks of another plan.
    passages = [
        "On the Business plan, P1 incidents get a first response within 1 hour. "
        "On the Basic plan, P1 incidents get a first response within 4 business hours.",
        "Business plan customers can use phone support during business hours.",
    ]
    text = compose("what is the P1 response time on business", passages)
    assert "On the Business plan, P1 incidents" in text
    assert "Basic plan" not in text


def test_a_plan_named_in_lower_case_before_its_noun_leaves_the_other_plans_out():
    # "tell me about the enterprise plan": "enterprise" has a noun of its own after it,
    # the very noun the passages write it with ("the Enterprise plan"); the Basic and
    # Business prices came first. "business hours" is still no Business plan.
    passages = [
        "Brightwell Devices offers three support plans for customers who buy phones and "
        "laptops from Brightwell: Basic, Business and Enterprise. The Basic plan costs $29 "
        "per month and covers up to 10 devices with email and web support. The Business "
        "plan costs $149 per month and covers up to 100 devices with email, web, chat and "
        "phone support. The Enterprise plan costs $899 per month and covers an unlimited "
        "number of devices, with a named technical account manager and 24/7 phone support.",
    ]
    text = compose_sections("tell me about the enterprise plan", [("Support plans", passages[0])])
    assert "The Enterprise plan costs $899 per month" in text
    assert "$29" not in text and "$149" not in text
    hours = [("Support hours", "Business hours are 8:00 to 20:00. The Business plan costs $149.")]
    assert "8:00 to 20:00" in compose_sections("what are the business hours?", hours)


def test_a_common_noun_typed_after_another_word_is_no_name():
    # "select query to work": "query" follows no function word, so the passages' "the
    # Query editor" does not make "the SQL editor" another thing asked about.
    passages = [
        "To run a query, open the console. In the SQL editor field, enter a SELECT statement.",
        "Queries can be saved from the Query editor of the console.",
    ]
    text = compose("I cannot get select query to work, what steps should I take?", passages)
    assert "In the SQL editor field, enter a SELECT statement." in text


@pytest.mark.parametrize(
    "question",
    [
        "What's the difference between P2 and P3?",
        "how does a P2 differ from a P3?",
        "Quelle est la différence entre un P2 et un P3 ?",
    ],
)
def test_a_difference_is_answered_by_what_each_one_is(question):
    # The one sentence naming both says what they share; each one's definition says how
    # they differ. The things asked are no siblings of each other ("P3" beside "P2").
    sections = [
        ("Escalation", "If a P2 or P3 incident is not resolved within 4 hours, it is escalated."),
        (
            "Priorities",
            "A P2 (high) incident is a major loss of functionality. A P3 (medium) incident "
            "is a problem affecting a single user. A P4 (low) incident is a question.",
        ),
    ]
    quoted = sentences_without_citations(compose_sections(question, sections))
    assert quoted == [
        "A P2 (high) incident is a major loss of functionality.",
        "A P3 (medium) incident is a problem affecting a single user.",
    ], quoted


def test_a_when_of_acting_is_answered_by_its_condition_as_well_as_by_a_date():
    # Round 18: "When should I start saving?" asks under what condition to act: advice
    # stated with "years" answers as the sentence naming a year does. Round 17's
    # point-in-time preference kept the 2008 sentence alone.
    passages = [
        "Start saving for retirement as early as possible: ten years of savings grow a lot.",
        "In 2008 many savers lost part of their retirement savings.",
    ]
    quoted = sentences_without_citations(
        compose("When should I start saving for my retirement?", passages, "date")
    )
    assert passages[0] in quoted
    # Asked for a point in time, the year answers before a word of recurrence.
    passages = [
        "Support uptime is reported monthly.",
        "Support is available Monday to Friday.",
    ]
    quoted = sentences_without_citations(compose("When is support available?", passages, "date"))
    assert quoted == [passages[1]]


def test_a_general_noun_after_what_names_nothing_the_answer_must_write():
    # Round 18: "what factors" sorts what is asked without naming it: payment history is
    # a factor of the credit score though no sentence calls it one. Round 17 kept only
    # the sentence writing "factors".
    passages = [
        "Several factors shape a credit score over time.",
        "Payment history has a major impact on your credit score.",
    ]
    quoted = sentences_without_citations(
        compose("What factors have a major impact on the credit score?", passages)
    )
    assert passages[1] in quoted
