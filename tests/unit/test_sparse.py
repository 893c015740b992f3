"""Tests for text normalisation and the built-in BM25 sparse embeddings."""

from __future__ import annotations

import asyncio

import pytest
from qdrant_client import QdrantClient, models

from threadline.knowledge import sparse
from threadline.knowledge.sparse import Bm25SparseEmbeddings, sparse_vector_params, term_index
from threadline.text import STOPWORDS, fold, is_stopword, stem, terms, tokenize
from threadline.text.tokenize import closed_terms

# --- text ------------------------------------------------------------------------------


def test_fold_strips_accents_ligatures_and_quotes() -> None:
    assert fold("Élève À Ça") == "eleve a ca"
    assert fold("Œuvre cœur Ægis Straße") == "oeuvre coeur aegis strasse"
    assert fold("ﬁchier x²") == "fichier x2"
    assert fold("l’entreprise «ok» “ok”") == 'l\'entreprise "ok" "ok"'


def test_tokenize_strips_french_elisions() -> None:
    assert tokenize("L’entreprise d'un client qu'il jusqu'au S’il") == [
        "entreprise",
        "un",
        "client",
        "il",
        "au",
        "il",
    ]


def test_tokenize_accents_and_english_contractions() -> None:
    assert tokenize("Les Éoliennes françaises") == ["les", "eoliennes", "francaises"]
    assert tokenize("The team's SLA") == ["the", "team", "sla"]
    assert tokenize("don't, can't, is n't") == ["do", "not", "can", "not", "is", "not"]


def test_tokenize_numbers_and_codes() -> None:
    assert tokenize("SLA 99.95% for P1, S24 and A55.") == [
        "sla",
        "99.95",
        "for",
        "p1",
        "s24",
        "and",
        "a55",
    ]
    # French decimal comma is the same term as the English decimal point.
    assert tokenize("99,95 %") == ["99.95"]
    assert tokenize("end at 5. e-mail follow_up") == ["end", "at", "5", "e", "mail", "follow", "up"]


def test_tokenize_empty_and_punctuation() -> None:
    assert tokenize("") == []
    assert tokenize(" ... — !? ") == []


def test_stopwords_both_languages() -> None:
    for word in ["the", "and", "of", "which", "le", "les", "des", "du", "une", "dans", "etre"]:
        assert is_stopword(word), word
    # Folded French forms that are English content words or acronyms are kept.
    for word in ["son", "car", "ai", "eu", "incident", "policy", "eolienne"]:
        assert not is_stopword(word), word
    assert all(fold(word) == word for word in STOPWORDS)


@pytest.mark.parametrize(
    ("plural", "singular"),
    [
        ("incidents", "incident"),
        ("policies", "policy"),
        ("escalated", "escalation"),
        ("eoliennes", "eolienne"),
        ("entreprises", "entreprise"),
        ("chevaux", "cheval"),
        ("bureaux", "bureau"),
        ("jours", "jour"),
    ],
)
def test_stem_conflates_inflections(plural: str, singular: str) -> None:
    assert stem(plural) == stem(singular)


def test_stem_leaves_numbers_codes_and_short_tokens() -> None:
    for token in ["99.95", "p1", "s24", "2024", "sla", "ai", "bus"]:
        assert stem(token) == token


def test_terms_pipeline() -> None:
    assert terms("éoliennes") == terms("Éolienne")
    assert terms("The incidents of the team") == terms("incident team")
    assert terms("Les congés de l’entreprise") == terms("congé entreprise")
    assert terms("the of le la") == []


# --- sparse embeddings ------------------------------------------------------------------


def test_term_index_is_stable() -> None:
    # Fixed expectations: if these change, every stored sparse vector is invalid.
    assert term_index("incident") == 1606095519
    assert term_index("p1") == 2042421278
    assert 0 <= term_index("anything") < 2**31


def test_query_vector_shape() -> None:
    vec = Bm25SparseEmbeddings().embed_query("P1 incidents incident escalation")
    assert len(vec.indices) == len(vec.values) == 3  # p1, incid (twice), escal
    assert vec.values == [1.0, 1.0, 1.0]
    assert vec.indices == sorted(set(vec.indices))


def test_document_weights_follow_bm25() -> None:
    emb = Bm25SparseEmbeddings(avgdl=4.0)
    (vec,) = emb.embed_documents(["incident incident team escalation"])
    weights = dict(zip(vec.indices, vec.values, strict=True))
    norm = 1.2 * (1 - 0.75 + 0.75 * 4 / 4.0)
    assert weights[term_index("incid")] == pytest.approx(2 * 2.2 / (2 + norm))
    assert weights[term_index("team")] == pytest.approx(1 * 2.2 / (1 + norm))
    assert vec.indices == sorted(set(vec.indices))


