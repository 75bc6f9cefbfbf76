"""The fixed wording kg reference answers are written in, kept as data.

`CANONICAL` reads a reference sentence back into (subject, relation, value); `CANONICAL_SAY`
writes a claim the same way, for attacks that edit the wording the task was written in.
"""

from __future__ import annotations

# (relation, pattern): each pattern names the groups `s` (subject) and `v` (value); the order
# matters where two patterns could match the same sentence.
CANONICAL: tuple[tuple[str, str], ...] = (
    ("discovery_year", r"^(?P<s>.+?) was discovered in (?P<v>\d{3,4})$"),
    ("discovered_in", r"^(?P<s>.+?) was discovered in (?P<v>.+)$"),
    ("statehood_year", r"^(?P<s>.+?) became a state in (?P<v>\d{4})$"),
    ("subdivision_count", r"^(?P<s>.+?) has (?P<v>[\d,]+) first-level subdivisions in ISO 3166-2$"),
    ("located_in", r"^(?P<s>.+?) is an airport in (?P<v>.+)$"),
    ("atomic_number", r"^The atomic number of (?P<s>.+?) is (?P<v>[\d,]+)$"),
    ("public_holiday_count", r"^In 2026, (?P<s>.+?) has (?P<v>[\d,]+) public holidays$"),
    ("population", r"^The population of (?P<s>.+?) is (?P<v>[\d,]+) according to GeoNames$"),
    ("capital", r"^The capital of (?P<s>.+?) is (?P<v>.+)$"),
    ("city_population", r"^GeoNames records a population of (?P<v>[\d,]+) for (?P<s>.+)$"),
    ("official_language", r"^The official language of (?P<s>.+?) is (?P<v>.+)$"),
    ("official_languages", r"^The official languages of (?P<s>.+?) are (?P<v>.+)$"),
    ("official_in", r"^(?P<s>.+?) is an official language of (?P<v>.+)$"),
    ("currency", r"^The currency of (?P<s>.+?) is (?P<v>.+)$"),
    ("area", r"^The area of (?P<s>.+?) is (?P<v>[\d,.]+) square kilometres according to GeoNames$"),
    ("airport_count", r"^The corpus keeps (?P<v>[\d,]+) airports in (?P<s>.+)$"),
    ("highest_airport", r"^The highest of them is (?P<v>.+?) at (?P<e>[\d,]+) feet$"),
    ("highest_airport", r"^The highest airport in (?P<s>.+?) is (?P<v>.+)$"),
    ("elevation", r"^The elevation of (?P<s>.+?) is (?P<v>[\d,]+) feet above sea level$"),
    ("identity", r"^The country is (?P<v>.+)$"),
    ("most_populous_neighbour", r"^(?P<v>.+?) is the most populous of (?P<s>.+?)'s neighbours$"),
    ("borders", r"^(?P<s>.+?) borders (?P<v>.+)$"),
    ("continent", r"^(?P<s>.+?) is a country in (?P<v>.+)$"),
    ("largest_city", r"^The largest city of (?P<s>.+?) listed by GeoNames is (?P<v>.+)$"),
    ("density", r"^The density of (?P<s>.+?) is (?P<v>[\d,.]+) g/cm³$"),
)

# The reference answer's own sentence for each relation: attacks start from the wording the task
# was written in, so that what they measure is the attack, not a paraphrase.
CANONICAL_SAY: dict[str, str] = {
    "discovery_year": "{s} was discovered in {v}",
    "discovered_in": "{s} was discovered in {v}",
    "statehood_year": "{s} became a state in {v}",
    "subdivision_count": "{s} has {v} first-level subdivisions in ISO 3166-2",
    "located_in": "{s} is an airport in {v}",
    "atomic_number": "The atomic number of {s} is {v}",
    "public_holiday_count": "In 2026, {s} has {v} public holidays",
    "population": "The population of {s} is {v} according to GeoNames",
    "capital": "The capital of {s} is {v}",
    "city_population": "GeoNames records a population of {v} for {s}",
    "official_language": "The official language of {s} is {v}",
    "official_languages": "The official languages of {s} are {v}",
    "official_in": "{s} is an official language of {v}",
    "currency": "The currency of {s} is {v}",
    "area": "The area of {s} is {v} square kilometres according to GeoNames",
    "airport_count": "The corpus keeps {v} airports in {s}",
    "highest_airport": "The highest airport in {s} is {v}",
    "elevation": "The elevation of {s} is {v} feet above sea level",
    "identity": "The country is {v}",
    "most_populous_neighbour": "{v} is the most populous of {s}'s neighbours",
    "borders": "{s} borders {v}",
    "continent": "{s} is a country in {v}",
    "largest_city": "The largest city of {s} listed by GeoNames is {v}",
    "density": "The density of {s} is {v} g/cm³",
}

# Relations whose value is a list ("English and Arabic").
LIST_RELATIONS = frozenset({"official_languages", "borders"})
# Relations whose value is a calendar year: never thousands separators, never number words.
YEAR_RELATIONS = frozenset({"discovery_year", "statehood_year"})


# Names that contain " and " and must not be split when a list is read back.
AND_NAMES: frozenset[str] = frozenset(
    {
        "Bosnia and Herzegovina",
        "Trinidad and Tobago",
        "Antigua and Barbuda",
        "Saint Kitts and Nevis",
        "Saint Vincent and the Grenadines",
        "Sao Tome and Principe",
        "Turks and Caicos Islands",
        "Wallis and Futuna",
        "Saint Pierre and Miquelon",
        "Svalbard and Jan Mayen",
        "Heard Island and McDonald Islands",
        "South Georgia and the South Sandwich Islands",
    }
)
