"""Optional live-web backends, used only when their keys are set: Serper for search and
scholar (`SERPER_API_KEY`) and the Jina reader for pages (`JINA_API_KEY`). Every URL they
request, and every page URL handed to the reader, passes the network guard first; redirects
are not followed and response bodies are capped."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace

import httpx

from quest.protocol.results import ToolError
from quest.tools.netguard import PublicAddressGuard, UrlGuard
from quest.tools.protocols import SearchHit, WebPage

SERPER_SEARCH_URL = "https://google.serper.dev/search"
SERPER_SCHOLAR_URL = "https://google.serper.dev/scholar"
JINA_READER_URL = "https://r.jina.ai/"
MAX_RESPONSE_BYTES = 5_000_000
TIMEOUT_S = 30.0
_KEY_REFUSED = frozenset({401, 402, 403, 429})


class LiveHttp:
    """Guarded, size-capped HTTP for one service; `client` may be shared or injected."""

    def __init__(
        self,
        service: str,
        *,
        guard: UrlGuard | None = None,
        client: httpx.Client | None = None,
        timeout_s: float = TIMEOUT_S,
        max_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        self.service = service
        self.guard: UrlGuard = guard if guard is not None else PublicAddressGuard()
        self.client = client if client is not None else httpx.Client(timeout=timeout_s)
        self.max_bytes = max_bytes

    def fetch(
        self, method: str, url: str, *, headers: Mapping[str, str], body: object = None
    ) -> tuple[int, bytes]:
        """The status and body of one request; ToolError when the service cannot be reached."""
        url = self.guard.check(url)
        content = None if body is None else json.dumps(body).encode()
        try:
            with self.client.stream(
                method, url, headers=dict(headers), content=content, follow_redirects=False
            ) as response:
                return response.status_code, self._read(response)
        except httpx.HTTPError as error:
            raise ToolError(
                f"{self.service} could not be reached ({type(error).__name__})"
            ) from None

    def _read(self, response: httpx.Response) -> bytes:
        body = bytearray()
        for chunk in response.iter_bytes():
            body.extend(chunk)
            if len(body) > self.max_bytes:
                raise ToolError(f"{self.service} sent more than {self.max_bytes:,} bytes")
        return bytes(body)


class SerperSearch:
    """A `SearchBackend` over Serper's Google search (or its scholar endpoint)."""

    def __init__(self, api_key: str, http: LiveHttp, *, endpoint: str = SERPER_SEARCH_URL) -> None:
        self.api_key = api_key
        self.http = http
        self.endpoint = endpoint

    def search(self, query: str, k: int) -> list[SearchHit]:
        headers = {"X-API-KEY": self.api_key, "Content-Type": "application/json"}
        payload = {"q": query, "num": k}
        status, body = self.http.fetch("POST", self.endpoint, headers=headers, body=payload)
        if status != 200:
            raise ToolError(f"{self.http.service} answered HTTP {status}")
        organic = _json_object(body, self.http.service).get("organic")
        items = (
            [item for item in organic if isinstance(item, dict)]
            if isinstance(organic, list)
            else []
        )
        hits = (_hit(item) for item in items)
        kept = [hit for hit in hits if hit is not None][:k]
        return [
            SearchHit(rank, hit.title, hit.url, hit.snippet) for rank, hit in enumerate(kept, 1)
        ]


class JinaReader:
    """A `PageSource` that reads pages through the Jina reader."""

    def __init__(self, api_key: str, http: LiveHttp, *, endpoint: str = JINA_READER_URL) -> None:
        self.api_key = api_key
        self.http = http
        self.endpoint = endpoint.rstrip("/") + "/"

    def get(self, url: str) -> WebPage | None:
        url = self.http.guard.check(url)
        headers = {"Authorization": f"Bearer {self.api_key}", "Accept": "application/json"}
        status, body = self.http.fetch("GET", self.endpoint + url, headers=headers)
        if status in _KEY_REFUSED or status >= 500:
            raise ToolError(f"{self.http.service} answered HTTP {status}")
        if status != 200:
            return None
        data = _json_object(body, self.http.service).get("data")
        if not isinstance(data, dict) or not isinstance(data.get("content"), str):
            return None
        title = data.get("title")
        return WebPage(
            url=url, title=title if isinstance(title, str) else url, text=data["content"]
        )


@dataclass(frozen=True)
class LiveBackends:
    search: SerperSearch | None = None
    scholar: SerperSearch | None = None
    reader: JinaReader | None = None


def live_backends(
    env: Mapping[str, str] | None = None,
    *,
    guard: UrlGuard | None = None,
    client: httpx.Client | None = None,
) -> LiveBackends:
    """The live backends whose keys are set in `env` (the process environment by default)."""
    env = os.environ if env is None else env
    serper_key = env.get("SERPER_API_KEY", "").strip()
    jina_key = env.get("JINA_API_KEY", "").strip()
    found = LiveBackends()
    if serper_key:
        serper = LiveHttp("Serper", guard=guard, client=client)
        scholar = SerperSearch(serper_key, serper, endpoint=SERPER_SCHOLAR_URL)
        found = replace(found, search=SerperSearch(serper_key, serper), scholar=scholar)
    if jina_key:
        reader = LiveHttp("Jina reader", guard=guard, client=client)
        found = replace(found, reader=JinaReader(jina_key, reader))
    return found


def _json_object(body: bytes, service: str) -> dict[str, object]:
    try:
        decoded = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ToolError(f"{service} sent a reply that is not JSON") from None
    if not isinstance(decoded, dict):
        raise ToolError(f"{service} sent a reply that is not a JSON object")
    return decoded


def _hit(item: dict[str, object]) -> SearchHit | None:
    link, title = item.get("link"), item.get("title")
    if not isinstance(link, str) or not link.startswith(("http://", "https://")):
        return None
    extras = (item.get(key) for key in ("snippet", "publicationInfo", "year"))
    snippet = " · ".join(str(extra) for extra in extras if isinstance(extra, str | int) and extra)
    return SearchHit(0, title if isinstance(title, str) else link, link, snippet)
