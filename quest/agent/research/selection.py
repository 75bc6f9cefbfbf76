"""Researching a selection question (research.records) turn by turn: search for the records that
state the question's most telling constraint, read the records that could meet it, check every
constraint against what they state, and answer with the countries that meet them all and the
facts asked, each sentence cited to the record that states it.

Every turn is decided afresh from the conversation (`Reading`), so a resumed or replayed run
decides as the first one did. Nothing is assumed that no record showed: a country is answered
only when the records read state that it meets every constraint, and with fewer than asked
the answer says how many it found.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from quest.agent.prompts import FINAL_MARKER, unwrap_tool_response
from quest.agent.research.notebook import SEARCH_TOOLS, argument_strings
from quest.agent.research.reading import read_search, read_visit
from quest.agent.research.records import Constraint, Record, SelectionQuestion, read_record
from quest.agent.research.report import asks_exact
from quest.corpus.text import listing
from quest.llm.types import Message
from quest.protocol.turns import parse_turn

MAX_SEARCHES = 2
_ASKED = {
    "capital": "its capital",
    "capital_population": "its capital's population",
    "population": "its population",
    "area": "its area",
    "currency": "its currency's code",
    "largest_city": "its largest city",
    "borders": "the countries it borders",
}


@dataclass
class Reading:
    """What the conversation showed: searches run, pages visited, records by address."""

    queries: list[str] = field(default_factory=list)
    visited: set[str] = field(default_factory=set)
    records: dict[str, Record] = field(default_factory=dict)
    order: dict[str, int] = field(default_factory=dict)  # url -> when it was first shown
    titles: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, messages: Sequence[Message]) -> Reading:
        reading, pending = cls(), ""
        for message in messages[2:]:
            content = message.get("content", "")
            if message.get("role") == "assistant":
                turn = parse_turn(content)
                pending = turn.name if turn.kind == "tool_call" else ""
                if pending in SEARCH_TOOLS:
                    reading.queries += argument_strings(turn.arguments, "query")
                elif pending == "visit":
                    reading.visited.update(argument_strings(turn.arguments, "url"))
                continue
            text = unwrap_tool_response(content) if message.get("role") == "user" else None
            if text is None or not pending:
                continue
            if pending in SEARCH_TOOLS:
                for result in read_search(text):
                    reading._add(result.url, result.title, result.snippet, whole=False)
            elif pending == "visit":
                for page in read_visit(text):
                    title = reading.titles.get(page.url) or page.title
                    reading._add(page.url, title, page.evidence, whole=True)
            pending = ""
        return reading

    def _add(self, url: str, title: str, text: str, *, whole: bool) -> None:
        self.order.setdefault(url, len(self.order))
        self.titles.setdefault(url, title)
        record = read_record(url, self.titles[url], text, whole=whole)
        known = self.records.get(url)
        if record is not None and (known is None or not known.whole):
            self.records[url] = record

    @functools.cached_property
    def countries(self) -> dict[str, list[Record]]:
        """Country records by name, in the order they were first shown (read once `of` has
        read the whole conversation)."""
        found: dict[str, list[Record]] = {}
        for record in sorted(self.records.values(), key=lambda r: self.order[r.url]):
            if record.kind in ("country", ""):
                found.setdefault(record.name, []).append(record)
        return {
            name: records
            for name, records in found.items()
            if any(r.kind == "country" for r in records)
        }

    def record_of(self, name: str, *, kind: str = "country") -> Record | None:
        return next(
            (r for r in self.records.values() if r.name == name and r.kind in (kind, "")), None
        )


@dataclass(frozen=True)
class Verdict:
    name: str
    holds: bool | None
    cited: dict[str, Record]  # constraint attribute -> the record that shows it holds


def verdicts(question: SelectionQuestion, reading: Reading) -> list[Verdict]:
    """Each country shown, with whether the records read show it meets every constraint. A
    constraint holds when one of its records shows it (sources may differ: countryinfo keeps an
    older currency code than GeoNames) and fails only when every record showing it says no; a
    hub's record that lists its neighbours shows the border from the other side."""
    hub = _hub_record(question, reading)
    out = []
    for name, records in reading.countries.items():
        cited: dict[str, Record] = {}
        overall: bool | None = True
        for constraint in question.constraints:
            shown = [(r, constraint.holds(r)) for r in records]
            yes = next((r for r, v in shown if v), None)
            if yes is None and constraint.attribute == "borders" and hub and hub.borders:
                yes = hub if name in hub.borders else None
                if yes is None and hub.whole:
                    shown.append((hub, False))
            if yes is not None:
                cited[constraint.attribute] = yes
            elif any(v is False for _, v in shown):
                overall = False
            elif overall:
                overall = None
        if name != _hub_name(question):
            out.append(Verdict(name, overall, cited))
    if hub is not None and hub.borders:  # the hub's neighbours no record has shown yet
        named = {v.name for v in out}
        out += [Verdict(n, None, {"borders": hub}) for n in hub.borders if n not in named]
    return out


