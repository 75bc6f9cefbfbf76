"""Words of the grammar, kept as data.

Several natural wordings per relation, labels for lists and tables, name aliases and accent forms
(the reference answers' fixed wording is in canonical.py). Templates use `{s}` for the subject and
`{v}` for the value; the value arrives already formatted (units included where the template has
none).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Wording:
    """How the grammar may say one relation.

    `sentences` are full clauses; `label` heads a bullet list or a table column; `kind` heads
    the subject column; `appositive` is a noun phrase for "Among them is {s}, {appositive}.";
    `unit` follows a bare number in lists and tables ("" for none).
    """

    sentences: tuple[str, ...]
    label: str
    kind: str
    appositive: str
    unit: str = ""
    pronoun_ok: tuple[int, ...] = field(default=())


WORDINGS: dict[str, Wording] = {
    "statehood_year": Wording(
        (
            "{s}'s year of statehood is {v}",
            "{s} was admitted to the Union in {v}",
            "{s} achieved statehood in {v}",
            "{s} joined the Union in {v}",
            "Statehood came to {s} in {v}",
            "{s} entered the Union as a state in {v}",
        ),
        "Year of statehood",
        "State",
        "a state since {v}",
        pronoun_ok=(1, 2, 3, 5),
    ),
    "discovery_year": Wording(
        (
            "{s}'s discovery year is {v}",
            "{s} was first identified in {v}",
            "The discovery of {s} dates to {v}",
            "{s} was discovered in the year {v}",
            "Chemists first described {s} in {v}",
        ),
        "Discovery year",
        "Element",
        "first identified in {v}",
        pronoun_ok=(1, 3),
    ),
    "discovered_in": Wording(
        (
            "{s} was first identified by scientists working in {v}",
            "The discovery of {s} took place in {v}",
            "{s}'s country of discovery is {v}",
            "{v} is the country where {s} was discovered",
        ),
        "Country of discovery",
        "Element",
        "discovered in {v}",
        pronoun_ok=(0,),
    ),
    "atomic_number": Wording(
        (
            "{s} is element number {v}",
            "{s} has {v} protons",
            "{s} has the atomic number {v}",
            "{s}'s atomic number is {v}",
            "{s} is atomic number {v} in the periodic table",
        ),
        "Atomic number",
        "Element",
        "element {v}",
        pronoun_ok=(0, 1, 2),
    ),
    "subdivision_count": Wording(
        (
            "{s} is divided into {v} first-level subdivisions under ISO 3166-2",
            "ISO 3166-2 lists {v} first-level subdivisions for {s}",
            "{s}'s number of first-level ISO 3166-2 subdivisions is {v}",
            "{s} has {v} top-level subdivisions in the ISO 3166-2 standard",
        ),
        "First-level ISO 3166-2 subdivisions",
        "Country",
        "a country with {v} first-level ISO 3166-2 subdivisions",
        pronoun_ok=(0, 3),
    ),
    "located_in": Wording(
        (
            "{s} is located in {v}",
            "{s} lies in {v}",
            "{v} is home to {s}",
            "{s} is an airfield in {v}",
        ),
        "Country",
        "Airport",
        "an airport in {v}",
        pronoun_ok=(0, 1),
    ),
    "public_holiday_count": Wording(
        (
            "{s} observes {v} public holidays in 2026",
            "In 2026, there are {v} public holidays in {s}",
            "{s}'s number of public holidays in 2026 is {v}",
            "The 2026 calendar of {s} has {v} public holidays",
        ),
        "Public holidays in 2026",
        "Country",
        "a country with {v} public holidays in 2026",
        unit="public holidays",
        pronoun_ok=(0,),
    ),
    "population": Wording(
        (
            "{s} has a population of {v} according to GeoNames",
            "GeoNames puts the population of {s} at {v}",
            "{s} is home to {v} people, according to GeoNames",
            "According to GeoNames, {v} people live in {s}",
        ),
        "Population (GeoNames)",
        "Country",
        "a country of {v} people according to GeoNames",
        pronoun_ok=(0, 2),
    ),
    "city_population": Wording(
        (
            "{s} has a population of {v} according to GeoNames",
            "GeoNames lists {v} residents for {s}",
            "According to GeoNames, {v} people live in {s}",
            "{s} is a city of {v} inhabitants, as GeoNames records",
        ),
        "Population (GeoNames)",
        "City",
        "a city of {v} people according to GeoNames",
        pronoun_ok=(0, 3),
    ),
    "capital": Wording(
        (
            "{s}'s capital is {v}",
            "{v} is the capital of {s}",
            "The capital city of {s} is {v}",
            "{s} is governed from its capital, {v}",
        ),
        "Capital",
        "Country",
        "whose capital is {v}",
        pronoun_ok=(0, 3),
    ),
    "official_language": Wording(
        (
            "{s}'s official language is {v}",
            "{v} is the official language of {s}",
            "{s} has a single official language, {v}",
            "In {s}, the official language is {v}",
        ),
        "Official language",
        "Country",
        "whose official language is {v}",
        pronoun_ok=(0, 2),
    ),
    "official_languages": Wording(
        (
            "{s}'s official languages are {v}",
            "{s} recognises {v} as official languages",
            "Official status in {s} belongs to {v}",
            "The languages with official status in {s} are {v}",
        ),
        "Official languages",
        "Country",
        "whose official languages are {v}",
        pronoun_ok=(0, 1),
    ),
    "official_in": Wording(
        (
            "{s} also has official status in {v}",
            "{v} counts {s} among its official languages",
            "{s} is one of the official languages of {v}",
        ),
        "Also official in",
        "Language",
        "also official in {v}",
        pronoun_ok=(0, 2),
    ),
    "currency": Wording(
        (
            "The ISO code of {s}'s currency is {v}",
            "{s} pays in the currency whose ISO 4217 code is {v}",
            "{s}'s currency code is {v}",
            "{s} uses the currency with ISO code {v}",
        ),
        "Currency (ISO code)",
        "Country",
        "whose currency code is {v}",
        pronoun_ok=(1, 3),
    ),
    "area": Wording(
        (
            "{s} covers {v} square kilometres according to GeoNames",
            "GeoNames gives the area of {s} as {v} square kilometres",
            "{s} has an area of {v} km² (GeoNames)",
            "The surface area of {s}, per GeoNames, is {v} square kilometres",
        ),
        "Area (km², GeoNames)",
        "Country",
        "a country of {v} square kilometres according to GeoNames",
        pronoun_ok=(0, 2),
    ),
    "airport_count": Wording(
        (
            "The airport list for {s} holds {v} airports",
            "{v} airports are listed for {s}",
            "{s} has {v} airports in the list",
        ),
        "Airports listed",
        "Country",
        "a country with {v} listed airports",
        pronoun_ok=(2,),
    ),
    "highest_airport": Wording(
        (
            "The highest airport in {s} is {v}",
            "{v} is the highest-lying airport in {s}",
            "Of the airports in {s}, {v} sits highest",
            "{s}'s highest airport is {v}",
        ),
        "Highest airport",
        "Country",
        "whose highest airport is {v}",
        pronoun_ok=(3,),
    ),
    "elevation": Wording(
        (
            "{s} lies {v} feet above sea level",
            "{s} has an elevation of {v} feet",
            "The airport {s} sits at {v} ft above sea level",
            "{s} is {v} feet above sea level",
        ),
        "Elevation (feet)",
        "Airport",
        "at {v} feet above sea level",
        pronoun_ok=(0, 1, 3),
    ),
    "identity": Wording(
        (
            "The country in question is {v}",
            "The country described here is {v}",
            "This description fits {v}",
        ),
        "Country",
        "Answer",
        "the country described",
    ),
    "most_populous_neighbour": Wording(
        (
            "{v} is the most populous country bordering {s}",
            "Among {s}'s neighbours, {v} has the most inhabitants",
            "{s}'s largest neighbour by population is {v}",
            "Of the countries that border {s}, {v} has the largest population",
        ),
        "Most populous neighbour",
        "Country",
        "whose most populous neighbour is {v}",
        pronoun_ok=(),
    ),
    "borders": Wording(
        (
            "{s} shares borders with {v}",
            "{s} is bordered by {v}",
            "The neighbours of {s} are {v}",
            "{s} has land borders with {v}",
        ),
        "Borders",
        "Country",
        "a neighbour of {v}",
        pronoun_ok=(0, 1, 3),
    ),
    "continent": Wording(
        (
            "{s} lies in {v}",
            "{s} is located in {v}",
            "{s} is part of {v}",
            "{s} is a country of {v}",
        ),
        "Continent",
        "Country",
        "a country in {v}",
        pronoun_ok=(0, 1, 2, 3),
    ),
    "largest_city": Wording(
        (
            "{v} is the largest city of {s} according to GeoNames",
            "GeoNames lists {v} as the biggest city in {s}",
            "The most populous city of {s}, per GeoNames, is {v}",
            "{s}'s largest city, as GeoNames lists it, is {v}",
        ),
        "Largest city (GeoNames)",
        "Country",
        "whose largest city is {v}",
        pronoun_ok=(),
    ),
    "density": Wording(
        (
            "{s} has a density of {v} g/cm³",
            "The density of {s} is {v} grams per cubic centimetre",
            "{s} weighs in at {v} g/cm³",
        ),
        "Density (g/cm³)",
        "Element",
        "with a density of {v} g/cm³",
        pronoun_ok=(0, 2),
    ),
}

# Units a bare answer number may carry, by the relation that produced it.
ANSWER_UNITS: dict[str, str] = {
    "public_holiday_count": "public holidays",
    "subdivision_count": "subdivisions",
    "official_languages": "official languages",
    "difference": "years",
    "elevation": "feet",
}

# Other names a reader accepts for the same thing; only "truly natural" ones.
ALIASES: dict[str, tuple[str, ...]] = {
    "United States": ("the United States", "the USA", "the U.S."),
    "United Kingdom": ("the United Kingdom", "the UK"),
    "Czechia": ("the Czech Republic",),
    "Timor Leste": ("East Timor", "Timor-Leste"),
    "New York City": ("New York",),
    "Netherlands": ("the Netherlands",),
    "Philippines": ("the Philippines",),
    "Democratic Republic of the Congo": ("the Democratic Republic of the Congo", "DR Congo"),
    "Republic of the Congo": ("the Republic of the Congo", "Congo-Brazzaville"),
    "Central African Republic": ("the Central African Republic",),
    "Dominican Republic": ("the Dominican Republic",),
    "Ivory Coast": ("Côte d'Ivoire",),
    "Cabo Verde": ("Cape Verde",),
    "Washington": ("Washington, D.C.",),
    "Modern Greek": ("Greek",),
}

# Spelling with accents that a reader takes as the same name as the folded form.
ACCENTED: dict[str, str] = {
    "Yaounde": "Yaoundé",
    "Jonkoping": "Jönköping",
    "Montreal": "Montréal",
    "Bogota": "Bogotá",
    "Reykjavik": "Reykjavík",
    "Asuncion": "Asunción",
    "Sao Paulo": "São Paulo",
    "Sao Tome": "São Tomé",
    "Brasilia": "Brasília",
    "Malmo": "Malmö",
    "Zurich": "Zürich",
    "Nuremberg": "Nürnberg",
    "Lome": "Lomé",
    "Curacao": "Curaçao",
    "Reunion": "Réunion",
    "Quebec": "Québec",
    "Medellin": "Medellín",
    "Cancun": "Cancún",
}

# Padding prose: correct, relevant and committed to nothing new.
PADDING_NOTES: tuple[str, ...] = (
    "I read every cited page in full before writing this summary.",
    "Each figure below was copied from the page cited next to it.",
    "Where two pages were available I kept the one that states the fact most directly.",
    "The figures were checked a second time against the same pages.",
    "No figure in this answer was estimated; all come from the cited pages.",
)
