"""Domain errors raised by services and selectors; the API and the pages map them to HTTP once."""

from __future__ import annotations


class DomainError(Exception):
    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Invalid(DomainError):
    status = 422


class NotAuthenticated(DomainError):
    status = 401


class Forbidden(DomainError):
    status = 403


class NotFound(DomainError):
    status = 404


class Conflict(DomainError):
    status = 409


class TooLarge(DomainError):
    status = 413
