"""How this process connects to PostgreSQL, for every connection it opens (the pool, the
presence session, the LISTEN connection, migrations).

`OUTRIDER_DATABASE_URL` may name several hosts, as libpq allows
(`postgresql://h1:5432,h2:5432/db?target_session_attrs=read-write`): each new connection tries
them in order and keeps the first that accepts writes, so after a standby is promoted every
reconnection finds the new primary. What the URL leaves unsaid is filled in here so that a
primary that vanishes without closing its connections (a host that died, a network cut) is
noticed in seconds rather than after the kernel's retransmission timeout (minutes):
- `connect_timeout`: each host gets this long to answer, so a dead first host does not hold up
  the others;
- TCP keepalives: an idle connection (LISTEN, presence) whose server is gone fails after about
  `keepalives_idle + keepalives_interval * keepalives_count` seconds;
- `tcp_user_timeout`: a connection whose sent data goes unacknowledged this long fails.
Values in the URL win.
"""

from __future__ import annotations

import logging

from psycopg.conninfo import conninfo_to_dict, make_conninfo

log = logging.getLogger(__name__)

CLIENT_DEFAULTS: dict[str, int] = {
    "connect_timeout": 5,
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 1,
    "keepalives_count": 3,
    "tcp_user_timeout": 10_000,  # milliseconds
}


def with_client_options(url: str) -> str:
    """`url` as a libpq connection string, with the defaults above it does not set."""
    given = conninfo_to_dict(url)
    return make_conninfo(
        url, **{name: value for name, value in CLIENT_DEFAULTS.items() if name not in given}
    )


def hosts_of(url: str) -> list[str]:
    """`host:port` of every host the URL names, in the order they are tried (for log lines)."""
    given = conninfo_to_dict(url)
    hosts = str(given.get("host") or given.get("hostaddr") or "localhost").split(",")
    ports = str(given.get("port") or "5432").split(",")
    if len(ports) == 1:
        ports = ports * len(hosts)
    return [f"{host}:{port or 5432}" for host, port in zip(hosts, ports, strict=False)]


def check_url(url: str) -> None:
    """Warns about a multi-host URL that may land on a standby: without
    `target_session_attrs=read-write` (or `primary`), libpq keeps the first host that answers,
    and a standby answers too (every write would then fail as read-only)."""
    given = conninfo_to_dict(url)
    if len(hosts_of(url)) > 1 and given.get("target_session_attrs") not in (
        "read-write",
        "primary",
    ):
        log.warning(
            "OUTRIDER_DATABASE_URL names %d hosts without target_session_attrs=read-write: "
            "a connection may land on a standby, whose writes are refused until it reconnects",
            len(hosts_of(url)),
        )
