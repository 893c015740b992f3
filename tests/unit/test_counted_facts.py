"""What a "how many" question counts, and whether a sentence gives that count."""

from __future__ import annotations

import pytest

from threadline.knowledge.facts import (
    aim_terms,
    as_a_staff_count,
    asked_type,
    asks_what_is_now,
    bound_terms,
    counted_noun,
    counts_other_things_only,
    has_answer_type,
    names_only_as_a_whole,
    names_the_share_held,
    obligation_terms,
    states_count_of,
)
from threadline.text import terms

EMPLOYEES = set(terms("employees employé salarié collaborateur effectifs"))


@pytest.mark.parametrize(
    ("question", "noun"),
    [
        ("How many employees does Brightwell have?", "employees"),
        ("Combien d'employés a Brightwell ?", "employes"),
        ("Combien de collaborateurs compte Brightwell ?", "collaborateurs"),
        ("how many of the phones are 5G?", "phones"),
        ("What is the number of stores?", "stores"),
        ("What is the price of the Pixel 8a?", None),
        # The head of the phrase: last in English, first in French.
        ("How many support requests were handled in 2024?", "requests"),
        ("how many status codes are there?", "codes"),
        ("how many people live in Paris?", "people"),
        ("Combien de demandes de support ont été traitées ?", "demandes"),
        # A noun that is a count is what is counted (round 11).
        ("What is the headcount?", "headcount"),
        ("Quel est l'effectif de Brightwell ?", "effectif"),
        # A verb's past form counts whom it acts on, unnamed (round 12).
        ("and how many were hired?", None),
        ("how many were sold last year?", None),
        ("How many people were hired?", "people"),
    ],
)
def test_the_counted_noun_is_the_head_of_the_phrase_after_the_count_words(question, noun):
    assert counted_noun(question) == noun


@pytest.mark.parametrize(
    ("sentence", "states"),
    [
        ("Au 31 décembre 2024, Brightwell Devices comptait 2 140 collaborateurs.", True),
        ("The headcount of employees was 2,140.", True),
        ("Employees: 2,140", True),
        ("Brightwell has twelve full-time employees.", True),
        # A number that counts something else, or a year, is not a count of employees.
        ("Employees who fail two exercises in a row follow a refresher course.", False),
        ("In 2024, employees reported phishing emails every week.", False),
        ("Every Brightwell employee must use a password of at least 14 characters.", False),
        # A share of the staff is no count of it (round 11: "What is the headcount?").
        ("Les femmes représentent 44 % des effectifs de Brightwell.", False),
        ("Women make up 44 percent of employees.", False),
    ],
)
def test_a_count_stands_next_to_the_counted_noun(sentence, states):
    assert states_count_of(sentence, EMPLOYEES) is states


def test_a_count_noun_asks_for_a_number():
    assert asked_type("What is the headcount?") == "quantity"
    assert asked_type("Quel est l'effectif ?") == "quantity"


def test_combien_de_temps_asks_for_a_duration_not_a_count():
    assert asked_type("Combien de temps ai-je pour retourner un téléphone ?") == "duration"
    assert asked_type("Combien de magasins Brightwell a-t-il ouverts ?") == "quantity"
    # The elided "de": "Combien d'appareils couvre le plan Business ?" asked for nothing.
    assert asked_type("Combien d'appareils couvre le plan Business ?") == "quantity"


def test_a_ranking_of_sales_is_a_kind_of_answer():
    from threadline.knowledge.facts import asked_type, has_answer_type

    for question in (
        "What is the best-selling phone?",
        "Quel est le smartphone le plus vendu ?",
        "What is the most popular laptop?",
    ):
        assert asked_type(question) == "rank", question
    assert asked_type("What is the best time to sell stocks?") is None
    assert has_answer_type("rank", "le smartphone le plus vendu de l'année")
    assert not has_answer_type("rank", "The Pixel 8 Pro is sold by Brightwell for $999.")


def test_no_limit_is_a_count():
    # "how many devices does it cover?" of the Enterprise plan: "an unlimited number of
    # devices" answers, where the Basic and Business plans' counts were quoted instead.
    devices = set(terms("devices appareils"))
    sentence = "The Enterprise plan covers an unlimited number of devices."
    assert has_answer_type("quantity", sentence)
    assert states_count_of(sentence, devices)
    assert states_count_of("Le plan couvre un nombre illimité d'appareils.", devices)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How much did Brightwell recycle in 2024?", "quantity"),
        ("How much did sales grow?", "quantity"),
        ("How much does the Galaxy S25 cost?", "price"),
        ("How much did it cost?", "price"),
        ("How much is the Basic plan?", "price"),
        ("How much did I pay?", "price"),
        ("Is the Galaxy S24 cheaper than the Pixel 8 Pro?", "price"),
    ],
)
def test_how_much_asks_a_price_only_of_a_verb_of_money(question, kind):
    assert asked_type(question) == kind


@pytest.mark.parametrize(
    ("sentence", "states"),
    [
        # "Combien de clients satisfaits en 2024 ?" quoted the staff count: "520 au
        # service client" counts staff at the customer service, not clients.
        ("dont 1 230 en magasin, 520 au service client et 390 dans les fonctions", False),
        ("Brightwell compte 3 millions de clients.", True),
        ("Brightwell served 4,870 business customers.", True),
    ],
)
def test_a_number_before_a_preposition_counts_no_noun_after_it(sentence, states):
    clients = set(terms("clients customers"))
    assert states_count_of(sentence, clients) is states


