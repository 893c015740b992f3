"""The answer stage's pure checks: anchoring, evidence, support, defused document markers."""

from __future__ import annotations

import pytest

from threadline.graph.anchors import unanchored_references
from threadline.graph.answering import guard_verdict
from threadline.graph.evidence import Evidence, decide, unanchored_reference
from threadline.graph.grounding import neutralize_markers, support_check
from threadline.graph.question_terms import asked_phrase_terms
from threadline.text import terms


def test_this_x_with_nothing_named_before_is_unanchored():
    assert unanchored_reference("Does this animal have antlers?", []).startswith("this animal")
    assert unanchored_reference("Is it free?", []) is not None
    # The same words are anchored once the conversation named the thing.
    assert (
        unanchored_reference("Does this animal have antlers?", ["Tell me about the animal"]) is None
    )
    assert unanchored_reference("How much does the Galaxy S24 cost?", []) is None


def test_what_is_asked_of_a_pronoun_is_not_what_it_stands_for():
    # A first message: "RAM" is what "it" has, not what "it" is (round 12).
    assert unanchored_reference("How much RAM does it have?", []) == "it"
    assert unanchored_reference("what processor does it have", []) == "it"
    # An impersonal "it", or a name after the pronoun, or a conversation under way.
    assert unanchored_reference("how many days does it take to get a refund?", []) is None
    assert unanchored_reference("How much RAM does it have, the Pixel 8a?", []) is None
    assert unanchored_reference("How much RAM does it have?", ["About the Pixel 8a"]) is None


def test_a_name_elsewhere_does_not_anchor_the_x():
    # "California" says where, not which animal.
    question = "Is there a daily limit to hunt the animal in California?"
    assert unanchored_reference(question, ["How do seasons affect public health?"]) == "the animal"
    # A name the phrase itself holds anchors it.
    assert unanchored_reference("What does the word Kubernetes mean?", ["hello"]) is None
    assert unanchored_reference("Which scientists care about it in the US?", ["hello"]) is None
    # So does a document titled with the noun.
    assert unanchored_reference(question, [], titles=["Animal hunting rules"]) is None


def test_support_check_drops_or_uncites_an_unsupported_sentence():
    chunks = {
        "1": {"title": "Plans", "section": "", "text": "The Basic plan costs $29 per month."},
    }
    body = "The Basic plan costs $29 per month. [1] Dragons guard the enterprise vault. [1]"
    dropped = support_check(body, chunks, "drop")
    assert dropped.text == "The Basic plan costs $29 per month. [1]"
    assert dropped.dropped == ["Dragons guard the enterprise vault. [1]"]
    uncited = support_check(body, chunks, "uncite")
    assert uncited.text.endswith("Dragons guard the enterprise vault.")
    assert uncited.text.count("[1]") == 1


def test_markers_inside_documents_are_defused():
    text = "As shown in [7], see [S2].\nSUIVI\n[S1] Not an outline"
    defused = neutralize_markers(text)
    assert "[7]" not in defused and "[S2]" not in defused and "[S1]" not in defused
    assert "\nSUIVI\n" not in defused


def test_evidence_check_is_a_pure_function():
    chunks = [
        {"label": "1", "title": "Plans", "section": "Basic", "text": "The Basic plan costs $29."},
    ]
    assert decide("How much is the Basic plan?", chunks).verdict == "answer"
    assert decide("How much is the Premium plan?", chunks).verdict == "not_in_documents"
    assert decide("When was the Basic plan launched?", chunks).reason == "no_date_in_passages"


def test_a_pay_question_needs_an_amount_of_money():
    from threadline.knowledge.facts import asked_type, has_answer_type

    assert asked_type("How much do people make at the Auburn Police Department?") == "pay"
    assert asked_type("What is the salary of a park ranger?") == "pay"
    assert asked_type("How much does the Galaxy S24 cost?") == "price"
    # "fees" is a price word, not an amount someone is paid.
    assert not has_answer_type("pay", "Officers pay no fees for the training.")
    assert has_answer_type("pay", "The starting salary is $52,000 per year.")
    assert has_answer_type("pay", "Rangers earn 30 dollars an hour.")


def test_a_name_of_several_words_must_be_found_whole():
    from threadline.graph.question_terms import name_phrases

    assert name_phrases("What is Placer County famous for?") == ["Placer County"]
    # Codes stand alone, a comma ends a name, and title case marks no name.
    assert name_phrases("How much does the Galaxy S25 cost?") == []
    assert name_phrases("the difference among Fixed, Metered, Tiered, and Reserved?") == []
    assert name_phrases("Container Registry Grant Access") == []
    scattered = [
        {
            "label": "1",
            "title": "Arizona",
            "section": "",
            "text": "Lake Havasu City, in Mohave County, is famous for its London Bridge.",
        },
        {"label": "2", "title": "Gold rush", "section": "", "text": "Placer mining drew miners."},
    ]
    declined = decide("What is Placer County famous for?", scattered)
    assert declined.verdict == "not_in_documents"
    assert declined.missing_named == ("Placer County",)
    whole = [
        *scattered,
        {
            "label": "3",
            "title": "California",
            "section": "",
            "text": ("Placer County is famous for its Gold Country towns."),
        },
    ]
    assert decide("What is Placer County famous for?", whole).verdict == "answer"


