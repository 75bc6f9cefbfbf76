"""A session's report as the page draws it: Markdown rendered on the server, with whatever HTML
or script a hostile report carries shown as text, and its sources as links to the documents."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from apps.live.broadcast import event_append
from apps.live.report import report_html

CANBERRA = "https://en.wikipedia.org/wiki/Canberra"
HOSTILE = f"""_Partial report: the run was stopped._

**Answer:** Canberra is the capital [1].

<script>alert("report")</script>
<img src=x onerror="alert('img')"> <b onclick="alert(1)">bold?</b>

[click me](javascript:alert(1)) [data](data:text/html;base64,PHNjcmlwdD4=) [ok](https://example.org/a)
[app](/corpus/) [proto-relative](//evil.example/x) ![tracker](https://evil.example/pixel.png)
<javascript:alert(2)>

## Sources
1. Canberra - {CANBERRA}
"""


def test_a_hostile_report_renders_as_markdown_with_its_html_shown_as_text() -> None:
    html = report_html(HOSTILE, [{"n": 1, "url": CANBERRA, "title": "Canberra"}])
    assert "<h2>Sources</h2>" in html
    assert "<strong>Answer:</strong>" in html
    assert "<script" not in html and "<img" not in html and "<b " not in html
    assert "&lt;script&gt;alert(&quot;report&quot;)&lt;/script&gt;" in html
    assert "onerror=" not in html.replace("onerror=&quot;", "")
    assert 'href="javascript:' not in html and 'href="data:' not in html
    assert 'href="//evil' not in html
    # An image would load from outside the app: it is shown as a link instead.
    assert '!<a href="https://evil.example/pixel.png" target="_blank"' in html
    assert '<a href="https://example.org/a" target="_blank"' in html
    assert '<a href="/corpus/"' in html


def test_citations_and_source_urls_link_to_the_document_page_in_a_new_tab() -> None:
    html = report_html(HOSTILE, [{"n": 1, "url": CANBERRA, "title": "Canberra"}])
    doc = "/corpus/doc/?url=https%3A%2F%2Fen.wikipedia.org%2Fwiki%2FCanberra"
    assert f'<a href="{doc}" title="{CANBERRA} (opens in a new tab)" target="_blank" ' in html
    assert 'class="chip">[1]</a>' in html
    assert f'target="_blank" rel="noopener">{CANBERRA}</a></li>' in html


def test_a_marker_without_a_citation_and_a_javascript_citation_stay_text() -> None:
    html = report_html("See [2] and [1].", [{"n": 1, "url": "javascript:alert(1)"}])
    assert html == "<p>See [2] and [1].</p>\n"


@pytest.mark.django_db
def test_viewers_receive_the_report_with_its_html_and_the_api_keeps_the_markdown(
    make_user: Callable[..., Any], make_session: Callable[..., Any], client: Any
) -> None:
    user = make_user("viewer")
    session = make_session(user)
    event = event_append(
        session_id=session.pk,
        type="answer",
        payload={"text": "# Title\n<script>x()</script>", "citations": [], "partial": True},
    )
    message = event.to_message(str(session.public_id))
    assert message["payload"]["html"] == "<h1>Title</h1>\n<p>&lt;script&gt;x()&lt;/script&gt;</p>\n"
    client.force_login(user)
    events = client.get(f"/api/live/sessions/{session.public_id}/events").json()["events"]
    assert events[0]["payload"] == {
        "text": "# Title\n<script>x()</script>",
        "citations": [],
        "partial": True,
    }
