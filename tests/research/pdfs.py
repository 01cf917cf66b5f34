"""Writes the tide fixture site's PDFs (committed under tests/fixtures/tides/reports/):
`python -m tests.research.pdfs`. Neither has a title in its metadata."""

from __future__ import annotations

from tests.support.harness import REPO_ROOT

REPORTS = REPO_ROOT / "tests" / "fixtures" / "tides" / "reports"


def minimal_pdf(lines: list[str]) -> bytes:
    """A one-page PDF showing `lines` in Helvetica, with no document information."""
    shown = "".join(f"({line}) Tj T*\n" for line in lines)
    stream = f"BT /F1 12 Tf 72 720 Td 16 TL\n{shown}ET\n".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"endstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    table = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        table,
    )
    return bytes(out)


TIDE_TABLES = [
    "Tide tables for Harbour Point",
    "",
    "High water on the first of June falls at 04:12 and 16:37, heights 5.9 and 6.1 metres.",
    "Low water falls at 10:25 and 22:49. Times are local; add one hour in summer.",
]
SCAN = [
    "the harbour board resolved in its meeting of May 1958 that the entrance channel be dredged to",
    "five metres at low water, the cost to be met from harbour dues over the following ten years.",
]


def main() -> None:
    REPORTS.mkdir(parents=True, exist_ok=True)
    (REPORTS / "tide-tables.pdf").write_bytes(minimal_pdf(TIDE_TABLES))
    (REPORTS / "scan-0042.pdf").write_bytes(minimal_pdf(SCAN))


if __name__ == "__main__":
    main()
