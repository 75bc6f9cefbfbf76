"""The live-web clients against a real HTTP server on 127.0.0.1, started per test. The
production guard refuses loopback, so these tests pass a guard that permits exactly this
server and says so in its name."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import httpx
import pytest
from tools_doubles import PUBLIC, TableResolver

from quest.tools import (
    JinaReader,
    LiveHttp,
    PublicAddressGuard,
    SearchTool,
    SerperSearch,
    ToolError,
    UnsafeUrlError,
    VisitTool,
    live_backends,
)
from quest.tools.urls import check_url

ARTICLE = "https://en.wikipedia.org/wiki/Ada_Lovelace"


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class LocalServer:
    base: str
    port: int
    requests: list[Recorded] = field(default_factory=list)


ROUTES: dict[str, tuple[int, dict[str, str], bytes]] = {
    "/search": (
        200,
        {},
        json.dumps(
            {
                "organic": [
                    {"title": "Ada Lovelace", "link": ARTICLE, "snippet": "English mathematician"},
                    {"title": "No link here"},
                    {"title": "Bad scheme", "link": "javascript:alert(1)"},
                    {"title": "Babbage", "link": "https://en.wikipedia.org/wiki/Charles_Babbage"},
                ]
            }
        ).encode(),
    ),
    "/scholar": (
        200,
        {},
        json.dumps(
            {
                "organic": [
                    {
                        "title": "Sketch of the Analytical Engine",
                        "link": "https://example.org/sketch",
                        "publicationInfo": "L. F. Menabrea, A. A. Lovelace",
                        "year": 1843,
                    }
                ]
            }
        ).encode(),
    ),
    f"/reader/{ARTICLE}": (
        200,
        {},
        json.dumps(
            {
                "code": 200,
                "data": {
                    "title": "Ada Lovelace - Wikipedia",
                    "url": ARTICLE,
                    "content": "Ada Lovelace was a mathematician.\n\nShe died on 27 November 1852.",
                },
            }
        ).encode(),
    ),
    "/reader/https://en.wikipedia.org/wiki/Missing": (422, {}, b'{"code": 422}'),
    "/reader/https://en.wikipedia.org/wiki/Locked": (401, {}, b'{"code": 401}'),
    "/redirect": (302, {"Location": "http://169.254.169.254/"}, b""),
    "/not-json": (200, {}, b"<html>oops</html>"),
    "/huge": (200, {}, b"x" * 200_000),
}


class GuardPermittingOnlyTheLocalTestServer:
    """Lets requests reach the test's own server on 127.0.0.1 and sends every other URL to the
    production guard, resolving names from a table instead of DNS."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.public = PublicAddressGuard(TableResolver({"en.wikipedia.org": [PUBLIC]}))

    def check(self, url: str) -> str:
        parts = urlsplit(url)
        if (parts.hostname, parts.port) == ("127.0.0.1", self.port):
            return check_url(url)
        return self.public.check(url)


@pytest.fixture
def server() -> Iterator[LocalServer]:
    recorded: list[Recorded] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._answer()

        def do_POST(self) -> None:
            self._answer()

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            recorded.append(Recorded(self.command, self.path, dict(self.headers), body))
            status, headers, payload = ROUTES.get(self.path, (404, {}, b"{}"))
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    port = httpd.server_address[1]
    yield LocalServer(base=f"http://127.0.0.1:{port}", port=port, requests=recorded)
    httpd.shutdown()
    httpd.server_close()
    thread.join()


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=5.0, trust_env=False) as shared:
        yield shared


def local_http(server: LocalServer, client: httpx.Client, **options: int) -> LiveHttp:
    guard = GuardPermittingOnlyTheLocalTestServer(server.port)
    return LiveHttp("Test service", guard=guard, client=client, **options)


def test_serper_search_sends_the_key_and_query_and_keeps_only_usable_hits(
    server: LocalServer, client: httpx.Client
) -> None:
    search = SerperSearch(
        "serper-key", local_http(server, client), endpoint=server.base + "/search"
    )

    hits = search.search("ada lovelace", 10)

    assert [(hit.rank, hit.title, hit.url) for hit in hits] == [
        (1, "Ada Lovelace", ARTICLE),
        (2, "Babbage", "https://en.wikipedia.org/wiki/Charles_Babbage"),
    ]
    assert hits[0].snippet == "English mathematician"
    (request,) = server.requests
    assert request.method == "POST"
    assert request.headers["X-API-KEY"] == "serper-key"
    assert json.loads(request.body) == {"q": "ada lovelace", "num": 10}


def test_serper_results_read_through_the_search_tool_as_quest_writes_them(
    server: LocalServer, client: httpx.Client
) -> None:
    search = SerperSearch("k", local_http(server, client), endpoint=server.base + "/search")

    result = SearchTool(search, k=1)("ada")

    assert result.text == (
        "A search for 'ada' found 1 results:\n\n## Web Results\n"
        f"1. [Ada Lovelace]({ARTICLE})\nEnglish mathematician"
    )


