"""Languages and where they are spoken, from CLDR's territory data (`supplementalData.xml`) as
shipped in the `language-data` package (read directly; the package is never imported).

CLDR gives, per territory, the share of the population that speaks each language and its
official status (official, de facto official, official in a region). A language gets a page
(`https://languages.questweb.local/<code>`) when it is official somewhere or has at least a
million speakers in one country; each country gets a page listing its languages
(`https://languages.questweb.local/country/<iso>`). Speaker counts are CLDR's share times
CLDR's own population figure for the territory, rounded to three significant figures and
stated as estimates. Script variants (`zh_Hant`, `sr_Latn`) are folded into the language when
CLDR also lists the base language there, else kept under it. Names are ISO 639's, via
pycountry; a code ISO 639 does not know is dropped, as are territories that are no current
country (e.g. Kosovo XK).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from quest.corpus.domains.common import (
    Countries,
    Package,
    Publisher,
    current_countries,
    domain_url,
)
from quest.corpus.domains.model import DomainData, Entity
from quest.corpus.model import CorpusError
from quest.corpus.packages import package_file
from quest.corpus.text import language, listing, number

NAME = "languages"
PACKAGE = Package("language-data", "cldr", "Unicode-3.0 (CLDR data; package MIT)")
MIN_SPEAKERS = 1_000_000
STATUS = {
    "official": ("official_in", "{} is an official language of {}."),
    "de_facto_official": ("de_facto_official_in", "{} is the de facto official language of {}."),
    "official_regional": ("regional_official_in", "{} is official in a region of {}."),
}


@dataclass(frozen=True)
class Usage:
    code: str  # ISO 639 code, script folded away
    territory: str  # ISO 3166-1 alpha-2
    percent: float
    speakers: int
    status: str  # "" or a key of STATUS
    variant: bool  # CLDR's row was a script variant (sr_Latn)


def language_url(code: str) -> str:
    return domain_url("languages", code)


def country_languages_url(iso: str) -> str:
    return domain_url("languages", f"country/{iso.lower()}")


def build_languages(fetched_at: str) -> DomainData:
    data = DomainData(NAME)
    countries = current_countries()
    site = PACKAGE.publisher("CLDR's territory and language data", fetched_at, "Languages")
    usages = _usages(data, countries)
    by_language: dict[str, list[Usage]] = defaultdict(list)
    for usage in usages:
        by_language[usage.code].append(usage)
    kept = {code: us for code, us in by_language.items() if _notable(us)}
    names = _names(kept)
    for code in sorted(kept):
        _language_page(data, code, kept[code], names, countries, site)
    by_country: dict[str, list[Usage]] = defaultdict(list)
    for spoken in kept.values():
        for usage in spoken:
            by_country[usage.territory].append(usage)
    for iso in sorted(by_country):
        _country_page(data, iso, by_country[iso], names, countries, site)
    return data


def _notable(usages: list[Usage]) -> bool:
    return any(u.status or u.speakers >= MIN_SPEAKERS for u in usages)


def _usages(data: DomainData, countries: Countries) -> list[Usage]:
    path = package_file("language_data", "data/supplementalData.xml", pip_name=PACKAGE.pip_name)
    try:
        info = ET.parse(path).getroot().find("territoryInfo")
    except (OSError, ET.ParseError) as exc:
        raise CorpusError(f"{PACKAGE.pip_name}: cannot read supplementalData.xml: {exc}") from None
    chosen: dict[tuple[str, str], Usage] = {}
    for territory in info if info is not None else ():
        iso = str(territory.get("type"))
        if countries.get(iso) is None:
            data.drop(f"territory {iso}", "not a current ISO 3166-1 country")
            continue
        population = int(float(territory.get("population") or 0))
        for spoken in territory.findall("languagePopulation"):
            usage = _usage(data, iso, population, spoken)
            if usage is not None:
                _choose(chosen, usage)
    return list(chosen.values())


def _usage(data: DomainData, iso: str, population: int, spoken: ET.Element) -> Usage | None:
    full = str(spoken.get("type"))
    code = full.split("_", maxsplit=1)[0]
    if language(code) == code:
        data.drop(f"language {full} in {iso}", "ISO 639 does not list the code")
        return None
    percent = float(spoken.get("populationPercent") or 0)
    status = str(spoken.get("officialStatus") or "")
    speakers = _estimate(population * percent / 100)
    return Usage(code, iso, percent, speakers, status, variant="_" in full)


def _choose(chosen: dict[tuple[str, str], Usage], usage: Usage) -> None:
    """The base language's own row wins over a script variant's; among variants, the most
    spoken one."""
    key = (usage.code, usage.territory)
    held = chosen.get(key)
    replaces = held is None or (
        held.variant and (not usage.variant or usage.speakers > held.speakers)
    )
    if replaces:
        chosen[key] = usage


def _estimate(value: float) -> int:
    """Three significant figures: CLDR's shares are estimates, and so are the counts."""
    if value < 1:
        return 0
    return int(float(f"{value:.3g}"))


