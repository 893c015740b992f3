"""A follow-up that leans on the conversation is answered only from passages on its subject."""

from __future__ import annotations

from threadline.graph.anchors import leans_on_the_conversation
from threadline.graph.evidence import decide
from threadline.graph.names import (
    kept_names,
    named_only_within_longer_names,
    names_a_kept_name,
)
from threadline.graph.question_terms import own_phrases
from threadline.knowledge.facts import role_terms
from threadline.text import terms

OFFICE_TALK = [
    "what happens to toby at the end of the office At the end of The Office, Toby moves "
    "to Costa Rica for a new job.",
    "any reason to end? The producer felt that season 9 of The Office was the last chance "
    "to end the show well.",
    "any awards Yes, The Office has won several awards, including Emmy Awards.",
]


def _passage(label: str, text: str, title: str = "") -> dict[str, object]:
    return {"label": label, "title": title, "section": "", "text": text}


def test_the_names_a_conversation_keeps_are_its_subject():
    assert kept_names(OFFICE_TALK) == ["Office"]
    # A name in one exchange of three is said in passing; one exchange keeps nothing.
    assert "Costa Rica" not in kept_names(OFFICE_TALK)
    assert kept_names(OFFICE_TALK[:1]) == []
    # A passage names it as a name, not as the common word a "box office" is.
    chunks = [
        _passage("1", "The film was a hit at the box office."),
        _passage("2", "The ninth season of The Office drew 4 million viewers."),
    ]
    assert names_a_kept_name(chunks, ["1", "2"], ["The Office"]) == ["2"]


def test_a_follow_up_answered_only_off_the_subject_is_declined():
    chunks = [
        _passage(
            "1",
            "Dean was nominated for the Academy Awards as Best Actor, the first posthumous "
            "nomination in Academy Awards history.",
            title="James Dean",
        )
    ]
    found = decide("history best?", chunks, earlier=OFFICE_TALK, focus=["James Dean"])
    assert (found.verdict, found.reason) == ("not_in_documents", "off_the_subject")
    # A passage that names the conversation's subject answers it.
    on_subject = [
        _passage(
            "1",
            "Critics rank The Office among the best comedy series in television history.",
            title="The Office (U.S. season 9)",
        )
    ]
    assert decide("history best?", on_subject, earlier=OFFICE_TALK).verdict == "answer"
    # A question of its own, with no earlier turn, is not held to any subject.
    assert decide("history best?", chunks).verdict == "answer"


def test_passages_without_titles_show_the_subject_by_their_words():
    earlier = [
        "What is Cloud Directory? Cloud Directory is a user registry of App ID.",
        "What are its features? Cloud Directory lets users sign up and reset passwords.",
        "How many policies exist in my account? Check them so that you don't exceed the limit.",
    ]
    storage = [
        _passage("1", "If you exceed the storage limit, uploads fail until you delete data.")
    ]
    found = decide("What will happen if I exceed the limit?", storage, earlier=earlier)
    assert (found.verdict, found.reason) == ("not_in_documents", "off_the_subject")
    directory = [
        _passage("1", "If you exceed the limit, Cloud Directory stops accepting new users.")
    ]
    assert decide(
        "What will happen if I exceed the limit?", directory, earlier=earlier
    ).verdict == ("answer")


def test_the_message_naming_its_own_thing_needs_no_subject():
    assert own_phrases("streaming services?") == ["streaming services"]
    # "best" says which, not what: no two content words in a row.
    assert own_phrases("history best?") == []
    apple_tv = [
        _passage(
            "1",
            "Users of Apple TV can subscribe to music streaming services such as Pandora.",
            title="Apple TV",
        )
    ]
    # "streaming services" names a thing of its own: the passage that holds it answers.
    assert decide("streaming services?", apple_tv, earlier=OFFICE_TALK).verdict == "answer"


def test_what_is_left_of_a_partial_question_leans_as_the_message_did():
    earlier = [
        "What does QE do? Quantitative Easing (QE) is the creation of money by a central bank.",
        "How did QE work in 2008? The FED bought securities from banks through QE.",
        "current US gov debt The US government debt is over 100% of GDP.",
    ]
    assert kept_names(earlier) == ["QE"]
    transfers = [
        _passage(
            "1",
            "You can send money to anyone: the number of transfers is not limited, and "
            "the $ amount is shown before you confirm.",
        )
    ]
    message = "Do you have the $ number?  Is this for 2024?"
    assert leans_on_the_conversation(message, earlier)
    # "2024" is in no passage, and what is left ("the $ number") is this conversation's
    # number: a passage on money transfers does not answer it, even in part.
    found = decide(message, transfers, earlier=earlier)
    assert (found.verdict, found.reason) == ("not_in_documents", "named_thing_missing")
    # Without the conversation, the part the passages cover is answered.
    assert decide(message, transfers).verdict == "partial"


