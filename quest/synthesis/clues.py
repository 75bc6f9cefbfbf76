"""The kg synthesizer's clues: what a country must satisfy to meet a constraint of a question
("borders Iran", "uses the currency AUD", "more than 10 million people", "exactly 2 neighbours"),
each bound to its value with functools.partial."""

from __future__ import annotations

from quest.synthesis.kg import Country


def figure(c: Country, attribute: str) -> float:
    return c.population if attribute == "population" else c.area


def above(attribute: str, threshold: float, c: Country) -> bool:
    return figure(c, attribute) > threshold


def below(attribute: str, threshold: float, c: Country) -> bool:
    return figure(c, attribute) < threshold


def borders(iso: str, c: Country) -> bool:
    return iso in c.neighbours


def uses(code: str, c: Country) -> bool:
    return c.currency_code == code


def neighbour_count(count: int, c: Country) -> bool:
    return len(c.neighbours) == count