def test_when_asks_for_a_date_only_as_the_question_word():
    from threadline.knowledge.facts import asked_type

    assert asked_type("When did the war end?") == "date"
    assert asked_type("Quand a eu lieu la bataille ?") == "date"
    # A condition, not a question about a date.
    assert asked_type("When applying for a mortgage, can it cover debts?") is None
    assert asked_type("What happens when I exceed the limit?") is None
    assert asked_type("Quand je dépasse la limite, que se passe-t-il ?") is None


def test_how_does_x_work_asks_how_with_no_content_word_work():
    from threadline.graph.question_terms import content_terms

    # "How do returns work?" was declined: "work" is in no passage on returns.
    assert content_terms("How do returns work?") == ["return"]
    assert content_terms("Comment fonctionne la garantie ?") == ["garanti"]
    # Work as a content word stays one.
    assert "work" in content_terms("Where do you work?")


def test_the_titles_of_an_answer_are_read_in_the_order_it_quotes_them():
    from threadline.graph.answering import in_order_quoted

    titles = ["Policy — Incident priorities", "Handbook — Security incident reporting"]
    answer = "A security incident is any event... [2] Report it at once. [2] A P1... [1]"
    assert in_order_quoted(titles, answer) == list(reversed(titles))
    # Markers that do not match the titles one for one: as stored.
    assert in_order_quoted(titles, "No markers.") == titles


def test_a_determiner_opening_a_sentence_is_no_persons_first_name():
    from threadline.knowledge.facts import has_answer_type

    # "Who is Brightwell's data protection officer?" quoted "The Brightwell security
    # team acknowledges...": "The Brightwell" read as a person's name.
    assert not has_answer_type("person", "The Brightwell security team acknowledges it.")
    assert has_answer_type("person", "The team is led by Marie Dupont.")


def test_whom_to_reach_asks_for_a_role_not_a_persons_name():
    from threadline.knowledge.facts import asked_type

    # "Escalation starts with the duty support manager": a role, written lower-case.
    assert asked_type("who should I contact?") is None
    assert asked_type("qui contacter ?") is None
    assert asked_type("À qui dois-je m'adresser ?") is None
    # Who one particular holder is: a name.
    assert asked_type("Who is the CEO of Brightwell?") == "person"
    assert asked_type("Qui a fondé Brightwell ?") == "person"


def test_a_question_is_checked_on_a_passage_in_another_language():
    chunks = [
        {
            "label": "1",
            "title": "Brightwell product catalog 2024",
            "section": "Google Pixel 8a",
            "text": "Brightwell covers the Pixel 8a with a 2-year warranty.",
        },
    ]
    question = "Quelle est la garantie du Pixel 8a ?"
    # Read as written, "garantie" is in no passage: the check cannot see the warranty.
    assert decide(question, chunks).verdict != "answer"
    assert decide(question, chunks, language="fr").verdict == "answer"
    # A passage in the question's own language is not translated.
    assert decide("What is the garantie?", chunks, language="en").verdict != "answer"


def test_a_noun_and_its_complement_are_held_in_another_language_only_together():
    # « le prix de l'action » is the stock price: the handbook's "published prices" and
    # its verb "share" (« action ») in another sentence were read as one.
    handbook = {
        "label": "1",
        "title": "Brightwell security handbook",
        "section": "Data classification",
        "text": "Public information at Brightwell includes published prices. Confidential "
        "information must only be shared with people who need it.",
    }
    question = "le prix de l'action brightwell ?"
    assert decide(question, [handbook], language="fr").verdict != "answer"
    quoted = {**handbook, "section": "Investors", "text": "Brightwell's stock price is $41."}
    assert decide(question, [quoted], language="fr").verdict == "answer"
    # The translation's head alone ("time") is no response time; with its complement, a
    # section named for it holds it though its sentence says "response" alone.
    times = {
        "label": "2",
        "title": "Brightwell support policy",
        "section": "Response times",
        "text": "On the Basic plan, P1 incidents get a first response within 4 business hours.",
    }
    hours = {**times, "section": "Support hours", "text": "Hours are 8:00 to 20:00 Eastern Time."}
    asked = "Quel est le délai de réponse du plan Basic ?"
    assert decide(asked, [times], language="fr").verdict == "answer"
    assert decide(asked, [hours], language="fr").verdict != "answer"


def test_how_much_of_a_whole_asks_a_share_of_it():
    from threadline.knowledge.facts import asked_type

    # A part of a whole, stated as a percentage ("41 % du chiffre d'affaires").
    assert asked_type("how much of the revenue comes from online sales?") == "share"
    assert asked_type("How much of the company does this partner own?") == "share"
    # "how much" alone still asks a price or an amount.
    assert asked_type("how much is the Pixel 8a?") == "price"
    assert asked_type("how much does it cost?") == "price"


def test_french_auxiliaries_are_no_content():
    from threadline.graph.question_terms import content_terms

    assert content_terms("J'ai perdu mon ordinateur, que dois-je faire ?") == [
        "perdu",
        "ordinateur",
    ]


def test_an_acronym_finds_the_name_written_out():
    from threadline.text.matching import acronyms

    text = "The Snake River is the longest river in the United States. See the U.K. rules."
    found = acronyms(text)
    assert {"us", "usa", "uk"} <= found
    # Punctuation ends a name: "States. See" gives no "uss".
    assert "uss" not in found
    chunks = [{"label": "1", "title": "Snake River", "section": "", "text": text}]
    assert decide("Which rivers are long in the USA?", chunks).verdict == "answer"
    assert decide("Which rivers are long in the USSR?", chunks).verdict == "not_in_documents"


