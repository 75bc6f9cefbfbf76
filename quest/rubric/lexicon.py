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