@dataclass(frozen=True)
class Step:
    kind: str  # search | visit | answer
    think: str
    arguments: dict[str, object] = field(default_factory=dict)
    answer: str = ""

    def text(self) -> str:
        think = f"<think>\n{self.think}\n</think>\n"
        if self.kind == "answer":
            return f"{think}<answer>\n{self.answer}\n</answer>"
        body = json.dumps({"name": self.kind, "arguments": self.arguments}, ensure_ascii=False)
        return f"{think}<tool_call>\n{body}\n</tool_call>"


def next_step(question: SelectionQuestion, messages: Sequence[Message]) -> Step:
    reading = Reading.of(messages)
    final = bool(messages) and messages[-1].get("content", "").startswith(FINAL_MARKER)
    judged = verdicts(question, reading)
    chosen = [v for v in judged if v.holds][: question.count]
    wants = _wants(question, reading, chosen)
    if final or (len(chosen) >= question.count and not wants):
        return _answer(question, reading, judged)
    if not reading.queries:
        query = first_query(question)
        return Step(
            "search",
            f"{_summary(question)} Search for records that state {query}.",
            {"query": [query]},
        )
    step = _read_next(question, reading, judged, chosen, wants)
    if step is not None:
        return step
    more = [q for q in further_queries(question, reading, judged) if q not in reading.queries]
    if more and len(reading.queries) < MAX_SEARCHES:
        return Step("search", f"Not found yet. Search for {more[0]}.", {"query": [more[0]]})
    return _answer(question, reading, judged)


def first_query(question: SelectionQuestion) -> str:
    """The most telling constraint as a search: a currency code or a neighbour narrows the
    records to a handful; figures and neighbour counts do not, so the continent leads then."""
    continent = question.constraint("continent")
    place = f"country or territory in {continent.value}" if continent else "country or territory"
    for attribute in ("currency", "borders"):
        found = question.constraint(attribute)
        if found is not None:
            return f"{place} {found.phrase()}"
    return f"{place} population area"


def further_queries(
    question: SelectionQuestion, reading: Reading, judged: Sequence[Verdict]
) -> list[str]:
    """Searches for what is still unknown, most needed first: the capital's own record (for
    its population), the hub's record, the records of the hub's neighbours no search has shown."""
    chosen = [v for v in judged if v.holds]
    border = question.constraint("borders")
    hub = _hub_record(question, reading)
    queries = [f"{border.value} country or territory"] if border and hub is None else []
    if hub is not None and hub.borders and len(chosen) < question.count:
        shown = reading.countries
        queries += [f"{n} country or territory" for n in hub.borders if n not in shown]
    if question.single and chosen and "capital_population" in question.asks:
        capital = _fact_record(reading, chosen[0].name, "capital")
        if capital is not None:
            queries.insert(0, f"{capital.capital} {chosen[0].name} city population")
    return queries