def test_an_unnamed_subject_outside_the_conversation_asks_back():
    chunks = [
        {
            "label": "1",
            "title": "Jack in the Box",
            "section": "",
            "text": "Jack in the Box is a fast food chain with 2,200 locations in the West.",
        },
    ]
    question = "How did the fast food chain grow its locations?"
    earlier = ["What is semi-permeability? A property of membranes."]
    # The conversation was about membranes: "the fast food chain" names nothing said.
    moved = decide(question, chunks, earlier=earlier, focus=["Cell membrane"])
    assert moved.verdict == "ambiguous"
    assert moved.candidates == ("Jack in the Box",)
    # Within a conversation about that document, the one candidate is the answer.
    staying = decide(question, chunks, earlier=earlier, focus=["Jack in the Box"])
    assert staying.verdict == "answer"


def test_the_x_with_several_documents_titled_x_asks_which():
    def season(number: int, premiere: str) -> dict[str, object]:
        return {
            "label": str(number),
            "title": f"Grey's Anatomy (season {number})",
            "section": "",
            "text": f"Season {number} of Grey's Anatomy premiered on {premiere} and concluded "
            "in May.",
        }

    chunks = [season(7, "September 23, 2010"), season(10, "September 26, 2013")]
    question = "When was the season of Grey's Anatomy premiered?"
    asked = decide(question, chunks)
    assert asked.verdict == "ambiguous"
    assert asked.reason == "unanchored:the season"
    assert set(asked.candidates) == {"Grey's Anatomy (season 7)", "Grey's Anatomy (season 10)"}
    # One document titled with the noun names it: "the season" is that one.
    assert decide(question, chunks[:1]).verdict == "answer"
    # So does a conversation that already spoke of it.
    earlier = ["Tell me about season 7. It premiered in 2010."]
    assert decide(question, chunks, earlier=earlier).verdict == "answer"


def test_the_x_after_an_answer_naming_several_x_asks_which():
    from threadline.graph.anchors import kinds_named_before

    earlier = [
        "What plans are there? The service offers a no-cost Trial plan, a Standard Next "
        "plan and an Enterprise plan."
    ]
    chunks = [
        {
            "label": "1",
            "title": "Plans",
            "section": "",
            "text": "The Trial plan includes 1 domain. The Enterprise plan includes 10 domains.",
        }
    ]
    question = "How many domains are included in the plan?"
    asked = decide(question, chunks, earlier=earlier)
    assert asked.verdict == "ambiguous"
    assert asked.candidates == ("Trial plan", "Standard Next plan", "Enterprise plan")
    # Naming the plan, or a conversation that spoke of one plan only, is no question.
    assert kinds_named_before("How many domains does the Trial plan include?", earlier)[1] == []
    # French writes the name after the noun: "le plan Enterprise" names its plan too.
    assert kinds_named_before("Combien de domaines inclut le plan Enterprise ?", earlier)[1] == []
    assert kinds_named_before("Combien de domaines inclut le plan ?", earlier)[1] != []
    one = ["Tell me about the Trial plan. The Trial plan lasts 30 days."]
    assert decide(question, chunks, earlier=one).verdict == "answer"


def test_a_name_that_several_titles_extend_asks_which():
    def court(label: str, county: str) -> dict[str, object]:
        return {
            "label": label,
            "title": f"Jury Services | Superior Court of California | County of {county}",
            "section": "",
            "text": f"The contact number of the Superior Court of {county} County is 805-654-2611.",
        }

    chunks = [court("1", "Ventura"), court("2", "Alameda")]
    question = "Could you give me the Superior Court contact number?"
    asked = decide(question, chunks)
    assert asked.verdict == "ambiguous"
    assert asked.reason == "unanchored:Superior Court"
    assert len(asked.candidates) == 2
    # One court in play, or a conversation that already named it: no question.
    assert decide(question, chunks[:1]).verdict == "answer"
    earlier = ["I was summoned by the Superior Court of Ventura County."]
    assert decide(question, chunks, earlier=earlier).verdict == "answer"


def test_a_name_that_several_titles_extend_asks_which_even_when_not_covered():
    # "the Prime Minister's office" with two prime ministers in play: the passages not
    # answering the question is no evidence for the one the user means. Ask which.
    def minister(label: str, country: str) -> dict[str, object]:
        return {
            "label": label,
            "title": f"Prime Minister of {country}",
            "section": "",
            "text": f"The Prime Minister of {country} is the head of government of {country}.",
        }

    chunks = [minister("1", "Canada"), minister("2", "the United Kingdom")]
    question = "What are the key aspects of the power wielded by the Prime Minister's office?"
    asked = decide(question, chunks, earlier=["How is a session key exchanged?"])
    assert asked.verdict == "ambiguous"
    assert asked.reason.startswith("unanchored:Prime Minister:")
    assert asked.candidates == ("Prime Minister of Canada", "Prime Minister of the United Kingdom")
    # One prime minister in play: the documents do not answer, a decline.
    declined = decide(question, chunks[:1], earlier=["How is a session key exchanged?"])
    assert declined.verdict == "not_in_documents"


def test_about_a_specific_x_asks_which():
    from threadline.graph.anchors import unanchored_reference

    question = "Can you tell me about a specific city or town in California?"
    assert unanchored_reference(question, ["hello"]) == "a specific city"
    assert unanchored_reference("Parle-moi d'une ville précise", ["bonjour"]) == "une ville précise"
    # Asking whether one exists points at nothing unsaid.
    assert unanchored_reference("Is there a specific form I need?", ["hello"]) is None
    chunks = [
        {
            "label": "1",
            "title": "Auburn, CA",
            "section": "",
            "text": "The city of Auburn, California, is the county seat of Placer County.",
        }
    ]
    asked = decide(question, chunks, earlier=["hello"])
    assert asked.verdict == "ambiguous"
    assert asked.candidates == ("Auburn, CA",)


