"""Public holidays of one fixed year (2026) from the `holidays` package, which computes them
from rules (Easter-based, lunar, "first Monday of …"), not from a table.

One page per country (`https://holidays.questweb.local/2026/<iso>`) lists its 2026 national
public holidays in date order. English names are asked for where the package has them; a
country whose holidays it names only in another language is left out, so every page reads in
English. Countries that are no current ISO 3166-1 country are left out too. A holiday is an
entity (`holiday:FR:2026-07-14`; a second holiday on the same day gets `…/2`) joined to its
country. Observed-day substitutes are kept as the package names them ("(observed)").
"""

from __future__ import annotations

from collections import Counter
from datetime import date

from quest.corpus.domains.common import (
    Countries,
    Package,
    Publisher,
    current_countries,
    domain_url,
)
from quest.corpus.domains.model import DomainData, Entity
from quest.corpus.text import number

NAME = "holidays"
PACKAGE = Package("holidays", "holidays", "MIT")
YEAR = 2026
ENGLISH = ("en_US", "en_GB")


def holidays_url(iso: str, year: int = YEAR) -> str:
    return domain_url("holidays", f"{year}/{iso.lower()}")


def build_holidays(fetched_at: str) -> DomainData:
    import holidays  # computes dates from rules; its one dependency is python-dateutil

    data = DomainData(NAME)
    countries = current_countries()
    site = PACKAGE.publisher(f"the holidays package's rules for {YEAR}", fetched_at, "Culture")
    for iso in sorted(code for code in holidays.list_supported_countries() if len(code) == 2):
        if countries.get(iso) is None:
            data.drop(f"holidays of {iso}", "not a current ISO 3166-1 country")
            continue
        calendar = holidays.country_holidays(iso)
        language = _english(calendar.default_language, calendar.supported_languages)
        if language is None:
            data.drop(f"holidays of {iso}", "the package names them in no English form")
            continue
        days = holidays.country_holidays(iso, years=YEAR, language=language or None)
        _country_page(data, iso, sorted(days.items()), countries, site)
    return data


def _english(default: str | None, supported: tuple[str, ...]) -> str | None:
    """The language to ask for: "" (the package's own names) where it has no translations,
    which it writes in English, or its default is English; else an English translation it
    offers; None where it has none."""
    if default is None or default.startswith("en"):
        return ""
    return next((code for code in ENGLISH if code in supported), None)


def _country_page(
    data: DomainData,
    iso: str,
    days: list[tuple[date, str]],
    countries: Countries,
    site: Publisher,
) -> None:
    country, url, entity = countries.by_iso[iso], holidays_url(iso), f"country:{iso}"
    seen: Counter[str] = Counter()
    named = [(day, name.strip()) for day, names in days for name in names.split(";")]
    sentences = [
        f"In {YEAR}, {country.name} has {number(len(named))} public holidays, as computed by "
        "the holidays package."
    ]
    data.fact(entity, "public_holiday_count", len(named), url, qualifier=f"year:{YEAR}")
    for day, name in named:
        seen[day.isoformat()] += 1
        suffix = f"/{seen[day.isoformat()]}" if seen[day.isoformat()] > 1 else ""
        holiday = f"holiday:{iso}:{day.isoformat()}{suffix}"
        sentences.append(f"{name} is a public holiday in {country.name} on {_day(day)}.")
        data.entities.append(Entity(holiday, "holiday", name, url))
        data.link(holiday, "observed_in", entity, url)
        data.fact(holiday, "date", day.isoformat(), url, "date")
        data.fact(holiday, "name", name, url)
    data.documents.append(
        site.page(url, f"Public holidays in {country.name}, {YEAR} (holidays)", sentences)
    )


def _day(day: date) -> str:
    """ "Thursday, 1 January 2026": the weekday too, since a question may ask for it."""
    return f"{day:%A}, {day.day} {day:%B %Y}"
