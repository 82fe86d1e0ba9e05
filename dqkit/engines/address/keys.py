"""Opaque keys (global_address_key, suggestions_key), signed with the index build.

A key is base64url(payload + MAC), the payload a msgpack list naming what the key stands for (an address, a
building, a street range, a query) and the MAC eight bytes of BLAKE2b keyed with the index's random build id.
A key from another build, a truncated, edited or made-up key fails the MAC and is answered with NotFoundError:
the engine never resolves a key it did not issue, so it can never return a wrong address for one.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from typing import Any, Final

import msgspec

from dqkit.contract.errors import NotFoundError

_MAC_LEN: Final = 8
_ENC = msgspec.msgpack.Encoder()
_DEC = msgspec.msgpack.Decoder(list[Any])

# What a key stands for (first element of the payload).
ADDRESS: Final = "a"  # [ADDRESS, ds, address_id]
BUILDING: Final = "b"  # [BUILDING, ds, first_address_id]
RANGE: Final = "r"  # [RANGE, ds, street_id, parity(0 all, 1 odd, 2 even)]
QUERY: Final = "q"  # [QUERY, ds, text, search_type, max_suggestions]
POSTCODE: Final = "p"  # [POSTCODE, ds, postcode, max]


# The server's key secret (`dqkit serve --key-secret-file` / DQKIT_KEY_SECRET), set once per process before any
# engine is built: keys are then signed with it and the index build, so every replica given the same secret and
# index file accepts the keys any of them issued, and nobody without the secret can make one. Empty: the index
# build alone signs (keys then work on every server of that index file).
_process_secret = b""


def use_secret(secret: bytes) -> None:
    """Sign and check the keys of the engines built from now on in this process with `secret`."""
    global _process_secret
    _process_secret = bytes(secret)


class KeyCodec:
    def __init__(self, build_id: str, secret: bytes | None = None) -> None:
        shared = _process_secret if secret is None else secret
        mac_key = hashlib.blake2b(shared, digest_size=32, person=b"dqkit-secret").digest() if shared else b""
        self._secret = hashlib.blake2b(build_id.encode(), key=mac_key, digest_size=32, person=b"dqkit-keys").digest()

    def _mac(self, payload: bytes) -> bytes:
        return hashlib.blake2b(payload, key=self._secret, digest_size=_MAC_LEN).digest()

    def encode(self, *parts: Any) -> str:
        payload = _ENC.encode(list(parts))
        return base64.urlsafe_b64encode(payload + self._mac(payload)).rstrip(b"=").decode()

    def decode(self, key: str) -> list[Any]:
        """The payload of a key this index issued; NotFoundError for anything else."""
        if not isinstance(key, str) or not 4 <= len(key) <= 4096:
            raise NotFoundError("unknown address key: not a key of this service")
        try:
            raw = base64.urlsafe_b64decode(key + "=" * (-len(key) % 4))
        except (binascii.Error, ValueError):
            raise NotFoundError("unknown address key: not a key of this service") from None
        payload, mac = raw[:-_MAC_LEN], raw[-_MAC_LEN:]
        if len(raw) <= _MAC_LEN or not hmac.compare_digest(mac, self._mac(payload)):
            raise NotFoundError(
                "unknown address key: it was not issued by this reference index (made up, altered, or from "
                "another index build); search again to get a fresh key")
        try:
            parts = _DEC.decode(payload)
        except msgspec.DecodeError:
            raise NotFoundError("unknown address key: unreadable payload") from None
        if not parts or not isinstance(parts[0], str):
            raise NotFoundError("unknown address key: unreadable payload")
        return parts