def test_scholar_hits_carry_publication_and_year(server: LocalServer, client: httpx.Client) -> None:
    scholar = SerperSearch("k", local_http(server, client), endpoint=server.base + "/scholar")

    (hit,) = scholar.search("analytical engine", 5)

    assert hit.snippet == "L. F. Menabrea, A. A. Lovelace · 1843"


def test_the_jina_reader_fetches_a_page_with_the_key(
    server: LocalServer, client: httpx.Client
) -> None:
    reader = JinaReader("jina-key", local_http(server, client), endpoint=server.base + "/reader")

    page = reader.get(ARTICLE)

    assert page is not None
    assert page.title == "Ada Lovelace - Wikipedia"
    assert page.text.endswith("She died on 27 November 1852.")
    (request,) = server.requests
    assert request.path == f"/reader/{ARTICLE}"
    assert request.headers["Authorization"] == "Bearer jina-key"


def test_visit_through_the_jina_reader_gives_goal_directed_evidence(
    server: LocalServer, client: httpx.Client
) -> None:
    reader = JinaReader("k", local_http(server, client), endpoint=server.base + "/reader")

    result = VisitTool(reader)(ARTICLE, "When did she die?")

    assert result.ok
    assert "Evidence in page: \nShe died on 27 November 1852." in result.text


def test_the_reader_refuses_a_private_target_without_sending_anything(
    server: LocalServer, client: httpx.Client
) -> None:
    reader = JinaReader("k", local_http(server, client), endpoint=server.base + "/reader")

    result = VisitTool(reader)("http://192.168.0.1/router-admin", "passwords")

    assert not result.ok
    assert "was not visited: 192.168.0.1 resolves to 192.168.0.1, a private address" in (
        result.text
    )
    assert server.requests == []


def test_the_production_guard_refuses_the_local_server_itself(
    server: LocalServer, client: httpx.Client
) -> None:
    search = SerperSearch("k", LiveHttp("Serper", client=client), endpoint=server.base + "/search")

    with pytest.raises(UnsafeUrlError, match="a loopback address"):
        search.search("ada", 3)
    assert server.requests == []


def test_a_page_the_reader_cannot_read_is_none(server: LocalServer, client: httpx.Client) -> None:
    reader = JinaReader("k", local_http(server, client), endpoint=server.base + "/reader")

    assert reader.get("https://en.wikipedia.org/wiki/Missing") is None


def test_a_refused_key_is_an_error_the_agent_can_read(
    server: LocalServer, client: httpx.Client
) -> None:
    reader = JinaReader("k", local_http(server, client), endpoint=server.base + "/reader")

    with pytest.raises(ToolError, match="Test service answered HTTP 401"):
        reader.get("https://en.wikipedia.org/wiki/Locked")


def test_redirects_are_not_followed(server: LocalServer, client: httpx.Client) -> None:
    search = SerperSearch("k", local_http(server, client), endpoint=server.base + "/redirect")

    with pytest.raises(ToolError, match="answered HTTP 302"):
        search.search("ada", 3)
    assert [request.path for request in server.requests] == ["/redirect"]


def test_a_reply_that_is_not_json_is_an_error(server: LocalServer, client: httpx.Client) -> None:
    search = SerperSearch("k", local_http(server, client), endpoint=server.base + "/not-json")

    with pytest.raises(ToolError, match="sent a reply that is not JSON"):
        search.search("ada", 3)


def test_an_oversized_reply_is_cut_off(server: LocalServer, client: httpx.Client) -> None:
    http = local_http(server, client, max_bytes=50_000)
    search = SerperSearch("k", http, endpoint=server.base + "/huge")

    with pytest.raises(ToolError, match="sent more than 50,000 bytes"):
        search.search("ada", 3)


def test_a_service_that_cannot_be_reached_is_an_error(client: httpx.Client) -> None:
    with ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler) as closed:
        port = closed.server_address[1]
    http = LiveHttp("Serper", guard=GuardPermittingOnlyTheLocalTestServer(port), client=client)

    result = SearchTool(SerperSearch("k", http, endpoint=f"http://127.0.0.1:{port}/"))("ada")

    assert result.text == "[search] Error: Serper could not be reached (ConnectError)"


def test_live_backends_exist_only_for_the_keys_that_are_set() -> None:
    assert live_backends({}) == live_backends({"SERPER_API_KEY": " ", "JINA_API_KEY": ""})
    assert live_backends({}).search is None

    serper_only = live_backends({"SERPER_API_KEY": "s"})
    assert serper_only.search is not None
    assert serper_only.scholar is not None
    assert serper_only.scholar.endpoint == "https://google.serper.dev/scholar"
    assert serper_only.reader is None

    jina_only = live_backends({"JINA_API_KEY": "j"})
    assert jina_only.reader is not None
    assert jina_only.search is None
    assert isinstance(jina_only.reader.http.guard, PublicAddressGuard)
