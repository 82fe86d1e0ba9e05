"""Opaque keys (global_address_key, suggestions_key): encrypted and authenticated, revealing nothing.

A key is base64url of AES-SIV (RFC 5297, `cryptography`'s AESSIV) over a msgpack list naming what the key stands for
(an address, a building, a street range, a query with what the user typed). Why AES-SIV: it authenticates (a
made-up, truncated or edited key fails and is answered NotFoundError, so the engine never resolves a key it did not
issue and never returns a wrong address for one) and hides the payload (a key in a URL, a log or a browser history
says nothing of the typed address), and it is deterministic, so the same address always gets the same key (the
widget, caches and tests compare keys) without any state: every replica given the same secret and index file reads
the keys any of them issued.

The cipher key is derived (HKDF-SHA256) from the server's key secret (`dqkit serve --key-secret-file` /
DQKIT_KEY_SECRET, see `use_secret`) and the index build id, so keys of another index build are refused too. With no
secret the build id alone keys it: keys then work on every server of that index file, and only whoever holds the
index file could read them.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Final

import msgspec
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESSIV
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from dqkit.contract.errors import NotFoundError

_ENC = msgspec.msgpack.Encoder()
_DEC = msgspec.msgpack.Decoder(list[Any])
_CONTEXT: Final = [b"dqkit address key v2"]  # associated data: a key of another purpose never decrypts as one
_MAX_KEY_CHARS: Final = 4096

# What a key stands for (first element of the payload).
ADDRESS: Final = "a"  # [ADDRESS, ds, address_id]
BUILDING: Final = "b"  # [BUILDING, ds, first_address_id]
RANGE: Final = "r"  # [RANGE, ds, street_id, parity(0 all, 1 odd, 2 even)]
QUERY: Final = "q"  # [QUERY, ds, text, search_type, max_suggestions]
POSTCODE: Final = "p"  # [POSTCODE, ds, postcode, max]


# The server's key secret (`dqkit serve --key-secret-file` / DQKIT_KEY_SECRET), set once per process before any
# engine is built: keys are then encrypted with it and the index build, so every replica given the same secret and
# index file accepts the keys any of them issued, and nobody without the secret can read or make one. Empty: the
# index build alone keys them (keys then work on every server of that index file).
_process_secret = b""


def use_secret(secret: bytes) -> None:
    """Encrypt and check the keys of the engines built from now on in this process with `secret`."""
    global _process_secret
    _process_secret = bytes(secret)


def cipher_key(build_id: str, secret: bytes) -> bytes:
    """The 512-bit AES-SIV key (AES-256-SIV) of an index build under a secret (empty: no secret)."""
    return HKDF(algorithm=hashes.SHA256(), length=64, salt=build_id.encode(),
                info=b"dqkit-address-keys").derive(b"dqkit-key-secret:" + secret)


class KeyCodec:
    """Keys of one index build: `encode` what a key stands for, `decode` a key back (NotFoundError if not ours)."""

    def __init__(self, build_id: str, secret: bytes | None = None) -> None:
        self._aead = AESSIV(cipher_key(build_id, _process_secret if secret is None else bytes(secret)))
        self._issued: dict[tuple[Any, ...], str] = {}

    def __repr__(self) -> str:
        return "KeyCodec(<secret>)"

    def encode(self, *parts: Any) -> str:
        # AES-SIV is deterministic: the same parts always seal to the same key, so a key once made is reused (an
        # answer's candidates repeat across requests; sealing was 3% of a clean validate)
        found = self._issued.get(parts)
        if found is None:
            sealed = self._aead.encrypt(_ENC.encode(list(parts)), _CONTEXT)
            found = base64.urlsafe_b64encode(sealed).rstrip(b"=").decode()
            if len(self._issued) >= 65536:
                self._issued.clear()
            self._issued[parts] = found
        return found

    def decode(self, key: str) -> list[Any]:
        """The payload of a key this index issued; NotFoundError for anything else."""
        if not isinstance(key, str) or not 4 <= len(key) <= _MAX_KEY_CHARS:
            raise NotFoundError("unknown address key: not a key of this service")
        try:
            raw = base64.urlsafe_b64decode(key + "=" * (-len(key) % 4))
        except (binascii.Error, ValueError):
            raise NotFoundError("unknown address key: not a key of this service") from None
        try:
            payload = self._aead.decrypt(raw, _CONTEXT)
        except (InvalidTag, ValueError):
            raise NotFoundError(
                "unknown address key: it was not issued by this reference index (made up, altered, or from "
                "another index build or key secret); search again to get a fresh key") from None
        try:
            parts = _DEC.decode(payload)
        except msgspec.DecodeError:
            raise NotFoundError("unknown address key: unreadable payload") from None
        if not parts or not isinstance(parts[0], str):
            raise NotFoundError("unknown address key: unreadable payload")
        return parts
