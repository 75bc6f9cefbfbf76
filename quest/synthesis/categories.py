"""A task's QUEST category and subcategory (QUEST-SPEC §3), from the domains of its facts.

The category follows the task's *topic*: the domain of what its committed answer is (the end of
a chain, the figure a comparison ranks by, the date an order is about), never the framing
sentence, which may only vary the wording. `provenance.domains` lists every domain a task's
facts come from, in the order the task meets them.

    topic                         category                 subcategory
    countries                     Misc.                    General Info.
    subdivisions                  Misc.                    Legal & Government Services
    elements (properties)         Science & Research       Technology & Science
    elements (discovery)          Science & Research       Research & Academia
    airports                      Travel & Transportation  Travel & Accommodation
    holidays                      Lifestyle & Leisure      Shopping
    languages                     Entertainment            Books & Reading
    us_states                     Career & Education       Education & Learning

Why these: a country's capital, currency and borders are general reference; ISO 3166-2
subdivisions are administrative units; an element's density or weight is science, its discovery
the history of research; airports and their elevations are what a traveller looks up; public
holidays are the days shops close; the language of a country is the language its books are
read in; state capitals and statehood years are civics lessons. Six of QUEST's categories get
at least one topic, so a batch spread over these subcategories covers them all.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from quest.synthesis.facts import Draft
from quest.synthesis.seeds import CATEGORY_OF

TOPICS: dict[str, str] = {
    "countries": "General Info.",
    "subdivisions": "Legal & Government Services",
    "elements": "Technology & Science",
    "elements.discovery": "Research & Academia",
    "airports": "Travel & Accommodation",
    "holidays": "Shopping",
    "languages": "Books & Reading",
    "us_states": "Education & Learning",
}
# The domain a page belongs to, by its host (quest.corpus.domains; GeoNames and countryinfo
# pages are the countries domain).
HOSTS: dict[str, str] = {
    "elements.questweb.local": "elements",
    "airports.questweb.local": "airports",
    "languages.questweb.local": "languages",
    "us-states.questweb.local": "us_states",
    "holidays.questweb.local": "holidays",
    "subdivisions.questweb.local": "subdivisions",
}


COUNTRY_HOSTS = frozenset({"www.geonames.org", "countryinfo.questweb.local"})


def domain_of_url(url: str) -> str:
    """The data domain of a page, "" for a page of none (a Wikipedia page: evidence for a fact
    of whatever domain its task is about)."""
    host = urlsplit(url).hostname or ""
    return "countries" if host in COUNTRY_HOSTS else HOSTS.get(host, "")


def topics_of(subcategory: str) -> list[str]:
    """The topics whose tasks belong to `subcategory` (none: it is no kg subcategory)."""
    return [t for t, s in TOPICS.items() if s == subcategory]


def categorise(draft: Draft) -> tuple[str, str, list[str]]:
    """(category, subcategory, domains) of a draft, from its topic and its facts' pages."""
    subcategory = TOPICS[draft.topic]
    found = [*draft.domains, *(domain_of_url(f.url) for f in draft.facts if f.url)]
    domains = [domain for domain in dict.fromkeys(found) if domain]
    return CATEGORY_OF[subcategory], subcategory, domains