def test_document_weights_saturate_and_penalise_length() -> None:
    emb = Bm25SparseEmbeddings()
    short, repeated, long = emb.embed_documents(
        ["incident", "incident " * 50, "incident " + "filler words here " * 100]
    )
    assert repeated.values[0] > short.values[0]
    assert repeated.values[0] < 2.2  # saturates at k1 + 1
    idx = term_index("incid")
    assert dict(zip(long.indices, long.values, strict=True))[idx] < short.values[0]


def test_hash_collisions_are_summed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sparse, "term_index", lambda term: 7)
    emb = Bm25SparseEmbeddings()
    query = emb.embed_query("incident team")
    assert query.indices == [7]
    assert query.values == [2.0]
    (doc,) = emb.embed_documents(["incident team"])
    assert doc.indices == [7]
    assert len(doc.values) == 1


def test_empty_input_gives_empty_vectors() -> None:
    emb = Bm25SparseEmbeddings()
    for vec in [emb.embed_query(""), emb.embed_query("the of le"), *emb.embed_documents(["", "…"])]:
        assert vec.indices == []
        assert vec.values == []
    assert emb.embed_documents([]) == []


def test_async_variants() -> None:
    emb = Bm25SparseEmbeddings()
    assert asyncio.run(emb.aembed_query("incidents")) == emb.embed_query("incidents")
    assert asyncio.run(emb.aembed_documents(["incidents"])) == emb.embed_documents(["incidents"])


@pytest.mark.parametrize("kwargs", [{"k1": -1}, {"b": 1.5}, {"avgdl": 0}])
def test_invalid_parameters(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        Bm25SparseEmbeddings(**kwargs)


def test_sparse_vector_params_use_idf() -> None:
    assert sparse_vector_params().modifier == models.Modifier.IDF


# --- with Qdrant (the in-memory engine opens in milliseconds: unit tier) ---------------------

DOCS = [
    "Incident response: P1 incidents are escalated to the on-call team within 15 minutes.",
    "Les éoliennes en mer produisent de l'électricité pour le réseau.",
    "Quarterly budget review for the marketing team and the sales team.",
    "La politique de congés de l’entreprise : chaque salarié a droit à 25 jours.",
    "The team meets every week; the team lunch is on Friday for the whole team.",
    "Backup policy: database snapshots are kept for 30 days.",
]
SPARSE = "bm25"


def _index(client: QdrantClient, name: str, params: models.SparseVectorParams) -> None:
    client.create_collection(name, vectors_config={}, sparse_vectors_config={SPARSE: params})
    vectors = Bm25SparseEmbeddings().embed_documents(DOCS)
    client.upsert(
        name,
        points=[
            models.PointStruct(
                id=i, vector={SPARSE: models.SparseVector(**vec.model_dump())}, payload={"i": i}
            )
            for i, vec in enumerate(vectors)
        ],
    )


def _search(client: QdrantClient, name: str, query: str) -> list[int]:
    vec = Bm25SparseEmbeddings().embed_query(query)
    hits = client.query_points(
        name, query=models.SparseVector(**vec.model_dump()), using=SPARSE, limit=len(DOCS)
    ).points
    return [hit.id for hit in hits]


@pytest.fixture
def client() -> QdrantClient:
    qdrant = QdrantClient(":memory:")
    _index(qdrant, "docs", sparse_vector_params())
    return qdrant


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("How are P1 incidents escalated?", 0),
        # Stemming: the singular only matches the document's plural.
        ("Une éolienne", 1),
        ("Combien de jours de congé ?", 3),
        # IDF: "team" is in 3 of 6 documents and three times in doc 4; the rare word wins.
        ("team snapshot", 5),
    ],
)
def test_qdrant_ranks_relevant_document_first(
    client: QdrantClient, query: str, expected: int
) -> None:
    assert _search(client, "docs", query)[0] == expected


def test_idf_is_what_makes_the_rare_term_win(client: QdrantClient) -> None:
    # Control for the IDF case above: same vectors without the modifier, the frequent
    # word dominates, so the ranking really depends on Qdrant's IDF.
    _index(client, "no_idf", models.SparseVectorParams())
    assert _search(client, "no_idf", "team snapshot")[0] == 4
    assert _search(client, "docs", "team snapshot")[0] == 5


