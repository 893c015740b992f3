"""Questions a new user asks of the sample data, answered from the right passage.

Each was asked back, declined or answered from the wrong passage before the rule its
test names: a French phrase read whole ("marge brute" is the gross margin), a word's
every sense ("horaires" are hours), the words for a kind of text ("procedure"), the
topical sections of one document being one thing, not several to choose from.
"""

from __future__ import annotations

import uuid

import pytest

from threadline.chat import ChatService, TurnRequest


@pytest.fixture(scope="module")
def chat(sample_services) -> ChatService:
    return ChatService(sample_services)


def ask(chat: ChatService, text: str):
    return chat.run_turn(TurnRequest(query=text, thread_id=f"q-{uuid.uuid4().hex[:8]}"))


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        # French phrases of the report, read whole in translation.
        ("What is the gross margin?", "La marge brute de Brightwell atteint 27,4 %"),
        ("What was the net income in 2024?", "le résultat net atteint 27,1 millions"),
    ],
)
def test_an_english_question_finds_a_french_phrase(chat, question, quoted):
    result = ask(chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert quoted in result.answer
    assert result.answer.startswith('From "Rapport annuel 2024 de Brightwell" (in French):')


def test_one_documents_topical_sections_are_one_revenue_not_several(chat):
    # Highlights, results and outlook all speak of the revenue: the report's one revenue.
    result = ask(chat, "What was the revenue in 2024?")
    assert result.outcome == "grounded_answer", result.answer
    assert "486,3 millions de dollars" in result.answer


def test_products_are_still_several_things_to_choose_from(chat):
    result = ask(chat, "What is the warranty?")
    assert result.outcome == "clarify" and result.stop_reason == "ambiguous"
    assert len(result.clarify["options"]) >= 2


def test_a_french_word_is_read_in_each_of_its_senses(chat):
    # "horaire" is a schedule, a timetable and hours: the "Support hours" section.
    result = ask(chat, "Quels sont les horaires du support ?")
    assert result.outcome == "grounded_answer", result.answer
    assert result.citations[0]["section"] == "Support hours and channels"
    assert "Monday to Friday, 8:00 to 20:00" in result.answer


@pytest.mark.parametrize(
    ("question", "section"),
    [
        ("What is the phishing procedure?", "Phishing reporting"),
        ("What is the escalation process?", "Escalation"),
    ],
)
def test_a_procedure_is_what_a_section_says_to_do(chat, question, section):
    result = ask(chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert result.citations[0]["section"] == section


def test_and_the_x_stays_on_the_document_under_discussion(chat):
    # The support policy also speaks of tickets; the conversation is on the report's
    # customer-service figures, where the number handled is.
    thread = f"q-{uuid.uuid4().hex[:8]}"
    chat.run_turn(
        TurnRequest(query="Quel est le taux de satisfaction client en 2024 ?", thread_id=thread)
    )
    result = chat.run_turn(TurnRequest(query="Et le nombre de tickets traités ?", thread_id=thread))
    assert result.outcome == "grounded_answer", result.answer
    assert "312 000 demandes" in result.answer


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Who handles escalations? || what is their phone number?", "a phone number"),
        ("Quel est le numéro de téléphone du support ?", "de numéro de téléphone"),
    ],
)
def test_a_phone_number_no_document_gives_is_declined(chat, question, said):
    thread = f"q-{uuid.uuid4().hex[:8]}"
    for message in question.split(" || "):
        result = chat.run_turn(TurnRequest(query=message, thread_id=thread))
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert said in result.answer and result.citations == []


def test_who_handles_escalations_is_answered_from_the_escalation_section(chat):
    # The first message of a conversation: "handles" is the relation asked, which the
    # policy states as "escalation starts with the duty support manager".
    result = ask(chat, "Who handles escalations?")
    assert result.outcome == "grounded_answer", result.answer
    assert "Escalation starts with the duty support manager" in result.answer
    assert result.citations[0]["title"] == "Brightwell support policy"


