"""How much each query variant of a turn counts when their rankings are fused.

Its own module because both the per-run `Context` (which lets a run override the
weights) and the reformulator (which builds the variants) need it, and the
reformulator's node function needs `Context`: kept here, neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from threadline.settings import Settings


@dataclass(frozen=True)
class FusionConfig:
    """Which query variants a turn searches and how much each one counts.

    Weights multiply reciprocal-rank contributions ``weight / (rrf_k + rank)``; a
    weight of 0 leaves a variant out. The defaults were measured on the MTRAG dev
    benchmark, one idea at a time (benchmarks/results/mtrag-dev.md); the LLM weight could
    not be measured offline.

    Attributes:
        question: The message alone: the largest weight, so its terms stay in charge.
        condensed: The deterministic condensation (`graph.condensation.condense`), for
            every turn that has a previous one, whatever the route.
        llm: The LLM rewrite, when a real LLM reformulated the message.
        translated: The message's salient words translated into the other language
            through the bilingual lexicon (`threadline.knowledge.bilingual`), scaled by
            the share of the documents in that language: a French question over English
            documents also searches in English words; over French ones it does not
            (a translation nobody needs only adds noise: English questions over the
            English MTRAG corpus lost 0.08 Recall@5 with it).
        untranslated: How much the message as typed still counts when it is translated:
            its weight becomes `question * ((1 - share) + share * untranslated)`, `share`
            being that of the documents in the other language. A French question read by
            an English-only dense model and an English sparse index is mostly noise; its
            names and numbers, the part that matches as typed, pass into the translation
            anyway. Measured on MTRAG-FR dev with the lexicon of 2026-11-24: 1.0, 0.5,
            0.25 and 0 gave Recall@5 0.621, 0.698, 0.706, 0.685 (turn 1: 0.882, 0.951,
            0.980, 0.951).
        typed_content: The part of the message's untranslated weight its content words
            take as a variant of their own (`knowledge.bilingual.content_words`: no
            function words), the sentence as typed keeping the rest. An English-only
            dense model reads French content words through the pieces they share with
            English, and the French function words only pull the vector toward French
            text. MTRAG-FR dev, 2026-11-25: 0 (the sentence alone), 0.5 and 1 (the
            content words alone) gave Recall@5 0.741, 0.747, 0.754 (nDCG@5 0.680,
            0.682, 0.677), turn 1 0.980, 0.980, 0.951 (nDCG@5 0.932, 0.938, 0.880):
            half and half keeps the first turns and part of the later ones' gain.
        translated_min_share: The smallest share of the documents a language must hold
            for a question to be searched in it. The share comes from a language vote over
            a sample of 200 chunks, where a few misdetected passages (a table of names, a
            French quotation) make a language of 1%; a translation weighted by that share
            only breaks near-ties at random (English MTRAG, whose vote finds 1% French,
            moved two tasks' fifth passage and lost 0.006 Recall@5 with it).
        corrected: A message correcting the previous question ("No, I meant photos in
            the air."): the weight of that question with the correction applied
            (`graph.condensation.corrected_query`); 0 reads no correction.
        corrected_answer: The scale of the answer variant when the message corrects the
            previous question: that answer is what the user did not mean.
        answer: The message plus the salient words of the previous answer.
        recurring: The message plus the words several past messages share.
        prior: The previous turn's sources as one more ranking of documents. Measured
            harmful on MTRAG (a follow-up there mostly needs new passages), so 0.
        prior_circumstance: The same prior for a follow-up asking only why, when, how
            long or how often ("why?", "how fast?", « dans quel délai ? »): it asks a
            circumstance of what the previous answer said, whose sources rank first.
        answer_words: Most words taken from the previous answer.
        recurring_words: Most words taken from the past messages.
        recurring_min: Fewest past messages (questions and answers) a word must occur in.
        standalone: Scale of every history variant when the router took the message
            as a standalone question rather than a follow-up.
        rrf_k: The rank offset of reciprocal rank fusion (60, as usual).
        depth: How deep each variant's ranking is read before the fusion, whatever the
            turn keeps (`top_k`, 8 by default): a chunk two variants both rank 9th
            outscores one that only the message ranks 8th, and a ranking cut at the
            turn's 8 never counts it. The weights above were measured on rankings 60
            deep (the retrieval benchmark asks 20 passages, 3 chunks each). Fusing
            rankings cut at 8, the answers benchmark's live turns packed a passage the
            benchmark's replay did not rank in its top 10 for 34 of its 120 answerable
            dev tasks, and a gold passage in the first 5 packed for 103 (the replay's
            top 5: 108); read 60 deep, they pack the replay's ranking (0 and 107).
    """

    question: float = 1.0
    condensed: float = 0.25
    llm: float = 1.0
    translated: float = 1.0
    untranslated: float = 0.25
    typed_content: float = 0.5
    translated_min_share: float = 0.05
    corrected: float = 2.0
    corrected_answer: float = 0.5
    answer: float = 0.5
    recurring: float = 0.25
    prior: float = 0.0
    prior_circumstance: float = 1.0
    answer_words: int = 4
    recurring_words: int = 4
    recurring_min: int = 2
    standalone: float = 1.0
    rrf_k: float = 60.0
    depth: int = 60


DEFAULT_FUSION = FusionConfig()

# Dense models that read French and English alike (`Settings.dense_model`).
_BILINGUAL_DENSE_MODELS = frozenset({"e5-small"})


def fusion_for_embeddings(
    settings: Settings, fusion: FusionConfig = DEFAULT_FUSION
) -> FusionConfig:
    """Return the fusion weights suited to the deployment's dense model.

    A typed message is also searched as its content words (`FusionConfig.typed_content`)
    because an English-only dense model reads a French sentence best without its French
    function words. A model that reads both languages reads the sentence as it is, and
    the content words alone only lose its grammar (multilingual-e5-small on MTRAG-FR dev:
    Recall@5 0.704 without the split, 0.689 with it; turn 1 0.980 and 0.922).

    Args:
        settings: The process settings (embeddings and dense model).
        fusion: The weights asked for.

    Returns:
        `fusion`, without the content-words variant when the dense model is bilingual.
    """
    bilingual = settings.embeddings == "openai" or (
        settings.embeddings in ("hybrid", "dense")
        and settings.dense_model in _BILINGUAL_DENSE_MODELS
    )
    return replace(fusion, typed_content=0.0) if bilingual and fusion.typed_content else fusion