def test_a_message_with_no_word_of_its_own_is_checked_on_what_it_carries():
    chunks = [
        {
            "label": "1",
            "title": "",
            "section": "",
            "text": "Convert the file with the alien tool before you install it.",
        }
    ]
    # Nothing of its own to check: the carried query must be supported.
    carried = "there should be one (rpm deb package converter)"
    declined = decide("there should be one", chunks, earlier=["x"], carried=carried)
    assert declined.verdict == "not_in_documents"
    carried = "there should be one (convert file tool)"
    assert decide("there should be one", chunks, earlier=["x"], carried=carried).verdict == (
        "answer"
    )


def test_the_x_said_before_answered_from_other_documents_is_declined():
    from threadline.graph.anchors import said_before

    earlier = ["Tell me about Monaco. The Monte Carlo casino overlooks the harbour."]
    chunks = [
        {
            "label": "1",
            "title": "Las Vegas Strip",
            "section": "",
            "text": "Visitors of the Strip can visit a casino without having to gamble.",
        }
    ]
    question = "Can you just visit the casino, or do you have to gamble?"
    assert said_before(question, earlier) == ["the casino"]
    # The conversation's casino is Monaco's: a passage on Las Vegas speaks of another.
    moved = decide(question, chunks, earlier=earlier, focus=["Monaco"])
    assert (moved.verdict, moved.reason) == ("not_in_documents", "another_thing_than_discussed")
    # From the conversation's own document, it is the same casino.
    staying = decide(question, chunks, earlier=earlier, focus=["Las Vegas Strip"])
    assert staying.verdict == "answer"
    # A complement says which X by itself.
    assert said_before("What are the procedures for a casino licence?", earlier) == []


def test_the_xs_said_before_name_a_kind_that_other_documents_speak_of():
    # "the scammers" of a talk on mortgage scams are scammers at large: a page on other
    # scams speaks of the same kind, where "the casino" of Monaco is one casino.
    earlier = ["Mortgage scams. These scammers may ask people for money upfront."]
    chunks = [
        {
            "label": "1",
            "title": "Common Scams and Schemes",
            "section": "",
            "text": "Scammers often target older people and people who live alone.",
        }
    ]
    question = "What people are targeted by the scammers?"
    answered = decide(question, chunks, earlier=earlier, focus=["Mortgage scams"])
    assert answered.verdict == "answer"
    # The singular still points at one: "the scammer" of that talk is not this page's.
    one = decide(
        "What people are targeted by the scammer?",
        chunks,
        earlier=["Mortgage scams. The scammer asked people for money upfront."],
        focus=["Mortgage scams"],
    )
    assert (one.verdict, one.reason) == ("not_in_documents", "another_thing_than_discussed")


@pytest.mark.parametrize(
    ("question", "anchored"),
    [
        ("What is the battery capacity of the iPhone 15?", True),
        ("What is the response time for a P1 incident?", True),
        ("Quel est le chiffre d'affaires 2024 ?", True),
        # A place or a clause after "the X" says where it is, not which one.
        ("What is the animal in California?", False),
        ("What is the capital when Obama was elected?", False),
    ],
)
def test_a_name_in_the_phrase_of_the_x_anchors_it(question, anchored):
    assert (unanchored_reference(question, []) is None) is anchored


def test_a_heading_anchors_the_x_apart_from_the_titles():
    titles = ["Brightwell support policy", "Brightwell security handbook"]
    headings = ["Support plans", "Support hours and channels", "Passwords and MFA"]
    # One title holds "support": several headings holding it too do not undo that.
    assert unanchored_reference("What are the support hours?", [], titles) is None
    assert not list(unanchored_references("What is the password?", [], titles, headings))
    assert list(unanchored_references("What is the password?", [], titles, ()))


def test_the_kind_word_of_an_asked_phrase_is_not_required():
    assert asked_phrase_terms("What is the battery capacity?") == terms("battery")
    assert asked_phrase_terms("Quelle est la politique de mots de passe ?") == []
    # A French preposition ends the phrase as "in" does: no "cas" to hold.
    question = "Quelle est la politique en cas de perte d'un téléphone professionnel ?"
    assert asked_phrase_terms(question) == []
    assert asked_phrase_terms("Quelle est la règle à suivre ?") == []
    assert set(terms("stock price")) <= set(asked_phrase_terms("What is Brightwell's stock price?"))


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        # Its modifiers say which ones are counted: "vacation days", not any days.
        ("how many vacation days do employees get", "vacation days"),
        ("How many support requests were handled in 2024?", "support requests"),
        ("how many stores does Brightwell have?", "stores"),
        ("and how many were hired?", ""),
    ],
)
def test_a_count_asks_for_every_word_of_what_it_counts(question, asked):
    assert asked_phrase_terms(question) == terms(asked)


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        # Whether a kind of thing is on offer: its head noun, as "is there a X?" (round 12).
        ("does brightwell sell tablets?", "tablets"),
        ("Does Brightwell offer student discounts?", "discounts"),
        # Whether a thing comes with a feature: the feature, modifiers and head ("phone
        # support" is not the "email support" a passage states; round 18).
        ("does the Basic plan include phone support?", "phone support"),
        ("Does the Enterprise plan include on-site support?", "on-site support"),
        # What happens to a thing asks about that thing, whatever the circumstance.
        ("What happens to my data when I return a phone?", "data"),
    ],
)
def test_what_a_subject_sells_or_offers_is_asked_for(question, asked):
    assert asked_phrase_terms(question) == terms(asked)