def test_an_email_address_the_policy_gives_is_quoted(chat):
    result = ask(chat, "What is the support email address?")
    assert result.outcome == "grounded_answer", result.answer
    assert "support@brightwell.example" in result.answer


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        # "écran" is a screen and a display; "délai de réponse" is a response time.
        ("Quel est l'écran du Galaxy S24 ?", "6.2-inch 120 Hz Dynamic AMOLED 2X display"),
        (
            "Quel est le délai de réponse pour un incident P2 sur le plan Business ?",
            "On the Business plan, P2 incidents get a first response within 4 business hours",
        ),
    ],
)
def test_a_french_question_over_english_specs(chat, question, quoted):
    result = ask(chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert quoted in result.answer


def test_a_product_discussed_keeps_its_follow_ups(chat):
    # "How heavy is it?" asks for a weight ("weighs only 1.09 kg" never says heavy);
    # "And the price?" is the ThinkPad's: its catalog entry, the one product discussed.
    thread = f"q-{uuid.uuid4().hex[:8]}"
    turns = [
        chat.run_turn(TurnRequest(query=q, thread_id=thread))
        for q in ("Tell me about the ThinkPad", "How heavy is it?", "And the price?")
    ]
    _, heavy, price = turns
    assert heavy.outcome == "grounded_answer", heavy.answer
    assert "1.09 kg" in heavy.answer
    assert price.outcome == "tool_answer", price.answer
    assert "price: $2,199" in price.answer
    assert [c["title"] for c in price.citations] == ["Lenovo ThinkPad X1 Carbon Gen 12"]


@pytest.mark.parametrize(
    ("first", "then"),
    [
        ("Quels sont les horaires du support ?", "Et le week-end ?"),
        ("What does Brightwell plan for 2025?", "détaille la partie sur les magasins"),
    ],
)
def test_a_time_or_a_part_of_the_document_is_no_thing_to_choose(chat, first, then):
    thread = f"q-{uuid.uuid4().hex[:8]}"
    chat.run_turn(TurnRequest(query=first, thread_id=thread))
    result = chat.run_turn(TurnRequest(query=then, thread_id=thread))
    assert "« le week-end »" not in result.answer and "« la partie »" not in result.answer


def test_the_best_selling_phone_is_a_question_for_the_report(chat):
    # A superlative the catalog has no spec for is no product list, and it picks one
    # phone: nothing to ask back. "Combien coûte-t-il ?" then asks the price of the
    # phone it named first, the Galaxy A55, which the catalog states (Round 20: it read
    # "vendu 449 $" on this index and was declined on the hybrid one).
    thread = f"q-{uuid.uuid4().hex[:8]}"
    best = chat.run_turn(
        TurnRequest(query="Quel est le smartphone le plus vendu ?", thread_id=thread)
    )
    assert best.route != "tool" and best.outcome == "grounded_answer", best.answer
    assert "le smartphone le plus vendu" in best.answer
    price = chat.run_turn(TurnRequest(query="Combien coûte-t-il ?", thread_id=thread))
    assert price.outcome == "tool_answer", price.answer
    assert [c["title"] for c in price.citations] == ["Samsung Galaxy A55 5G"]
    assert "$449" in price.answer


@pytest.mark.parametrize(
    ("first", "then", "product", "said"),
    [
        (
            "Quel est le smartphone le plus vendu ?",
            "Combien coûte-t-il ?",
            "Samsung Galaxy A55 5G",
            "$449",
        ),
        (
            "which laptop sold the most?",
            "what's its warranty?",
            "Apple MacBook Air 13 (M3)",
            "1 year",
        ),
    ],
)
def test_it_after_the_best_seller_is_the_product_the_report_names_first(
    hybrid_chat, first, then, product, said
):
    # Round 20: « Combien coûte-t-il ? » was declined on the hybrid index: the report's
    # answer names the best seller first, which is what the superlative picked.
    _, asked = converse(hybrid_chat, first, then)
    assert asked.outcome == "tool_answer", asked.answer
    assert [c["title"] for c in asked.citations] == [product]
    assert said in asked.answer


def test_a_suspicious_email_in_french(chat):
    result = ask(chat, "Que faire si je reçois un email suspect ?")
    assert result.outcome == "grounded_answer", result.answer
    assert "Report phishing" in result.answer


def test_est_ce_que_is_no_demonstrative(chat):
    result = ask(chat, "Est-ce que Brightwell a réduit ses émissions de CO2 ?")
    assert result.outcome == "grounded_answer", result.answer
    assert "baisse de 18 %" in result.answer


def first_sentence(answer: str) -> str:
    """The answer's first quoted sentence, after its "From ... (in French):" line if any."""
    body = answer.split("\n", 1)[1] if answer.startswith(("From ", "D'après ")) else answer
    return body.split(" [", 1)[0]


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        # "lost" and "loses" are one verb: it was declined ("lost" in no passage).
        ("I lost my laptop", "A Brightwell employee who loses a laptop or phone"),
        # The requests are counted, not the companies on a support plan.
        ("How many support requests were handled in 2024?", "312 000 demandes"),
    ],
)
def test_the_passages_are_read_as_a_reader_reads_them(chat, question, quoted):
    result = ask(chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert quoted in first_sentence(result.answer), result.answer


def test_what_happens_asks_what_follows_not_for_the_word_happens(chat):
    # "and what happens if it's missed?" after the Basic plan's uptime commitment was
    # declined: half its content ("happens") is in no passage.
    thread = f"q-{uuid.uuid4().hex[:8]}"
    chat.run_turn(
        TurnRequest(query="What's the uptime commitment of the Basic plan?", thread_id=thread)
    )
    result = chat.run_turn(TurnRequest(query="and what happens if it's missed?", thread_id=thread))
    assert result.outcome == "grounded_answer", result.answer
    assert "service credit" in result.answer


def test_a_message_no_language_marks_is_answered_in_the_conversations(chat):
    # "source 2" votes for no language: the question back was in English after a
    # French conversation.
    thread = f"q-{uuid.uuid4().hex[:8]}"
    for message in ("Résume le rapport annuel", "détaille S3"):
        chat.run_turn(TurnRequest(query=message, thread_id=thread))
    result = chat.run_turn(TurnRequest(query="source 2", thread_id=thread))
    assert result.outcome == "clarify"
    assert result.answer.startswith("La réponse précédente"), result.answer


def test_the_screen_size_is_the_displays(chat):
    result = ask(chat, "What is the screen size of the OnePlus 12?")
    assert result.outcome == "grounded_answer", result.answer
    assert "6.82-inch 120 Hz LTPO AMOLED display" in result.answer


def test_a_thing_asked_to_exist_must_be_in_the_passage(chat):
    # "Is there a student discount?": the MacBook Air "is for students", but no document
    # speaks of a discount; a passage holding some of the thing's words is no answer.
    result = ask(chat, "Is there a student discount on laptops?")
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert result.citations == []


def test_what_is_asked_of_a_named_thing_must_be_stated_for_it(chat):
    # The S24's page names the S24 but never USB-C; "et le Galaxy S24 ?" asks whether
    # the S24 has USB-C, as the iPhone 15's page says the iPhone 15 has.
    thread = f"q-{uuid.uuid4().hex[:8]}"
    first = chat.run_turn(TurnRequest(query="Does the iPhone 15 have USB-C?", thread_id=thread))
    assert first.outcome == "grounded_answer", first.answer
    assert "USB-C charging" in first.answer
    result = chat.run_turn(TurnRequest(query="et le Galaxy S24 ?", thread_id=thread))
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert result.citations == []


def test_the_event_whose_duration_is_asked_is_stated_in_the_passages_words(chat):
    # "take to arrive": the policy says refunds "are paid ... within 10 business days",
    # the last of its sentences on refunds; it led with the 30-day return rule, the first
    # ("are refunded"), when the sentences tied.
    result = ask(chat, "how long do refunds take to arrive?")
    assert result.outcome == "grounded_answer", result.answer
    assert result.citations[0]["section"] == "Refunds and returns"
    assert first_sentence(result.answer) == (
        "Refunds are paid to the original payment method within 10 business days."
    )


def test_the_uptime_of_one_plan_is_that_plans_sentence(chat):
    # It led with "When Brightwell misses the SLA uptime commitment, ...; Basic plan
    # customers are not eligible for service credits": every word asked, in two
    # statements. The Business and Enterprise plans' uptimes are other plans'.
    result = ask(chat, "What's the uptime commitment of the Basic plan?")
    assert result.outcome == "grounded_answer", result.answer
    assert first_sentence(result.answer) == "The Basic plan SLA guarantees 99.5% monthly uptime."
    assert "99.9%" not in result.answer and "99.95%" not in result.answer


@pytest.mark.parametrize("question", ["What is a P2 incident?", "Qu'est-ce qu'un incident P2 ?"])
def test_what_is_a_p2_incident_is_its_definition_not_the_other_priorities(chat, question):
    # The definition leads; "A P3 (medium) incident is..." and the P4's followed it.
    result = ask(chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert first_sentence(result.answer).startswith("A P2 (high) incident is a major loss")
    assert "P3 (medium)" not in result.answer and "P4 (low)" not in result.answer


def test_a_listed_products_entry_that_does_not_state_what_is_asked_is_no_answer(chat):
    # The Nokia's entry (first of the list) says nothing of wireless charging: a list of
    # its every spec is no answer to whether it has it. A spec it states still answers.
    thread = f"q-{uuid.uuid4().hex[:8]}"
    chat.run_turn(TurnRequest(query="What phones do you have under $500?", thread_id=thread))
    result = chat.run_turn(
        TurnRequest(query="does the first one support wireless charging?", thread_id=thread)
    )
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert result.citations == []
    result = chat.run_turn(
        TurnRequest(query="does the second one have 8 GB of RAM?", thread_id=thread)
    )
    assert result.outcome == "tool_answer", result.answer
    assert "ram: 8 GB" in result.answer


@pytest.mark.parametrize(
    "question", ["Combien d'employés a Brightwell ?", "Combien de salariés compte Brightwell ?"]
)
def test_a_french_count_is_found_in_the_french_reports_own_word(chat, question):
    # The report counts "2 140 collaborateurs": the French question's "employés" and
    # "salariés" are that word too (not the handbook's "employees who fail two
    # exercises", and "salariés" are people, not a salary).
    result = ask(chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert "2 140 collaborateurs" in result.answer
    assert result.citations[0]["title"] == "Rapport annuel 2024 de Brightwell"


@pytest.mark.parametrize(
    "question", ["What is Brightwell's stock price?", "Quel est le cours de l'action Brightwell ?"]
)
def test_a_stock_price_no_document_gives_is_declined_in_either_language(chat, question):
    # "cours de l'action" is one phrase, the stock price: read word by word it was a
    # "course" of "action", and the handbook's phishing "refresher course" was quoted.
    result = ask(chat, question)
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert result.citations == []


@pytest.mark.parametrize(
    ("question", "first_option"),
    [
        ("Quel est le meilleur téléphone ?", "Quel est le téléphone le moins cher ?"),
        ("What's the best laptop?", "Which laptop is the cheapest?"),
        # Asking what to buy: it listed every phone by price.
        ("Which phone should I buy?", "Which phone is the cheapest?"),
        (
            "Quel ordinateur portable me conseillez-vous ?",
            "Quel est l'ordinateur portable le moins cher ?",
        ),
    ],
)
def test_the_best_product_with_no_criterion_is_asked_back(chat, question, first_option):
    # Nine phones listed by price answered "the best phone": best on what is the user's
    # to say. Each chip is a ranking the catalog answers.
    result = ask(chat, question)
    assert result.outcome == "clarify" and result.stop_reason == "ambiguous", result.answer
    assert result.citations == []
    options = result.clarify["options"]
    assert result.clarify["reason"] == "ambiguous" and len(options) >= 3
    assert options[0]["query"] == first_option
    chosen = ask(chat, options[0]["query"])
    assert chosen.outcome == "tool_answer", chosen.answer


@pytest.mark.parametrize(
    ("question", "stop_reason"),
    [
        # No passage holds "tablets" (nor "have", a stopword): the search found nothing,
        # and the decline named no document ("I could not find this..."), unlike any
        # other decline.
        ("Do you have tablets?", "no_context"),
        # "sell" also searches "sold" ("sold by Brightwell"): passages are found, none
        # of them about tablets.
        ("Do you sell tablets?", "not_in_documents"),
    ],
)
def test_a_question_nothing_matches_is_declined_naming_documents(chat, question, stop_reason):
    result = ask(chat, question)
    assert result.outcome == "clarify" and result.stop_reason == stop_reason
    assert result.clarify["reason"] == "not_in_documents" and result.citations == []
    assert "The closest documents are: " in result.answer
    titles = [o["label"] for o in result.clarify["options"]]
    if stop_reason == "no_context":
        assert len(titles) == 3  # three of the four sample documents, as other declines
    else:
        assert titles == ["Brightwell product catalog 2024"]  # the documents found
    assert all(title in result.answer for title in titles)


# Round 3: a demanding new user, on the hybrid index the default deployment builds.


@pytest.fixture(scope="module")
def hybrid_chat(minilm_services) -> ChatService:
    return ChatService(minilm_services)


def converse(chat: ChatService, *messages: str):
    thread = f"r3-{uuid.uuid4().hex[:8]}"
    return [chat.run_turn(TurnRequest(query=m, thread_id=thread)) for m in messages]


@pytest.mark.parametrize(
    "question", ["What is the cheapest plan?", "Quel est le plan le moins cher ?"]
)
def test_the_cheapest_plan_is_answered_from_the_plans_prices(hybrid_chat, question):
    # Plan prices are only in the support policy's text: "cheapest" is in no passage
    # (declined), and "le plan le moins cher" asked which of the plans named.
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert "The Basic plan costs $29 per month" in result.answer
    assert result.citations[0]["section"] == "Support plans"


@pytest.mark.parametrize(
    ("opening", "then"),
    [
        ("Tell me about the plans", "the cheapest one"),
        ("Quels plans de support proposez-vous ?", "le moins cher ?"),
    ],
)
def test_the_cheapest_one_after_the_plans_is_the_cheapest_plan(hybrid_chat, opening, then):
    # It led with incident priorities, then the cheapest phone and laptop of the catalog.
    _, result = converse(hybrid_chat, opening, then)
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.split("\n")[-1].startswith("The Basic plan costs $29 per month")
    assert "Acer" not in result.answer


@pytest.mark.parametrize(
    ("best", "typed", "first"),
    [
        ("Quel est le meilleur téléphone ?", "prix", "Nokia G42 5G"),
        ("Quel est le meilleur téléphone ?", "le prix", "Nokia G42 5G"),
        ("Which is the best phone?", "by price", "Nokia G42 5G"),
        ("Which is the best phone?", "battery", "OnePlus 12"),
        ("Which laptop should I buy?", "weight", "Lenovo ThinkPad X1 Carbon Gen 12"),
    ],
)
def test_a_typed_criterion_works_like_its_chip(hybrid_chat, best, typed, first):
    # "prix" was declined, "by price" answered from passages that happen to say "price".
    asked, result = converse(hybrid_chat, best, typed)
    assert asked.stop_reason == "ambiguous"
    assert result.outcome == "tool_answer", result.answer
    assert result.citations[0]["title"] == first


def test_the_catalogue_named_alone_is_the_catalog(hybrid_chat):
    # "Résume le catalogue" summarised the security handbook.
    result = ask(hybrid_chat, "Résume le catalogue")
    assert result.outcome == "grounded_answer", result.answer
    assert {c["title"] for c in result.citations} == {"Brightwell product catalog 2024"}
    assert len(result.outline) >= 4


def test_a_policy_with_its_complement_is_not_the_support_policy(hybrid_chat):
    # "la politique" alone names the support policy; "de mots de passe" says which policy.
    result = ask(hybrid_chat, "Quelle est la politique de mots de passe ?")
    assert result.outcome == "grounded_answer", result.answer
    assert "unique password of at least 14 characters" in result.answer


@pytest.mark.parametrize(
    ("first", "then", "top"),
    [
        ("Which phone has the biggest screen?", "and the smallest?", 'display: 6.1"'),
        ("Quel téléphone a la plus grande batterie ?", "et la plus petite ?", "3349 mAh"),
        # Round 14: declined before, "worst" a word no passage holds.
        ("which phone has the best camera", "and the worst?", "camera: 48 MP"),
    ],
)
def test_a_bare_superlative_ranks_the_previous_spec_the_other_way(hybrid_chat, first, then, top):
    # Declined: "smallest" names no spec; the ranking before it did.
    _, result = converse(hybrid_chat, first, then)
    assert result.outcome == "tool_answer", result.answer
    assert top in result.answer.split("\n")[-3]  # the smallest first


def test_the_outlook_in_english_is_the_french_reports_perspectives(hybrid_chat):
    # "outlook" had no French word: the "Perspectives 2025" section was declined.
    _, result = converse(
        hybrid_chat,
        "What does the annual report say about the environment?",
        "and the outlook for 2025?",
    )
    assert result.outcome == "grounded_answer", result.answer
    assert result.citations[0]["section"] == "Perspectives 2025"


def test_a_section_is_about_what_its_heading_names(hybrid_chat):
    # The « Responsabilité environnementale » section's sentences write no word of
    # "environment", only its heading does (a derivation, « environnementale »): the
    # evidence check read the heading so and passed, the offline answer chose no sentence.
    result = ask(hybrid_chat, "What does the annual report say about the environment?")
    assert result.outcome == "grounded_answer", result.answer
    assert "6 800 tonnes d'équivalent CO2" in result.answer
    assert result.citations[0]["section"] == "Responsabilité environnementale"


@pytest.mark.parametrize(
    ("question", "missing"),
    [
        ("Do you have any Huawei phones?", '"Huawei phones"'),
        ("Avez-vous des téléphones Lenovo ?", "« Lenovo téléphones »"),
    ],
)
def test_a_brand_the_catalog_lacks_is_declined_naming_the_catalog(hybrid_chat, question, missing):
    # Every phone was listed (the unknown brand read as no filter); a known brand with
    # no phone answered "could you rephrase?", naming no document.
    result = ask(hybrid_chat, question)
    assert result.outcome == "clarify" and result.citations == []
    assert missing in result.answer
    assert [o["label"] for o in result.clarify["options"]] == ["Brightwell product catalog 2024"]


def test_a_computer_is_a_laptop_of_the_catalog(hybrid_chat):
    # "l'ordinateur le plus léger" was declined: only "ordinateur portable" was a laptop.
    first, price = converse(
        hybrid_chat, "Quel est l'ordinateur le plus léger ?", "combien coûte-t-il ?"
    )
    assert first.outcome == "tool_answer", first.answer
    assert first.citations[0]["title"] == "Lenovo ThinkPad X1 Carbon Gen 12"
    assert price.outcome == "tool_answer" and "$2,199" in price.answer


def test_an_english_ellipsis_of_a_french_question_is_read_in_french(hybrid_chat):
    # "and the Dell?" asks "Quelle est la garantie du Dell ?": read as English, "garantie"
    # was found in no English passage and the question declined.
    _, result = converse(hybrid_chat, "Quelle est la garantie du MacBook Air ?", "and the Dell?")
    assert result.outcome == "grounded_answer", result.answer
    assert "XPS 13 with a 2-year warranty" in result.answer


@pytest.mark.parametrize(
    ("first", "then", "names"),
    [
        (
            "How much is the OnePlus 12?",
            "Est-il moins cher que le Galaxy S24 ?",
            ["OnePlus 12", "Samsung Galaxy S24"],
        ),
        (
            "What is the cheapest laptop?",
            "is it cheaper than the MacBook Air?",
            ["Acer Aspire 5 (A515-58)", "Apple MacBook Air 13 (M3)"],
        ),
    ],
)
def test_is_it_cheaper_than_x_ranks_the_product_discussed_with_x(hybrid_chat, first, then, names):
    # Declined ("moins cher" in no passage), or the three cheapest laptops ranked again.
    _, result = converse(hybrid_chat, first, then)
    assert result.outcome == "tool_answer", result.answer
    assert [c["title"] for c in result.citations] == names


# Round 4: the misses round 3 left, then a demanding new user again (hybrid index).


@pytest.mark.parametrize(
    ("first", "then", "quoted"),
    [
        ("is there a fee to return a phone?", "and for laptops?", "restocking fee of up to 15%"),
        (
            "Y a-t-il des frais pour retourner un téléphone ?",
            "et pour les ordinateurs portables ?",
            "restocking fee of up to 15%",
        ),
    ],
)
def test_and_for_a_sibling_kind_keeps_what_was_asked(hybrid_chat, first, then, quoted):
    # Led with the lost-device rule: "laptops" was read as "ptops", nothing aligned.
    _, result = converse(hybrid_chat, first, then)
    assert result.outcome == "grounded_answer", result.answer
    assert result.search_query.lower().startswith(("is there a fee to return a laptop", "y a-t-il"))
    assert quoted in result.answer
    assert result.citations[0]["section"] == "Refunds and returns"


def test_who_to_contact_after_an_escalation_is_the_duty_support_manager(hybrid_chat):
    # Quoted only the support hours sentence: "contact" was in no escalation sentence,
    # and "who" asked for a person's name (two capitalised words: "Fleet Portal").
    _, result = converse(hybrid_chat, "How do I escalate a ticket?", "who should I contact?")
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.startswith("Escalation starts with the duty support manager")
    assert result.citations[0]["section"] == "Escalation"


@pytest.mark.parametrize(
    ("first", "then"),
    [
        ("How do returns work?", "is there a fee?"),
        ("Comment fonctionnent les retours ?", "y a-t-il des frais ?"),
    ],
)
def test_a_fee_after_returns_is_the_return_fee(hybrid_chat, first, then):
    # "How do returns work?" was declined ("work" in no passage); "is there a fee?" after
    # a returns answer led with the SLA's "monthly fee", ranked first by retrieval.
    opening, result = converse(hybrid_chat, first, then)
    assert opening.outcome == "grounded_answer", opening.answer
    assert opening.citations[0]["section"] == "Refunds and returns"
    assert result.outcome == "grounded_answer", result.answer
    assert "restocking fee of up to 15%" in result.answer
    assert [c["section"] for c in result.citations] == ["Refunds and returns"]


def test_the_classification_levels_are_listed(hybrid_chat):
    # Quoted only Restricted: "classifies" was not read as "classification".
    result = ask(hybrid_chat, "What are the data classification levels?")
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.startswith(
        "Brightwell classifies all information into four levels: Public, Internal, "
        "Confidential and Restricted."
    )


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("Do you sell Galaxy phones?", ["Samsung Galaxy A55 5G", "Samsung Galaxy S24"]),
        ("Avez-vous des téléphones Pixel ?", ["Google Pixel 8a", "Google Pixel 8 Pro"]),
    ],
)
def test_a_product_line_filters_the_list(hybrid_chat, question, names):
    # Listed every phone: a product line is no brand.
    result = ask(hybrid_chat, question)
    assert result.outcome == "tool_answer", result.answer
    assert [c["title"] for c in result.citations] == names


@pytest.mark.parametrize(
    "first",
    ["Parle-moi des ordinateurs portables", "Quelle est la garantie des ordinateurs portables ?"],
)
def test_which_is_lightest_after_a_french_question_on_laptops_ranks_the_laptops(hybrid_chat, first):
    # Declined: "lequel est le plus léger ?" named no thing to rank, and no list was shown.
    _, result = converse(hybrid_chat, first, "lequel est le plus léger ?")
    assert result.outcome == "tool_answer", result.answer
    assert result.citations[0]["title"] == "Lenovo ThinkPad X1 Carbon Gen 12"
    assert "1.09 kg" in result.answer


def test_a_french_follow_up_on_a_refund_quotes_the_refund_delay(hybrid_chat):
    # Declined: the carried "remboursement" was read in French only, and no English
    # sentence scored.
    _, result = converse(hybrid_chat, "Comment obtenir un remboursement ?", "combien de temps ?")
    assert result.outcome == "grounded_answer", result.answer
    assert "within 10 business days" in result.answer


def test_a_short_follow_up_is_asked_of_the_section_quoted_first(hybrid_chat):
    # The previous answer quoted the handbook first but cited the support policy under a
    # lower number: "dans quel délai ?" quoted the incident priorities.
    _, result = converse(
        hybrid_chat, "Que faire en cas d'incident de sécurité ?", "dans quel délai ?"
    )
    assert result.outcome == "grounded_answer", result.answer
    assert "within 30 minutes" in result.answer
    assert result.citations[0]["section"] == "Security incident reporting"


def test_the_directeur_general_is_declined_as_no_name_given(hybrid_chat):
    # Answered with the P4 incident's "general question": "général" read alone.
    result = ask(hybrid_chat, "Qui est le directeur général de Brightwell ?")
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert result.citations == []


@pytest.mark.parametrize(
    ("messages", "names"),
    [
        (
            ("Tell me about the iPhone 15", "and the Pixel 8a?", "which one is cheaper?"),
            ["Google Pixel 8a", "Apple iPhone 15"],
        ),
        (
            ("Parle-moi du MacBook Air", "et du Dell XPS 13 ?", "lequel est le plus léger ?"),
            ["Dell XPS 13 (9340)", "Apple MacBook Air 13 (M3)"],
        ),
    ],
)
def test_which_one_after_two_products_ranks_those_two(hybrid_chat, messages, names):
    # Declined: no list was shown, and the last turn discussed one product.
    *_, result = converse(hybrid_chat, *messages)
    assert result.outcome == "tool_answer", result.answer
    assert [c["title"] for c in result.citations] == names


def test_an_officer_no_passage_names_is_declined(hybrid_chat):
    # Answered "The Brightwell security team acknowledges...": "The Brightwell" was a name.
    result = ask(hybrid_chat, "Who is Brightwell's data protection officer?")
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"


def test_a_devices_autonomie_is_its_battery_life(hybrid_chat):
    # "autonomie" translated to "autonomy" alone, which no page says: declined.
    result = ask(hybrid_chat, "Quelle est l'autonomie du Zenbook ?")
    assert result.outcome == "grounded_answer", result.answer
    assert "about 15 hours of battery life" in result.answer
    assert result.answer.startswith("D'après « Brightwell product catalog 2024 » (en anglais)")


def test_an_irregular_verb_form_finds_the_passage_writing_the_verb(hybrid_chat):
    # "lost" and the handbook's "loses" share no index stem: the phone pages took every
    # place and the question was declined.
    result = ask(hybrid_chat, "I lost my phone, what should I do?")
    assert result.outcome == "grounded_answer", result.answer
    assert "report the loss to the IT service desk within 1 hour" in result.answer
    assert {c["title"] for c in result.citations} == {"Brightwell security handbook"}


# Round 5: the misses round 4 left, then a demanding new user again (hybrid index).


def test_a_policy_in_case_of_a_loss_is_no_named_document(hybrid_chat):
    # "la politique en cas de..." was read as naming the support policy, and the search
    # kept to it: the handbook's lost-device rule was never packed.
    result = ask(hybrid_chat, "la politique en cas de perte d'un téléphone professionnel")
    assert result.outcome == "grounded_answer", result.answer
    assert "report the loss to the IT service desk within 1 hour" in result.answer
    assert "Brightwell security handbook" in {c["title"] for c in result.citations}


def test_a_policy_in_case_of_a_loss_asked_as_a_question_is_answered(hybrid_chat):
    # Round 6: asked "Quelle est la politique en cas de ... ?", it was declined: the
    # phrase asked for ran on to "en cas", and only passages holding "cas" (the
    # support policy's "in which case") were kept as about the question.
    question = "Quelle est la politique en cas de perte d'un téléphone professionnel ?"
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert "report the loss to the IT service desk within 1 hour" in result.answer


@pytest.mark.parametrize(
    "question", ["Can I cancel a monthly plan?", "Puis-je annuler mon plan mensuel ?"]
)
def test_can_i_do_something_is_answered_by_what_is_said_of_doing_it(hybrid_chat, question):
    # Led with the plans' monthly prices, which hold "monthly" and "plan", not "cancel".
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert "Monthly support plans can be cancelled at any time" in result.answer
    assert "$29 per month" not in result.answer


@pytest.mark.parametrize(
    ("first", "then", "quoted"),
    [
        ("What happens if I miss the SLA?", "et pour le plan Basic ?", "Basic plan"),
        (
            "Quel est le délai de réponse pour un P1 ?",
            "and for Basic customers?",
            "On the Basic plan, P1 incidents get a first response within 4 business hours.",
        ),
    ],
)
def test_and_for_a_thing_the_question_had_no_part_for_asks_it_of_that_thing(
    hybrid_chat, first, then, quoted
):
    # Nothing aligned ("Basic" has no name of its shape in the previous question): the
    # plans' prices led, or the SLA credits.
    _, result = converse(hybrid_chat, first, then)
    assert result.outcome == "grounded_answer", result.answer
    assert quoted in result.answer
    assert "$29 per month" not in result.answer


def test_a_pronouns_question_is_asked_of_the_thing_an_ellipsis_names(hybrid_chat):
    # "and the iPhone?" after "is it water resistant?" described the iPhone: the
    # question is whether the iPhone is water resistant, which no document says.
    *_, result = converse(
        hybrid_chat,
        "Tell me about the Xiaomi Redmi Note 13 Pro",
        "is it water resistant?",
        "and the iPhone?",
    )
    assert result.search_query == "is the iPhone water resistant?"
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"


@pytest.mark.parametrize(
    ("first", "then"),
    [
        ("What are the support hours?", "and on weekends?"),
        ("Quels sont les horaires du support ?", "Et le samedi ?"),
        # "week-end" was two terms, "week" and "end" (round 5's leftovers).
        ("What are the support hours?", "Et le week-end ?"),
    ],
)
def test_a_day_of_the_week_is_answered_by_the_days_the_hours_state(hybrid_chat, first, then):
    # Declined: no passage says "weekend"; the hours say "Monday to Friday".
    _, result = converse(hybrid_chat, first, then)
    assert result.outcome == "grounded_answer", result.answer
    assert "Monday to Friday, 8:00 to 20:00" in result.answer


def test_how_much_was_recycled_asks_an_amount_not_a_price(hybrid_chat):
    # "how much did" was read as asking a price: the catalog's $299 Motorola was quoted.
    result = ask(hybrid_chat, "How much did Brightwell recycle in 2024?")
    assert result.outcome == "grounded_answer", result.answer
    assert "17 000 recyclés" in result.answer
    assert {c["title"] for c in result.citations} == {"Rapport annuel 2024 de Brightwell"}


def test_a_sentence_only_naming_the_iphone_is_no_second_source(hybrid_chat):
    # The report's best-seller sentence names the iPhone 15 and no warranty; "iPhone" was
    # not read as a name (its capital is inside), so it held a word of the question.
    result = ask(hybrid_chat, "the iPhone 15 warranty")
    assert result.outcome == "grounded_answer", result.answer
    assert "1-year warranty" in result.answer
    assert [c["title"] for c in result.citations] == ["Brightwell product catalog 2024"]


@pytest.mark.parametrize(
    ("question", "first", "second"),
    [
        (
            "Is the MacBook Air heavier than the Dell XPS 13?",
            "Apple MacBook Air 13 (M3)",
            "Dell XPS 13 (9340)",
        ),
        (
            "Is the Galaxy S24 cheaper than the Pixel 8 Pro?",
            "Samsung Galaxy S24",
            "Google Pixel 8 Pro",
        ),
        (
            "Est-ce que le Galaxy S24 est moins cher que le Pixel 8a ?",
            "Google Pixel 8a",
            "Samsung Galaxy S24",
        ),
    ],
)
def test_two_named_products_compared_are_ranked_on_the_spec(hybrid_chat, question, first, second):
    # Declined: no passage says "heavier" or "cheaper".
    result = ask(hybrid_chat, question)
    assert result.outcome == "tool_answer", result.answer
    assert [c["title"] for c in result.citations] == [first, second]


@pytest.mark.parametrize(
    ("opening", "then", "product", "value"),
    [
        ("Tell me about the Nokia G42", "what's the battery capacity?", "Nokia G42 5G", "5000 mAh"),
        (
            "Quelle est la garantie du MacBook Air ?",
            "quel est le poids ?",
            "Apple MacBook Air 13 (M3)",
            "1.24 kg",
        ),
    ],
)
def test_what_is_the_spec_is_asked_of_the_product_discussed(
    hybrid_chat, opening, then, product, value
):
    # "what's the battery capacity?" after the Nokia listed three phones' batteries.
    _, result = converse(hybrid_chat, opening, then)
    assert result.outcome == "tool_answer", result.answer
    assert [c["title"] for c in result.citations] == [product]
    assert value in result.answer


def test_support_on_a_day_of_the_week_leads_with_the_hours(hybrid_chat):
    # Led with "Consumers without a support plan can still get ... help": "Sunday" was
    # read as a name, so the hours, which state days without writing it, did not answer.
    result = ask(hybrid_chat, "Can I get support on Sunday?")
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.startswith("Brightwell business hours are Monday to Friday"), result.answer


def test_a_kind_of_product_no_document_has_is_declined_after_another(hybrid_chat):
    # "des montres connectées ?" after the declined tablets quoted the VPN rule
    # ("connect"): "montres" was read as the request "montre-moi".
    _, result = converse(hybrid_chat, "Do you sell tablets?", "des montres connectées ?")
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents", result.answer


def test_it_after_a_declined_question_on_another_thing_is_that_thing(hybrid_chat):
    # "how much is it?" after the declined tablets gave the iPhone 15's price: the
    # tablets question was searched with the iPhone carried, and "it" kept the iPhone.
    *_, result = converse(
        hybrid_chat, "Tell me about the iPhone 15", "Do you sell tablets?", "how much is it?"
    )
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents", result.answer


def test_it_after_a_declined_question_on_the_subject_stays_on_the_subject(hybrid_chat):
    *_, result = converse(
        hybrid_chat, "Tell me about the iPhone 15", "Is it waterproof?", "how much is it?"
    )
    assert result.outcome == "tool_answer", result.answer
    assert [c["title"] for c in result.citations] == ["Apple iPhone 15"]


def test_the_opposite_superlative_after_a_document_answer_ranks_the_whole_category(hybrid_chat):
    # "portable" is a phone or a laptop: the first question is answered from the
    # documents, citing two laptops, and "et le moins cher ?" ranked only those two.
    _, result = converse(hybrid_chat, "Quel est le portable le plus cher ?", "et le moins cher ?")
    assert result.outcome == "tool_answer", result.answer
    assert result.citations[0]["title"] == "Acer Aspire 5 (A515-58)"


def test_satisfied_customers_are_not_the_staff_count(hybrid_chat):
    # Quoted "2 140 collaborateurs ... dont 520 au service client": "520 au service
    # client" was read as a number of clients. The report gives a satisfaction rate.
    result = ask(hybrid_chat, "Combien de clients satisfaits en 2024 ?")
    assert "collaborateurs" not in result.answer
    assert "91 %" in result.answer


# Round 6: the misses round 5 left, then questions of our own.


@pytest.mark.parametrize(
    ("opening", "then"),
    [
        ("What is the password policy?", "how often must I change it?"),
        ("How do I reset my password?", "how often must I change it?"),
    ],
)
def test_how_often_without_a_frequency_of_it_is_declined(hybrid_chat, opening, then):
    # Quoted the phishing rule's "must change the password immediately": "how often"
    # was a duration, and that passage states a frequency of something else ("a
    # phishing exercise every quarter"). The handbook gives no renewal period.
    first, result = converse(hybrid_chat, opening, then)
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents", result.answer
    if "Phishing reporting" in {c["section"] for c in first.citations}:
        # The decline names the kind missing when the packed passages state one of
        # something else ("every quarter"); the password policy's answer no longer
        # cites the phishing section (issue 11), and the follow-up does not pack it.
        assert "a frequency" in result.answer


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        ("How often does IT check device encryption?", "checks device encryption every day"),
        (
            "À quelle fréquence Brightwell organise-t-il des exercices de phishing ?",
            "simulated phishing exercise every quarter",
        ),
    ],
)
def test_how_often_is_answered_by_the_sentence_stating_the_frequency(hybrid_chat, question, quoted):
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert quoted in result.answer


