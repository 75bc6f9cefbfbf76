"""BrowseComp's encryption of its published questions, which BrowseComp-Plus keeps.

A field is stored as base64 text. Its bytes are XORed with a key stream made by repeating the
SHA-256 digest of a password (the row's `canary` string) to the field's length. XOR is its own
inverse, so `encrypt` and `decrypt` are the same step run in opposite directions; `encrypt`
exists so that test files can be written in the published form.
"""

from __future__ import annotations

import base64
import binascii
import hashlib


class CryptoError(ValueError):
    """Ciphertext that is not base64, or that does not decrypt to UTF-8 text."""


def key_stream(password: str, length: int) -> bytes:
    digest = hashlib.sha256(password.encode("utf-8")).digest()
    repeats = -(-length // len(digest))
    return (digest * repeats)[:length]


def _xor(data: bytes, password: str) -> bytes:
    return bytes(a ^ b for a, b in zip(data, key_stream(password, len(data)), strict=True))


def encrypt(plaintext: str, password: str) -> str:
    return base64.b64encode(_xor(plaintext.encode("utf-8"), password)).decode("ascii")


def decrypt(ciphertext: str, password: str) -> str:
    try:
        data = base64.b64decode(ciphertext.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise CryptoError("not base64") from None
    try:
        return _xor(data, password).decode("utf-8")
    except UnicodeDecodeError:
        raise CryptoError("the decrypted bytes are not UTF-8 (wrong canary?)") from None
