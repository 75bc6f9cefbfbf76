"""Search results show their scores, and the search says when nothing matches well."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from django.test import Client

from apps.accounts.models import User

pytestmark = pytest.mark.django_db


def test_the_api_gives_each_result_its_retriever_rank_and_matched_terms(
    client: Client, make_user: Callable[..., User], bearer, small_corpus: Path
) -> None:
    data = client.get(
        "/api/search?q=capital of Australia&k=2", headers=bearer(make_user("viewer"))
    ).json()
    assert data["matches_well"] is True and data["weak_reason"] == ""
    first = data["results"][0]
    assert first["bm25_rank"] == 1 and first["dense_rank"] is None
    assert first["similarity"] is None
    assert (first["matched_terms"], first["query_terms"]) == (2, 2)


def test_the_api_says_when_nothing_matches_well_and_why(
    client: Client, make_user: Callable[..., User], bearer, small_corpus: Path
) -> None:
    data = client.get(
        "/api/search?q=Australia volcano eruption", headers=bearer(make_user("viewer"))
    ).json()
    assert data["results"], "a document mentions Australia"
    assert data["matches_well"] is False
    assert data["weak_reason"] == (
        "no result holds more than half of the query's 3 terms (the best holds 1)"
    )


def test_a_search_that_finds_nothing_does_not_match_well(
    client: Client, make_user: Callable[..., User], bearer, small_corpus: Path
) -> None:
    data = client.get("/api/search?q=zyzzyva", headers=bearer(make_user("viewer"))).json()
    assert data["results"] == [] and data["matches_well"] is False


def test_the_search_page_shows_scores_and_warns_only_when_nothing_matches_well(
    client: Client, make_user: Callable[..., User], small_corpus: Path
) -> None:
    client.force_login(make_user("viewer"))
    good = client.get("/corpus/search/?q=capital of Australia").content.decode()
    assert 'data-testid="hit-score"' in good and "2/2 query terms" in good
    assert "BM25 " in good and "Nothing matches well" not in good
    weak = client.get("/corpus/search/?q=Australia volcano eruption").content.decode()
    assert "Nothing matches well" in weak and "1/3 query terms" in weak
    assert "Nothing found." not in weak


def test_the_search_page_says_nothing_found_without_a_weak_warning(
    client: Client, make_user: Callable[..., User], small_corpus: Path
) -> None:
    client.force_login(make_user("viewer"))
    html = client.get("/corpus/search/?q=zyzzyva").content.decode()
    assert "Nothing found." in html and "Nothing matches well" not in html