@pytest.mark.parametrize(
    ("question", "product", "said"),
    [
        ("price and weight of the XPS 13?", "Dell XPS 13 (9340)", ["$1,299", "1.19 kg"]),
        ("Quel est le prix et la garantie du Pixel 8a ?", "Google Pixel 8a", ["$499", "2 years"]),
        (
            "the lenovo thinkpad, how much is it and how much does it weigh?",
            "Lenovo ThinkPad X1 Carbon Gen 12",
            ["$2,199", "1.09 kg"],
        ),
    ],
)
def test_several_specs_of_one_named_product_come_from_its_catalog_entry(
    hybrid_chat, question, product, said
):
    # The product's page was quoted one sentence: the weight without the price, the
    # price without the warranty.
    result = ask(hybrid_chat, question)
    assert result.outcome == "tool_answer", result.answer
    assert [c["title"] for c in result.citations] == [product]
    assert all(value in result.answer for value in said), result.answer


def test_an_amount_of_a_spec_alone_is_asked_of_the_product_discussed(hybrid_chat):
    # Quoted the OnePlus 12's, the Pixel 8a's and the iPhone 15's spec sentences.
    _, result = converse(hybrid_chat, "Tell me about the OnePlus 12", "how much RAM?")
    assert result.outcome == "tool_answer", result.answer
    assert [c["title"] for c in result.citations] == ["OnePlus 12"]
    assert "12 GB" in result.answer


def test_an_entity_switch_after_a_spec_lookup_looks_up_the_same_spec(hybrid_chat):
    # "what about the Pixel 8 Pro?" after the S24's battery quoted the Pixel's page; a
    # second switch then became "Samsung Pixel 8 Pro" (the lookup's product name taken
    # for the question the ellipsis stood for).
    *_, pixel, iphone = converse(
        hybrid_chat,
        "Quelle est la garantie du Galaxy S24 ?",
        "and the battery?",
        "what about the Pixel 8 Pro?",
        "et l'iPhone 15 ?",
    )
    assert pixel.outcome == "tool_answer", pixel.answer
    assert [c["title"] for c in pixel.citations] == ["Google Pixel 8 Pro"]
    assert "5050 mAh" in pixel.answer
    assert [c["title"] for c in iphone.citations] == ["Apple iPhone 15"]
    assert "3349 mAh" in iphone.answer


def test_an_ellipsis_after_an_ellipsis_is_the_question_it_stood_for(hybrid_chat):
    # "and on Enterprise?" after "and P3?" quoted the report's uptime and the Basic plan.
    *_, result = converse(
        hybrid_chat,
        "Quel est le délai de réponse P1 sur le plan Basic ?",
        "and P3?",
        "and on Enterprise?",
    )
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.startswith("On the Enterprise plan, P3 incidents get a first response")
    assert {c["title"] for c in result.citations} == {"Brightwell support policy"}


@pytest.mark.parametrize(
    "messages",
    [
        ("can I print documents at home?", "et sur un wifi public ?"),
        ("Can I use public wifi?",),
    ],
)
def test_a_compound_written_closed_finds_it_written_hyphenated(hybrid_chat, messages):
    # Declined: the handbook writes "On public Wi-Fi networks", whose terms were "wi"
    # and "fi", and no passage held the question's "wifi".
    *_, result = converse(hybrid_chat, *messages)
    assert result.outcome == "grounded_answer", result.answer
    assert "On public Wi-Fi networks" in result.answer
    assert result.citations[0]["section"] == "Remote work"


# Issue 11: which sentences the offline answer quotes on the sample data.


def test_the_lost_device_rule_is_quoted_alone(hybrid_chat):
    # Quoted after the P2 definition ("loss of functionality"): "cas" of "en cas de"
    # counted as a word asked about, and the lead said a fifth of the question.
    result = ask(hybrid_chat, "la politique en cas de perte d'un téléphone professionnel")
    assert result.outcome == "grounded_answer", result.answer
    assert [c["section"] for c in result.citations] == ["Device encryption"]
    assert "report the loss to the IT service desk within 1 hour" in result.answer


def test_satisfied_customers_without_a_year_are_the_satisfaction_rate_alone(hybrid_chat):
    # The business-client count after the rate holds "clients" and is another fact.
    result = ask(hybrid_chat, "Combien de clients satisfaits ?")
    assert "91 %" in result.answer
    assert "4 870" not in result.answer


def test_the_classification_levels_asked_in_french_are_listed(hybrid_chat):
    result = ask(hybrid_chat, "Quels sont les niveaux de classification des données ?")
    assert result.outcome == "grounded_answer", result.answer
    assert "four levels: Public, Internal, Confidential and Restricted" in result.answer


def test_and_women_after_the_head_count_is_the_share_of_women(hybrid_chat):
    _, result = converse(hybrid_chat, "How many employees does Brightwell have?", "and women?")
    assert "44 % des effectifs" in result.answer
    assert "2 140 collaborateurs" not in result.answer


@pytest.mark.parametrize(
    ("question", "section"),
    [
        ("What are the support hours?", "Support hours and channels"),
        ("What is the remote work policy?", "Remote work"),
        ("Quelles sont les règles pour le télétravail ?", "Remote work"),
    ],
)
def test_an_answer_from_the_section_named_cites_no_other(hybrid_chat, question, section):
    # Followed by the SLA's and the escalation's sentences (support hours), a P3
    # incident's and the lost-device rule (remote work): words of the question, apart.
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert {c["section"] for c in result.citations} == {section}


# Round 8: what the documents do not say (issue 11, "no source, no answer").


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("What was the revenue in 2025?", "only a target:"),
        ("Quel a été le chiffre d'affaires en 2025 ?", "seulement un objectif :"),
    ],
)
def test_a_target_is_no_result_of_the_year_asked(hybrid_chat, question, said):
    # The report's 2025 is its outlook: "Brightwell vise un chiffre d'affaires compris
    # entre 530 et 545 millions", once quoted as if it were the 2025 revenue.
    result = ask(hybrid_chat, question)
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert said in result.answer and "530 et 545 millions" in result.answer
    assert result.citations == []


def test_the_revenue_of_a_year_quotes_no_target_beside_it(hybrid_chat):
    result = ask(hybrid_chat, "What was the revenue in 2024?")
    assert "486,3 millions de dollars" in result.answer
    assert "vise" not in result.answer


def test_what_a_company_made_is_its_revenue_not_its_prices(hybrid_chat):
    # Quoted the catalog's "du Nokia G42 5G à 199 $" and the Motorola's $299.
    result = ask(hybrid_chat, "how much did Brightwell make in 2024?")
    assert result.outcome == "grounded_answer", result.answer
    assert "486,3 millions de dollars" in result.answer
    assert "199 $" not in result.answer and "$299" not in result.answer


POLICY_DOCUMENTS = ("Brightwell security handbook", "Brightwell support policy")


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("What is the parental leave policy?", 'say nothing about "parental leave"'),
        ("Quelle est la politique de congé parental ?", "ne disent rien sur « congé parental »"),
        ("What is the travel policy?", 'say nothing about "travel"'),
    ],
)
def test_a_policy_the_documents_do_not_have_is_declined(hybrid_chat, question, said):
    # Asked back about "the parental"; answered from the remote-work rules ("must not
    # leave their laptop"); "What is the travel policy?" from the XPS 13's
    # "professionals who travel often".
    result = ask(hybrid_chat, question)
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert said in result.answer and result.citations == []
    # Named first: a document of rules, where such a policy would be (not the catalog).
    assert result.clarify["options"][0]["label"] in POLICY_DOCUMENTS


@pytest.mark.parametrize(
    ("question", "section"),
    [
        ("What is the return policy?", "Refunds and returns"),
        ("What is the VPN policy?", "Remote work"),
        ("Quelle est la politique de remboursement ?", "Refunds and returns"),
    ],
)
def test_a_policy_the_documents_state_is_answered(hybrid_chat, question, section):
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert result.citations[0]["section"] == section


@pytest.mark.parametrize(
    "question",
    ["Can I return a phone after 45 days?", "Puis-je retourner un téléphone après 45 jours ?"],
)
def test_a_case_beyond_the_return_limit_is_answered_by_the_limit(hybrid_chat, question):
    # Declined: "45" is in no passage. The 30-day rule answers it.
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert "within 30 days of delivery" in result.answer
    assert result.citations[0]["section"] == "Refunds and returns"


def test_a_figure_of_another_year_does_not_answer_the_year_asked(hybrid_chat):
    # Quoted 2024's "résultat net atteint 27,1 millions": 2023 is only the revenue's.
    result = ask(hybrid_chat, "What was the net income in 2023?")
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert "27,1 millions" not in result.answer


# Round 9: what the documents do not say, continued (issue 11).


@pytest.mark.parametrize(
    "question", ["How much did Brightwell spend on R&D in 2024?", "What is the R&D budget?"]
)
def test_an_ampersand_name_no_document_writes_is_declined(hybrid_chat, question):
    # "R&D" gave no term: the Motorola's price, the Xiaomi's "tight budget" were quoted.
    result = ask(hybrid_chat, question)
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert '"R&D"' in result.answer and result.citations == []