def test_the_asked_phrase_ends_where_a_participle_or_relative_clause_begins():
    # What the passage must hold is the thing asked for ("people"), not what the question
    # says of it ("targeted by the scammers", "that include support").
    question = "What are the most people targeted by the scammers?"
    assert asked_phrase_terms(question) == terms("people")
    assert asked_phrase_terms("What are the plans that include support?") == terms("plans")
    assert asked_phrase_terms("Who are the people who pay the fee?") == terms("people")
    # An adjective before the noun is still part of what is asked.
    assert asked_phrase_terms("What is the expected return?") == terms("expected return")


def test_a_yes_no_question_needs_its_terms_stated_in_one_sentence():
    from threadline.graph.polar import is_polar

    # Filing, a case and living out of state are each in the passage, never together.
    scattered = [
        {
            "label": "1",
            "title": "Small claims",
            "section": "",
            "text": "You can file online. Each case costs a fee. Many people live out of state.",
        }
    ]
    question = "Can I file a case while living abroad?"
    assert is_polar(question)
    declined = decide(question, scattered)
    assert declined.verdict == "not_in_documents" and declined.reason == "relation_not_stated"
    # One sentence stating them together answers it.
    stated = [{**scattered[0], "text": "You can file a case even if you live abroad."}]
    assert decide(question, stated).verdict == "answer"
    # The same words asked as a request for information, or as a "how", are no yes/no
    # question: a passage holding them answers.
    for request in (
        "Can you tell me about filing a case while living abroad?",
        "How do I file a case while living abroad?",
    ):
        assert not is_polar(request)
        assert decide(request, scattered).verdict == "answer"
    # A remark before the question does not hide it.
    assert is_polar("nice! does it mean I can get this from any store?")


def test_what_is_it_asks_for_no_thing_named_it():
    # "What is it called?": the pronoun is the subject of a verb, not a thing to find.
    assert asked_phrase_terms("What is it called outside of the USA?") == []
    assert asked_phrase_terms("What is the stock price?") == ["stock", "price"]
    assert asked_phrase_terms("What is this animal?") == ["anim"]


def test_differences_and_requirements_are_kinds_of_answer_not_words_to_find():
    # A passage states the differences (two prices) and the requirements (an age)
    # without naming them.
    chunks = [
        {
            "label": "1",
            "title": "Plans",
            "section": "Pricing",
            "text": "The Basic plan costs $29 a month; the Premium plan costs $49.",
        },
        {
            "label": "2",
            "title": "Accounts",
            "section": "Opening an account",
            "text": "You must be 18 years of age to open an account.",
        },
    ]
    assert decide("What are the differences in pricing?", chunks).verdict == "answer"
    assert decide("What are the age requirements to open an account?", chunks).verdict == "answer"


def test_who_of_a_kind_asks_for_no_name() -> None:
    """Generic "who" (a role, a group) asks for no person's name; "who is the X" does."""
    from threadline.knowledge.facts import asked_type

    assert asked_type("who takes photos of planes in the air") is None
    assert asked_type("Who pays the fee?") is None
    assert asked_type("who are audiences?") is None
    assert asked_type("Who is the CEO of Brightwell?") == "person"
    assert asked_type("who wrote Hamlet?") == "person"
    assert asked_type("who are the founders?") == "person"


def test_a_pronoun_after_a_thing_the_message_introduces_refers_to_it():
    """In "my credit card, but it keeps...", "it" is the card, not the previous subject."""
    from threadline.graph.question_terms import chunk_vocabulary
    from threadline.graph.referents import passages_about

    chunks = [
        {"label": "1", "title": "Subscription codes", "text": "Apply a subscription code."},
        {"label": "2", "title": "Credit cards", "text": "Update your credit card details."},
    ]
    vocab = {c["label"]: chunk_vocabulary(c) for c in chunks}
    focus = ["Subscription codes"]
    introduced = "I also tried to update my credit card, but it keeps showing errors"
    assert passages_about(chunks, vocab, [], introduced, focus) == ["1", "2"]
    # With nothing introduced before it, "it" is what the previous answer was about.
    assert passages_about(chunks, vocab, [], "Why does it keep failing?", focus) == ["1"]
    assert passages_about(chunks, vocab, [], "What is the price and is it free?", focus) == ["1"]
    # Only as the subject of a clause joined to the one that introduced the thing.
    assert passages_about(chunks, vocab, [], "Is there a way to reset it?", focus) == ["1"]


def test_a_kind_word_with_its_complement_points_at_nothing_unsaid():
    """A kind word with its complement ("the grounds for an appeal") is about the complement."""
    from threadline.graph.anchors import unanchored_reference
    from threadline.graph.question_terms import (
        asked_phrase_terms,
        content_terms,
        substantive_terms,
    )

    question = "What are the grounds for lodging an appeal?"
    assert unanchored_reference(question, []) is None
    assert asked_phrase_terms(question) == []
    assert "ground" not in substantive_terms(content_terms(question))
    assert unanchored_reference("What are the grounds?", []) == "the grounds"
    assert unanchored_reference("What are the benefits of the plan?", []) == "the plan"


