from __future__ import annotations

import pytest
from tools_doubles import PUBLIC, TableResolver

from quest.tools import PublicAddressGuard, UnsafeUrlError, blocked_reason
from quest.tools.netguard import system_resolver


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "a loopback address"),
        ("127.8.9.10", "a loopback address"),
        ("::1", "a loopback address"),
        ("0.0.0.0", "an unspecified address"),
        ("::", "an unspecified address"),
        ("10.0.0.7", "a private address"),
        ("172.16.5.4", "a private address"),
        ("192.168.1.1", "a private address"),
        ("fd00::1", "a private address"),
        ("169.254.169.254", "a link-local address"),
        ("fe80::1", "a link-local address"),
        ("224.0.0.1", "a multicast address"),
        ("ff02::1", "a multicast address"),
        ("240.0.0.1", "a reserved address"),
        ("100.64.0.1", "a non-public address"),
        ("::ffff:127.0.0.1", "a loopback address"),
        ("::ffff:10.0.0.1", "a private address"),
        ("2002:7f00:0001::", "a loopback address"),
        ("64:ff9b::a9fe:a9fe", "a link-local address"),
        ("fe80::1%eth0", "a link-local address"),
        ("not-an-ip", "which is not an IP address"),
    ],
)
def test_it_blocks_every_kind_of_non_public_address(address: str, reason: str) -> None:
    assert blocked_reason(address) == reason


@pytest.mark.parametrize("address", [PUBLIC, "8.8.8.8", "2606:4700:4700::1111"])
def test_it_lets_public_addresses_through(address: str) -> None:
    assert blocked_reason(address) is None


def test_a_host_that_resolves_to_a_public_address_may_be_fetched() -> None:
    resolver = TableResolver({"en.wikipedia.org": [PUBLIC]})

    url = PublicAddressGuard(resolver).check(" https://en.wikipedia.org/wiki/Ada ")

    assert url == "https://en.wikipedia.org/wiki/Ada"
    assert resolver.asked == [("en.wikipedia.org", 443)]


def test_every_resolved_address_is_checked_not_just_the_first() -> None:
    guard = PublicAddressGuard(TableResolver({"rebind.example": [PUBLIC, "10.1.2.3"]}))

    with pytest.raises(UnsafeUrlError, match=r"rebind\.example resolves to 10\.1\.2\.3"):
        guard.check("http://rebind.example:8080/")


def test_a_name_that_points_inside_the_network_is_blocked() -> None:
    guard = PublicAddressGuard(TableResolver({"metadata.internal": ["169.254.169.254"]}))

    with pytest.raises(UnsafeUrlError, match="a link-local address"):
        guard.check("http://metadata.internal/latest/meta-data/")


def test_a_host_that_does_not_resolve_is_refused() -> None:
    guard = PublicAddressGuard(TableResolver({}))

    with pytest.raises(UnsafeUrlError, match="could not be resolved"):
        guard.check("https://nowhere.invalid/")


def test_a_resolver_that_returns_nothing_is_refused() -> None:
    guard = PublicAddressGuard(TableResolver({"empty.example": []}))

    with pytest.raises(UnsafeUrlError, match="has no address"):
        guard.check("https://empty.example/")


@pytest.mark.parametrize(
    "url",
    ["file:///etc/passwd", "gopher://example.org/", "javascript:alert(1)", "ftp://x.org/"],
)
def test_schemes_other_than_http_and_https_are_refused_before_any_lookup(url: str) -> None:
    resolver = TableResolver({})

    with pytest.raises(UnsafeUrlError, match="only http:// and https://"):
        PublicAddressGuard(resolver).check(url)
    assert resolver.asked == []


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://localhost:6379/",
        "http://[::1]:8000/",
        "http://2130706433/",
        "http://0x7f000001/",
        "http://127.1/",
        "http://0/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::ffff:127.0.0.1]/",
        "http://10.0.0.1/",
    ],
)
def test_with_the_system_resolver_numeric_and_local_hosts_are_blocked(url: str) -> None:
    with pytest.raises(UnsafeUrlError):
        PublicAddressGuard().check(url)


def test_the_system_resolver_answers_numeric_hosts_without_dns() -> None:
    assert system_resolver("2130706433", 80) == ["127.0.0.1"]
    assert system_resolver(PUBLIC, 443) == [PUBLIC]