@pytest.mark.parametrize(
    "question",
    ["Combien Brightwell a-t-il gagné en 2024 ?", "Combien a gagné Brightwell en 2024 ?"],
)
def test_what_a_company_made_asked_in_french_is_its_revenue(hybrid_chat, question):
    # Quoted the 2025 target ("combien de chiffre d'affaires" counted "chiffre"), and
    # with the subject after the verb the Motorola's $299.
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert "486,3 millions de dollars" in result.answer
    assert "vise" not in result.answer and "$299" not in result.answer


def test_a_count_asked_in_the_present_is_not_answered_by_a_plan(hybrid_chat):
    # Led with "Brightwell prévoit d'ouvrir cinq nouveaux magasins en 2025".
    result = ask(hybrid_chat, "How many stores does Brightwell have?")
    assert result.outcome == "grounded_answer", result.answer
    assert "38 magasins" in result.answer and "prévoit" not in result.answer


@pytest.mark.parametrize(
    "question",
    [
        "How many employees did Brightwell have in 2023?",
        "Combien de collaborateurs Brightwell avait-il en 2023 ?",
    ],
)
def test_a_year_said_relative_to_the_reports_is_stated(hybrid_chat, question):
    # Declined: "1 960 un an plus tôt" is 2023's staff in a sentence dated 2024.
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert "1 960 un an plus tôt" in result.answer


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        # Quoted "Refunds are paid ... within 10 business days" for holding "10".
        (
            "Est-ce que je peux retourner un ordinateur après 10 jours ?",
            "within 30 days of delivery",
        ),
        # Declined: the limits are in days.
        ("Can I get a refund after 3 weeks?", "within 30 days"),
    ],
)
def test_a_measure_is_compared_with_the_limit_in_any_unit(hybrid_chat, question, quoted):
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert quoted in result.answer
    assert result.citations[0]["section"] == "Refunds and returns"


# Round 10: held-out kinds of question, asked in English (docs/sample-questions.md).


@pytest.mark.parametrize(
    "question",
    [
        # The Pixel 8 Pro's and the Pixel 8a's prices: "9" was no part of the name.
        "How much is the Pixel 9?",
        # The Galaxy A55 "without paying flagship prices".
        "What dividend did Brightwell pay in 2024?",
        # The plans' prices, then "Public information ... includes published prices".
        "What is Brightwell's share price?",
        # The return rule: "Defects found after 30 days" (the past of "find").
        "When was Brightwell founded?",
    ],
)
def test_what_the_documents_do_not_state_is_declined(hybrid_chat, question):
    result = ask(hybrid_chat, question)
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents", result.answer
    assert result.citations == []


def test_a_count_there_is_now_is_not_answered_by_a_plan(chat):
    # The sparse index packs the outlook's plan and not the highlights' 38 stores: the
    # plan was quoted alone, as if Brightwell had five stores.
    result = ask(chat, "How many stores does Brightwell have?")
    if result.outcome == "grounded_answer":
        assert "38 magasins" in result.answer, result.answer
    else:
        assert result.stop_reason == "not_in_documents"
        assert "only a target" in result.answer and "cinq nouveaux magasins" in result.answer


@pytest.mark.parametrize(
    ("question", "first", "value"),
    [
        # Quoted the XPS 13's, the Aspire 5's and the ThinkPad's spec sentences.
        ("Which laptop has the least RAM?", "Acer Aspire 5 (A515-58)", "ram: 8 GB"),
        # Every phone by price.
        ("Which phone has the smallest battery?", "Apple iPhone 15", "battery: 3349 mAh"),
    ],
)
def test_a_superlative_on_any_spec_ranks_the_catalog(chat, question, first, value):
    result = ask(chat, question)
    assert result.outcome == "tool_answer", result.answer
    assert result.citations[0]["title"] == first
    assert value in result.answer.splitlines()[0]


@pytest.mark.parametrize(
    ("question", "shown"),
    [
        # Declined: no passage says "bigger battery".
        (
            "Does the Nokia G42 have a bigger battery than the iPhone 15?",
            ["Nokia G42 5G", "Apple iPhone 15"],
        ),
        # Declined.
        (
            "Which is cheaper, the iPhone 15 or the Galaxy S24?",
            ["Apple iPhone 15", "Samsung Galaxy S24"],
        ),
        # The Pixel 8 Pro alone ("how does the oneplus 12 compare" was no product).
        (
            "How does the OnePlus 12 compare to the Pixel 8 Pro?",
            ["OnePlus 12", "Google Pixel 8 Pro"],
        ),
        # The ThinkPad's page alone.
        (
            "What's the difference between the ThinkPad X1 Carbon and the XPS 13?",
            ["Lenovo ThinkPad X1 Carbon Gen 12", "Dell XPS 13 (9340)"],
        ),
    ],
)
def test_two_products_compared_are_shown_side_by_side(chat, question, shown):
    result = ask(chat, question)
    assert result.outcome == "tool_answer", result.answer
    assert sorted(c["title"] for c in result.citations) == sorted(shown)


def test_a_comparison_of_no_product_is_a_question_for_the_documents(chat):
    # Declined "no matching products": the plans are the support policy's.
    result = ask(chat, "Compare the Basic and Business plans")
    assert result.outcome == "grounded_answer", result.answer
    assert result.citations[0]["section"] == "Support plans"