def test_a_name_set_aside_is_not_what_the_question_is_about():
    from threadline.graph.question_terms import name_phrases, named_things

    question = "I'm referring to the continent of America, not the United States of America."
    assert named_things(question) == ["America"]
    assert name_phrases(question) == []
    assert named_things("Is the Galaxy S24 waterproof, rather than the Pixel?") == [
        "Galaxy",
        "S24",
    ]


def test_names_listed_side_by_side_are_each_a_subject():
    """A passage about any of "Fixed, Metered and Tiered" is about the question."""
    from threadline.graph.question_terms import chunk_vocabulary
    from threadline.graph.referents import passages_about

    chunks = [
        {"label": "1", "title": "Charges", "text": "Fixed, Metered and Tiered pricing."},
        {"label": "2", "title": "Metered", "text": "Metered usage is what you consume."},
        {"label": "3", "title": "Fees", "text": "Fees are billed monthly."},
    ]
    vocab = {c["label"]: chunk_vocabulary(c) for c in chunks}
    names = ["Fixed", "Metered", "Tiered"]
    listed = "What is the difference among Fixed, Metered and Tiered?"
    assert passages_about(chunks, vocab, names, listed, []) == ["1", "2"]
    # One name of several words is one thing: all its words are wanted together.
    assert passages_about(chunks, vocab, ["Metered", "Usage"], "Metered Usage?", []) == ["2"]


def test_a_model_may_not_answer_a_follow_up_off_the_conversations_subject():
    # The check found only passages off the subject the conversation keeps naming: the
    # model's "answer" cannot stand, while its own care (a decline) always may.
    off = Evidence("not_in_documents", "off_the_subject")
    assert guard_verdict("answer", off) == "not_in_documents"
    assert guard_verdict("partial", off) == "not_in_documents"
    assert guard_verdict("not_in_documents", off) == "not_in_documents"
    # A soft failure leaves the reading model its verdict.
    assert guard_verdict("answer", Evidence("not_in_documents", "content_not_covered")) == "answer"


def test_a_models_decline_does_not_hide_the_candidates_the_check_found():
    # "What is the warranty?" over five products' warranties: SmolLM2 said
    # not_in_documents; the reply asks which one instead of saying the documents do not
    # answer it. Without candidates the model's care stands.
    which = Evidence("ambiguous", "unanchored:the warranty", candidates=("Pixel 8a", "Nokia G42"))
    assert guard_verdict("not_in_documents", which) == "ambiguous"
    assert guard_verdict("ambiguous", which) == "ambiguous"
    assert guard_verdict("not_in_documents", Evidence("ambiguous", "tied")) == "not_in_documents"


def test_it_before_a_name_is_the_one_thing_discussed():
    # "Does it support 5G?" about the OnePlus 12: the Motorola's page holds "5G" in its
    # name, which does not make it the OnePlus's.
    chunks = [
        {
            "label": "1",
            "title": "Catalog",
            "section": "Motorola Moto G Power 5G (2024)",
            "text": "The Motorola Moto G Power 5G (2024) supports 5G networks.",
        },
        {
            "label": "2",
            "title": "Catalog",
            "section": "OnePlus 12",
            "text": "The OnePlus 12 has a 6.82-inch display and a 5,400 mAh battery.",
        },
    ]
    question = "Does it support 5G?"
    assert decide(question, chunks, earlier=["x"], focus=["OnePlus 12"]).verdict != "answer"
    # Its own page answering, it answers.
    chunks[1]["text"] += " The OnePlus 12 supports 5G networks."
    assert decide(question, chunks, earlier=["x"], focus=["OnePlus 12"]).verdict == "answer"


@pytest.mark.parametrize(
    "question",
    ["Does that apply to Basic customers?", "Is this free?", "Will that work on a Mac?"],
)
def test_a_demonstrative_subject_after_an_auxiliary_is_a_pronoun(question):
    # "that" there is what was just said, not "that <noun>" never named.
    assert list(unanchored_references(question, ["Hello"])) == []


def test_a_demonstrative_before_a_noun_and_its_verb_still_points_at_a_thing():
    assert list(unanchored_references("Does this plan include phones?", ["Hello"])) == [
        "this plan include"
    ]


def test_a_word_pointed_at_is_asked_about_not_the_word_word():
    # "the word Kubernetes", "this term" ask what Kubernetes means: the passage that
    # explains it never says "word" or "term". "which terms", "long term" are no pointer.
    from threadline.graph.question_terms import content_terms

    question = "I keep seeing the word Kubernetes, but I am not understanding this term"
    assert not {"word", "term"} & set(content_terms(question))
    assert "term" in content_terms("How long is long term investing?")
    assert "term" in content_terms("Which terms of the contract apply?")
    # "in terms of" is a compound preposition, whose noun is no word asked about either.
    assert content_terms("Do they differ in terms of percentage?") == ["differ", "percentag"]
    assert "mot" not in content_terms("Que veut dire le mot churn ?")
    chunks = [
        {
            "label": "1",
            "title": "",
            "section": "",
            "text": "Kubernetes is an open source system you keep seeing in container "
            "platforms: it schedules containers across a cluster.",
        }
    ]
    assert decide(question, chunks).verdict == "answer"


