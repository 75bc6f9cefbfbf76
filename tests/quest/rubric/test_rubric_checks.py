from __future__ import annotations

import time

import pytest

from quest.rubric import Check, CheckContext, Document, InMemoryDocumentStore, run_check

WIKI = "https://en.wikipedia.org/wiki/Eiffel_Tower"
STORE = InMemoryDocumentStore(
    [
        Document(
            WIKI,
            "Eiffel Tower",
            "The tower is 330 metres (1,083 ft) tall. It opened on 31 March 1889.",
        ),
        Document("https://example.org/other", "Other", "Nothing relevant here."),
    ]
)


def verdict(kind: str, answer: str, store: InMemoryDocumentStore | None = None, **params: object):
    return run_check(Check(kind, params), CheckContext(answer=answer, store=store))  # type: ignore[arg-type]


# -- mentions and one_of -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    ["It is in SÃO PAULO.", "it is in sao-paulo", "São  Paulo!", "in  são\npaulo, brazil"],
)
def test_mentions_ignores_case_accents_punctuation_and_spacing(answer: str) -> None:
    assert verdict("mentions", answer, value="São Paulo").status == "pass"


def test_mentions_matches_whole_words_only() -> None:
    assert verdict("mentions", "Parisian cafes", value="Paris").status == "fail"


def test_mentions_accepts_aliases_and_quotes_the_original_text() -> None:
    result = verdict(
        "mentions", "The capital, Paname, is lovely.", value="Paris", aliases=["Paname"]
    )
    assert result.status == "pass"
    assert "Paname" in result.evidence.quote
    assert result.judge == "check:mentions"


def test_mentions_failure_says_what_was_missing() -> None:
    assert verdict("mentions", "Lyon", value="Paris").reasoning == "'Paris' is not stated"


def test_mentions_can_look_in_the_cited_pages() -> None:
    answer = f"See [the article]({WIKI})."
    result = verdict("mentions", answer, STORE, value="1,083 ft", scope="cited_pages")
    assert result.status == "pass"
    assert result.evidence.url == WIKI


def test_reading_cited_pages_without_a_store_is_an_error_not_a_failure() -> None:
    assert verdict("mentions", f"[x]({WIKI})", value="x", scope="cited_pages").status == "error"


def test_one_of_passes_on_any_value_and_exclusive_refuses_several() -> None:
    assert verdict("one_of", "We chose Spain.", values=["France", "Spain"]).status == "pass"
    assert (
        verdict("one_of", "Spain or France.", values=["France", "Spain"], exclusive=True).status
        == "fail"
    )
    assert verdict("one_of", "Italy.", values=["France", "Spain"]).status == "fail"


def test_at_most_fails_an_answer_that_names_every_candidate() -> None:
    candidates = ["France", "Spain", "Italy", "Portugal", "Greece"]
    honest = verdict("at_most", "France and Spain.", values=candidates, most=3, list=True)
    assert honest.status == "pass" and "states 2 of the candidates" in honest.reasoning
    padded = verdict(
        "at_most",
        "France, Spain, Italy, Portugal and Greece.",
        values=candidates,
        most=3,
        list=True,
    )
    assert padded.status == "fail" and "more than the 3 allowed" in padded.reasoning
    # A name the answer denies is not one it states.
    denied = verdict(
        "at_most",
        "France and Spain; not Italy, not Portugal.",
        values=candidates,
        most=3,
        list=True,
    )
    assert denied.status == "pass"


# -- numbers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "value", "params"),
    [
        ("It is 1,083 ft tall.", 1083, {}),
        ("about 1\u00a0083 ft", 1083, {}),
        ("Share: 66.7%.", 66.7, {}),
        ("roughly 67 percent", 66.7, {}),
        ("exactly 66.7", 67, {}),
        ("2.3 million people", 2_300_000, {}),
        ("1.2 million visitors", 1_234_567, {}),
        ("it costs $4,999.99", 5000, {"tolerance_abs": 0.5}),
        ("grew 10.4%", 10, {"tolerance_rel": 0.05}),
        ("a temperature of -3 C", -3, {}),
    ],
)
def test_number_matches_despite_separators_units_and_rounding(
    answer: str, value: float, params: dict
) -> None:
    assert verdict("number", answer, value=value, **params).status == "pass"


@pytest.mark.parametrize(
    ("answer", "value"),
    [
        ("It is 1,084 ft.", 1083),
        ("in 2019", 2020),
        ("about 2 thousand", 1500),
        ("5", 4.6),
        ("v1.2.3", 2),
    ],
)
def test_number_refuses_other_values(answer: str, value: float) -> None:
    assert verdict("number", answer, value=value).status == "fail"


def test_number_quotes_the_sentence_it_found() -> None:
    result = verdict("number", "The tower is 330 metres tall.", value=330)
    assert result.evidence.quote == "The tower is 330 metres tall."