def _read_next(
    question: SelectionQuestion,
    reading: Reading,
    judged: Sequence[Verdict],
    chosen: Sequence[Verdict],
    wants: Sequence[str],
) -> Step | None:
    hub = _hub_name(question)
    if hub:
        record = reading.record_of(hub)
        if record is not None and not record.whole and record.url not in reading.visited:
            return _visit(record, f"The record of {hub} lists the countries it borders.")
    for name in wants:  # a chosen country whose record lacks a fact asked
        record = _unread_record(reading, name)
        if record is not None:
            return _visit(record, f"{name} meets the constraints; its record gives the rest.")
    capital = _capital_city(question, reading, chosen)
    if capital is not None:
        return _visit(capital, f"The record of {capital.name} gives its population.")
    if len(chosen) < question.count:
        for verdict in judged:
            record = _unread_record(reading, verdict.name) if verdict.holds is None else None
            if record is not None:
                unknown = _unknown(question, reading, verdict.name)
                return _visit(record, f"{verdict.name} may meet them; its record shows {unknown}.")
    return None


def _wants(question: SelectionQuestion, reading: Reading, chosen: Sequence[Verdict]) -> list[str]:
    """The chosen countries a fact asked is still missing for (single questions only)."""
    if not question.single or not chosen:
        return []
    name = chosen[0].name
    missing = [a for a in question.asks if _fact(reading, name, a) is None]
    return [name] if missing else []


def _fact(reading: Reading, name: str, ask: str) -> tuple[str, Record] | None:
    if ask == "capital_population":
        capital = _fact_record(reading, name, "capital")
        city = reading.record_of(capital.capital, kind="city") if capital else None
        if city is None or city.population is None:
            return None
        return f"The population of {city.name} is {_figure(city.population)}.", city
    record = _fact_record(reading, name, ask)
    if record is None:
        return None
    sentence = {
        "capital": f"The capital of {name} is {record.capital}.",
        "population": f"The population of {name} is {_figure(record.population)}.",
        "area": f"The area of {name} is {_figure(record.area)} square kilometres.",
        "currency": f"The currency of {name} has the ISO code {listing(list(record.currencies))}.",
        "largest_city": f"The largest city of {name} is {record.largest_city}.",
        "borders": f"{name} borders {listing(list(record.borders or ()))}.",
    }[ask]
    return sentence, record


def _fact_record(reading: Reading, name: str, ask: str) -> Record | None:
    attribute = {"currency": "currencies"}.get(ask, ask)
    records = reading.countries.get(name, [])
    ranked = sorted(records, key=lambda r: (r.source != "GeoNames", not r.whole))
    return next((r for r in ranked if getattr(r, attribute) not in (None, "", ())), None)


def _capital_city(
    question: SelectionQuestion, reading: Reading, chosen: Sequence[Verdict]
) -> Record | None:
    if not (question.single and chosen and "capital_population" in question.asks):
        return None
    if _fact(reading, chosen[0].name, "capital_population") is not None:
        return None
    capital = _fact_record(reading, chosen[0].name, "capital")
    if capital is None:
        return None
    shown = [
        r
        for r in reading.records.values()
        if r.name == capital.capital and r.kind in ("city", "") and r.url not in reading.visited
    ]
    return shown[0] if shown else None


def _unread_record(reading: Reading, name: str) -> Record | None:
    records = [r for r in reading.countries.get(name, []) if r.url not in reading.visited]
    records.sort(key=lambda r: (r.source != "GeoNames", reading.order[r.url]))
    return records[0] if records else None


def _unknown(question: SelectionQuestion, reading: Reading, name: str) -> str:
    records = reading.countries.get(name, [])
    unknown = [c.phrase() for c in question.constraints if all(c.holds(r) is None for r in records)]
    return listing(unknown) or "the rest"


def _hub_name(question: SelectionQuestion) -> str:
    border = question.constraint("borders")
    return str(border.value) if border is not None else ""