def test_this_x_after_x_said_only_in_general_is_unanchored():
    # "this partner" picks one of the three partners; "this credit card" one of the any
    # credit card spoken of ("should I take a credit card?", "having a credit card").
    partners = ["There are three partners in my company and I only put money."]
    assert unanchored_reference("How much of the company does this partner own?", partners) == (
        "this partner"
    )
    cards = [
        "I'm not sure if I should take a credit card. What is your opinion?",
        "There are several advantages to having a credit card. Some credit cards offer rewards.",
    ]
    assert unanchored_reference("What are the rewards of this credit card?", cards) == (
        "this credit card"
    )
    # One X singled out before anchors "this X": a determiner, a possessive, a name, or
    # "a X" said to exist.
    assert unanchored_reference(
        "How much does this partner own?", ["My partner put money in."]
    ) is (None)
    for earlier in (
        ["Tell me about the credit card I got."],
        ["I got a Chase credit card."],
        ["I took a credit card last year."],
    ):
        question = "What are the rewards of this credit card?"
        assert "this credit card" not in list(unanchored_references(question, earlier))


def test_the_x_is_anchored_by_its_noun_said_not_by_a_word_sharing_its_stem():
    # Snowball stems "animal" and "animated" alike: "animated films" said no animal.
    question = "What is the origin of the animal's breed?"
    films = ["Most direct-to-video animated films are rated PG."]
    assert "the animal's" in list(unanchored_references(question, films))
    # The noun in another form anchors it: "animals", "the cities" after "a city".
    assert "the animal's" not in list(unanchored_references(question, ["Which animals herd?"]))
    assert not list(unanchored_references("What are the cities there?", ["a city in Maine"]))


def test_how_often_asks_for_a_frequency_not_a_duration():
    from threadline.knowledge.facts import asked_type, has_answer_type

    assert asked_type("how often must I change it?") == "frequency"
    assert asked_type("À quelle fréquence le chiffrement est-il vérifié ?") == "frequency"
    assert asked_type("tous les combien dois-je le changer ?") == "frequency"
    assert asked_type("how long do refunds take?") == "duration"
    assert has_answer_type("frequency", "Brightwell runs a phishing exercise every quarter.")
    assert has_answer_type("frequency", "Change it every 90 days.")
    assert has_answer_type("frequency", "Les sauvegardes ont lieu tous les 3 mois.")
    # "Every employee" counts no time; "immediately" and "within 1 hour" are no frequency.
    assert not has_answer_type("frequency", "Every Brightwell employee must use a unique password.")
    assert not has_answer_type("frequency", "Report the loss within 1 hour.")


def test_a_frequency_must_be_of_what_is_asked_in_its_sentence():
    # The phishing passage says to change the password immediately and, in another
    # sentence, runs an exercise every quarter: no frequency of changing a password.
    phishing = {
        "label": "1",
        "title": "Security handbook",
        "section": "Phishing reporting",
        "text": "An employee who clicked a link must change the password immediately. "
        "Brightwell runs a simulated phishing exercise every quarter.",
    }
    declined = decide("How often must I change the password?", [phishing])
    assert declined.verdict == "not_in_documents"
    assert declined.reason == "no_frequency_in_passages"
    assert decide("How often does Brightwell run a phishing exercise?", [phishing]).verdict == (
        "answer"
    )


def test_discourse_phrases_stance_words_and_past_forms_are_no_topic():
    from threadline.graph.question_terms import content_terms

    # "Of course I knew it!" frames the question: "knew" is "know" in the past, and
    # "know" says how to ask; "of course" and "certainly" say how the speaker holds it.
    assert content_terms("Of course I knew it! How to script a sprite?") == ["script", "sprite"]
    assert "certain" not in content_terms("There certainly are scientists who care about it.")
    assert content_terms("What exactly is a sprite?") == ["sprite"]
    assert "given" not in content_terms("Is a jail sentence given for a child support conviction?")
    # "course" is a word of its own outside the phrase.
    assert "cours" in content_terms("What is the course fee?")


def test_a_remark_framed_by_discourse_words_is_checked_on_its_topic():
    # Scientists and culture in one passage: the stance word is no word it must hold.
    passages = [
        {
            "label": "1",
            "title": "Violence in video games",
            "section": "",
            "text": "Scientists study how violent games shape youth culture.",
        }
    ]
    found = decide("Great! There certainly are scientists who care about culture!", passages)
    assert found.verdict == "answer"
    # Without the stance word the same two of three words are held; an unrelated passage
    # still holds too little.
    other = [{**passages[0], "text": "Scientists measure rainfall.", "title": "Rain"}]
    assert decide("There certainly are scientists who care about culture!", other).verdict != (
        "answer"
    )


def test_a_discourse_opener_typed_with_a_letter_too_many_is_no_topic():
    from threadline.graph.question_terms import content_terms

    question = "By the away, is there a time of year when there are more scams?"
    assert content_terms(question) == ["time", "year", "scam"]
    # A letter changed makes other words: the bay is what is asked about.
    assert "bay" in content_terms("By the bay, what are the tides?")
    # Only as an opener: inside a sentence the words are read as written.
    assert "away" in content_terms("Is the team playing away by the way?")


def test_a_value_word_with_its_complement_points_at_nothing_unsaid():
    """ "Le prix du plan entreprise", "le nombre de magasins": the value of what follows."""
    from threadline.graph.anchors import unanchored_reference

    assert unanchored_reference("Quel est le prix du plan entreprise ?", []) is None
    assert unanchored_reference("Quel est le nombre de magasins prévu en 2025 ?", []) is None
    assert unanchored_reference("What is the number of stores?", []) is None
    # Without a complement it says of nothing which value is asked.
    assert unanchored_reference("Quel est le prix ?", []) == "le prix"


