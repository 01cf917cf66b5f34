"""One-time codes by RFC 6238: the RFC's own test vectors, and the same codes as pyotp (the
fixture site's checker) for base32 seeds and otpauth URIs."""

from __future__ import annotations

import pyotp
import pytest

from outrider.server.core.vault.totp import TotpSeed, TotpSeedError

# RFC 6238 appendix B: the seeds are ASCII "1234567890" repeated to the hash's size.
RFC_SEEDS = {
    "SHA1": b"12345678901234567890",
    "SHA256": b"12345678901234567890123456789012",
    "SHA512": b"1234567890123456789012345678901234567890123456789012345678901234",
}
RFC_CODES = [
    (59, {"SHA1": "94287082", "SHA256": "46119246", "SHA512": "90693936"}),
    (1111111109, {"SHA1": "07081804", "SHA256": "68084774", "SHA512": "25091201"}),
    (2000000000, {"SHA1": "69279037", "SHA256": "90698825", "SHA512": "38618901"}),
]


@pytest.mark.parametrize(("at", "codes"), RFC_CODES)
def test_the_rfc_6238_vectors(at: int, codes: dict[str, str]) -> None:
    for algorithm, code in codes.items():
        seed = TotpSeed(RFC_SEEDS[algorithm], digits=8, algorithm=algorithm)
        assert seed.code(seed.step(at)) == code


def test_base32_seeds_and_uris_give_pyotps_codes() -> None:
    secret = pyotp.random_base32()
    at = 1_800_000_007
    seed = TotpSeed.parse(" ".join(secret[i : i + 4] for i in range(0, len(secret), 4)).lower())
    assert seed.code(seed.step(at)) == pyotp.TOTP(secret).at(at)
    uri = pyotp.TOTP(secret, digits=8, interval=60).provisioning_uri("a@b.c", issuer_name="X")
    from_uri = TotpSeed.parse(uri)
    assert from_uri.code(from_uri.step(at)) == pyotp.TOTP(secret, digits=8, interval=60).at(at)
    again = TotpSeed.parse(from_uri.encoded())
    assert again == from_uri
    assert seed.remaining(at) == 30 - at % 30


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("not base32 at all!", "not base32"),
        ("JBSWY3DP", "too short"),
        ("otpauth://hotp/x?secret=JBSWY3DPEHPK3PXPJBSWY3DP", "only otpauth://totp/"),
        ("otpauth://totp/x?digits=6", "no secret"),
        ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXPJBSWY3DP&algorithm=MD5", "algorithm"),
        ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXPJBSWY3DP&digits=4", "digits must be"),
    ],
)
def test_bad_seeds_are_refused_without_quoting_them(text: str, problem: str) -> None:
    with pytest.raises(TotpSeedError, match=problem) as raised:
        TotpSeed.parse(text)
    assert "JBSWY3DP" not in str(raised.value)
