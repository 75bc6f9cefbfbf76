"""The login lock holds whatever a client writes in X-Forwarded-For (issue 29): the address it
counts is the socket's peer, unless QUESTWEB_TRUSTED_PROXIES names the proxies in front of the
app, and then it is the right-most hop those proxies did not add."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.test import Client, override_settings

from questweb import embedded
from tests.conftest import free_port
from tests.factories import PASSWORD

ROOT = Path(__file__).resolve().parent.parent.parent


def _wait_for(port: int, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                raise RuntimeError("the web server did not start") from None
            time.sleep(0.1)


@pytest.fixture
def web_server(transactional_db: None, tmp_path: Path) -> Iterator[str]:
    """The web process exactly as `make run` starts it, on the test database and Redis."""
    from django.conf import settings
    from django.db import connection

    db = connection.settings_dict
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "questweb.settings"}
    env["REDIS_URL"] = settings.REDIS_URL
    if db["ENGINE"].endswith("postgresql"):
        env["DATABASE_URL"] = f"postgresql://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env.pop("QUESTWEB_TRUSTED_PROXIES", None)
    port = free_port()
    [web] = [c for c in embedded.app_children(tmp_path, "127.0.0.1", str(port)) if c.name == "web"]
    server = subprocess.Popen([*web.argv, "--log-level", "warning"], cwd=ROOT, env=env)
    try:
        _wait_for(port, server)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(30)


def _login_over_http(
    base: str, username: str, password: str, forwarded: str | None, path: str = "/accounts/login/"
) -> int:
    with httpx.Client(base_url=base, timeout=30) as http:
        page = http.get(path)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert token is not None
        headers = {"X-Forwarded-For": forwarded} if forwarded else {}
        form = {"username": username, "password": password, "csrfmiddlewaretoken": token[1]}
        return http.post(path, data=form, headers=headers).status_code


@pytest.mark.integration
@pytest.mark.parametrize(("path", "refused"), [("/accounts/login/", 401), ("/admin/login/", 200)])
def test_rotating_x_forwarded_for_does_not_escape_the_lock_on_either_login_form(
    web_server: str, make_user: Callable[..., Any], path: str, refused: int
) -> None:
    user = make_user("admin", is_staff=True)
    codes = [
        _login_over_http(web_server, user.username, "wrong", f"203.0.113.{n}", path)
        for n in range(1, 8)
    ]
    assert codes == [refused] * 4 + [429] * 3
    assert _login_over_http(web_server, user.username, PASSWORD, "198.51.100.99", path) == 429


@pytest.mark.integration
def test_a_locked_pair_stays_locked_whatever_x_forwarded_for_says(
    web_server: str, make_user: Callable[..., Any]
) -> None:
    user = make_user("viewer")
    for _ in range(5):
        _login_over_http(web_server, user.username, "wrong", None)
    for forwarded in ("198.51.100.7", "127.0.0.1", "10.1.2.3, 198.51.100.8", "garbage"):
        assert _login_over_http(web_server, user.username, PASSWORD, forwarded) == 429


def _login(client: Client, username: str, password: str, peer: str, forwarded: str) -> int:
    form = {"username": username, "password": password}
    response = client.post(
        "/accounts/login/", form, REMOTE_ADDR=peer, HTTP_X_FORWARDED_FOR=forwarded
    )
    return int(response.status_code)


@pytest.mark.django_db
@override_settings(TRUSTED_PROXIES=["10.0.0.0/8"])
def test_behind_a_trusted_proxy_the_lock_counts_the_right_most_untrusted_hop(
    make_user: Callable[..., Any],
) -> None:
    user = make_user("viewer")
    # What the client wrote comes first; the proxies at 10.0.0.3 and 10.0.0.2 appended the rest.
    codes = [
        _login(Client(), user.username, "wrong", "10.0.0.2", f"6.6.6.{n}, 198.51.100.7, 10.0.0.3")
        for n in range(5)
    ]
    assert codes == [401] * 4 + [429]
    chain = "198.51.100.7, 10.0.0.3"
    assert _login(Client(), user.username, PASSWORD, "10.0.0.2", chain) == 429
    # Another client behind the same proxies is not locked out with them.
    assert _login(Client(), user.username, PASSWORD, "10.0.0.2", "203.0.113.5, 10.0.0.3") == 302


@pytest.mark.django_db
@override_settings(TRUSTED_PROXIES=["10.0.0.0/8"])
def test_x_forwarded_for_from_a_peer_that_is_no_trusted_proxy_is_not_believed(
    make_user: Callable[..., Any],
) -> None:
    user = make_user("viewer")
    for n in range(5):
        _login(Client(), user.username, "wrong", "198.51.100.7", f"203.0.113.{n}")
    assert _login(Client(), user.username, PASSWORD, "198.51.100.7", "10.0.0.9") == 429


def test_a_hop_that_is_no_address_stops_the_walk_at_the_proxy_that_passed_it_on() -> None:
    from questweb.client_address import _networks, client_address

    proxies = _networks(("10.0.0.0/8", "::1"))
    assert client_address("10.0.0.2", "198.51.100.7, garbage, 10.0.0.3", proxies) == "10.0.0.3"
    assert client_address("10.0.0.2", "10.0.0.5, 10.0.0.3", proxies) == "10.0.0.5"
    assert client_address("::1", "2001:db8::7", proxies) == "2001:db8::7"
    assert client_address("10.0.0.2", "", proxies) == "10.0.0.2"
    assert client_address("198.51.100.7", "203.0.113.1", _networks(())) == "198.51.100.7"


def test_a_forged_chain_is_not_believed_from_a_client_that_is_no_proxy() -> None:
    from questweb.client_address import _networks, client_address

    proxies = _networks(("10.0.0.0/8",))
    # A client reaching the app directly writes a chain that ends in a trusted address.
    assert client_address("198.51.100.7", "6.6.6.6, 10.0.0.3", proxies) == "198.51.100.7"
    assert client_address("198.51.100.7", "10.0.0.3", proxies) == "198.51.100.7"
    # Behind the proxies, what the client put left of its own address is not read.
    assert client_address("10.0.0.2", "6.6.6.6, 198.51.100.7, 10.0.0.3", proxies) == "198.51.100.7"


def test_ipv6_proxies_and_clients_are_read_like_ipv4_ones() -> None:
    from questweb.client_address import _networks, client_address

    proxies = _networks(("2001:db8:ffff::/48", "10.0.0.0/8"))
    chain = "2001:db8::7, 2001:db8:ffff::2"
    assert client_address("2001:db8:ffff::1", chain, proxies) == "2001:db8::7"
    assert client_address("10.0.0.2", "2001:db8::7, 10.0.0.3", proxies) == "2001:db8::7"
    assert client_address("2001:db8::9", chain, proxies) == "2001:db8::9"


@pytest.mark.parametrize(
    "hop",
    [
        "",
        "unknown",
        "203.0.113.5:4711",
        "[2001:db8::7]",
        "10.0.0.0/8",
        "1.2.3.4.5",
        "203.0.113.5 6.6.6.6",
    ],
)
def test_a_hop_that_is_no_bare_address_is_never_taken_for_the_client(hop: str) -> None:
    from questweb.client_address import _networks, client_address

    proxies = _networks(("10.0.0.0/8",))
    chain = f"198.51.100.7, {hop}, 10.0.0.3"
    assert client_address("10.0.0.2", chain, proxies) == "10.0.0.3"
    assert client_address("10.0.0.2", hop, proxies) == "10.0.0.2"


@override_settings(TRUSTED_PROXIES=["10.0.0.0/8"])
def test_only_x_forwarded_for_is_read_not_the_other_forwarding_headers() -> None:
    from django.http import HttpRequest, HttpResponse
    from django.test import RequestFactory

    from questweb.client_address import ClientAddressMiddleware

    seen: list[str] = []

    def view(request: HttpRequest) -> HttpResponse:
        seen.append(request.META["REMOTE_ADDR"])
        return HttpResponse()

    forged = {
        "HTTP_X_REAL_IP": "6.6.6.6",
        "HTTP_CF_CONNECTING_IP": "6.6.6.6",
        "HTTP_TRUE_CLIENT_IP": "6.6.6.6",
        "HTTP_FORWARDED": "for=6.6.6.6",
        "HTTP_CLIENT_IP": "6.6.6.6",
    }
    middleware = ClientAddressMiddleware(view)
    middleware(RequestFactory().get("/", REMOTE_ADDR="10.0.0.2", **forged))
    middleware(RequestFactory().get("/", REMOTE_ADDR="198.51.100.7", **forged))
    assert seen == ["10.0.0.2", "198.51.100.7"]


def test_a_trusted_proxy_that_is_no_address_stops_the_start() -> None:
    from questweb.config import ConfigError, trusted_proxies

    env = {"QUESTWEB_TRUSTED_PROXIES": " 10.0.0.0/8, ::1 ,"}
    assert trusted_proxies(env) == ["10.0.0.0/8", "::1/128"]
    assert trusted_proxies({}) == []
    with pytest.raises(ConfigError, match=r"'proxy\.local' is not an address"):
        trusted_proxies({"QUESTWEB_TRUSTED_PROXIES": "10.0.0.1,proxy.local"})