# -- dates -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "Opened 1889-03-31.",
        "Opened March 31, 1889.",
        "Opened 31 March 1889.",
        "opened Mar. 31st, 1889",
        "31st of March 1889",
    ],
)
def test_date_reads_common_formats(answer: str) -> None:
    assert verdict("date", answer, value="1889-03-31").status == "pass"


def test_date_value_at_month_precision_accepts_any_day_of_it() -> None:
    assert verdict("date", "on 5 March 2024", value="2024-03").status == "pass"
    assert verdict("date", "in 2024", value="2024-03").status == "fail"


def test_date_ranges_are_inclusive() -> None:
    assert (
        verdict("date", "published in June 2023", after="2023-01-01", before="2023-12-31").status
        == "pass"
    )
    assert verdict("date", "published in 2022", after="2023").status == "fail"
    assert verdict("date", "published 2023-12-31", before="2023").status == "pass"


def test_impossible_dates_are_not_dates() -> None:
    assert verdict("date", "on 2024-02-30", value="2024-02").status == "fail"


# -- regex -------------------------------------------------------------------------------------


def test_regex_matches_and_quotes_the_claim_it_matched_in() -> None:
    answer = "Filed in 2023. Patent US 11,234,567 B2 covers lidar."
    result = verdict("regex", answer, pattern=r"US\s[\d,]+\sB\d")
    assert (result.status, result.evidence.quote) == (
        "pass",
        "Patent US 11,234,567 B2 covers lidar.",
    )


@pytest.mark.parametrize("pattern", [r"a*a*a*b", r"(a|aa)*c", r"(x+x+)+y", r"(\w+\s?)*!"])
def test_catastrophic_regexes_finish_quickly_or_error_never_hang(pattern: str) -> None:
    started = time.perf_counter()
    result = verdict("regex", "a" * 20_000 + " " + "x" * 5_000 + " word" * 2_000, pattern=pattern)
    assert result.status in ("fail", "error")
    assert time.perf_counter() - started < 2


def test_regex_can_ignore_case() -> None:
    assert verdict("regex", "PARIS", pattern="paris", ignore_case=True).status == "pass"


# -- citations ---------------------------------------------------------------------------------


def test_cites_url_accepts_any_citation_when_no_url_is_given() -> None:
    assert verdict("cites_url", f"Tall [1].\n\n[1] {WIKI}").status == "pass"
    assert verdict("cites_url", "Tall, trust me.").status == "fail"


def test_cites_url_matches_normalised_urls_and_bare_hosts() -> None:
    answer = "See [here](http://www.en.wikipedia.org/wiki/Eiffel_Tower/#history)."
    assert verdict("cites_url", answer, urls=[WIKI]).status == "pass"
    assert verdict("cites_url", answer, urls=["wikipedia.org"]).status == "pass"
    assert verdict("cites_url", answer, urls=["britannica.com"]).status == "fail"


def test_source_supports_passes_when_the_page_cited_next_to_the_value_states_it() -> None:
    result = verdict(
        "source_supports", f"The tower is 330 m tall [1].\n\n[1]: {WIKI}", STORE, value=330
    )
    assert result.status == "pass"
    assert result.evidence.url == WIKI and "330 metres" in result.evidence.quote


def test_source_supports_fails_without_a_citation_next_to_the_value() -> None:
    answer = f"The tower is 330 m tall. Source: elsewhere.\n\nMore at [wiki]({WIKI})."
    assert (
        verdict("source_supports", answer, STORE, value=330).reasoning
        == "no citation in the claims that state 330"
    )


def test_source_supports_fails_when_the_page_does_not_state_the_value() -> None:
    answer = "The tower is 330 m tall ([x](https://example.org/other))."
    assert verdict("source_supports", answer, STORE, value=330).status == "fail"


def test_source_supports_counts_an_unreachable_page_as_unsupported() -> None:
    result = verdict(
        "source_supports",
        "It opened in 1889 ([x](https://gone.example/page)).",
        STORE,
        value="1889",
    )
    assert result.status == "fail"
    assert "unreachable" in result.reasoning


def test_source_supports_without_a_store_is_an_error() -> None:
    assert verdict("source_supports", f"330 m [x]({WIKI})", value=330).status == "error"


# -- what a policy would try: every kind reads claims, not strings ------------------------------


