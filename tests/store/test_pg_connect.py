"""How every PostgreSQL connection of a replica is made: the URL's own parameters win, the
defaults that notice a vanished primary fill the rest, and a multi-host URL that could land on a
standby is warned about at start."""

from __future__ import annotations

import logging

import pytest
from psycopg.conninfo import conninfo_to_dict

from outrider.server.core.storage.postgres.connect import (
    CLIENT_DEFAULTS,
    check_url,
    hosts_of,
    with_client_options,
)

MULTI = "postgresql://u:pw@pg1:5432,pg2:5433/db?target_session_attrs=read-write"


def test_defaults_fill_what_the_url_leaves_unsaid() -> None:
    given = conninfo_to_dict(with_client_options(MULTI))
    assert given["host"] == "pg1,pg2" and given["port"] == "5432,5433"
    assert given["target_session_attrs"] == "read-write" and given["password"] == "pw"
    assert {k: int(str(given[k])) for k in CLIENT_DEFAULTS} == CLIENT_DEFAULTS


def test_the_urls_own_values_win() -> None:
    url = "postgresql://u@pg1/db?connect_timeout=30&keepalives_idle=60&tcp_user_timeout=0"
    given = conninfo_to_dict(with_client_options(url))
    assert (given["connect_timeout"], given["keepalives_idle"]) == ("30", "60")
    assert given["tcp_user_timeout"] == "0" and given["keepalives_count"] == "3"


def test_hosts_are_listed_in_the_order_they_are_tried() -> None:
    assert hosts_of(MULTI) == ["pg1:5432", "pg2:5433"]
    assert hosts_of("postgresql://u@pg1,pg2:6432/db") == ["pg1:5432", "pg2:6432"]
    assert hosts_of("host=pg1,pg2 port=6432 dbname=db") == ["pg1:6432", "pg2:6432"]


@pytest.mark.parametrize(
    ("url", "warned"),
    [
        ("postgresql://u@pg1,pg2/db", True),  # the first host that answers, a standby too
        ("postgresql://u@pg1,pg2/db?target_session_attrs=any", True),
        (MULTI, False),
        ("postgresql://u@pg1,pg2/db?target_session_attrs=primary", False),
        ("postgresql://u@writer.example/db", False),  # one name: the service moves it
    ],
)
def test_a_multi_host_url_that_may_land_on_a_standby_is_warned_about(
    url: str, warned: bool, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        check_url(url)
    assert any("target_session_attrs" in r.getMessage() for r in caplog.records) == warned
