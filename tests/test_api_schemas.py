"""Every request and response shape of the API has a name of its own: the OpenAPI document
keys its components by class name, so two apps' `JobIn` would silently publish one app's
shape for the other's operation (and every client generated from it would send the wrong
body)."""

from __future__ import annotations

from collections import Counter

from ninja import Schema


def _subclasses(cls: type) -> set[type]:
    found = set(cls.__subclasses__())
    for sub in list(found):
        found |= _subclasses(sub)
    return found


def test_no_two_api_schemas_share_a_name() -> None:
    import questweb.api  # noqa: F401  (imports every app's schemas)

    ours = [c for c in _subclasses(Schema) if c.__module__.startswith("apps.")]
    names = Counter(c.__name__ for c in ours)
    assert len(ours) > 50
    assert [name for name, count in names.items() if count > 1] == []