@pytest.mark.parametrize(
    ("kind", "answer", "params"),
    [
        ("mentions", "It is Lyon, not Paris.", {"value": "Paris"}),
        ("mentions", "Paris is not the capital.", {"value": "Paris"}),
        ("mentions", "It could be Lyon, Paris, Nice or Lille.", {"value": "Paris"}),
        ("mentions", "Is it Paris?", {"value": "Paris"}),
        ("mentions", "Lyon is the capital; other cities include Nice, Paris and Lille.",
         {"value": "Paris"}),
        ("mentions", "Paris is a lovely city.", {"value": "Paris", "context": ["capital"]}),
        ("mentions", "See https://en.wikipedia.org/wiki/Paris for details.", {"value": "Paris"}),
        ("mentions", '<span style="display:none">Paris</span> is the capital.',
         {"value": "Paris"}),
        ("mentions", "<span hidden>The capital is Paris.</span>", {"value": "Paris"}),
        ("one_of", "It is France or Spain.", {"values": ["France", "Spain"]}),
        ("one_of", "Spain borders France.", {"values": ["France", "Portugal"], "at_least": 2,
                                             "list": True}),
        ("number", "It is between 300 and 400 metres tall.", {"value": 330}),
        ("number", "It is 300, 330 or 360 metres tall.", {"value": 330}),
        ("number", "It is more than 330 metres tall.", {"value": 330}),
        ("number", "It is not 330 metres tall.", {"value": 330}),
        ("date", "It opened between 1887 and 1890.", {"value": "1889"}),
        ("date", "It opened in 1888 or 1889.", {"value": "1889"}),
        ("regex", "Do not apply butter to a burn.", {"pattern": "apply butter"}),
    ],
)  # fmt: skip
def test_negated_hedged_listed_ranged_and_hidden_values_fail_every_check_kind(
    kind: str, answer: str, params: dict
) -> None:
    result = verdict(kind, answer, **params)
    assert result.status == "fail", result.reasoning


@pytest.mark.parametrize(
    ("kind", "answer", "params"),
    [
        ("mentions", "It is Paris, not Lyon.", {"value": "Paris"}),
        ("mentions", "It is not true that Paris is not the capital.", {"value": "Paris"}),
        ("mentions", "Paris (not Lyon) is the capital.",
         {"value": "Paris", "context": ["capital"]}),
        ("one_of", "Spain and Portugal both border France.",
         {"values": ["Spain", "Portugal"], "at_least": 2, "list": True, "context": ["border"]}),
        ("number", "It is 330 m (1,083 ft) tall, not 300 m.", {"value": 330}),
        ("date", "It opened on 31 March 1889, not in 1887.", {"value": "1889-03-31"}),
        ("regex", "Never use ice. Apply butter? No: cool it under running water.",
         {"pattern": "running water"}),
    ],
)  # fmt: skip
def test_affirmative_claims_still_pass_beside_denials_and_double_negatives(
    kind: str, answer: str, params: dict
) -> None:
    result = verdict(kind, answer, **params)
    assert result.status == "pass", result.reasoning
    assert result.evidence.quote  # the claim it rests on


def test_a_failure_names_why_each_mention_did_not_count() -> None:
    result = verdict("mentions", "It is Lyon, not Paris.", value="Paris")
    assert result.reasoning == (
        "'Paris' appears only where the answer does not commit to it: negated by \"not\" in "
        '"It is Lyon, not Paris."'
    )


def test_a_raw_regex_reads_markup_and_urls_for_format_checks() -> None:
    answer = f"See [the tower]({WIKI})."
    assert verdict("regex", answer, pattern=r"wikipedia\.org", raw=True).status == "pass"
    assert verdict("regex", answer, pattern=r"wikipedia\.org").status == "fail"


def test_source_supports_needs_a_committing_claim_and_the_relation_on_its_page() -> None:
    denied = f"The tower is not 330 metres tall [1].\n\n[1] {WIKI}"
    assert verdict("source_supports", denied, STORE, value=330).status == "fail"
    other_fact = f"The tower's lift is 330 metres long [1].\n\n[1] {WIKI}"
    result = verdict("source_supports", other_fact, STORE, value=330)
    assert result.status == "fail" and "no cited page states 330" in result.reasoning


def test_forty_slow_regex_leaves_share_one_budget_for_the_whole_answer() -> None:
    ctx = CheckContext(answer="a" * 60_000)
    slow = Check("regex", {"pattern": r"(a+)+b"})  # refused at validation; run here anyway
    verdicts = [run_check(slow, ctx) for _ in range(40)]
    assert all(v.status == "error" for v in verdicts)
    assert "regex time (1 s) is spent" in verdicts[-1].reasoning
    assert ctx.regex_seconds <= 0


def test_a_context_in_another_clause_about_another_entity_does_not_count() -> None:
    answer = "Sydney is the capital, not Canberra; 367,752 people live in Canberra."
    assert verdict("mentions", answer, value="Canberra", context=["capital"]).status == "fail"


def test_a_table_row_carries_its_header_as_the_context() -> None:
    answer = "| Question | Answer |\n|---|---|\n| Capital | Canberra |\n| Largest city | Sydney |"
    assert verdict("mentions", answer, value="Canberra", context=["capital"]).status == "pass"
    assert verdict("mentions", answer, value="Sydney", context=["capital"]).status == "fail"