def test_qdrant_empty_collection_query(client: QdrantClient) -> None:
    assert _search(client, "docs", "zzz unknownword") == []


def test_stored_vectors_keep_their_terms_and_indices() -> None:
    # Values computed before text handling moved into threadline.text: a change here means
    # every collection indexed before it must be re-indexed.
    text = (
        "L’entreprise a réduit ses coûts de 99,95 % en 2024 ; the team's éoliennes don't "
        "fail (Galaxy S24, bureaux)."
    )
    assert terms(text) == [
        "entrepris", "reduit", "cout", "99.95", "2024", "team", "eolienn", "fail", "galaxi",
        "s24", "bureau",
    ]  # fmt: skip
    vector = Bm25SparseEmbeddings().embed_documents([text])[0]
    assert vector.indices == [
        56688696, 300998291, 612865357, 654389497, 711873596, 733741145, 852722835,
        915841943, 1529938599, 1942948389, 1989316220,
    ]  # fmt: skip
    assert vector.values == pytest.approx([1.572552] * 11, abs=1e-6)


def test_a_query_searches_an_irregular_forms_verb_at_half_weight() -> None:
    # "I lost my phone" found no passage writing "loses": Snowball keeps "lost" apart.
    vec = Bm25SparseEmbeddings().embed_query("I lost my phone, what should I do?")
    weights = dict(zip(vec.indices, vec.values, strict=True))
    assert weights[term_index("lost")] == 1.0 and weights[term_index("phone")] == 1.0
    assert weights[term_index(stem("lose"))] == sparse.VERB_FORM_WEIGHT == 0.5
    # A form that is also a noun of its own stays as written; regular forms add nothing.
    for query in ("saw blade", "the phones were returned"):
        assert len(Bm25SparseEmbeddings().embed_query(query).indices) == len(set(terms(query)))
    # The query's own word keeps its full weight when another of its words is its form.
    both = Bm25SparseEmbeddings().embed_query("lost or lose")
    assert sorted(both.values) == [1.0, 1.0]


def test_a_query_searches_a_verbs_irregular_forms_at_half_weight() -> None:
    # "What does Brightwell sell?" found no passage: the catalog writes "sold by
    # Brightwell", a form Snowball keeps apart from "sell".
    vec = Bm25SparseEmbeddings().embed_query("What does Brightwell sell?")
    weights = dict(zip(vec.indices, vec.values, strict=True))
    assert weights[term_index("sell")] == 1.0
    assert weights[term_index("sold")] == sparse.VERB_FORM_WEIGHT
    # A regular verb adds nothing; nor does a verb that is also another's form ("saw").
    for query in ("returned phones", "use the portal", "saw blade"):
        assert len(Bm25SparseEmbeddings().embed_query(query).indices) == len(set(terms(query)))


def test_a_hyphenated_compound_also_holds_its_closed_form() -> None:
    # "et sur un wifi public ?" was declined: the handbook writes "public Wi-Fi networks",
    # whose terms were "wi" and "fi" alone.
    assert closed_terms("On public Wi-Fi networks, send an e-mail le week-end") == [
        "wifi", "email", "weekend",
    ]  # fmt: skip
    # A code or a range is no compound; three parts are none either.
    assert closed_terms("COVID-19, 9-5, face-to-face") == []


@pytest.mark.parametrize(
    ("document", "query", "compound"),
    [
        ("On public Wi-Fi networks keep the VPN on.", "wifi public", "wifi"),
        ("Contact support by email.", "support e-mail", "email"),
        ("Le support est fermé le week-end.", "weekend", "weekend"),
    ],
)
def test_a_compound_is_found_whether_written_hyphenated_or_closed(
    document: str, query: str, compound: str
) -> None:
    emb = Bm25SparseEmbeddings()
    (doc,) = emb.embed_documents([document])
    shared = set(doc.indices) & set(emb.embed_query(query).indices)
    assert term_index(stem(compound)) in shared


def test_a_closed_form_adds_no_length_to_its_document() -> None:
    # The parts stay (a query for "fi" or "mail" still finds them) and weigh what they
    # weighed: the closed form is another spelling, not more text.
    emb = Bm25SparseEmbeddings()
    hyphenated, spaced = emb.embed_documents(["send an e-mail today", "send an e mail today"])
    weights = dict(zip(hyphenated.indices, hyphenated.values, strict=True))
    assert {i: weights[i] for i in spaced.indices} == dict(
        zip(spaced.indices, spaced.values, strict=True)
    )
    assert term_index("email") in weights
