"""Who is asking: the address the login lock counts, the tools service's loopback check and the
logs all read from REMOTE_ADDR, so it is decided once, here, before anything reads it.

X-Forwarded-For is written by whoever sends the request: a client can put any address in it. Only
the hops that a trusted proxy (QUESTWEB_TRUSTED_PROXIES) appended can be believed, so the chain is
read from the right, starting at the socket's peer, and the first hop that is not a trusted proxy
is the client. With no proxy trusted (the default) the peer is the client and the header is
never read. The web server must hand the app the socket's peer as it is: `make run` starts
uvicorn with --no-proxy-headers, since uvicorn would otherwise believe X-Forwarded-For from
127.0.0.1, which is every caller on the machine.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Sequence
from functools import lru_cache

from django.conf import settings
from django.http import HttpRequest, HttpResponse

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=8)
def _networks(proxies: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(proxy, strict=False) for proxy in proxies)


def _trusted(address: str, proxies: Sequence[Network]) -> bool | None:
    """Whether `address` is a trusted proxy; None when it is not an address at all."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    return any(ip in network for network in proxies)


def client_address(peer: str, forwarded_for: str, proxies: Sequence[Network]) -> str:
    """The right-most hop of peer ← X-Forwarded-For that is not a trusted proxy. A chain made only
    of trusted proxies gives its left-most hop; a hop that is no address stops the walk at the
    last one read (the proxy that passed it on), so a client cannot make its own address up."""
    hops = [hop.strip() for hop in reversed(forwarded_for.split(","))] if forwarded_for else []
    address = peer
    for hop in [peer, *hops]:
        trusted = _trusted(hop, proxies)
        if trusted is None:
            return address
        address = hop
        if not trusted:
            return address
    return address


class ClientAddressMiddleware:
    """Sets REMOTE_ADDR to the client's address. First in MIDDLEWARE."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        proxies = _networks(tuple(settings.TRUSTED_PROXIES))
        if proxies:
            request.META["REMOTE_ADDR"] = client_address(
                request.META.get("REMOTE_ADDR", ""),
                request.META.get("HTTP_X_FORWARDED_FOR", ""),
                proxies,
            )
        return self.get_response(request)
