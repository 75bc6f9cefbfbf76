"""What an attacker or a careless user sends (issue 11, item 4): values PostgreSQL cannot store,
javascript: links and bodies over the size limit. Each is refused with a status and a reason, and
no page breaks afterwards."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.template import Context, Template
from django.test import Client

from apps.accounts.models import User
from apps.rubrics.models import Task
from apps.rubrics.services import task_prepare, tasks_write
from tests.rubrics.conftest import small_tree

pytestmark = pytest.mark.django_db

NAN, INF, SURROGATE, NUL = float("nan"), float("inf"), "Canberra \ud800", "Canberra\x00"


def _task(**fields: Any) -> Task:
    record = {"question": "Which city is the capital of Australia?", "rubric": small_tree()}
    [task] = tasks_write(user=None, prepared=[task_prepare({**record, **fields})], note="test")
    return task


def _post_json(client: Client, path: str, body: Any, headers: dict[str, str]) -> Any:
    # json.dumps writes NaN and Infinity bare and a lone surrogate as a "\ud800" escape.
    return client.post(path, json.dumps(body), content_type="application/json", headers=headers)


def _pages_still_load(client: Client, viewer: User, task: Task) -> None:
    client.force_login(viewer)
    for path in ("/tasks/", f"/tasks/{task.pk}/", "/api/tasks", f"/api/tasks/{task.pk}"):
        assert client.get(path).status_code == 200, path


def _tree(description: Any) -> dict[str, Any]:
    tree = small_tree()
    tree["root"]["children"][1]["description"] = description
    return tree


BAD_TASKS = [
    ({"question": SURROGATE}, "question holds a lone surrogate (\\ud800)"),
    ({"question": NAN}, "question is NaN: numbers must be finite"),
    ({"solution": {"Canberra": {"description": SURROGATE}}}, "solution.Canberra.description"),
    ({"solution": {"Canberra": {"score": NAN}}}, "solution.Canberra.score is NaN"),
    ({"solution": SURROGATE}, "solution holds a lone surrogate"),
    ({"provenance": {"batch": SURROGATE}}, "provenance.batch holds a lone surrogate"),
    ({"provenance": {"line": INF}}, "provenance.line is Infinity"),
    ({"reference_answer": SURROGATE}, "reference_answer holds a lone surrogate"),
    ({"reference_answer": NUL}, "reference_answer holds a NUL character"),
    ({"rubric": _tree(SURROGATE)}, "rubric.root.children[1].description holds a lone surrogate"),
    ({"rubric": _tree(NAN)}, "rubric.root.children[1].description is NaN"),
]


@pytest.mark.parametrize(("fields", "message"), BAD_TASKS)
def test_a_new_task_with_a_value_postgresql_cannot_store_is_a_422_naming_the_field(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    fields: dict[str, Any],
    message: str,
) -> None:
    existing = _task()
    record = {"question": "Which city is the capital of Australia?", "rubric": small_tree()}
    response = _post_json(client, "/api/tasks", {**record, **fields}, bearer(make_user("admin")))
    assert response.status_code == 422
    assert response.json()["detail"].startswith(message)
    assert Task.objects.count() == 1
    _pages_still_load(client, make_user("viewer"), existing)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t["root"].update(description=SURROGATE), "tree.root.description holds a lone"),
        (lambda t: t["root"]["children"][0].update(weight=NAN), "tree.root.children[0].weight is"),
        (lambda t: t["root"]["children"][0].update(weight=-INF), "tree.root.children[0].weight"),
        (lambda t: t["root"]["children"][0]["check"].update(value=NUL), "tree.root.children[0]"),
    ],
)
def test_an_edited_tree_with_a_value_postgresql_cannot_store_is_a_422_naming_the_node(
    client: Client,
    make_user: Callable[..., User],
    bearer: Any,
    change: Callable[[dict[str, Any]], None],
    message: str,
) -> None:
    task = _task()
    tree = copy.deepcopy(task.current_version.tree)
    change(tree)
    body = {"tree": tree, "base_version": 1}
    response = _post_json(
        client, f"/api/tasks/{task.pk}/versions", body, bearer(make_user("reviewer"))
    )
    assert response.status_code == 422
    assert response.json()["detail"].startswith(f"invalid rubric tree: {message}")
    assert task.versions.count() == 1
    _pages_still_load(client, make_user("viewer"), task)


def test_an_edit_note_with_a_lone_surrogate_is_a_422(
    client: Client, make_user: Callable[..., User], bearer: Any
) -> None:
    task = _task()
    body = {"tree": task.current_version.tree, "base_version": 1, "note": SURROGATE}
    response = _post_json(
        client, f"/api/tasks/{task.pk}/versions", body, bearer(make_user("reviewer"))
    )
    assert response.status_code == 422
    [error] = response.json()["errors"]  # refused by the schema: a str must be valid Unicode
    assert error["loc"][-1] == "note" and "unicode" in error["msg"]
    assert task.versions.count() == 1
    _pages_still_load(client, make_user("viewer"), task)


def test_validating_a_tree_with_nan_reports_it_invalid_instead_of_answering_nan(
    client: Client, make_user: Callable[..., User], bearer: Any
) -> None:
    tree = small_tree()
    tree["root"]["children"][0]["weight"] = NAN
    response = _post_json(client, "/api/rubrics/validate", tree, bearer(make_user("viewer")))
    assert response.status_code == 200
    assert response.json()["errors"] == [
        "tree.root.children[0].weight is NaN: numbers must be finite"
    ]


def test_an_answer_with_a_lone_surrogate_is_a_422_and_the_task_still_loads(
    client: Client, make_user: Callable[..., User], bearer: Any
) -> None:
    task = _task()
    headers = bearer(make_user("viewer"))
    body = {"answer": f"The capital is {SURROGATE} [source](https://example.org/canberra)"}
    response = _post_json(client, f"/api/tasks/{task.pk}/evaluate", body, headers)
    assert response.status_code == 422
    assert [e["loc"][-1] for e in response.json()["errors"]] == ["answer"]
    _pages_still_load(client, make_user("viewer"), task)


ATTACKS = [
    "javascript:alert(1)",
    "JAVASCRIPT:alert(2)",
    " \t\n javascript:alert(3)",
    "java\tscript:alert(4)",
    "data:text/html,<script>alert(5)</script>",
    "vbscript:msgbox(6)",
]


def test_only_http_and_https_reference_urls_become_links_on_the_task_page(
    client: Client, make_user: Callable[..., User]
) -> None:
    urls = [*ATTACKS, "https://en.wikipedia.org/wiki/Canberra", "HTTP://example.org/a"]
    task = _task(solution={"Canberra": {"description": "capital", "reference_urls": urls}})
    client.force_login(make_user("viewer"))
    page = client.get(f"/tasks/{task.pk}/").content.decode()
    hrefs = re.findall(r'href="([^"]*)"', page)
    assert "https://en.wikipedia.org/wiki/Canberra" in hrefs and "HTTP://example.org/a" in hrefs
    assert not [h for h in hrefs if re.search(r"(?i)script|data:|vbscript", h)]
    for attack in ("javascript:alert(1)", "JAVASCRIPT:alert(2)", "vbscript:msgbox(6)"):
        assert f'<span class="url">{attack}</span>' in page
    assert "data:text/html,&lt;script&gt;" in page  # shown, escaped, not linked


@pytest.mark.parametrize("url", ATTACKS)
def test_the_external_link_filter_writes_anything_but_http_as_text(url: str) -> None:
    rendered = Template("{% load safe_links %}{{ url|external_link }}").render(
        Context({"url": url})
    )
    assert rendered.startswith('<span class="url">') and "href" not in rendered


def test_the_external_link_filter_links_http_urls_without_their_leading_spaces() -> None:
    rendered = Template("{% load safe_links %}{{ url|external_link }}").render(
        Context({"url": "  https://example.org/?q=<b>"})
    )
    assert rendered.startswith('<a href="https://example.org/?q=&lt;b&gt;" rel="noopener')


LIMIT = 1024 * 1024
TOO_LARGE = (
    "the request body is larger than the 1 MB limit (files sent as uploads do not count toward it)"
)


@pytest.fixture
def small_limit(settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = LIMIT


def test_a_json_body_over_the_limit_is_a_413_with_a_detail(
    client: Client, make_user: Callable[..., User], bearer: Any, small_limit: None
) -> None:
    body = {"question": "x" * (LIMIT + 1), "rubric": small_tree()}
    response = _post_json(client, "/api/tasks", body, bearer(make_user("admin")))
    assert response.status_code == 413
    assert response.json() == {"detail": TOO_LARGE}
    assert not Task.objects.exists()


def test_an_upload_with_form_fields_over_the_limit_is_a_413_over_rest(
    client: Client, make_user: Callable[..., User], bearer: Any, small_limit: None
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    form = {"file": SimpleUploadedFile("t.json", b"{}"), "comment": "x" * (LIMIT + 1)}
    response = client.post("/api/imports", form, headers=bearer(make_user("admin")))
    assert response.status_code == 413
    assert response.json() == {"detail": TOO_LARGE}


def test_a_large_file_upload_is_not_held_to_the_body_limit(
    client: Client, make_user: Callable[..., User], bearer: Any, small_limit: None
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    records = "\n".join(
        json.dumps({"question": f"q{i}", "rubric": small_tree()}) for i in range(2500)
    ).encode()
    assert len(records) > LIMIT
    upload = {"file": SimpleUploadedFile("t.jsonl", records)}
    response = client.post("/api/imports", upload, headers=bearer(make_user("admin")))
    assert response.status_code == 202


def test_a_file_over_the_import_limit_is_a_413(
    client: Client, make_user: Callable[..., User], bearer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    from apps.rubrics import imports

    monkeypatch.setattr(imports, "MAX_UPLOAD_BYTES", LIMIT)
    upload = {"file": SimpleUploadedFile("t.json", b"[" + b" " * LIMIT + b"]")}
    response = client.post("/api/imports", upload, headers=bearer(make_user("admin")))
    assert response.status_code == 413
    assert response.json() == {"detail": "the file is larger than 1 MB"}


def test_a_page_form_over_the_limit_gets_the_error_page_with_413(
    csrf_client: Client, make_user: Callable[..., User], small_limit: None
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    csrf_client.force_login(make_user("admin"))
    csrf_client.get("/tasks/import/")
    token = csrf_client.cookies["csrftoken"].value
    form = {
        "csrfmiddlewaretoken": token,
        "file": SimpleUploadedFile("t.json", b"{}"),
        "comment": "x" * (LIMIT + 1),
    }
    response = csrf_client.post("/tasks/import/", form)
    assert response.status_code == 413
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert '<section class="error">' in page and TOO_LARGE in page


def test_a_urlencoded_page_form_over_the_limit_is_a_413(
    csrf_client: Client, make_user: Callable[..., User], small_limit: None
) -> None:
    task = _task()
    csrf_client.force_login(make_user("viewer"))
    csrf_client.get(f"/tasks/{task.pk}/")
    token = csrf_client.cookies["csrftoken"].value
    response = csrf_client.post(
        f"/tasks/{task.pk}/try/", {"csrfmiddlewaretoken": token, "answer": "x" * (LIMIT + 1)}
    )
    assert response.status_code == 413 and TOO_LARGE in response.content.decode()