def test_le_nombre_de_asks_for_a_count_stated_as_a_figure():
    # "Brightwell prévoit d'ouvrir cinq nouveaux magasins": the count, without "nombre".
    chunks = [
        {
            "label": "1",
            "title": "Rapport annuel",
            "section": "Perspectives 2025",
            "text": "Brightwell prévoit d'ouvrir cinq nouveaux magasins en 2025.",
        }
    ]
    question = "Quel est le nombre de magasins prévu en 2025 ?"
    assert decide(question, chunks, language="fr").verdict == "answer"


@pytest.mark.parametrize(
    ("question", "content"),
    [
        ("Détaille la section sur le phishing", ["phish"]),
        ("What does the section on phishing say?", ["phish"]),
        ("Détaille la partie consacrée au télétravail", ["teletravail"]),
        # No topic's preposition after it: the word names a thing.
        ("What is section 8 housing?", ["section", "hous"]),
    ],
)
def test_a_part_of_a_document_is_no_word_asked_about(question, content):
    from threadline.graph.question_terms import content_terms

    assert content_terms(question) == content


def test_the_section_on_a_topic_is_answered_by_the_passage_on_it():
    chunks = [
        {
            "label": "1",
            "title": "Security handbook",
            "section": "Phishing reporting",
            "text": "Employees must report suspicious emails with the Report phishing button.",
        }
    ]
    assert decide("Détaille la section sur le phishing", chunks, language="fr").verdict == "answer"


def test_the_noun_of_a_compound_preposition_is_no_word_asked_about():
    from threadline.graph.question_terms import content_terms

    assert "cas" not in content_terms("Qui contacter en cas d'incident de sécurité ?")
    assert "case" not in content_terms("Who do I contact in case of a security incident?")


def test_a_french_phrase_in_a_french_passage_is_held_in_a_row():
    # "téléphone professionnel" (company phone): the report's "smartphones" and "clients
    # professionnels" hold its two words apart, no company phone; the handbook's "company
    # phones" (another language, read through its translations) does.
    chunks = [
        {
            "label": "1",
            "title": "Security handbook",
            "section": "Device encryption",
            "text": "An employee who loses a laptop or company phone must report the loss "
            "to the IT service desk within 1 hour.",
        },
        {
            "label": "2",
            "title": "Rapport annuel 2024",
            "section": "Faits marquants",
            "text": "Brightwell a élargi son catalogue de smartphones et de téléphones et a "
            "lancé un portail destiné aux clients professionnels.",
        },
    ]
    question = "la politique en cas de perte d'un téléphone professionnel"
    evidence = decide(question, chunks, language="fr")
    assert evidence.verdict == "answer"
    assert evidence.supporting == ("1",)


def test_qui_with_a_verb_in_the_present_asks_who_does_it():
    # "the data protection officer decides": a role, as "who decides" asks.
    from threadline.knowledge.facts import asked_type

    assert asked_type("Qui décide de notifier les clients en cas de fuite de données ?") is None
    assert asked_type("Qui gère les escalades ?") is None
    assert asked_type("Qui est le PDG ?") == "person"
    assert asked_type("Qui a fondé Brightwell ?") == "person"


def test_que_se_passe_t_il_asks_what_follows_as_what_happens():
    # "what happens" is generic in English; "se passe" reflexive is its French.
    from threadline.graph.question_terms import content_terms

    assert content_terms("Que se passe-t-il si le SLA n'est pas respecté ?") == ["sla", "respect"]
    assert content_terms("Quel est mon mot de passe ?") == ["mot", "pass"]


def test_document_titles_named_in_a_reply_carry_no_citation_or_outline_marker():
    # A title is document text: "The closest documents are: Zorblax handbook [1] [S2]."
    # showed a citation marker no citation backs, in the answer a client renders and the
    # next turn's history reads; passages had their markers defused, titles in replies not.
    from threadline.graph.replies import ask_which, decline

    title = "Zorblax handbook [1] [S2]"
    declined, clarify = decline(language="en", missing=[], closest=[title])
    asked, _ = ask_which(language="fr", candidates=[title, "Other"], question="Lequel ?")
    for text in (declined, asked):
        assert "[1]" not in text and "[S2]" not in text, text
        assert "Zorblax handbook ［1］ ［S2］" in text, text
    # The options keep the title as stored: the client sends it back as a search.
    assert clarify["options"][0]["label"] == title


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_source_past_the_only_one_is_said_not_asked_about(language):
    # "et la 2e source ?" after an answer citing one source asked "Laquelle voulez-vous ?"
    # of "1 source": there is nothing to choose between.
    from threadline.graph.replies import which_source

    one, three = which_source(1, language), which_source(3, language)
    assert "?" not in one and ("qu'une source" in one or "only one source" in one)
    assert "3 sources" in three and three.endswith("?")


@pytest.mark.parametrize(
    ("message", "asked"),
    [
        (
            "Give me a summary of the annual report in English",
            "Give me a summary of the annual report",
        ),
        ("Résume le rapport annuel en anglais", "Résume le rapport annuel"),
        ("Explain the refund policy in plain English, please.", "Explain the refund policy"),
        (
            "Fais une synthèse de la politique de support en français, svp",
            "Fais une synthèse de la politique de support",
        ),
        # No request verb: the language is what is asked about.
        ("Is support available in French?", "Is support available in French?"),
        ("what is the refund policy in english?", "what is the refund policy in english?"),
    ],
)
def test_the_language_a_request_asks_its_answer_in_is_no_content(message, asked):
    from threadline.graph.question_terms import without_answer_language

    assert without_answer_language(message) == asked