@pytest.mark.parametrize(
    ("sentence", "others_only"),
    [
        ("Every employee must use a password of at least 14 characters.", True),
        ("Employees who fail two exercises follow a 30-minute refresher course.", True),
        ("An employee who loses a phone must report it within 1 hour.", True),
        ("Au 31 décembre 2024, Brightwell comptait 2 140 collaborateurs.", False),
        ("The headcount was 2,140 employees.", False),
        ("Employees: 2,140.", False),
        ("In 2024, 44 % of employees were women.", False),
    ],
)
def test_a_sentence_whose_numbers_count_other_things_gives_no_count(sentence, others_only):
    # Round 12: "how many employees are there?" quoted the 14-character password rule.
    assert counts_other_things_only(sentence, EMPLOYEES) is others_only


def test_the_number_of_asks_a_count_and_planned_asks_the_plan():
    question = "What is the number of stores planned for 2025?"
    assert asked_type(question) == "quantity"
    assert not asks_what_is_now(question)
    assert asked_type("a number of issues were found") is None


@pytest.mark.parametrize(
    ("text", "bound"),
    [
        ("a service credit of 10% for each point, up to 50% of the monthly fee", "maximum"),
        ("a restocking fee of up to 15%", "maximum"),
        ("a unique password of at least 14 characters", "minimum"),
        ("une marge opérationnelle d'au moins 8,5 %", "minimum"),
        ("Brightwell classifies all information into four levels", None),
        ("at least once a year", None),  # no number after it
    ],
)
def test_a_bound_stated_on_a_number_holds_its_word(text, bound):
    found = bound_terms(text)
    if bound is None:
        assert not found
    else:
        assert set(terms(bound)) <= found


@pytest.mark.parametrize(
    ("text", "obliged"),
    [
        ("Employees working remotely must connect through the company VPN.", True),
        ("Every employee is required to complete the training.", True),
        ("Les salariés doivent activer le VPN sur un Wi-Fi public.", True),
        ("Le collaborateur est tenu de signaler la perte.", True),
        ("Employees must not use public computers.", False),  # a prohibition
        ("Il ne doit pas quitter son poste.", False),
        ("The VPN is available to employees working remotely.", False),
    ],
)
def test_a_rule_stated_with_a_modal_of_obligation_states_it_is_mandatory(text, obliged):
    # Round 19: "is the VPN mandatory?" / « le VPN est-il obligatoire ? » over the
    # handbook's "must connect ... through the company VPN".
    found = obligation_terms(text)
    assert (set(terms("mandatory obligatoire required")) <= found) is obliged
    assert bool(found) is obliged


@pytest.mark.parametrize(
    ("question", "language", "searched"),
    [
        (
            "how many people work in customer service?",
            "en",
            "how many employees work in customer service?",
        ),
        ("combien de gens bossent en magasin ?", "fr", "combien de employés bossent en magasin ?"),
        ("how many people were hired in 2024?", "en", None),  # no people who work
        ("how many stores does Brightwell have?", "en", None),
    ],
)
def test_people_who_work_are_searched_as_the_staff(question, language, searched):
    # Round 19: the report counts « collaborateurs »; "people" searched as such brought
    # up the 2025 hiring plan.
    assert as_a_staff_count(question, language) == (searched or question)


@pytest.mark.parametrize(
    ("sentence", "aims"),
    [
        ("Brightwell prévoit d'ouvrir cinq nouveaux magasins en 2025.", True),
        ("Pour l'exercice 2025, Brightwell vise un chiffre d'affaires de 530 millions.", True),
        ("Brightwell plans to open five stores in 2025.", True),
        # A future tense alone is a rule, no aim.
        ("You will receive a service credit of 10% of the monthly fee.", False),
        ("Brightwell a ouvert quatre nouveaux magasins en 2024.", False),
    ],
)
def test_a_sentence_stating_an_aim_holds_the_nouns_of_an_aim(sentence, aims):
    # Round 20: « Quels sont les objectifs 2025 ? » is answered by « vise » and
    # « prévoit » as well as by « l'objectif ».
    held = aim_terms(sentence)
    assert (set(terms("objectifs goals")) <= held) is aims


def test_a_share_is_held_by_what_its_clause_names_before_it():
    support = set(terms("support contracts contrats"))
    assert names_the_share_held(
        "Les ventes de smartphones représentent 52 % du chiffre d'affaires 2024, les "
        "ordinateurs portables 31 %, les contrats de support 11 % et les accessoires 6 %.",
        support,
    )
    assert not names_the_share_held(
        "La marge brute de Brightwell atteint 27,4 % du chiffre d'affaires, en hausse de "
        "0,9 point grâce à la part croissante des contrats de support.",
        support,
    )


def test_a_percentage_of_a_thing_names_it_only_as_its_whole():
    revenue = set(terms("chiffre affaires"))
    assert names_only_as_a_whole(
        "Les ventes en ligne représentent désormais 41 % du chiffre d'affaires, contre 36 % "
        "en 2023.",
        revenue,
    )
    assert not names_only_as_a_whole(
        "Le chiffre d'affaires 2024 s'élève à 486,3 millions de dollars.", revenue
    )
    # "99.9% monthly uptime" is the uptime itself.
    assert not names_only_as_a_whole(
        "The Business plan SLA guarantees 99.9% monthly uptime.", set(terms("uptime"))
    )
