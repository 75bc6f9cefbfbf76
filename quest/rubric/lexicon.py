"""Data the reader of answers needs, kept apart from the code that reads: the generic head nouns
a name may drop ("Matsumoto" for "Matsumoto Airport", "Romanian" for "Romanian language"), and
the unit words a committed number may carry beside the question's own words."""

from __future__ import annotations

# A committed name may leave out its generic head noun when what is left is no other candidate.
GENERIC_HEADS = (
    "international airport",
    "regional airport",
    "municipal airport",
    "airport",
    "airfield",
    "aerodrome",
    "language",
    "languages",
    "element",
)
# Unit words a committed number may carry ("1,516 feet", "57 years"): the question's own words
# count too (quest.rubric.checks).
UNIT_WORDS = frozenset(
    [
        "feet",
        "foot",
        "ft",
        "metres",
        "meters",
        "metre",
        "meter",
        "m",
        "km",
        "km2",
        "km²",
        "kilometres",
        "kilometers",
        "square",
        "sq",
        "miles",
        "mi",
        "people",
        "persons",
        "inhabitants",
        "residents",
        "years",
        "year",
        "days",
        "holidays",
        "public",
        "subdivisions",
        "first-level",
        "level",
        "airports",
        "languages",
        "elements",
        "countries",
        "states",
        "items",
        "members",
        "percent",
    ]
)

# The wordings of a relation beside the tree's own context word: the question's wording and its
# usual synonyms ("year of statehood", "admitted to the Union", "discovery year", "element
# number", "above sea level"). A value counts where its clause says one of them.
CONTEXT_SYNONYMS: dict[str, tuple[str, ...]] = {
    "state": (
        "statehood",
        "admitted",
        "admission",
        "union",
        "states",
        "joined",
        "entered",
    ),
    "discovered": (
        "discovery",
        "discover",
        "discovering",
        "discoverer",
        "discoverers",
        "identified",
        "isolated",
        "first found",
        "found",
        "detected",
        "first observed",
        "first synthesized",
        "first synthesised",
        "synthesized",
        "synthesised",
    ),
    "atomic": ("element number", "protons", "proton number", "atomic no", "z"),
    "holidays": ("holiday", "bank holidays", "days off", "public holiday", "national holidays"),
    "subdivisions": (
        "subdivision",
        "first level",
        "provinces",
        "regions",
        "divisions",
        "administrative divisions",
    ),
    "highest": (
        "elevation",
        "above sea level",
        "altitude",
        "feet",
        "ft",
        "highest elevation",
        "loftiest",
        "tallest",
    ),
    "capital": ("seat of government", "capital city"),
    "currency": ("iso 4217", "money", "legal tender", "monetary unit", "currency code"),
    "official": ("official language", "official languages", "officially", "co official"),
    "language": ("languages", "tongue", "spoken"),
    "airport": ("airfield", "aerodrome", "serves", "located", "lies", "situated", "based"),
    "area": ("surface", "size", "spans", "km2", "sq km", "square miles", "covers"),
    "population": ("populace", "population of", "people living", "citizens", "home to"),
    "largest": ("most populous", "biggest", "largest city", "most people"),
}
