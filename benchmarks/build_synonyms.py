"""Build `threadline/text/lexicons/en_synonyms.txt`: English synonym pairs, two readings agreeing.

No synonym resource ships its data in a wheel (WordNet readers such as `wn` and `nltk`
download theirs at run time), so the pairs are read off what the project has: two English
words the bilingual lexicon gives as translations of one French word (among its first
three, most common senses first: "acheté = bought purchased") are kept when the bundled
MiniLM also places them close (cosine of the words' embeddings at least `MIN_COSINE`).
Either reading alone is noisy (a French word's senses: "veine = vein luck"; an embedding's
neighbours: "buy" / "sell"); a pair both readings give names one thing. No benchmark
question or passage is read.

`python -m benchmarks.build_synonyms` rewrites the file (needs sentence-transformers and the
bundled MiniLM; a minute on two cores).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

LEXICONS = Path(__file__).resolve().parents[1] / "src" / "threadline" / "text" / "lexicons"
SOURCES = ("fr_en.txt", "fr_en_general.txt")
SENSES = 3
"""Translations of one French word read: the first, most common senses."""
MIN_COSINE = 0.6
HEADER = """\
# English synonym pairs, one a line, built by `python -m benchmarks.build_synonyms`:
# two English words fr_en.txt or fr_en_general.txt give as translations of one French word
# (among its first three), which the bundled MiniLM also places close (cosine >= 0.6).
# Read by the offline answer's choice of passages and sentences only
# (threadline.text.matching.matches_synonym), never by the evidence check.
"""


def translation_pairs() -> list[tuple[str, str]]:
    """Return the pairs of English words the lexicon gives for one French word."""
    pairs: set[tuple[str, str]] = set()
    for name in SOURCES:
        for line in (LEXICONS / name).read_text(encoding="utf-8").splitlines():
            if line.startswith("#") or " = " not in line:
                continue
            words = line.split(" = ", 1)[1].split()[:SENSES]
            for a, b in itertools.combinations(words, 2):
                if a != b and a.isalpha() and b.isalpha():
                    pairs.add((min(a.lower(), b.lower()), max(a.lower(), b.lower())))
    return sorted(pairs)


def main() -> None:
    """Write the pairs both readings agree on."""
    from sentence_transformers import SentenceTransformer

    from threadline.knowledge.embeddings import bundled_minilm_path

    pairs = translation_pairs()
    words = sorted({w for pair in pairs for w in pair})
    model = SentenceTransformer(str(bundled_minilm_path()), device="cpu")
    vectors = np.asarray(model.encode(words, batch_size=256, normalize_embeddings=True))
    index = {w: i for i, w in enumerate(words)}
    kept = [(a, b) for a, b in pairs if float(vectors[index[a]] @ vectors[index[b]]) >= MIN_COSINE]
    body = "".join(f"{a} {b}\n" for a, b in kept)
    (LEXICONS / "en_synonyms.txt").write_text(HEADER + body, encoding="utf-8")
    print(f"{len(kept)} of {len(pairs)} pairs kept")  # noqa: T201


if __name__ == "__main__":
    main()