@pytest.mark.parametrize(
    ("question", "title"),
    [
        # Declined: "sum up" asked for no summary.
        ("Sum up the annual report for me", "Rapport annuel 2024 de Brightwell"),
        # The security incident section alone.
        ("What does the security handbook say?", "Brightwell security handbook"),
    ],
)
def test_a_named_document_is_summarised(chat, question, title):
    result = ask(chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert {c["title"] for c in result.citations} == {title}
    assert len(result.outline) >= 4


@pytest.mark.parametrize(
    "question",
    ["What uptime does the enterprise plan get?", "what is the uptime of the enterprise plan"],
)
def test_a_name_typed_in_lower_case_is_one_thing_not_several(chat, question):
    # The policy's "Enterprise plan" SLA and the report's "plan Enterprise" uptime both
    # fit "the enterprise": two documents writing one name, not two things to choose
    # between. It was asked back ("Which one do you mean by "the enterprise"?") once the
    # lexicon read "uptime" as "disponibilité" too.
    result = ask(chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert "99.95%" in result.answer


def test_a_lower_case_word_some_passages_write_otherwise_is_still_asked(chat):
    # "the warranty": no passage writes "Warranty" as a name; the products are several.
    result = ask(chat, "what is the warranty")
    assert result.outcome == "clarify" and result.stop_reason == "ambiguous"


# Round 12: the sample data as a held-out judge would ask it, English.


def test_a_count_of_something_no_document_counts_is_declined(hybrid_chat):
    # "7 days" of an SMS fallback are no vacation days: the count's modifier is asked.
    result = ask(hybrid_chat, "how many vacation days do employees get")
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert result.citations == []


def test_how_many_were_hired_is_the_number_recruited(hybrid_chat):
    # The count is of whom "hired" acts on, which the report writes "recruté 410 personnes".
    _, result = converse(hybrid_chat, "What is the headcount?", "and how many were hired?")
    assert result.outcome == "grounded_answer", result.answer
    assert "recruté 410 personnes" in result.answer
    assert "44 %" not in result.answer


def test_a_first_message_asking_a_spec_of_it_asks_which_product(hybrid_chat):
    # No product in play: "it" is asked back, not three products' RAM quoted.
    result = ask(hybrid_chat, "How much RAM does it have?")
    assert result.outcome == "clarify" and result.stop_reason == "ambiguous"
    assert len(result.clarify["options"]) >= 2 and result.citations == []


def test_the_number_planned_is_the_plan(hybrid_chat):
    # "the number of" asks a count as "le nombre de" does; "planned" asks the plan.
    result = ask(hybrid_chat, "What is the number of stores planned for 2025?")
    assert result.outcome == "grounded_answer", result.answer
    assert "cinq nouveaux magasins en 2025" in result.answer


@pytest.mark.parametrize(
    "question", ["how many employees are there?", "what is the number of employees?"]
)
def test_a_count_is_not_answered_by_numbers_of_other_things(hybrid_chat, question):
    # The handbook's sentences hold "employee" and count characters and exercises.
    result = ask(hybrid_chat, question)
    assert "14 characters" not in result.answer and "two exercises" not in result.answer
    assert result.outcome == "clarify" or "2 140 collaborateurs" in result.answer


def test_a_price_difference_between_two_products_shows_both(hybrid_chat):
    result = ask(
        hybrid_chat, "what's the price difference between the galaxy s24 and the iphone 15"
    )
    assert result.outcome == "tool_answer", result.answer
    assert {c["title"] for c in result.citations} == {"Samsung Galaxy S24", "Apple iPhone 15"}


def test_a_kind_of_product_no_document_names_is_not_on_sale(hybrid_chat):
    # Before: the report's best-selling phone and laptop, as if they answered.
    result = ask(hybrid_chat, "does brightwell sell tablets?")
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert result.citations == []


@pytest.mark.parametrize(
    ("question", "shown"),
    [
        ("which phones run android 14", 6),  # not the iPhone (iOS 17) nor Android 13 phones
        ("which laptops run windows 11 pro?", 1),  # the ThinkPad X1 Carbon
    ],
)
def test_a_list_of_products_running_a_system_is_filtered_by_it(hybrid_chat, question, shown):
    result = ask(hybrid_chat, question)
    assert result.outcome == "tool_answer", result.answer
    assert len(result.citations) == shown
    assert "iOS" not in result.answer and "Android 13" not in result.answer
    assert "Windows 11 Home" not in result.answer


# Round 13: English.


def test_a_compound_sharing_only_its_first_word_is_another_kind_of_product(hybrid_chat):
    # Before: answered, "smartwatch" held by "smartphones" (a shared five-letter start);
    # "smart" + "watch" and "smart" + "phone" are words of their own, not one's forms.
    result = ask(hybrid_chat, "does brightwell sell smartwatches")
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents", result.answer
    assert result.citations == []


def test_a_ranking_keeps_only_the_products_running_the_system_named(hybrid_chat):
    # Before: the three cheapest phones, the Moto G Power on Android 14 among them.
    result = ask(hybrid_chat, "What is the cheapest phone running Android 13?")
    assert result.outcome == "tool_answer", result.answer
    assert [c["title"] for c in result.citations] == [
        "Nokia G42 5G",
        "Xiaomi Redmi Note 13 Pro 5G",
    ]


def test_a_product_named_in_lower_case_is_still_that_product(hybrid_chat):
    # Before: the Pixel's description quoted, as if it said waterproof; capitalised,
    # the quality rule declined it.
    result = ask(hybrid_chat, "is the pixel 8 pro waterproof")
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents", result.answer
    assert '"Pixel 8 Pro"' in result.answer and '"waterproof"' in result.answer


# Round 13: summaries and qualifiers.


@pytest.mark.parametrize(
    ("question", "says"),
    [
        ("summarise the catalog", "This summary leaves out 8 sections of the document"),
        ("résume le catalogue", "Ce résumé ne couvre pas 8 sections du document"),
    ],
)
def test_a_summary_the_budgets_cut_says_what_it_left_out(hybrid_chat, question, says):
    # The catalog's 16 sections are past the summary's 8 chunks: it gave 8 phones and
    # said nothing of the OnePlus 12 and the 7 laptops left out.
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert says in result.answer
    assert "Dell XPS 13 (9340)" in result.answer and "OnePlus 12" in result.answer
    assert len(result.outline) >= 4


def test_a_time_stated_per_plan_and_priority_asks_which(hybrid_chat):
    # The support policy's "Response times" section gives one first-response time per
    # plan and priority, in parallel sentences: "What is the response time?" quoted the
    # escalation rule and the Enterprise P1 time as if it were the one.
    result = ask(hybrid_chat, "What is the response time?")
    assert result.outcome == "clarify" and result.stop_reason == "ambiguous", result.answer
    options = {option["label"] for option in result.clarify["options"]}
    assert {"Enterprise plan", "Business plan", "Basic plan"} <= options
    # Naming the qualifiers chooses the one value.
    result = ask(hybrid_chat, "What is the response time for P1 on the Enterprise plan?")
    assert result.outcome == "grounded_answer", result.answer
    assert "within 15 minutes" in result.answer


def test_a_measure_of_nothing_named_stays_on_the_conversations_subject(hybrid_chat):
    # "how many days do I have?" names no subject: it was searched alone, and beside the
    # return window the answer quoted a P3 incident's response time and a phone's
    # "two days per charge". It asks about the refunds the conversation is about.
    result = converse(hybrid_chat, "what is the refund policy?", "how many days do I have?")[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert "within 30 days" in result.answer
    assert {c["section"] for c in result.citations} == {"Refunds and returns"}, result.answer


# Round 14: English.


def test_whether_support_is_offered_on_weekends_is_the_support_hours(hybrid_chat):
    # Before: the report's 2025 outlook, "prévoit" read as "provide" beside "contrats de
    # support"; the verb of "does X provide Y?" asks whether Y is on offer, stated by the
    # support hours in their own words.
    result = ask(hybrid_chat, "Does Brightwell provide support on weekends?")
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.startswith("Brightwell business hours are Monday to Friday")
    assert {c["section"] for c in result.citations} <= {
        "Support hours and channels",
        "Support plans",
    }


def test_the_contact_for_a_situation_no_passage_names_is_declined(hybrid_chat):
    # Before: the Restricted data rule, "contact" and "data" held, "breach" in no passage.
    result = ask(hybrid_chat, "who do i contact for a data breach")
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents", result.answer
    assert result.citations == []
    # The contact for a situation the passages name, in the asker's own verb.
    result = ask(hybrid_chat, "who do i talk to about phishing")
    assert result.outcome == "grounded_answer", result.answer
    assert result.citations[0]["section"] == "Phishing reporting"


def test_a_plan_named_in_lower_case_keeps_its_own_sentence(hybrid_chat):
    # Before: the Business plan's P1 time, then the Basic plan's ("4 business hours").
    result = ask(hybrid_chat, "what is the P1 response time on business")
    assert result.outcome == "grounded_answer", result.answer
    assert "On the Business plan, P1 incidents get a first response within 1 hour" in result.answer
    assert "Basic plan" not in result.answer
    result = ask(hybrid_chat, "whats the uptime on basic")
    assert "99.5%" in result.answer and "99.9%" not in result.answer


@pytest.mark.parametrize(
    ("question", "shown"), [("Do you sell smartphones?", 9), ("do you sell computers", 7)]
)
def test_a_kind_of_product_the_catalog_sells_is_listed_by_any_of_its_names(
    hybrid_chat, question, shown
):
    # Before: declined, no row writing "smartphones" or "computers": every row listed is
    # of the kind asked.
    result = ask(hybrid_chat, question)
    assert result.outcome == "tool_answer", result.answer
    assert len(result.citations) == shown


def test_a_contraction_typed_without_its_apostrophe_asks_nothing_of_its_own(hybrid_chat):
    # Before: declined, "whats" (stemmed "what") a word no passage holds.
    result = ask(hybrid_chat, "whats the password policy")
    assert result.outcome == "grounded_answer", result.answer
    assert result.citations[0]["section"] == "Passwords and multi-factor authentication"


def test_an_ellipsis_naming_a_product_in_lower_case_asks_the_previous_question_of_it(
    hybrid_chat,
):
    # Before: the Nokia's description, its warranty left out ("nokia" read as no name,
    # so nothing of the previous question swapped for it).
    _, result = converse(
        hybrid_chat, "what is the warranty on the pixel 8 pro", "and on the nokia?"
    )
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.startswith("Brightwell covers the Nokia G42 with a 1-year warranty.")


@pytest.mark.parametrize(
    ("question", "listed"),
    [("list the laptops", "Dell XPS 13"), ("show me the phones", "Nokia G42 5G")],
)
def test_an_article_before_a_category_word_is_no_brand(hybrid_chat, question, listed):
    # "the laptops" was read as laptops of a brand "the" the catalog lacks: "The documents
    # say nothing about "the laptops"" (no matching products).
    result = ask(hybrid_chat, question)
    assert result.outcome == "tool_answer", result.answer
    assert listed in result.answer


def test_a_brand_typed_in_lower_case_that_the_catalog_lacks_lists_nothing(hybrid_chat):
    # Before: every phone listed, as if they were Huawei's.
    result = ask(hybrid_chat, "do you have any huawei phones")
    assert result.outcome == "clarify" and result.stop_reason == "no_matching_products"
    assert result.citations == []


@pytest.mark.parametrize(
    ("question", "quoted", "left_out"),
    [
        # Before: asked back with "the P" (of "the P1") as the thing to choose.
        ("what is the P1 response time on enterprise", "within 15 minutes", "On the Basic plan"),
        # Before: asked back with "the business" ("4 business hours" elsewhere).
        ("what is the price of the business plan", "The Business plan costs $149", "costs $29"),
    ],
)
def test_a_code_or_a_named_plan_typed_in_lower_case_is_no_thing_to_choose(
    hybrid_chat, question, quoted, left_out
):
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert quoted in result.answer
    assert left_out not in result.answer


def test_a_french_sentence_is_read_with_its_phrases_translations(hybrid_chat):
    # Before: led by the support policy's "online help centre", the report's "ventes en
    # ligne ... 41 % du chiffre d'affaires" read word by word ("line", "figure").
    result = ask(hybrid_chat, "what share of revenue is online sales")
    assert result.outcome == "grounded_answer", result.answer
    assert "Les ventes en ligne de Brightwell" in result.answer.split("[")[0]


@pytest.mark.parametrize(
    "messages",
    [
        ("what was the revenue last year?", "and the year before?"),
        ("quel était le chiffre d'affaires l'an dernier ?", "et l'année d'avant ?"),
    ],
)
def test_a_year_said_relative_to_now_asks_the_reports_revenue(hybrid_chat, messages):
    # "last year" is when, no word a passage writes: "what was the revenue last year?"
    # asked back which revenue, among the catalog's phones and the support plans, and
    # "and the year before?" (carrying "revenue last") quoted the Pixel 8a's "seven years
    # of updates" and the plans' "per year" prices; the French twin's follow-up quoted
    # the Galaxy A55, "le smartphone le plus vendu de l'année".
    for result in converse(hybrid_chat, *messages):
        assert result.outcome == "grounded_answer", result.answer
        assert "486,3 millions de dollars, contre 435,0 millions de dollars en 2023" in (
            result.answer
        )
        assert "Galaxy" not in result.answer and "per year" not in result.answer


def test_a_plan_the_passages_always_write_as_a_name_is_that_plan(hybrid_chat):
    # The policy writes "business" in lower case ("5 business days") but "the Business
    # plan" always with its capital: "what is the business plan?" asked back which
    # "business" among the policy's section titles.
    result = ask(hybrid_chat, "what is the business plan?")
    assert result.outcome == "grounded_answer", result.answer
    assert "The Business plan costs $149 per month and covers up to 100 devices" in result.answer


@pytest.mark.parametrize(
    "messages",
    [
        ("what is the business plan?", "and the enterprise one?", "what's its SLA?"),
        ("c'est quoi le plan Business ?", "et l'Enterprise ?", "c'est quoi son SLA ?"),
    ],
)
def test_its_x_is_found_beside_the_section_that_named_the_thing(hybrid_chat, messages):
    # "its SLA" after the Enterprise plan of the "Support plans" section: the SLA is in
    # the "Service level agreements" section, which names the support plans too; only
    # the discussed section was read, and the question was declined ("son" was also
    # read as the noun, a sound).
    result = converse(hybrid_chat, *messages)[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert "The Enterprise plan SLA guarantees 99.95% monthly uptime" in result.answer


@pytest.mark.parametrize(
    "messages",
    [
        ("what was the net income last year?", "and the year before?"),
        ("quel a été le résultat net en 2024 ?", "et l'année précédente ?"),
    ],
)
def test_the_year_before_is_the_year_before_the_one_discussed(hybrid_chat, messages):
    # "and the year before?" after the 2024 net income asks it of 2023, which the report
    # does not state (only 2023's revenue): it quoted 2024's net income and the revenue
    # sentence ("contre 435,0 millions de dollars en 2023"), as if that answered.
    result = converse(hybrid_chat, *messages)[-1]
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents", result.answer


@pytest.mark.parametrize(
    "messages",
    [
        ("what are the password rules?", "can I write it down?"),
        (
            "what are the password rules?",
            "how often do I need to change it?",
            "can I write it down?",
        ),
    ],
)
def test_a_pronoun_is_asked_of_the_subject_the_conversation_carried(hybrid_chat, messages):
    # "it" is the password: the remote-work rule "Printing ... is not allowed without written
    # approval" holds "write" and nothing of passwords, and it was quoted as the answer.
    result = converse(hybrid_chat, *messages)[-1]
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents", result.answer
    assert result.citations == []


def test_a_priority_code_after_the_is_a_name_not_an_unnamed_thing(hybrid_chat):
    # "the P1 response time": "the P" was read as an unnamed "the X" (the word's letters
    # alone) and asked back « Which one do you mean by "the P"? ».
    result = ask(hybrid_chat, "What is the P1 response time on the Enterprise plan?")
    assert result.outcome == "grounded_answer", result.answer
    assert "P1 incidents get a first response within 15 minutes" in result.answer


@pytest.mark.parametrize(
    "question", ["whats the email for support", "what's the email for support?"]
)
def test_the_email_to_reach_is_the_one_address_the_passages_give(hybrid_chat, question):
    # "the email for support" asks for an address: it was asked back which plan ("Basic
    # plan" or "Business plan", whose sentences list email support beside their prices),
    # though one address answers it.
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert "support@brightwell.example" in result.answer
    assert "costs $29" not in result.answer


@pytest.mark.parametrize("question", ["who is the ceo", "who is the chairman?"])
def test_the_x_no_passage_holds_is_declined_not_asked_which(hybrid_chat, question):
    # No document names a CEO: it asked « Which one do you mean by "the ceo"? » among the
    # escalation section, the report's sections and a phone, none of them a CEO.
    result = ask(hybrid_chat, question)
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents", result.answer
    assert "Which one" not in result.answer


@pytest.mark.parametrize(
    ("question", "defined"),
    [
        ("what is confidential data", "Confidential information includes customer contracts"),
        ("what is restricted data?", "Restricted information at Brightwell covers payment"),
    ],
)
def test_a_class_is_defined_by_its_sentence_under_the_classifications_heading(
    hybrid_chat, question, defined
):
    # "Confidential information includes ..." under "Data classification" says what
    # confidential data is; the security-incident definition ("the confidentiality ... of
    # customer data") led, as it holds both words, and is no definition of it.
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.startswith(defined), result.answer


def test_the_s24_after_a_list_of_phones_is_the_galaxy_s24(hybrid_chat):
    # "the S24" was read as a reference to a 24th section of an outline the list had not,
    # and asked back: "The previous answer has no outline to point into."
    *_, ram = converse(
        hybrid_chat,
        "What phones does Samsung make?",
        "which is cheaper?",
        "how much RAM does the S24 have?",
    )
    assert ram.stop_reason == "completed", ram.answer
    assert "8 GB" in ram.answer and "S24" in ram.answer


@pytest.mark.parametrize(
    ("message", "section"),
    [
        ("Give me a summary of the annual report in English", "Résultats financiers"),
        ("Give me a summary of the support policy in French", "Refunds and returns"),
    ],
)
def test_a_summary_asked_in_a_language_summarises_the_document(hybrid_chat, message, section):
    # Declined: 'The documents say nothing about "English"': the language the answer is
    # asked in was read as a name the passages must hold.
    result = ask(hybrid_chat, message)
    assert result.outcome == "grounded_answer", result.answer
    assert section in {citation["section"] for citation in result.citations}


@pytest.mark.parametrize(
    "question", ["how many employees work in stores?", "how many staff work in stores?"]
)
def test_a_count_is_quoted_from_the_sentence_giving_a_number_of_what_is_counted(
    hybrid_chat, question
):
    # It quoted "A P3 (medium) incident is a problem affecting a single user or device,
    # or a minor feature that does not work": a passage retrieval ranked above the
    # report's staff figures, shown because no passage held every word of the question.
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert "1 230 en magasin" in result.answer and "P3" not in result.answer


@pytest.mark.parametrize(
    ("message", "point", "section"),
    [
        ("Write a brief on our security rules for new hires", "what about the third point?", "S3"),
        ("Give me a one-pager on the annual report", "the last one", "S7"),
        ("Draft a memo about the support policy", "more on refunds", "S6"),
        ("Rédige une note sur la politique de support", "et le point 2 ?", "S2"),
        ("Fais un point sur le rapport annuel", "la dernière partie", "S7"),
        ("Fais-moi une fiche sur le manuel de sécurité", "le deuxième point", "S2"),
    ],
)
def test_a_brief_or_a_note_is_a_deliverable_its_points_point_into(
    hybrid_chat, message, point, section
):
    # Round 16: a brief, a note, a memo, a one-pager, « un point sur » are written pieces
    # over a document as a summary is. "Write a brief on our security rules" quoted the
    # incident section with no outline, and "what about the third point?" was declined
    # ('The documents say nothing about "third"'); « Rédige une note sur la politique de
    # support » asked which plan; "a one-pager on the annual report" was declined.
    deliverable, reference = converse(hybrid_chat, message, point)
    assert deliverable.outcome == "grounded_answer", deliverable.answer
    assert len(deliverable.outline) >= 4, deliverable.answer
    assert reference.followup["section_id"] == section, (reference.followup, reference.answer)
    assert reference.followup["method"] == "deterministic"


@pytest.mark.parametrize(
    ("messages", "meant", "others"),
    [
        (
            ("What is the Enterprise plan?", "what's its response time for P2?"),
            "On the Enterprise plan, P2 incidents get a first response within 1 hour",
            ("On the Business plan", "On the Basic plan"),
        ),
        (
            (
                "What is the Enterprise plan?",
                "what's its response time for P2?",
                "and for Business?",
            ),
            "On the Business plan, P2 incidents get a first response within 4 business hours",
            ("P1 incidents", "SLA", "On the Basic plan", "On the Enterprise plan"),
        ),
        (
            ("What is the Business plan?", "what's its SLA?"),
            "The Business plan SLA guarantees 99.9% monthly uptime",
            ("The Basic plan SLA", "The Enterprise plan SLA"),
        ),
        (
            ("What is the Basic plan?", "how many devices does it cover?"),
            "The Basic plan costs $29 per month and covers up to 10 devices",
            ("The Business plan", "The Enterprise plan"),
        ),
    ],
)
def test_its_is_the_one_thing_the_previous_question_named(hybrid_chat, messages, meant, others):
    # "its" is the Enterprise plan: every plan's P2 time was quoted; "and for Business?"
    # (the previous question's "its" left no name to swap) quoted every Business
    # priority, its SLA and the business hours; "its SLA" quoted every plan's, and "how
    # many devices does it cover?" every plan's price and devices.
    result = converse(hybrid_chat, *messages)[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.startswith(meant), result.answer
    for other in others:
        assert other not in result.answer, result.answer


# Round 17: multi-turn (issue 11).


@pytest.mark.parametrize(
    ("messages", "meant", "others"),
    [
        (
            ("what is the business plan?", "what's its SLA?"),
            "The Business plan SLA guarantees 99.9% monthly uptime",
            ("The Basic plan SLA", "The Enterprise plan SLA"),
        ),
        (
            ("What is the basic plan?", "how many devices does it cover?"),
            "The Basic plan costs $29 per month and covers up to 10 devices",
            ("The Business plan", "The Enterprise plan"),
        ),
        (
            (
                "what is the enterprise plan?",
                "what's its response time for P2?",
                "and for Business?",
            ),
            "On the Business plan, P2 incidents get a first response within 4 business hours",
            ("On the Basic plan", "On the Enterprise plan"),
        ),
    ],
)
def test_its_is_the_one_name_typed_in_lower_case(hybrid_chat, messages, meant, others):
    # The one name "its" stands for was read from capitals only: "the business plan"
    # named nothing, and every plan's SLA, price or P2 time was quoted.
    result = converse(hybrid_chat, *messages)[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.startswith(meant), result.answer
    for other in others:
        assert other not in result.answer, result.answer


def test_which_one_after_two_products_looked_up_ranks_those_two(hybrid_chat):
    # Each product was shown by a catalog lookup (one a turn): the lookups' titles were
    # not read as products discussed, and the first lookup's one product stood as a
    # list: declined.
    *_, result = converse(
        hybrid_chat,
        "Tell me about the MacBook Air",
        "how much does it weigh?",
        "and the XPS 13?",
        "which one is lighter?",
    )
    assert result.outcome == "tool_answer", result.answer
    assert [c["title"] for c in result.citations] == [
        "Dell XPS 13 (9340)",
        "Apple MacBook Air 13 (M3)",
    ]


def test_an_ellipsis_after_an_ellipsis_changes_the_last_whole_question(hybrid_chat):
    # "and on weekends?" was searched with carried words, so "what about Enterprise
    # customers?" had no question to change: it was searched as "Enterprise customers"
    # with the weekend hours carried, and quoted the SLA's service-credit sentence.
    result = converse(
        hybrid_chat,
        "What are the support hours?",
        "and on weekends?",
        "what about Enterprise customers?",
    )[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.startswith("Enterprise plan customers have 24/7 phone, chat and email")
    assert "service credit" not in result.answer


@pytest.mark.parametrize(
    "messages",
    [
        ("What's the best laptop for travel?", "how heavy is it?"),
        ("Which laptop is best?", "how much does it cost?"),
        ("quel est le meilleur téléphone ?", "combien pèse-t-il ?"),
    ],
)
def test_it_after_asking_which_criterion_stands_for_nothing_given(hybrid_chat, messages):
    # The question back gave no laptop: "it" quoted three laptops' descriptions (their
    # weights), or the most expensive laptop's price, as if one had been chosen.
    first, result = converse(hybrid_chat, *messages)
    assert first.stop_reason == "ambiguous", first.answer
    assert result.outcome == "clarify" and result.stop_reason == "ambiguous", result.answer
    assert result.citations == []
    assert result.clarify and result.clarify["options"], result.clarify


def test_a_criterion_typed_after_being_asked_again_ranks_the_best_question(hybrid_chat):
    *_, ranked = converse(
        hybrid_chat, "What's the best laptop for travel?", "how heavy is it?", "by weight"
    )
    assert ranked.outcome == "tool_answer", ranked.answer
    assert ranked.answer.startswith("- Lenovo ThinkPad X1 Carbon Gen 12"), ranked.answer


@pytest.mark.parametrize(
    ("messages", "stated"),
    [
        (
            ("What does the Business plan cost per year?", "and can I cancel it?"),
            "Monthly support plans can be cancelled at any time",
        ),
        (
            (
                "Summarise the support policy",
                "détaille S3",
                "and S5?",
                "what does it say about refunds for annual plans?",
            ),
            "Annual support plans cancelled within 14 days of purchase or renewal receive a "
            "prorated refund",
        ),
    ],
)
def test_it_is_asked_of_the_document_a_topical_section_came_from(hybrid_chat, messages, stated):
    # "it" was read as the previous answer's section only ("Support plans", "Escalation"),
    # which says nothing of cancelling or refunds, and the question was declined; asked
    # on its own (or in French, "et je peux l'annuler ?"), it is answered from the policy's
    # "Refunds and returns".
    result = converse(hybrid_chat, *messages)[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert stated in result.answer


@pytest.mark.parametrize(
    "messages",
    [
        ("How many employees does Brightwell have?", "and how many stores?"),
        ("Combien d'employés a Brightwell ?", "et combien de magasins ?"),
    ],
)
def test_a_count_asked_again_of_another_noun_is_the_same_question(hybrid_chat, messages):
    # "and how many stores?" was no ellipsis (its "how" read as a clause of its own): it
    # was searched with the employees carried and quoted the headcount sentence again.
    result = converse(hybrid_chat, *messages)[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert "38 magasins" in result.answer
    assert "2 140 collaborateurs" not in result.answer


def test_a_rule_asked_of_phones_is_the_handbooks_not_the_catalogs_phones(hybrid_chat):
    # "what about encryption on phones?" was read as a list of phones ("what" ... "phones")
    # and answered with the catalog's price of every phone.
    result = converse(
        hybrid_chat,
        "give me an overview of the security handbook",
        "what about encryption on phones?",
    )[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert "Company phones used by Brightwell staff must have a screen lock" in result.answer
    assert "costs $" not in result.answer


def test_what_it_will_do_next_year_is_the_reports_outlook(hybrid_chat):
    # "will it" is Brightwell, the one name the previous question named: declined.
    result = converse(
        hybrid_chat, "How many stores does Brightwell have?", "and how many will it open next year?"
    )[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert "cinq nouveaux magasins en 2025" in result.answer


# Round 16: English (issue 11).


@pytest.mark.parametrize(
    "question",
    [
        "I bought a laptop 40 days ago and it is broken, can I return it?",
        "J'ai acheté un portable il y a 40 jours et il est en panne, je peux le rendre ?",
    ],
)
def test_the_time_elapsed_in_the_users_case_is_measured_against_the_limit(hybrid_chat, question):
    # "40 days ago" is the user's own case, measured against "within 30 days" as "after 40
    # days" is: it was declined as "The documents say nothing about "40"".
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert "within 30 days of delivery" in result.answer
    assert "Defects found after 30 days are handled under the product warranty" in result.answer


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        ("What is the turnover rate?", "le taux de rotation volontaire du personnel a baissé"),
        ("what's the staff turnover?", "le taux de rotation volontaire du personnel a baissé"),
        # A company's turnover is its revenue: the other sense of the word.
        ("What was Brightwell's turnover in 2024?", "486,3 millions de dollars"),
    ],
)
def test_turnover_is_read_in_each_of_its_senses(hybrid_chat, question, quoted):
    # The report's « taux de rotation » is the staff turnover rate, its « chiffre
    # d'affaires » a company's turnover: both were declined ("nothing about turnover").
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.startswith('From "Rapport annuel 2024 de Brightwell" (in French):')
    assert quoted in result.answer.splitlines()[1].split(" [")[0]


@pytest.mark.parametrize(
    ("question", "ranked"),
    [
        ("What was the best-selling phone in 2024?", "le smartphone le plus vendu"),
        ("What was the best-selling laptop in 2024?", "le modèle le plus vendu"),
    ],
)
def test_a_ranking_answers_of_the_kind_it_ranks(hybrid_chat, question, ranked):
    # The phone question quoted the laptops' ranking ("Du côté des ordinateurs portables,
    # ... le modèle le plus vendu par Brightwell en 2024"), which names the year asked.
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert ranked in result.answer
    assert result.answer.count(" [") == 1, result.answer


@pytest.mark.parametrize(
    ("question", "first", "second"),
    [
        ("What's the difference between P1 and P2?", "A P1 (critical) incident is", "A P2 (high)"),
        ("how does a P2 differ from a P3?", "A P2 (high) incident is", "A P3 (medium)"),
        (
            "What's the difference between confidential and restricted information?",
            "Confidential information includes",
            "Restricted information at Brightwell covers",
        ),
    ],
)
def test_a_difference_is_answered_by_what_each_one_is(hybrid_chat, question, first, second):
    # "the difference between P1 and P2" quoted the escalation rule ("If a P1 or P2
    # incident is not resolved within 4 hours ..."), the one sentence naming both: it
    # says what they share. Each one's definition says how they differ.
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.startswith(first), result.answer
    assert second in result.answer
    assert "escalates" not in result.answer


@pytest.mark.parametrize(
    ("question", "bound"),
    [
        ("What's the maximum service credit?", "up to 50% of the monthly fee"),
        ("What is the minimum password length?", "a unique password of at least 14 characters"),
    ],
)
def test_a_bound_asked_is_the_bound_a_sentence_states(hybrid_chat, question, bound):
    # "up to 50%" states the maximum, "at least 14 characters" the minimum (a length): both
    # were declined as "nothing about maximum" / "minimum".
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert bound in result.answer.split(" [")[0]


@pytest.mark.parametrize(
    "question",
    ["Do you offer 24/7 support on the Basic plan?", "Le plan Basic inclut-il un support 24/7 ?"],
)
def test_24_7_asks_the_hours_a_plans_support_runs(hybrid_chat, question):
    # It quoted the plans' overview and prices ("offers three support plans ... Basic"),
    # which say nothing of when. "24/7" asks the hours: the Basic plan's are business hours.
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert "Basic plan customers can contact Brightwell support by email" in result.answer
    assert "offers three support plans" not in result.answer


def test_a_share_asked_in_the_present_is_no_plan(hybrid_chat):
    # It led with the 2025 outlook (« porter la part des contrats de support à 14 % »):
    # a target, no share there is. Asked of 2025, the plan answers.
    now = ask(hybrid_chat, "What percentage of revenue comes from support contracts?")
    assert "porter la part des contrats de support à 14 %" not in now.answer, now.answer
    planned = ask(hybrid_chat, "What share of revenue will support contracts be in 2025?")
    assert "porter la part des contrats de support à 14 %" in planned.answer, planned.answer


def test_an_english_phrase_is_held_where_its_french_is_written_whole(hybrid_chat):
    # "the gross margin" is « la marge brute »: the operating result's « marge
    # opérationnelle » (a margin, not the gross one) was quoted after it.
    gross = ask(hybrid_chat, "What is the gross margin?")
    assert gross.outcome == "grounded_answer", gross.answer
    assert "La marge brute de Brightwell atteint 27,4 %" in gross.answer
    assert "marge opérationnelle" not in gross.answer
    # Asked of both margins, "margin" is asked on its own too: both are quoted.
    both = ask(hybrid_chat, "what is the gross margin and the operating margin?")
    assert "La marge brute" in both.answer and "marge opérationnelle de 8,0 %" in both.answer


@pytest.mark.parametrize(
    "question",
    ["what should I do if my laptop is stolen?", "who do i contact if my laptop is stolen"],
)
def test_a_stolen_laptop_is_answered_by_the_lost_device_rule(hybrid_chat, question):
    # Declined: "stolen" is in no passage. A laptop stolen is a laptop its employee loses,
    # and the handbook says what to do then.
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.startswith("A Brightwell employee who loses a laptop"), result.answer


@pytest.mark.parametrize(
    "question",
    [
        "how much of the revenue comes from online sales",
        "how much of the revenue comes from online sales?",
    ],
)
def test_how_much_of_the_revenue_is_the_share_the_report_states(hybrid_chat, question):
    # Quoted the support policy's "online help centre": six of the eight passages are
    # English, and the French report, which says three of the question's four words in
    # translation, was not read in French; nor was "how much of" read as a share.
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert "représentent désormais 41 % du chiffre d'affaires" in result.answer
    assert "help centre" not in result.answer and "recruter" not in result.answer


def test_tell_me_about_a_plan_named_in_lower_case_leaves_the_other_plans_out(hybrid_chat):
    # Quoted the plans' overview, then the Basic and Business prices, never the
    # Enterprise one: "enterprise" before "plan" was read as no name, having a noun of
    # its own; it is the noun the passages write it with ("the Enterprise plan").
    result = ask(hybrid_chat, "tell me about the enterprise plan")
    assert result.outcome == "grounded_answer", result.answer
    assert "The Enterprise plan costs $899 per month" in result.answer
    assert "$29 per month" not in result.answer and "$149 per month" not in result.answer


@pytest.mark.parametrize(
    ("question", "ranked"),
    [
        ("which laptop sold the most?", "l'Apple MacBook Air 13 (M3) à 1 099 $"),
        ("which phone sold the most?", "Le Samsung Galaxy A55 5G"),
    ],
)
def test_a_ranking_by_sales_is_no_catalog_list(hybrid_chat, question, ranked):
    # "sold the most" is the verb of selling with its degree, ranking as "best-selling"
    # does; the catalog states no sales and listed the laptops by price.
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert ranked in result.answer
    assert result.citations[0]["section"] == "Activité commerciale"


def test_a_verb_is_stated_by_its_latin_noun(hybrid_chat):
    # "emit" and "emission" share too short a start to be read as one word family, and
    # the year check found nothing emitted in 2024 (declined).
    result = ask(hybrid_chat, "How much CO2 did Brightwell emit in 2024?")
    assert result.outcome == "grounded_answer", result.answer
    assert "6 800 tonnes d'équivalent CO2 en 2024" in result.answer


def test_is_that_up_or_down_asks_of_the_figure_just_quoted(hybrid_chat):
    # "is that" was no pointer the router read: a new question, declined. « une baisse de
    # 18 % » answers the choice between the two directions.
    turns = converse(hybrid_chat, "How much CO2 did Brightwell emit?", "is that up or down?")
    assert turns[-1].outcome == "grounded_answer", turns[-1].answer
    assert "soit une baisse de 18 % par rapport à 2023" in turns[-1].answer


def test_acknowledging_a_report_is_responding_to_it(hybrid_chat):
    # "respond" is in no sentence of the incident section: declined, while the security
    # team "acknowledges every security incident report within 30 minutes".
    turns = converse(
        hybrid_chat, "Who do I report a security incident to?", "how fast will they respond?"
    )
    assert turns[-1].outcome == "grounded_answer", turns[-1].answer
    assert "acknowledges every security incident report within 30 minutes" in turns[-1].answer


def test_a_difference_is_anchored_by_what_it_is_between(hybrid_chat):
    # "the difference" was asked back among the sections holding "internal" or "public"
    # ("internal systems", "public computers"): "between X and Y" says what of.
    result = ask(hybrid_chat, "What is the difference between internal and public information?")
    assert result.outcome == "grounded_answer", result.answer
    assert result.citations[0]["section"] == "Data classification"
    assert "Public information at Brightwell includes" in result.answer
    assert "Internal information covers" in result.answer


def test_a_hyphenated_word_is_one_word_to_qualify(hybrid_chat):
    # "the post-incident" was asked back among the plans and priorities whose sentences
    # speak of incidents; one sentence speaks of the post-incident review.
    result = ask(hybrid_chat, "who runs the post-incident review?")
    assert result.outcome == "grounded_answer", result.answer
    assert "named technical account manager, who runs a written post-incident review" in (
        result.answer
    )


def test_a_superlative_ranks_what_the_last_ranking_ranked(hybrid_chat):
    # "what about the most expensive one?" two turns after the cheapest laptop quoted the
    # cheapest laptop again: the turn between ranks nothing, and "what about" opens an
    # ellipsis as "and" does.
    *_, result = converse(
        hybrid_chat,
        "What is the cheapest laptop?",
        "how heavy is it?",
        "what about the most expensive one?",
    )
    assert result.outcome == "tool_answer", result.answer
    assert result.answer.startswith("- Lenovo ThinkPad X1 Carbon Gen 12"), result.answer


def test_a_word_in_ss_is_no_plural_to_rank(hybrid_chat):
    # "what about" opening the superlative read "the Business" as a plural ("Busines")
    # and declined; the plans' prices answer.
    *_, result = converse(
        hybrid_chat, "What is the Business plan?", "what about the most expensive one?"
    )
    assert result.outcome == "grounded_answer", result.answer
    assert "The Enterprise plan costs $899 per month" in result.answer


@pytest.mark.parametrize(
    "question",
    [
        "what laptop sold best in 2024?",
        "what was the top-selling laptop?",
        "which laptop is the best seller?",
    ],
)
def test_every_phrasing_of_a_sales_ranking_asks_the_ranking(hybrid_chat, question):
    # "sold best" was read as no ranking (the Moto G Power "sold by Brightwell"), "the
    # top-selling" was asked back as a thing to choose, "seller" held by no passage
    # declined: each is the verb of selling with its degree, as "best-selling" is.
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert "l'Apple MacBook Air 13 (M3) à 1 099 $ a été le modèle le plus vendu" in result.answer
    assert "Moto G Power" not in result.answer


def test_a_compound_of_nouns_no_passage_holds_whole_is_declined(hybrid_chat):
    # "the screen" was asked back among the handbook's sections and the products with a
    # screen; "screen lock timeout" is one thing, and the handbook states no timeout.
    result = ask(hybrid_chat, "what's the screen lock timeout?")
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert "screen lock timeout" in result.answer


@pytest.mark.parametrize(
    "question",
    [
        "How much does the Galaxy S24 Ultra cost?",
        "how much does the galaxy s24 ultra cost?",
        "what's the price of the pixel 8a pro?",
    ],
)
def test_an_edition_after_a_model_number_names_another_product(hybrid_chat, question):
    # The Galaxy S24's price was quoted for the S24 Ultra: "Ultra" is held by the
    # laptops' "Intel Core Ultra", and a code stands alone as a name; the Pixel 8a's for
    # a "pixel 8a pro".
    result = ask(hybrid_chat, question)
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert "$799" not in result.answer and "$499" not in result.answer


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        ("how much is the Pixel 8 Pro?", "$999"),
        ("what's the battery of the redmi note 13 pro?", "5,100 mAh battery"),
    ],
)
def test_an_edition_the_catalog_writes_after_its_number_is_still_answered(
    hybrid_chat, question, quoted
):
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert quoted in result.answer


@pytest.mark.parametrize(
    "question", ["is mfa mandatory?", "is multi-factor authentication compulsory?"]
)
def test_what_a_rule_requires_is_mandatory(hybrid_chat, question):
    # Declined: no passage holds "mandatory", and the handbook's "Brightwell requires
    # multi-factor authentication" says it is.
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.startswith("Brightwell requires multi-factor authentication (MFA)")


def test_a_follow_up_answered_by_the_carried_words_alone_starts_at_their_sentence(hybrid_chat):
    # "who do we tell?" holds no word of the lost-device rule: every sentence of the
    # "Device encryption" passage said as much of it (nothing), so the quote started at
    # the passage's first sentence, the encryption rules, and the rule was left out.
    _, result = converse(hybrid_chat, "We lost a company laptop on the train", "who do we tell?")
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.startswith(
        "A Brightwell employee who loses a laptop or phone must report the loss to the IT "
        "service desk within 1 hour"
    ), result.answer
    assert "full-disk encryption" not in result.answer


@pytest.mark.parametrize(
    ("messages", "meant", "other"),
    [
        (
            ("What's the warranty on the Pixel 8a?", "no, I meant the Pixel 8 Pro"),
            "Brightwell covers the Pixel 8 Pro with a 2-year warranty",
            "Pixel 8a",
        ),
        (
            ("How much RAM does the Galaxy S24 have?", "sorry, I meant the Pixel 8 Pro"),
            "The Pixel 8 Pro phone has a 6.7-inch 120 Hz LTPO OLED display, 12 GB of RAM",
            "Galaxy",
        ),
    ],
)
def test_a_correction_naming_a_name_asks_the_previous_question_of_it(
    hybrid_chat, messages, meant, other
):
    # "no, I meant the Pixel 8 Pro" was searched as a question of its own: the Pixel 8
    # Pro's description, without its warranty, or led by its price rather than its RAM.
    _, result = converse(hybrid_chat, *messages)
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.startswith(meant), result.answer
    assert other not in result.answer


def test_a_message_of_function_words_only_asks_of_the_conversation(hybrid_chat):
    # "what do I do now?" was routed as a question of its own, and declined.
    _, result = converse(hybrid_chat, "I clicked a link in a weird email", "what do I do now?")
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.startswith(
        "A Brightwell employee who clicked a link or entered credentials in a suspicious page"
    ), result.answer


@pytest.mark.parametrize(
    "messages", [("What was the NPS in 2024?",), ("What was the CSAT in 2024?", "et le NPS ?")]
)
def test_the_nps_of_the_year_is_its_net_promoter_score(hybrid_chat, messages):
    # The year rule read the sentence's words without their initials: the "Net Promoter
    # Score" of the 2024 report said nothing of the NPS in 2024, declined.
    result = converse(hybrid_chat, *messages)[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert "le Net Promoter Score est passé de 41 à 48" in result.answer


@pytest.mark.parametrize(
    ("question", "missing"),
    [
        ("Does the Enterprise plan include on-site support?", '"on-site support"'),
        ("What happens to my data when I return a phone?", '"data when I return a phone"'),
    ],
)
def test_a_feature_or_situation_no_passage_states_is_declined_by_name(
    hybrid_chat, question, missing
):
    # The plan's description ("24/7 phone support") and the return rules were quoted: a
    # feature is asked with its modifiers, and what happens to a thing needs a sentence
    # stating the thing with the circumstance.
    result = ask(hybrid_chat, question)
    assert result.outcome == "clarify", result.answer
    assert result.stop_reason == "not_in_documents"
    assert f"The documents say nothing about {missing}" in result.answer


def test_a_pronoun_after_a_decline_and_a_question_back_is_asked_about(hybrid_chat):
    # "that" quoted the P1 response times: the last replies quoted no document.
    *_, result = converse(
        hybrid_chat,
        "Give me a plan to roll out MFA to all staff",
        "the second point",
        "who is responsible for that?",
    )
    assert result.outcome == "clarify", result.answer
    assert result.stop_reason == "unresolved_reference:nothing_pointed_at"
    assert 'What does "that" refer to?' in result.answer
    assert not result.citations


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        ("What is the refund window for monthly plans?", "Monthly support plans can be cancelled"),
        ("What is the return window for laptops?", "returns of phones and laptops within 30 days"),
        ("What is the time limit for returns?", "returns of phones and laptops within 30 days"),
        ("Quel est le délai de remboursement ?", "within 10 business days"),
    ],
)
def test_a_time_frame_noun_asks_for_a_duration(hybrid_chat, question, quoted):
    # Declined ("nothing about window"): the rules state "within 30 days" without the
    # noun; "deadline" and "period" were answered only through "at any time" read back
    # from French ("délai").
    result = ask(hybrid_chat, question)
    assert result.outcome == "grounded_answer", result.answer
    assert quoted in result.answer


def test_a_period_word_swaps_for_its_sibling(hybrid_chat):
    # "and for yearly?" quoted the device return rules (the search carried "refund window
    # monthly plans" and nothing said yearly plans).
    *_, result = converse(
        hybrid_chat, "What is the refund window for monthly plans?", "and for yearly?"
    )
    assert result.outcome == "grounded_answer", result.answer
    assert "Annual support plans cancelled within 14 days" in result.answer
    assert "Brightwell accepts returns of phones" not in result.answer


@pytest.mark.parametrize(
    "question",
    ["What is the best phone for photography?", "Quel est le meilleur téléphone pour la photo ?"],
)
def test_a_use_names_the_spec_that_serves_it(hybrid_chat, question):
    # "Best on which criterion?" was asked back, then again after "how much is it?".
    first, second = converse(hybrid_chat, question, "how much is it?")
    assert first.outcome == "tool_answer", first.answer
    assert "Xiaomi Redmi Note 13 Pro 5G" in first.answer.splitlines()[-3], first.answer
    assert "camera: 200 MP" in first.answer
    assert second.outcome == "tool_answer", second.answer
    assert "$349" in second.answer


def test_a_cheaper_alternative_is_ranked_not_declined(hybrid_chat):
    # Declined: no row writes "cheaper" nor "alternative"; the rows' prices state it.
    *_, result = converse(
        hybrid_chat,
        "What is the best phone for photography?",
        "is there a cheaper alternative with a good camera?",
    )
    assert result.outcome == "tool_answer", result.answer
    assert result.answer.startswith("- Nokia G42 5G"), result.answer


def test_a_name_holding_the_noun_counted_is_no_count_of_it(hybrid_chat):
    # The devices collected, then "Brightwell Devices comptait 2 140 collaborateurs": the
    # company's name holds "devices", the number counts its staff.
    result = ask(hybrid_chat, "how many devices were collected?")
    assert result.outcome == "grounded_answer", result.answer
    assert "collecter 58 000 appareils usagés" in result.answer
    assert "2 140 collaborateurs" not in result.answer, result.answer


@pytest.mark.parametrize(
    ("messages", "answer", "filler"),
    [
        # The refund rule, then the annual prices and « Sur le plan environnemental ».
        (
            ("What happens if I cancel my annual plan?",),
            "annual plans cancelled after 14 days are not refunded",
            ("$290 per year", "Sur le plan environnemental"),
        ),
        # The lost-device rule, then "The XPS 13 is for professionals who travel often".
        (
            (
                "What are the rules for remote work?",
                "Can I work from a café?",
                "and what if I lose my laptop while travelling?",
            ),
            "must report the loss to the IT service desk within 1 hour",
            ("XPS 13", "Zenbook"),
        ),
    ],
)
def test_what_if_i_do_something_is_answered_by_what_says_that_action(
    hybrid_chat, messages, answer, filler
):
    *_, result = converse(hybrid_chat, *messages)
    assert result.outcome == "grounded_answer", result.answer
    assert answer in result.answer
    assert not any(words in result.answer for words in filler), result.answer


def test_a_translated_word_is_read_as_the_sources_language_writes_it(hybrid_chat):
    # « environnemental » holds « environnement » (stemmed apart): the sentence after it,
    # which names only Brightwell, is no answer.
    result = ask(hybrid_chat, "What does Brightwell do for the environment?")
    assert result.outcome == "grounded_answer", result.answer
    assert "80 % d'électricité renouvelable" in result.answer
    assert "recruter environ 300 personnes" not in result.answer, result.answer


def test_a_price_is_no_count(hybrid_chat):
    # The plans' yearly prices led "how many customers", before the count of them.
    result = ask(hybrid_chat, "How many business customers are on the Enterprise plan?")
    assert result.outcome == "grounded_answer", result.answer
    assert "dont 310 sur le plan Enterprise" in result.answer
    assert "$8,990 per year" not in result.answer, result.answer


@pytest.mark.parametrize(
    ("messages", "quoted"),
    [
        (("and for yearly?",), "$8,990 per year for Enterprise"),
        # After the monthly plans' refund window: the annual plans' refund rule.
        (
            ("What is the refund window for monthly plans?", "and for yearly?"),
            "Annual support plans cancelled within 14 days",
        ),
    ],
)
def test_yearly_asks_a_rate_not_a_length_in_years(hybrid_chat, messages, quoted):
    # The plans' yearly prices, then the Pixel 8a's and Galaxy S24's "seven years of
    # updates": "yearly" and "years" share the stem "year".
    *_, result = converse(hybrid_chat, *messages)
    assert result.outcome == "grounded_answer", result.answer
    assert quoted in result.answer
    assert "seven years of updates" not in result.answer, result.answer


def test_a_follow_up_carries_the_question_of_a_reference_query_not_its_title(hybrid_chat):
    # « et le résultat net ? » was searched as "Rapport annuel 2024 de Brightwell —
    # Résultats financiers — et le résultat net ?": "how many stores?" carried the title's
    # and the section's words, which kept the highlights' passage (38 stores) out, and
    # was declined as "only a target" (the five stores planned for 2025).
    *_, result = converse(
        hybrid_chat,
        "Quel est le chiffre d'affaires 2024 ?",
        "et le résultat net ?",
        "how many stores?",
    )
    assert result.outcome == "grounded_answer", result.answer
    assert "38 magasins" in result.answer, result.answer
    assert "rapport" not in result.search_query.lower()


def test_a_plan_of_a_document_is_an_outline_of_it(hybrid_chat):
    # « plan » was read as no deliverable: three sentences of three sections, no outline,
    # and « détaille S3 » had nothing to point into.
    plan, detail = converse(hybrid_chat, "Fais-moi un plan du rapport annuel", "détaille S3")
    assert [section["title"] for section in plan.outline][:3] == [
        "Faits marquants",
        "Résultats financiers",
        "Activité commerciale",
    ], plan.outline
    assert detail.outcome == "grounded_answer", detail.answer
    assert {c["section"] for c in detail.citations} == {"Activité commerciale"}


def test_comparing_two_sections_of_the_outline_quotes_both(hybrid_chat):
    # "compare S1 and S3" pointed at S1 alone: the support plans, no incident priority.
    _, result = converse(hybrid_chat, "Summarise the support policy", "compare S1 and S3")
    assert result.outcome == "grounded_answer", result.answer
    assert {c["section"] for c in result.citations} == {"Support plans", "Incident priorities"}
    assert result.answer.index("The Basic plan costs $29") < result.answer.index(
        "A P1 (critical) incident"
    ), result.answer


@pytest.mark.parametrize(
    ("messages", "said"),
    [
        (
            ("Tell me about the MacBook Air", "how long is the warranty?"),
            "Apple MacBook Air 13 (M3) (Apple laptop): price: $1,099; warranty: 1 year.",
        ),
        (
            (
                "Which laptop has the longest battery?",
                "how much does it weigh?",
                "and for that one, what's the warranty?",
            ),
            "Apple MacBook Air 13 (M3) (Apple laptop): price: $1,099; warranty: 1 year.",
        ),
        (
            ("How much RAM does the Galaxy S24 have?", "how long is the warranty?"),
            "Samsung Galaxy S24 (Samsung phone): price: $799; warranty: 2 years.",
        ),
    ],
)
def test_a_spec_asked_of_no_product_after_one_is_that_products(hybrid_chat, messages, said):
    # "how long is the warranty?" was routed as a question of its own and asked back which
    # warranty; so was "and for that one, what's the warranty?": "that one" is the product
    # discussed, as "it" is.
    result = converse(hybrid_chat, *messages)[-1]
    assert result.outcome == "tool_answer", result.answer
    assert said in result.answer, result.answer


@pytest.mark.parametrize(
    ("messages", "said"),
    [
        (
            (
                "What's the warranty on the Pixel 8a?",
                "and for the iPhone 15?",
                "which one is cheaper?",
                "can I return it if I opened it?",
            ),
            "Opened devices returned within 30 days are refunded in full unless they are damaged",
        ),
        (
            (
                "We lost a company laptop on the train",
                "who do we tell?",
                "how fast?",
                "and what if customer data was on it?",
            ),
            "the Brightwell data protection officer decides within 48 hours",
        ),
    ],
)
def test_a_rule_for_every_product_answers_of_it_after_products(hybrid_chat, messages, said):
    # "it" limited the passages to the products' pages (two phones; the laptops "how
    # fast?" quoted), which say nothing of returns or customer data: declined, where the
    # returns rules and the incident rules speak of every device alike.
    result = converse(hybrid_chat, *messages)[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert said in result.answer, result.answer


def test_a_names_words_joined_are_no_translation(hybrid_chat):
    # "macbookair" (the question's words joined) read by a shared start held "MacBook" in
    # the report's French best-seller sentence, which then led alone.
    result = ask(hybrid_chat, "Tell me about the MacBook Air")
    assert result.answer.startswith("The Apple MacBook Air 13 (M3) is a fanless"), result.answer


@pytest.mark.parametrize(
    ("messages", "said"),
    [
        (("what's the lightest phone?",), "The catalog gives no weight for phones."),
        (("what's the lightest phone?", "and the heaviest?"), "The catalog gives no weight"),
        (("which phone weighs the least?",), "The catalog gives no weight for phones."),
        (("quel est le téléphone le plus léger ?",), "ne donne pas de poids pour les téléphones"),
    ],
)
def test_a_ranking_on_a_spec_no_product_of_the_kind_states_says_so(hybrid_chat, messages, said):
    # The phones' weights are nowhere: the lightest phone quoted the report's catalog
    # sentence, "which phone weighs the least?" listed every phone by price.
    result = converse(hybrid_chat, *messages)[-1]
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert said in result.answer and result.citations == []


@pytest.mark.parametrize(
    ("messages", "said"),
    [
        (
            ("compare the pixel 8 and the iphone 15",),
            'The catalog has no "pixel 8". The closest products are: Google Pixel 8a; '
            "Google Pixel 8 Pro.",
        ),
        (
            ("what is the battery of the iphone 15?", "is that more than the pixel 8?"),
            'The catalog has no "Pixel 8". The closest products are: Google Pixel 8a; '
            "Google Pixel 8 Pro.",
        ),
        (
            ("how much is the pixel 8?",),
            'The catalog has no "Pixel 8". The closest products are: Google Pixel 8a; '
            "Google Pixel 8 Pro.",
        ),
    ],
)
def test_a_name_only_starting_other_products_names_names_none_of_them(hybrid_chat, messages, said):
    # "Pixel 8" is the start of the "Pixel 8 Pro", no product of its own: the comparison
    # and the battery were the Pixel 8 Pro's. Round 20: a decline naming it names the
    # catalog's closest products, as the comparison does (was "The documents say nothing
    # about "Pixel 8"." and the closest documents).
    result = converse(hybrid_chat, *messages)[-1]
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert result.answer.startswith(said), result.answer
    assert result.citations == []


@pytest.mark.parametrize(
    ("question", "said", "listed"),
    [
        ("how many phones does brightwell sell?", "The catalog lists 9 phones.", "Nokia G42 5G"),
        ("how many samsung phones do you sell?", "The catalog lists 2 Samsung phones.", "S24"),
        ("combien de téléphones vendez-vous ?", "Le catalogue compte 9 téléphones.", "OnePlus"),
    ],
)
def test_how_many_of_a_kind_are_on_offer_is_the_catalogs_count(hybrid_chat, question, said, listed):
    # Two phones' spec sentences and the Enterprise plan's were quoted: the catalog's
    # products of the kind are the count, not the report's sales figures.
    result = converse(hybrid_chat, question)[-1]
    assert result.outcome == "tool_answer", result.answer
    assert result.answer.startswith(said), result.answer
    assert listed in result.answer


def test_a_misspelt_word_is_read_back_as_the_word_not_its_stem(hybrid_chat):
    # "warrenty" was corrected to the index's term "warranti", and the question back
    # quoted « the warranti »: the word it stems from is "warranty".
    result = converse(hybrid_chat, "how long is the warrenty on laptops?")[-1]
    assert '"the warranty"' in result.answer, result.answer
    assert "warranti" not in result.answer.replace("warranty", "")


def test_a_share_asked_of_a_whole_is_a_percentage_of_that_whole(hybrid_chat):
    # "The Business plan SLA guarantees 99.9% monthly uptime" was quoted: a share of the
    # uptime, read for a share of the customers by the plan's name. The report counts
    # 4,870 business clients and states no share of them.
    result = converse(hybrid_chat, "what percentage of customers are businesses?")[-1]
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert "99.9%" not in result.answer and result.citations == []


# Round 19: a new user's first questions are about threadline and its documents.
TITLES = (
    "Brightwell product catalog 2024",
    "Brightwell security handbook",
    "Rapport annuel 2024 de Brightwell",
    "Brightwell support policy",
)


@pytest.mark.parametrize(
    ("question", "says"),
    [
        ("what can you help me with?", "I answer your questions only from your team's documents"),
        ("What documents do you have?", "The documents I can search for you:"),
        ("which documents can you search?", "The documents I can search for you:"),
        ("what topics do you cover?", "The documents I can search for you:"),
        ("tu sais faire quoi ?", "Je réponds à vos questions uniquement"),
        ("quels documents as-tu ?", "Les documents que je peux consulter pour vous :"),
    ],
)
def test_a_question_about_the_assistant_names_its_documents_and_cites_none(
    hybrid_chat, question, says
):
    # "what can you help me with?" quoted a consumer warranty sentence, cited; "What
    # documents do you have?" was declined: the answer is threadline's own, not a passage.
    result = ask(hybrid_chat, question)
    assert result.outcome == "reply" and result.route == "reply", result.answer
    assert result.citations == [] and result.llm_calls == 0
    assert says in result.answer
    assert all(f"- {title}" in result.answer for title in TITLES), result.answer
    assert not any(step["node"] == "retrieve" for step in result.trace)


# Round 20: multi-turn follow-ups asking only a circumstance of what was just said.


@pytest.mark.parametrize(
    "opening",
    [
        ("what should I do if I lose my laptop?",),
        ("We lost a company laptop on the train", "who do we tell?"),
    ],
)
def test_how_fast_after_a_rule_asks_that_rules_time(hybrid_chat, opening):
    # "how fast? (lose laptop)" ranked the catalog's laptops above the handbook's rule and
    # quoted three laptops' descriptions: a follow-up asking only how long, when, how
    # often or why asks of the passage just quoted, whose sources now rank first.
    result = converse(hybrid_chat, *opening, "how fast?")[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert "within 1 hour" in result.answer
    assert "laptop has a" not in result.answer
    assert result.citations[0]["section"] == "Device encryption"


def test_why_is_declined_when_no_sentence_gives_a_reason(hybrid_chat):
    # The handbook states the password rules and no reason for them: "why?" quoted the
    # Restricted-information sentence ("... passwords and security keys ... must only be
    # stored in approved encrypted systems"), which gives none either.
    result = converse(hybrid_chat, "What are the password rules?", "why?")[-1]
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert result.citations == [], result.answer


@pytest.mark.parametrize(
    ("messages", "quoted"),
    [
        # A reason in the sentence itself ("so that", « grâce à ») ...
        (("what should I do if I lose my laptop?", "why?"), "so that the device can be wiped"),
        (("What was the gross margin in 2024?", "why?"), "grâce à la part croissante"),
        # ... or in the next one, which explains the one before (« Cette baisse s'explique »).
        (
            ("How much did CO2 emissions fall in 2024?", "pourquoi ?"),
            "Cette baisse s'explique principalement",
        ),
    ],
)
def test_why_quotes_the_sentence_giving_the_reason(hybrid_chat, messages, quoted):
    result = converse(hybrid_chat, *messages)[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert quoted in result.answer


@pytest.mark.parametrize(
    "messages",
    [("what's the outlook?",), ("what are the risks mentioned?", "and the outlook?")],
)
def test_the_outlook_without_a_year_is_the_reports_perspectives(hybrid_chat, messages):
    # Declined ('nothing about "outlook"'): the lexicon's « perspective = outlook prospect
    # perspective » read the English side as one phrase of three words, so "outlook"
    # alone was not searched as « perspective » (only "the outlook for 2025" found it,
    # by its year).
    result = converse(hybrid_chat, *messages)[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert result.citations[0]["section"] == "Perspectives 2025"


def test_a_compound_asked_for_is_what_a_sentence_must_state(hybrid_chat):
    # "Explain the incident priorities" was asked back « Which one do you mean by "the
    # incident"? » among the plans, as if a response time were asked: "the incident
    # priorities" asks for priorities, which the response times are not.
    result = ask(hybrid_chat, "Explain the incident priorities")
    assert result.outcome == "grounded_answer", result.answer
    assert result.citations[0]["section"] == "Incident priorities"
    assert "A P1 (critical) incident is" in result.answer
    # A time per plan and priority is still several values to choose from.
    result = ask(hybrid_chat, "What are the response times?")
    assert result.outcome == "clarify" and result.stop_reason == "ambiguous", result.answer


@pytest.mark.parametrize(
    "messages",
    [
        ("Explain the incident priorities", "which one is a broken remote wipe?"),
        ("what priority is a broken remote wipe?",),
    ],
)
def test_the_member_of_the_kind_asked_is_the_sentence_under_its_heading(hybrid_chat, messages):
    # Both quoted "Brightwell support classifies every incident into one of four
    # priorities.": "which one" is no noun a sentence must write, and under "Incident
    # priorities" the P2 definition is a priority without the word.
    result = converse(hybrid_chat, *messages)[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert first_sentence(result.answer).startswith("A P2 (high) incident is"), result.answer


def test_a_plan_named_alone_keeps_the_other_plans_sentences_out(hybrid_chat):
    # "Business" with no noun of its own is the passages' "Business plan": the answer
    # ran on into "On the Basic plan, P1 incidents get a first response ...".
    result = converse(
        hybrid_chat, "what is a P2 incident?", "how fast will Business respond to it?"
    )[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert "On the Business plan, P2 incidents get a first response" in result.answer
    assert "Basic plan" not in result.answer and "Enterprise plan" not in result.answer


def test_a_comparison_quotes_each_thing_compared(hybrid_chat):
    # The quote stopped at its word limit after the Basic and Business prices and left
    # the Enterprise plan out.
    result = ask(hybrid_chat, "Compare the three support plans")
    assert result.outcome == "grounded_answer", result.answer
    for plan in ("Basic", "Business", "Enterprise"):
        assert f"The {plan} plan costs $" in result.answer, result.answer


def test_how_do_i_asks_about_the_action_as_can_i_does(hybrid_chat):
    # "How do I contact support on the Business plan?" (and "and on Business?" after
    # the Basic plan's) quoted the plans' overview, the Business price and the annual
    # prices: the way to contact support is in the passage saying something of contacting.
    result = converse(
        hybrid_chat, "How do I contact support on the Basic plan?", "and on Business?"
    )[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert result.citations[0]["section"] == "Support hours and channels"
    assert first_sentence(result.answer).startswith("Business plan customers can also use")
    assert "$" not in result.answer


def test_an_acronyms_plural_names_the_acronym(hybrid_chat):
    # "Compare the SLAs of the plans" was declined: 'The documents say nothing about
    # "SLAs"', the plural read as a name no passage writes.
    result = ask(hybrid_chat, "Compare the SLAs of the plans")
    assert result.outcome == "grounded_answer", result.answer
    assert "The Enterprise plan SLA guarantees 99.95%" in result.answer


# Round 20: the lead's probes.
def test_one_ending_a_follow_up_is_the_thing_just_discussed(hybrid_chat):
    # "what if I fail one?" was searched on its own and led with the incident priorities
    # ("one of four priorities", "failed device enrolment"): "one" with no noun after it
    # stands for the phishing exercise the conversation is about.
    result = converse(
        hybrid_chat, "How often are phishing simulations run?", "what if I fail one?"
    )[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert "phishing exercise" in result.answer and "priorit" not in result.answer


@pytest.mark.parametrize(
    ("declined", "then", "kind"),
    [
        (
            "I need a laptop for video editing, what do you recommend?",
            "how much RAM does it have?",
            "laptop",
        ),
    ],
)
def test_it_after_a_declined_turn_asks_which_thing(hybrid_chat, declined, then, kind):
    # "how much RAM does it have?" after a declined recommendation quoted a laptop's, a
    # phone's and another phone's RAM: the declined turn settled on no laptop, so "it"
    # is none of those found in particular. The question back names laptops only, the
    # kind the conversation carried.
    first, result = converse(hybrid_chat, declined, then)
    assert first.stop_reason == "not_in_documents"
    assert result.outcome == "clarify" and result.stop_reason == "ambiguous", result.answer
    assert result.citations == []
    options = [option["label"] for option in (result.clarify or {}).get("options", [])]
    assert len(options) >= 2, result.answer
    laptops = {"HP Pavilion 15", "Dell XPS 13 (9340)", "Acer Aspire 5 (A515-58)",
               "Lenovo IdeaPad Slim 5 14", "ASUS Zenbook 14 OLED (UX3405)",
               "Apple MacBook Air 13 (M3)", "Lenovo ThinkPad X1 Carbon Gen 12"}  # fmt: skip
    assert all(option in laptops for option in options), options


@pytest.mark.parametrize(
    ("messages", "quoted"),
    [
        # "Enterprise SLA" was a name to find whole; the policy writes "The Enterprise plan
        # SLA": a name before an acronym qualifies the noun the acronym shortens.
        (
            ("What's the Enterprise SLA in minutes of downtime?",),
            "about 22 minutes of unplanned downtime",
        ),
        # "99.7%" was a name no passage holds: a measure the question supposes ("if
        # uptime was 99.7%") is the user's case, measured against the SLA's own.
        (
            ("What does a service credit look like if uptime was 99.7% on Business?",),
            "service credit of 10% of the monthly fee",
        ),
        # "when does it apply?" asked for a date ("no date that answers") and for the
        # word "apply": a rule's applying is its condition, which it states in its words.
        (("What is the restocking fee?", "when does it apply?"), "unless they are damaged"),
        (("Quels sont les frais de restockage ?", "quand s'appliquent-ils ?"), "damaged"),
    ],
)
def test_the_question_is_read_as_the_policy_answers_it(hybrid_chat, messages, quoted):
    result = converse(hybrid_chat, *messages)[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert quoted in result.answer


def test_the_users_own_case_is_no_part_to_cover(hybrid_chat):
    # "I bought it 3 weeks ago." was a part of the question no passage covered: the
    # answer ended "The documents do not cover: I bought it 3 weeks ago."
    result = ask(
        hybrid_chat, "Can I get a refund on my annual Business plan? I bought it 3 weeks ago."
    )
    assert result.outcome == "grounded_answer" and result.stop_reason == "completed", result.answer
    assert "prorated refund" in result.answer and "do not cover" not in result.answer


def test_what_the_company_sells_is_found_by_the_verbs_past(hybrid_chat):
    # "What does Brightwell sell?" was declined: no passage retrieved writes "sell", and
    # the catalog writes "sold by Brightwell for $449".
    result = ask(hybrid_chat, "What does Brightwell sell?")
    assert result.outcome == "grounded_answer", result.answer
    assert "sold by Brightwell" in result.answer
    assert {c["title"] for c in result.citations} == {"Brightwell product catalog 2024"}


@pytest.mark.parametrize(
    ("messages", "said", "siblings"),
    [
        (
            ("what is a P2 incident?", "how fast will Business respond to that?"),
            "On the Business plan, P2 incidents get a first response within 4 business hours.",
            ("P1 incidents", "P3 incidents"),
        ),
        (
            ("what counts as a P1?", "how fast does Basic respond to one?"),
            "On the Basic plan, P1 incidents get a first response within 4 business hours.",
            ("P2 incidents", "P3 incidents"),
        ),
    ],
)
def test_a_pronoun_ending_a_message_is_the_priority_said_before(
    hybrid_chat, messages, said, siblings
):
    # "that" and "one" ending a message stand for what was said before (the message was
    # searched alone), and the priority the search carried for them has siblings as a
    # priority typed would: the answer quoted every priority of the plan.
    result = converse(hybrid_chat, *messages)[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert said in result.answer
    for sibling in siblings:
        assert sibling not in result.answer, result.answer


def test_a_name_before_a_noun_the_passages_write_after_another_is_the_passages_name(
    hybrid_chat,
):
    # "Basic customers" are the passages' "Basic plan customers": the answer went on into
    # the Business and Enterprise channels, "Basic customers" read as a name of its own.
    result = ask(hybrid_chat, "Can Basic customers call support?")
    assert result.outcome == "grounded_answer", result.answer
    assert first_sentence(result.answer).startswith("Basic plan customers can contact")
    assert "Business plan customers can also use" not in result.answer, result.answer
    assert "Enterprise plan customers have" not in result.answer, result.answer


def test_a_problem_fixed_is_a_problem_resolved(hybrid_chat):
    # The policy writes "not resolved": "isn't fixed" was declined after the escalation
    # answer ("The documents do not answer this question.").
    result = converse(
        hybrid_chat, "how do I escalate a ticket?", "what if it's a P1 that isn't fixed?"
    )[-1]
    assert result.outcome == "grounded_answer", result.answer
    assert first_sentence(result.answer).startswith("If a P1 or P2 incident is not resolved")


def test_the_thing_named_chooses_the_sentence_under_a_heading_on_what_is_asked(hybrid_chat):
    # Round 21: "Is SMS OK for two-factor?" quoted "Brightwell requires multi-factor
    # authentication (MFA) on all company accounts" alone: only it writes "factor". The
    # heading "Passwords and multi-factor authentication" heads the SMS sentence too, and
    # that sentence names the thing asked of.
    result = ask(hybrid_chat, "Is SMS OK for two-factor?")
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.startswith("Brightwell employees must use the authenticator app")
    assert "SMS codes are allowed only as a temporary fallback for 7 days" in result.answer


def test_it_after_a_which_question_is_the_thing_the_answer_picked(hybrid_chat):
    # Round 21: "how much is it per year?" after "Which support plan includes a Slack
    # channel?" was searched and checked as the Slack channel's price ("nothing about
    # Slack"): "it" is the plan the answer picked, "Enterprise plan customers have ...".
    first, then = converse(
        hybrid_chat, "Which support plan includes a Slack channel?", "how much is it per year?"
    )
    assert first.answer.startswith("Enterprise plan customers have"), first.answer
    assert then.outcome == "grounded_answer", then.answer
    assert "$8,990 per year for Enterprise" in then.answer


def test_how_that_compares_with_a_year_is_the_figures_of_that_year(hybrid_chat):
    # Round 21: "how does that compare with 2023?" after S4 of the annual report was
    # declined: "compare" was read as a word the passage must write, while the report
    # states the comparison with the figures (« 91 %, contre 88 % en 2023 »).
    *_, result = converse(
        hybrid_chat,
        "Give me an overview of the annual report",
        "tell me more about S4",
        "how does that compare with 2023?",
    )
    assert result.outcome == "grounded_answer", result.answer
    assert result.citations[0]["section"] == "Service client"
    assert "contre 88 % en 2023" in result.answer


@pytest.mark.parametrize(
    ("messages", "quoted"),
    [
        (
            ("Does the Business plan cover 50 devices?",),
            "The Business plan costs $149 per month and covers up to 100 devices",
        ),
        (
            ("Does the Enterprise plan cover 500 devices?",),
            "covers an unlimited number of devices",
        ),
        (
            (
                "Which support plan includes a Slack channel?",
                "how much is it per year?",
                "and does it cover 500 devices?",
            ),
            "covers an unlimited number of devices",
        ),
    ],
)
def test_a_count_asked_is_measured_against_the_limit_stated(hybrid_chat, messages, quoted):
    # Round 21: "500 devices" was a name the passages had to write (declined: 'nothing
    # about "500"'), and "50 devices" was found in "up to 50% of the monthly fee" (the
    # SLA credits quoted, a confident wrong): a count of things a passage limits ("up to
    # 100 devices", "an unlimited number of devices") is measured against that limit.
    *_, result = converse(hybrid_chat, *messages)
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.startswith(quoted) or quoted in result.answer.split(". ")[0]
    assert "service credit" not in result.answer


def test_the_same_question_in_another_place_is_declined_when_no_passage_asks_it(hybrid_chat):
    # "and in the office?" asks printing confidential documents in the office, which the
    # handbook does not speak of: the incident section's data protection "officer" (and
    # its "confidentiality") was quoted for it, 48 hours to notify regulators.
    result = converse(
        hybrid_chat,
        "Can I print confidential documents at home?",
        "who approves it?",
        "and in the office?",
    )[-1]
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert "48 hours" not in result.answer and result.citations == []


def test_what_is_included_after_a_plans_price_is_what_the_plan_covers(hybrid_chat):
    # "what's included?" asks what the Business plan includes, which its sentence says it
    # "covers": the data classification's "Public information at Brightwell includes
    # published prices" was quoted for it, and "and Enterprise?" was declined.
    included, enterprise = converse(
        hybrid_chat,
        "How much does the Business plan cost?",
        "and per year?",
        "what's included?",
        "and Enterprise?",
    )[-2:]
    assert "Public information" not in included.answer
    assert "covers up to 100 devices with email, web, chat and phone support" in included.answer
    assert enterprise.outcome == "grounded_answer", enterprise.answer
    assert "named technical account manager" in enterprise.answer


def test_a_passive_naming_nothing_is_asked_of_the_subject_discussed(hybrid_chat):
    # "what's excluded?" asks what the refund policy excludes, which it does not say: the
    # support hours' "excluding US public holidays" was quoted for it.
    result = converse(hybrid_chat, "What's the refund policy?", "what's excluded?")[-1]
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert "public holidays" not in result.answer and result.citations == []


def test_a_correction_of_the_cheapest_one_points_at_one_product(hybrid_chat):
    # "no, I meant the most expensive" stands in for "the cheapest one" it corrects: the
    # most expensive one, not the nine phones ranked by price.
    result = converse(
        hybrid_chat,
        "What phones do you sell?",
        "the cheapest one",
        "no, I meant the most expensive",
    )[-1]
    assert result.outcome == "tool_answer", result.answer
    assert [c["title"] for c in result.citations] == ["Google Pixel 8 Pro"]


@pytest.mark.parametrize("comparison", ["compare them", "compare-les"])
def test_compare_them_after_a_summary_asks_which_parts(hybrid_chat, comparison):
    # The summary has six sections: which to compare is the user's to say. "compare
    # them" was searched for "compare" and declined.
    summary, result = converse(hybrid_chat, "Summarise the security handbook", comparison)
    assert len(summary.outline) > 2
    assert result.outcome == "clarify" and result.stop_reason == "ambiguous_reference"
    assert "S1: Passwords and multi-factor authentication" in result.answer
    assert result.clarify and len(result.clarify["options"]) == len(summary.outline)


# Round 22: the company. Every passage names Brightwell: the name chooses none of them.


@pytest.mark.parametrize(
    "question",
    [
        # Quoted a security incident's definition and the 2025 outlook.
        "What is Brightwell?",
        # Quoted the staff's training hours, a warranty sentence and the Pixel 8a's specs.
        "What kind of products does Brightwell offer?",
        # Quoted the security incident rules and the phishing button.
        "What does Brightwell do?",
    ],
)
def test_what_a_name_every_passage_holds_is_said_with_it_as_subject_or_declined(
    hybrid_chat, question
):
    # No packed sentence has Brightwell as the subject of "is", "offers", "sells"...:
    # declined, not the sentences that merely hold the name.
    result = ask(hybrid_chat, question)
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents", result.answer
    assert result.citations == []


def test_what_a_name_sells_is_what_is_sold_by_it(hybrid_chat):
    # "sold by Brightwell": the name as the agent of the passive is what it sells.
    result = ask(hybrid_chat, "What does Brightwell sell?")
    assert result.outcome == "grounded_answer", result.answer
    assert "sold by Brightwell for $799" in result.answer