def test_who_does_x_asks_for_the_doer_not_the_verb():
    escalation = [
        _passage(
            "1",
            "Escalation starts with the duty support manager, reachable by phone.",
            title="Brightwell support policy",
        )
    ]
    assert role_terms("Who handles escalations?") == frozenset(terms("handles"))
    assert role_terms("Who is the CEO?") == frozenset()
    # The passage names the role and the thing, in its own words for the relation.
    found = decide("Who handles escalations?", escalation)
    assert found.verdict == "answer" and found.supporting == ("1",)


def test_what_x_is_called_asks_for_a_name_not_the_verb():
    # The passage gives the name as "known as": the naming verb is the relation the
    # answer states in its own words; the question's content is what is named.
    football = [
        _passage(
            "1",
            "Soccer is known as football in most of the world.",
            title="Association football",
        )
    ]
    assert role_terms("What is soccer called?") == frozenset(terms("called"))
    assert role_terms("Comment s'appelle ce sport en France ?") == frozenset(terms("appelle"))
    assert decide("What is soccer called?", football).verdict == "answer"
    # What is named must still be there: the verb alone is no evidence.
    assert decide("What is cricket called?", football).verdict == "not_in_documents"


def test_a_kind_of_fact_no_passage_states_is_said_so():
    passages = [_passage("1", "Escalation starts with the duty support manager.", "Policy")]
    found = decide(
        "what is their phone number?",
        passages,
        earlier=["Who handles escalations? Escalation starts with the duty support manager."],
        focus=["Brightwell support policy — Escalation"],
    )
    # Nothing is about what "their" points at, and no passage states a phone number.
    assert (found.verdict, found.reason) == ("not_in_documents", "no_phone_in_passages")


def test_who_does_with_nothing_else_keeps_its_verb():
    passages = [_passage("1", "The buyer pays the transfer fee.", "Fees")]
    assert decide("Who pays?", passages).verdict == "answer"
    assert decide("Who pays?", [_passage("1", "The fee is due on delivery.", "Fees")]).verdict == (
        "not_in_documents"
    )


def test_a_name_written_only_inside_another_things_name_is_not_held():
    question = "What types of stocks are traded on the NASDAQ?"
    index_fund = _passage(
        "1",
        "Index funds such as IBB track the NASDAQ Biotechnology Index, so stock pickers "
        "rarely trade their holdings.",
    )
    assert named_only_within_longer_names(index_fund, "NASDAQ", question)
    found = decide(question, [index_fund])
    assert (found.verdict, found.reason) == ("not_in_documents", "nothing_about_the_subject")
    # The name alone, at the start of a sentence too, is the exchange.
    exchange = _passage("2", "NASDAQ lists common stocks of technology companies.")
    assert not named_only_within_longer_names(exchange, "NASDAQ", question)
    assert decide(question, [index_fund, exchange]).supporting == ("2",)


def test_a_longer_name_ending_with_the_name_or_using_the_questions_words_is_it():
    amazon = _passage("1", "The Amazon is the largest river of South America.")
    # The last word of a name is its head: South America is a part of America.
    assert not named_only_within_longer_names(
        amazon, "America", "Which river is largest in America?"
    )
    branch = _passage("1", "The West Branch flows south from Seboomook Lake.")
    assert not named_only_within_longer_names(branch, "West", "The West branch.")
    iphone = _passage("1", "The Apple iPhone 15 has a 6.1-inch display.")
    assert not named_only_within_longer_names(iphone, "iPhone", "How big is the iPhone?")
    kennedy = _passage("1", "The spacecraft arrived at NASA's Kennedy Space Center in Florida.")
    assert named_only_within_longer_names(kennedy, "Kennedy", "How can I get there? say Kennedy")


def test_an_edition_word_after_the_name_names_a_version_of_it():
    # "What's the warranty on the MacBook?" was asked back which warranty: the only
    # MacBook of the catalog is written "MacBook Air", read as another thing's name.
    macbook = _passage(
        "1", "Brightwell covers the Apple MacBook Air 13 (M3) with a 1-year warranty."
    )
    question = "What's the warranty on the MacBook?"
    assert not named_only_within_longer_names(macbook, "MacBook", question)
    assert decide(question, [macbook]).verdict == "answer"
    pixel = _passage("1", "The Google Pixel Pro has a 5x telephoto lens.")
    assert not named_only_within_longer_names(pixel, "Pixel", "Which Pixel has a telephoto?")


def test_where_does_x_start_asks_for_places_not_for_the_verbs():
    assert role_terms("where does the penobscot river start and end") == frozenset(
        terms("start end")
    )
    # A person or a verb phrase as the subject: the verb is what the question is about.
    assert role_terms("where do I file an appeal?") == frozenset()
    assert role_terms("Where did ice hockey start to play?") == frozenset()
    river = [
        _passage(
            "1",
            "The Penobscot River arises from four branches in several lakes and flows into "
            "Penobscot Bay.",
            title="Penobscot River",
        )
    ]
    found = decide("where does the penobscot river start and end", river)
    assert found.verdict == "answer"
