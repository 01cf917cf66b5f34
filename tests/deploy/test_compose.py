"""compose.yaml: the two-replica PostgreSQL topology agrees with the code and the image it runs
(no container engine is needed: what can go stale is checked against the sources)."""

from __future__ import annotations

import re
from typing import Any

import yaml
from typer.main import get_command

from outrider.cli.main import app
from outrider.server.core.shutdown import longest_shutdown
from outrider.server.settings import Settings
from tests.support.harness import REPO_ROOT

COMPOSE = REPO_ROOT / "compose.yaml"
REPLICAS = ("outrider-a", "outrider-b")


def services() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = yaml.safe_load(COMPOSE.read_text())["services"]
    return found


def seconds(duration: str) -> float:
    match = re.fullmatch(r"(\d+)s", duration)
    assert match, duration
    return float(match.group(1))


def test_every_outrider_variable_is_a_setting() -> None:
    known = {f"OUTRIDER_{name.upper()}" for name in Settings.model_fields}
    for name, service in services().items():
        for variable in service.get("environment", {}):
            if variable.startswith("OUTRIDER_"):
                assert variable in known, (name, variable)


def test_replicas_share_the_store_and_the_page_token_key() -> None:
    found = services()
    shared = ("OUTRIDER_DATABASE_URL", "OUTRIDER_PAGE_TOKEN_SECRET", "OUTRIDER_CLUSTER_SECRET")
    first, second = (found[name]["environment"] for name in REPLICAS)
    for variable in shared:
        assert first[variable] and first[variable] == second[variable], variable
    migrate = found["migrate"]["environment"]
    assert first["OUTRIDER_DATABASE_URL"] == migrate["OUTRIDER_DATABASE_URL"]
    # the URL names the compose service that runs PostgreSQL
    assert "@postgres:5432/" in first["OUTRIDER_DATABASE_URL"]
    assert found["postgres"]["image"].startswith("postgres:")
    # no shared volume: artifact bytes and recipes are in PostgreSQL
    assert all("volumes" not in found[name] for name in REPLICAS)


def test_migrations_run_first_with_the_cli_the_image_installs() -> None:
    found = services()
    entrypoint = found["migrate"]["entrypoint"]
    assert entrypoint[0] == "/opt/outrider/venv/bin/outrider"
    assert "OUTRIDER_VENV=/opt/outrider/venv" in (REPO_ROOT / "Dockerfile").read_text()
    assert entrypoint[1] in get_command(app).commands  # type: ignore[attr-defined]
    for name in REPLICAS:
        condition = found[name]["depends_on"]["migrate"]["condition"]
        assert condition == "service_completed_successfully"


def test_replicas_listen_on_distinct_host_ports_and_stop_gently() -> None:
    found = services()
    host_ports = [port.split(":")[0] for name in REPLICAS for port in found[name]["ports"]]
    assert len(host_ports) == len(set(host_ports)) == 4
    for name in REPLICAS:
        grace = float(found[name]["environment"]["OUTRIDER_SHUTDOWN_GRACE"])
        assert seconds(found[name]["stop_grace_period"]) > longest_shutdown(grace)


def test_replicas_relay_to_each_other_by_service_name() -> None:
    found = services()
    for name in REPLICAS:
        environment = found[name]["environment"]
        # no default secret: compose refuses to start until the operator sets one
        assert environment["OUTRIDER_CLUSTER_SECRET"].startswith("${OUTRIDER_CLUSTER_SECRET:?")
        host, port = environment["OUTRIDER_ADVERTISE_ADDRESS"].split(":")
        assert host == name  # the compose service's DNS name
        published = {mapping.split(":")[1] for mapping in found[name]["ports"]}
        assert port in published  # the gRPC port inside the container