def _names(codes: Iterable[str]) -> dict[str, str]:
    """ISO 639 names; two languages of one name ("Tonga": to and toi) keep their codes."""
    plain = {code: language(code).rsplit(" (", maxsplit=1)[0] for code in codes}
    shared = Counter(plain.values())
    return {code: name if shared[name] == 1 else language(code) for code, name in plain.items()}


def _language_page(
    data: DomainData,
    code: str,
    usages: list[Usage],
    names: Mapping[str, str],
    countries: Countries,
    site: Publisher,
) -> None:
    name, url, entity = names[code], language_url(code), f"language:{code}"
    data.entities.append(Entity(entity, "language", name, url))
    data.fact(entity, "iso_639_code", code, url)
    ranked = sorted(usages, key=lambda u: (-u.speakers, u.territory))
    sentences = [f"{name} is a language with the ISO 639 code {code}."]
    for status, (relation, template) in STATUS.items():
        where = [u for u in ranked if u.status == status]
        if not where:
            continue
        places = [countries.by_iso[u.territory].name for u in where]
        sentences.append(template.format(name, listing(places)))
        for usage in where:
            data.link(entity, relation, f"country:{usage.territory}", url)
    for usage in ranked:
        country = countries.by_iso[usage.territory]
        data.link(entity, "spoken_in", f"country:{country.iso}", url)
        if usage.speakers:
            sentences.append(
                f"In {country.name}, about {number(usage.speakers)} people speak {name} "
                f"({number(usage.percent)}% of the population)."
            )
            qualifier = f"country:{country.iso}"
            data.fact(entity, "speakers", usage.speakers, url, "people", qualifier=qualifier)
            data.fact(entity, "population_share", usage.percent, url, "%", qualifier=qualifier)
    data.documents.append(site.page(url, f"{name} (language, CLDR)", sentences))


def _country_page(
    data: DomainData,
    iso: str,
    usages: list[Usage],
    names: Mapping[str, str],
    countries: Countries,
    site: Publisher,
) -> None:
    country, url, entity = countries.by_iso[iso], country_languages_url(iso), f"country:{iso}"
    ranked = sorted(usages, key=lambda u: (-u.speakers, u.code))
    sentences = []
    for status, relation in (
        ("official", "official_language"),
        ("de_facto_official", "de_facto_official_language"),
        ("official_regional", "regional_official_language"),
    ):
        listed = [names[u.code] for u in ranked if u.status == status]
        if listed:
            sentences.append(_status_sentence(country.name, status, listed))
        for usage in (u for u in ranked if u.status == status):
            data.link(entity, relation, f"language:{usage.code}", url)
    spoken = [f"{names[u.code]} (about {number(u.speakers)})" for u in ranked if u.speakers]
    if spoken:
        sentences.append(
            f"The languages spoken in {country.name}, by estimated number of speakers, are "
            f"{listing(spoken)}."
        )
    data.documents.append(
        site.page(
            url,
            f"Languages of {country.name} (CLDR)",
            sentences or [f"CLDR lists no major language for {country.name}."],
        )
    )


def _status_sentence(country: str, status: str, names: list[str]) -> str:
    if status == "official_regional":
        return f"Languages official in a region of {country} are {listing(names)}."
    kind = "official" if status == "official" else "de facto official"
    if len(names) == 1:
        return f"The {kind} language of {country} is {names[0]}."
    return f"The {kind} languages of {country} are {listing(names)}."
