"""Pure pieces of the HTTP layer: retry arithmetic, header parsing, secrets, negotiation, redaction, limits."""

from __future__ import annotations

import email.utils
import logging
import random
import re

import pytest

import dqkit.server
from dqkit.client import AddressClient, AsyncLeadClient, ClientSettings, LeadClient, Secret
from dqkit.client._policy import backoff_delay, rate_limit_wait, resolve
from dqkit.contract.codes import RESULT_CODES
from dqkit.contract.errors import InputError
from dqkit.server.config import ServerConfig, parse_networks
from dqkit.server.gate import query_has_token
from dqkit.server.lead_routes import negotiate
from dqkit.server.openapi import openapi_document
from dqkit.server.ratelimit import FixedWindowLimiter
from dqkit.server.runner import RedactSecrets
from dqkit.server.status import LEAD_HTTP_STATUS

SECRET = "s3cr3t-value-XYZ"


def test_backoff_doubles_with_jitter_and_is_capped() -> None:
    rng = random.Random(7)
    for attempt in range(1, 12):
        full = min(15.0, 0.5 * 2 ** (attempt - 1))
        waits = [backoff_delay(attempt, 0.5, 15.0, rng) for _ in range(50)]
        assert all(full / 2 <= w <= full for w in waits)
        assert len(set(waits)) > 1  # jitter: not all the same
    assert backoff_delay(30, 0.5, 15.0, rng) <= 15.0


def test_rate_limit_wait_reads_retry_after_then_reset() -> None:
    now = 1_700_000_000.0
    assert rate_limit_wait({"retry-after": "3"}, now) == 3.0
    assert rate_limit_wait({"retry-after": "2", "x-rate-limit-reset": str(now + 30)}, now) == 2.0
    assert rate_limit_wait({"x-rate-limit-reset": str(int(now) + 12)}, now) == 12.0
    assert rate_limit_wait({"x-rate-limit-reset": str(int(now) - 5)}, now) == 0.0
    date = email.utils.formatdate(now + 20, usegmt=True)
    assert rate_limit_wait({"retry-after": date}, now) == pytest.approx(20.0, abs=1.0)
    assert rate_limit_wait({}, now) is None
    assert rate_limit_wait({"retry-after": "soon"}, now) is None


def test_secret_never_prints() -> None:
    s = Secret(SECRET)
    assert SECRET not in repr(s) and SECRET not in str(s) and SECRET not in f"{s}" and SECRET not in f"{s!r}"
    assert s.reveal() == SECRET
    settings = ClientSettings(base_url="http://127.0.0.1:1", token=s)
    assert SECRET not in repr(settings)
    with pytest.raises(TypeError):
        import pickle

        pickle.dumps(s)


def test_clients_hide_the_token_and_refuse_it_in_urls() -> None:
    lead = LeadClient("http://127.0.0.1:9", token=SECRET)
    addr = AddressClient("http://127.0.0.1:9", token=SECRET)
    for c in (lead, addr):
        assert SECRET not in repr(c) and SECRET not in c.name and SECRET not in repr(c.settings)
        c.close()
    with pytest.raises(InputError):
        LeadClient(f"http://user:{SECRET}@127.0.0.1:9")
    with pytest.raises(InputError) as err:
        LeadClient(f"http://127.0.0.1:9/?auth-token={SECRET}")
    assert SECRET not in str(err.value)
    with pytest.raises(InputError):
        AsyncLeadClient("http://127.0.0.1:9", headers={"Auth-Token": SECRET})


def test_settings_come_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DQKIT_LEAD_URL", "http://127.0.0.1:7/")
    monkeypatch.setenv("DQKIT_LEAD_TOKEN", SECRET)
    url, token = resolve("lead", None, None)
    assert url == "http://127.0.0.1:7/" and token is not None and token.reveal() == SECRET
    url, token = resolve("lead", "http://127.0.0.1:8", "other")
    assert url == "http://127.0.0.1:8" and token is not None and token.reveal() == "other"
    monkeypatch.delenv("DQKIT_ADDRESS_URL", raising=False)
    with pytest.raises(InputError, match="DQKIT_ADDRESS_URL"):
        resolve("address", None, None)


@pytest.mark.parametrize(("accept", "default", "expected"), [
    ("", "xml", "xml"),
    ("", "json", "json"),
    ("*/*", "xml", "xml"),
    ("application/json", "xml", "json"),
    ("text/xml", "json", "xml"),
    ("application/xml;q=0.5, application/json;q=0.9", "xml", "json"),
    ("application/json;q=0.2, application/xml", "json", "xml"),
    ("application/json;q=0", "xml", "xml"),
    ("text/html", "json", "json"),
])
def test_accept_negotiation(accept: str, default: str, expected: str) -> None:
    assert negotiate(accept, default) == expected  # type: ignore[arg-type]


