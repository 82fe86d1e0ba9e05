"""Address keys: encrypted and authenticated (AES-SIV) with the server's secret and the index build, stateless and
deterministic, revealing nothing of what they stand for (issue 22 part 4)."""

from __future__ import annotations

import base64

import pytest

from dqkit.contract.address import SearchRequest
from dqkit.contract.errors import NotFoundError
from dqkit.engines.address import AddressEngine
from dqkit.engines.address import keys as kk
from dqkit.engines.address.keys import KeyCodec

SECRET = b"a-secret-of-the-servers-32-bytes"


def _raw(key: str) -> bytes:
    return base64.urlsafe_b64decode(key + "=" * (-len(key) % 4))


def test_a_query_key_holds_no_typed_text(engine: AddressEngine) -> None:
    res = engine.search(SearchRequest.of("77 massachusetts ave cambridge")).result
    for key in (res.suggestions_key, res.suggestions[0].global_address_key):
        raw = _raw(key).lower()
        assert b"massachusetts" not in raw and b"cambridge" not in raw
    assert engine.refine(res.suggestions_key, "").result is not None  # and it still works


def test_keys_are_deterministic_and_any_replica_with_the_secret_reads_them() -> None:
    one, replica = KeyCodec("build-1", SECRET), KeyCodec("build-1", SECRET)
    key = one.encode(kk.QUERY, 0, "1216 santa clara", "autocomplete", 7)
    assert key == one.encode(kk.QUERY, 0, "1216 santa clara", "autocomplete", 7)  # same address, same key
    assert replica.decode(key) == [kk.QUERY, 0, "1216 santa clara", "autocomplete", 7]
    assert b"santa" not in _raw(key)


@pytest.mark.parametrize("other", [KeyCodec("build-1", b"another-secret-of-32-bytes-long!"),
                                   KeyCodec("build-2", SECRET), KeyCodec("build-1", b"")])
def test_another_secret_or_build_reads_nothing(other: KeyCodec) -> None:
    key = KeyCodec("build-1", SECRET).encode(kk.ADDRESS, 0, 1234)
    with pytest.raises(NotFoundError, match="not issued"):
        other.decode(key)


def test_altered_keys_are_refused() -> None:
    codec = KeyCodec("build-1", SECRET)
    raw = bytearray(_raw(codec.encode(kk.ADDRESS, 0, 1234)))
    for i in range(len(raw)):
        bad = bytearray(raw)
        bad[i] ^= 1
        with pytest.raises(NotFoundError):
            codec.decode(base64.urlsafe_b64encode(bytes(bad)).rstrip(b"=").decode())
    with pytest.raises(NotFoundError):
        codec.decode(base64.urlsafe_b64encode(bytes(raw[:-1])).rstrip(b"=").decode())


def test_the_process_secret_keys_new_engines_and_no_repr_shows_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kk, "_process_secret", b"")
    key = KeyCodec("build-1").encode(kk.ADDRESS, 0, 1)
    kk.use_secret(SECRET)
    assert KeyCodec("build-1").decode(KeyCodec("build-1", SECRET).encode(kk.ADDRESS, 0, 1)) == [kk.ADDRESS, 0, 1]
    with pytest.raises(NotFoundError):
        KeyCodec("build-1").decode(key)  # issued without the secret
    assert "secret-of" not in repr(KeyCodec("build-1")) and SECRET.decode() not in repr(KeyCodec("build-1"))