def _hub_record(question: SelectionQuestion, reading: Reading) -> Record | None:
    hub = _hub_name(question)
    if not hub:
        return None
    records = [r for r in reading.countries.get(hub, []) if r.borders is not None]
    return records[0] if records else None


def _visit(record: Record, why: str) -> Step:
    goal = f"the record of {record.name}"
    return Step("visit", f"{why} Read '{record.title}'.", {"url": [record.url], "goal": goal})


def _summary(question: SelectionQuestion) -> str:
    wanted = "the country" if question.single else f"{question.count} countries"
    return f"Find {wanted}: {'; '.join(c.phrase() for c in question.constraints)}."


# -- the answer -------------------------------------------------------------------------------
def _answer(question: SelectionQuestion, reading: Reading, judged: Sequence[Verdict]) -> Step:
    """The countries every constraint was shown to hold for; short of the count asked, the
    ones no record contradicts follow, named as not fully checked."""
    sources: dict[str, int] = {}
    chosen = [v for v in judged if v.holds][: question.count]
    unchecked = [v for v in judged if v.holds is None][: question.count - len(chosen)]

    def cite(sentence: str, record: Record) -> str:
        number = sources.setdefault(record.url, len(sources) + 1)
        return f"{sentence.rstrip('.')} [{number}]."

    names = [v.name for v in chosen]
    findings: list[str] = []
    for verdict in [*chosen, *unchecked]:
        for constraint in question.constraints:
            record = verdict.cited.get(constraint.attribute)
            if record is not None:
                findings.append(
                    cite(_constraint_sentence(constraint, verdict.name, record), record)
                )
    picked = [*chosen, *unchecked]
    if question.single and picked:
        for ask in question.asks:
            found = _fact(reading, picked[0].name, ask)
            if found is not None:
                findings.append(cite(*found))
    maybe = [v.name for v in unchecked]
    # The answer names its best candidates plainly (the thinking says which were not fully
    # checked): a hedged answer is scored as no answer (quest.rubric.cues).
    every = names + maybe
    if not every:
        head = "No country found: no record read shows one that meets every constraint."
    elif len(every) < question.count:
        head = f"{listing(every)} (found {len(every)} of the {question.count} asked)."
    else:
        head = f"{listing(every)}."
    lines = [f"**Answer:** {head}", ""]
    lines += [" ".join(findings)] if findings else []
    lines += _exact_line(question, every)
    if sources:
        lines += ["", "## Sources"]
        lines += [f"{n}. {reading.titles.get(url, url)} - {url}" for url, n in sources.items()]
    missing = [
        _ASKED[a] for a in question.asks if picked and _fact(reading, picked[0].name, a) is None
    ]
    think = f"{_summary(question)} Found: {listing(names) or 'none'}."
    if maybe:
        think += f" Not fully checked: {listing(maybe)}."
    if missing:
        think += f" Not found: {listing(missing)}."
    return Step("answer", think, answer="\n".join(lines).strip())


def _exact_line(question: SelectionQuestion, names: Sequence[str]) -> list[str]:
    """The committed answer's line, where the question asks for one (quest.rubric.commitment)."""
    return ["", f"Exact answer: {'; '.join(names)}"] if names and asks_exact(question.text) else []


def _constraint_sentence(constraint: Constraint, name: str, record: Record) -> str:
    attribute = constraint.attribute
    if attribute == "borders" and record.name != name:
        return f"{record.name} borders {name}."  # the hub's record, from the other side
    figure = record.population if attribute == "population" else record.area
    return {
        "continent": f"{name} is a country in {constraint.value}.",
        "currency": f"The currency of {name} has the ISO code {constraint.value}.",
        "borders": f"{name} borders {constraint.value}.",
        "neighbours": f"{name} borders {listing(list(record.borders or ()))}.",
        "population": f"The population of {name} is {_figure(figure)}.",
        "area": f"The area of {name} is {_figure(figure)} square kilometres.",
    }[attribute]


def _figure(value: float | None) -> str:
    if value is None:
        return "?"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,}"