def test_query_token_detection() -> None:
    for qs in (b"auth-token=x", b"Auth-Token=x", b"a=1&auth_token=x", b"token=", b"api_key=x", b"AUTHTOKEN=x"):
        assert query_has_token(qs), qs
    for qs in (b"", b"country_iso=usa", b"tokenize=1"):
        assert not query_has_token(qs), qs


def test_log_filter_redacts_query_tokens_and_known_secrets() -> None:
    f = RedactSecrets(frozenset({SECRET}))
    rec = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
                            ("127.0.0.1:5", "GET", f"/search?auth-token={SECRET}&x=1", "1.1", 401), None)
    f.filter(rec)
    text = rec.getMessage()
    assert SECRET not in text and "auth-token=***" in text and "x=1" in text
    rec = logging.LogRecord("dqkit", logging.INFO, __file__, 1, f"token {SECRET} seen", None, None)
    f.filter(rec)
    assert SECRET not in rec.getMessage()


def test_fixed_window_limiter() -> None:
    now = [1000.0]
    lim = FixedWindowLimiter(3, 60, clock=lambda: now[0])
    verdicts = [lim.hit("a") for _ in range(4)]
    assert [v.allowed for v in verdicts] == [True, True, True, False]
    assert [v.remaining for v in verdicts] == [2, 1, 0, 0]
    assert verdicts[-1].reset_at == 1020 and verdicts[-1].retry_after(now[0]) == 20
    assert lim.hit("b").allowed  # per token
    now[0] = 1020.0
    assert lim.hit("a").allowed  # a new window


def test_every_result_code_has_an_http_status_and_the_docs_say_the_same() -> None:
    assert set(LEAD_HTTP_STATUS) == set(RESULT_CODES)
    doc = dqkit.server.__doc__ or ""
    seen = set()
    for line in doc.splitlines():
        m = re.match(r"\s+((?:[ES]\d{3}\b.*?))\s{2,}(\d{3})\s", line)
        if m:
            for code in re.findall(r"[ES]\d{3}", m.group(1)):
                assert LEAD_HTTP_STATUS[code] == int(m.group(2)), code
                seen.add(code)
    assert seen == set(RESULT_CODES)
    documented = set(re.findall(r"[ES]\d{3}", doc))
    assert documented >= set(RESULT_CODES)
    description = openapi_document()["info"]["description"]
    for code, status in LEAD_HTTP_STATUS.items():
        assert f"| {code} | {status} |" in description


def test_server_config_validates_and_hides_tokens() -> None:
    cfg = ServerConfig(tokens=frozenset({SECRET}), allow_ips=parse_networks(["10.0.0.0/8", "::1"]))
    assert SECRET not in repr(cfg)
    assert cfg.ip_allowed("10.1.2.3") and cfg.ip_allowed("::1") and cfg.ip_allowed("::ffff:10.0.0.1")
    assert not cfg.ip_allowed("127.0.0.1") and not cfg.ip_allowed(None) and not cfg.ip_allowed("junk")
    assert ServerConfig().ip_allowed("203.0.113.9")
    with pytest.raises(InputError):
        parse_networks(["not-a-network"])
    with pytest.raises(InputError):
        ServerConfig(rate_limit=-1)


def test_openapi_document_lists_every_operation() -> None:
    doc = openapi_document(ServerConfig(tokens=frozenset({"x"})))
    paths = doc["paths"]
    for p in ("/search", "/els/rest/enrich/v1/search", "/address/search/v1", "/address/validate/v1",
              "/address/suggestions/refine/v1/{key}", "/address/format/v1/{key}",
              "/address/suggestions/stepin/v1/{key}", "/address/suggestions/stepIn", "/address/lookup/v2",
              "/address/datasets/v1", "/healthz"):
        assert p in paths, p
    assert set(paths["/address/format/v1/{key}"]) == {"get", "post"}
    assert doc["security"] == [{"AuthToken": []}]
    ids = [op["operationId"] for item in paths.values() for op in item.values()]
    assert len(ids) == len(set(ids))
    for name in ("SearchRequest", "ELSGenericMessage", "ErrorBody", "LeadJson", "LeadForm"):
        assert name in doc["components"]["schemas"]


