"""A throwaway PKI made at test time with `cryptography`: a CA, a server certificate for
localhost/127.0.0.1, and client certificates (mapped by their common name)."""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


@dataclass(frozen=True)
class Issued:
    cert: Path
    key: Path


class Authority:
    """A CA that writes every certificate it issues as PEM files into `folder`."""

    def __init__(self, folder: Path, name: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder, self.name = folder, name
        self._key = ec.generate_private_key(ec.SECP256R1())
        subject = _name(f"{name} test CA")
        self._cert = (
            _builder(subject, subject, self._key.public_key())
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True, key_cert_sign=True, crl_sign=True,
                    content_commitment=False, key_encipherment=False, data_encipherment=False,
                    key_agreement=False, encipher_only=False, decipher_only=False,
                ),
                critical=True,
            )
            .sign(self._key, hashes.SHA256())
        )  # fmt: skip
        self.cert_file = folder / f"{name}-ca.pem"
        self.cert_file.write_bytes(self._cert.public_bytes(serialization.Encoding.PEM))

    def server(self) -> Issued:
        names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
        return self._issue("localhost", [ExtendedKeyUsageOID.SERVER_AUTH], names)

    def replica(self) -> Issued:
        """A server certificate for localhost that may also act as a client (relayed calls
        between replicas under mutual TLS)."""
        names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
        usages = [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
        return self._issue("replica", usages, names)

    def client(self, common_name: str) -> Issued:
        return self._issue(common_name, [ExtendedKeyUsageOID.CLIENT_AUTH], [])

    def _issue(
        self,
        common_name: str,
        usages: list[x509.ObjectIdentifier],
        names: list[x509.GeneralName],
    ) -> Issued:
        key = ec.generate_private_key(ec.SECP256R1())
        builder = (
            _builder(_name(common_name), self._cert.subject, key.public_key())
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage(usages), critical=False)
        )
        if names:
            builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
        cert = builder.sign(self._key, hashes.SHA256())
        stem = self.folder / f"{self.name}-{common_name}"
        issued = Issued(stem.with_suffix(".pem"), stem.with_suffix(".key"))
        issued.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        issued.key.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
        return issued


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _builder(
    subject: x509.Name, issuer: x509.Name, public_key: ec.EllipticCurvePublicKey
) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
    )
