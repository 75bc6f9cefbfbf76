"""The network guard for live-web backends: a URL may be fetched only when it is http(s) and
every address its host resolves to is a public one (not private, loopback, link-local,
multicast, reserved, unspecified or otherwise non-global, IPv4 hidden in IPv6 included).

The resolver is a constructor argument so that tests can point a guard at a local server; there
is no switch that loosens the production guard. Known limit: the HTTP client resolves the host
again when it connects, so a DNS server that answers differently the second time (rebinding) is
not stopped here; run live backends behind an egress firewall where that matters.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from typing import Protocol
from urllib.parse import urlsplit

from quest.protocol.results import ToolError
from quest.tools.urls import check_url

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Sequence[str]]
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class UnsafeUrlError(ToolError):
    """The URL points somewhere a fetch must not go."""


class UrlGuard(Protocol):
    def check(self, url: str) -> str:
        """`url`, cleaned, when it may be fetched; UnsafeUrlError (a ToolError) otherwise."""
        ...


def system_resolver(host: str, port: int) -> list[str]:
    """Every address `host` resolves to, by the operating system's resolver."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return sorted({str(info[4][0]) for info in infos})


class PublicAddressGuard:
    def __init__(self, resolver: Resolver = system_resolver) -> None:
        self.resolver = resolver

    def check(self, url: str) -> str:
        try:
            url = check_url(url)
        except ToolError as error:
            raise UnsafeUrlError(str(error)) from None
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or _DEFAULT_PORTS[parts.scheme.lower()]
        for address in self._addresses(host, port):
            reason = blocked_reason(address)
            if reason:
                raise UnsafeUrlError(f"{host} resolves to {address}, {reason}")
        return url

    def _addresses(self, host: str, port: int) -> list[str]:
        try:
            return [str(ipaddress.ip_address(host))]  # a literal address needs no lookup
        except ValueError:
            pass
        try:
            addresses = list(self.resolver(host, port))
        except (OSError, UnicodeError, ValueError):
            raise UnsafeUrlError(f"the host {host} could not be resolved") from None
        if not addresses:
            raise UnsafeUrlError(f"the host {host} has no address")
        return addresses


def blocked_reason(address: str) -> str | None:
    """Why a fetch must not go to `address`, or None when it is a public address."""
    try:
        parsed: IPAddress = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return "which is not an IP address"
    embedded = _embedded_ipv4(parsed)
    if embedded is not None:
        return blocked_reason(str(embedded))
    for flag, reason in _REASONS:
        if getattr(parsed, flag):
            return reason
    return None if parsed.is_global else "a non-public address"


_REASONS = (
    ("is_unspecified", "an unspecified address"),
    ("is_loopback", "a loopback address"),
    ("is_link_local", "a link-local address"),
    ("is_multicast", "a multicast address"),
    ("is_reserved", "a reserved address"),
    ("is_private", "a private address"),
)


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address carried inside an IPv4-mapped, 6to4 or NAT64 IPv6 address."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None