def test_rate_limiter_spaces_requests() -> None:
    import asyncio

    from dqkit.client._limits import PauseGate, RateLimiter

    async def main() -> tuple[list[float], list[float]]:
        asked: list[float] = []

        async def record(seconds: float) -> None:
            asked.append(seconds)

        limiter = RateLimiter(10.0, record)
        for _ in range(5):
            await limiter.acquire()
        gate = PauseGate(record)
        gate.pause(2.0)
        gate.pause(0.5)  # a shorter pause never shortens a longer one
        before = len(asked)
        await gate.wait()
        return asked[:before], asked[before:]

    spacing, paused = asyncio.run(main())
    assert len(spacing) == 4 and spacing == sorted(spacing)
    assert [round(s, 1) for s in spacing] == [0.1, 0.2, 0.3, 0.4]
    assert len(paused) == 1 and 1.9 < paused[0] <= 2.0


def test_serve_command_options(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path

    from dqkit.cli import build_parser, main
    from dqkit.cli.serve_cmd import config_from_args

    csv = Path(str(tmp_path)) / "ref.csv"
    csv.write_text("LON,LAT,NUMBER,STREET,UNIT,CITY,DISTRICT,REGION,POSTCODE,ID\n")
    monkeypatch.setenv("DQKIT_SERVE_TOKENS", "env-token")
    args = build_parser().parse_args([
        "serve", "--host", "127.0.0.1", "--port", "0", "--token", "t1", "--token", "t2", "--client-id", "C1",
        "--client-id", "C2", "--allow-ip", "10.0.0.0/8", "--allow-ip", "127.0.0.1", "--reference", str(csv),
        "--reference", str(csv), "--rate-limit", "100", "--max-body-bytes", "4096"])
    cfg = config_from_args(args)
    assert cfg.tokens == frozenset({"t1", "t2", "env-token"}) and cfg.client_ids == frozenset({"C1", "C2"})
    assert cfg.partner_ids is None and len(cfg.allow_ips) == 2 and len(cfg.references) == 2
    assert cfg.rate_limit == 100 and cfg.max_body_bytes == 4096
    assert main(["serve", "--allow-ip", "nonsense"]) == 1
    assert main(["serve", "--reference", str(csv) + ".missing"]) == 1


def test_search_response_cache_is_lru() -> None:
    from dqkit.engines.address.cache import BytesLRU

    cache = BytesLRU(max_bytes=4)  # two one-byte keys with one-byte values
    cache.put(b"a", b"1")
    cache.put(b"b", b"2")
    assert cache.get(b"a") == b"1"  # a is now the most recent
    cache.put(b"c", b"3")
    assert cache.get(b"b") is None and cache.get(b"a") == b"1" and cache.get(b"c") == b"3"


def test_failed_login_limiter_blocks_after_the_limit_and_resets_per_window() -> None:
    from dqkit.server.ratelimit import FailureLimiter

    now = [1000.0]
    lim = FailureLimiter(3, 60, clock=lambda: now[0], max_keys=2)
    for _ in range(3):
        assert lim.blocked("1.2.3.4") is None
        lim.failed("1.2.3.4")
    verdict = lim.blocked("1.2.3.4")
    assert verdict is not None and not verdict.allowed and verdict.reset_at == 1020
    assert lim.blocked("5.6.7.8") is None
    lim.failed("5.6.7.8")
    lim.failed("9.9.9.9")  # a third address: the least recent count is forgotten, memory stays bounded
    assert len(lim) <= 4 and lim.blocked("9.9.9.9") is None
    now[0] = 1021.0
    assert lim.blocked("1.2.3.4") is None


def test_reference_id_pattern_is_the_vendors() -> None:
    from dqkit.server.gate import REFERENCE_ID

    assert REFERENCE_ID.fullmatch("abc-123/x:y.z,(1) 2_")
    assert REFERENCE_ID.fullmatch("r" * 256) and not REFERENCE_ID.fullmatch("r" * 257)
    for bad in ("a<b", "x\u00e9", "a\nb", "a;b"):
        assert not REFERENCE_ID.fullmatch(bad)


def test_connection_cap_stays_below_the_descriptor_limit() -> None:
    from dqkit.server.config import ServerConfig
    from dqkit.server.runner import DESCRIPTOR_RESERVE, connection_cap, refusal_bytes

    assert connection_cap(ServerConfig(max_connections=5000), 1024) == 1024 - DESCRIPTOR_RESERVE
    assert connection_cap(ServerConfig(max_connections=100), 1024) == 100
    answer = refusal_bytes(503, "full", b"retry-after: 1\r\n")
    assert answer.startswith(b"HTTP/1.1 503 ") and b"connection: close" in answer and answer.endswith(b"}}")
