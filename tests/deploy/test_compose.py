"""compose.yaml: the two-replica PostgreSQL topology agrees with the code and the image it runs,
and is safe for a Docker user as written: secrets come only from .env (no default, a clear error
when unset; .env.example names them all), ports are published on loopback unless told
otherwise, every service has resource limits, and the image builds on the public Debian image.

No container engine or compose implementation is installed here, so the file is rendered by
`render` below: compose's interpolation of the three forms the file uses (`${VAR}`,
`${VAR:-default}`, `${VAR:?error}`); any other form fails the test rather than render wrongly."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from typer.main import get_command

from outrider.cli.main import app
from outrider.server.core.shutdown import longest_shutdown
from outrider.server.settings import Settings
from tests.deploy.sizing import mebibytes, needed_memory_mib
from tests.support.harness import REPO_ROOT

COMPOSE = REPO_ROOT / "compose.yaml"
ENV_EXAMPLE = REPO_ROOT / ".env.example"
REPLICAS = ("outrider-a", "outrider-b")
REQUIRED = ("POSTGRES_PASSWORD", "OUTRIDER_PAGE_TOKEN_SECRET", "OUTRIDER_CLUSTER_SECRET")
FILLED = {name: "a1" * 32 for name in REQUIRED}  # what `openssl rand -hex 32` gives
REFERENCE = re.compile(r"\$\{([A-Z0-9_]+)(?:(:-|:\?)([^}]*))?\}")


class Unset(Exception):
    """compose refuses the file: a `${VAR:?error}` variable is unset or empty."""


def render(values: dict[str, str]) -> dict[str, Any]:
    """compose.yaml as compose interpolates it with these variables (.env's, the shell's)."""

    def substitute(match: re.Match[str]) -> str:
        name, form, argument = match.groups()
        value = values.get(name, "")
        if form == ":?" and not value:
            raise Unset(f"{name}: {argument}")
        return value or (argument if form == ":-" else "")

    text = COMPOSE.read_text()
    leftover = REFERENCE.sub("", text)
    assert "${" not in leftover and "$$" not in leftover, "a form render() does not know"
    rendered: dict[str, Any] = yaml.safe_load(REFERENCE.sub(substitute, text))
    return rendered


def env_example() -> dict[str, str]:
    lines = ENV_EXAMPLE.read_text().splitlines()
    pairs = [line.split("=", 1) for line in lines if line.strip() and not line.startswith("#")]
    return {name: value for name, value in pairs}


def services(values: dict[str, str] | None = None) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = render(env_example() | FILLED | (values or {}))["services"]
    return found


def seconds(duration: str) -> float:
    match = re.fullmatch(r"(\d+)s", duration)
    assert match, duration
    return float(match.group(1))


@pytest.mark.parametrize("secret", REQUIRED)
def test_a_secret_left_unset_stops_compose_with_its_name(secret: str) -> None:
    with pytest.raises(Unset, match=rf"^{secret}: set {secret} in \.env"):
        render(env_example() | FILLED | {secret: ""})


def test_no_secret_has_a_default_and_env_example_names_every_variable() -> None:
    references = REFERENCE.findall(COMPOSE.read_text())
    example = env_example()
    for name, form, argument in references:
        assert name in example, f"{name} is not in .env.example"
        if re.search(r"SECRET|PASSWORD|KEY", name):
            assert form == ":?" or argument == "", f"{name} has a default: {argument!r}"
    assert {name for name, form, _ in references if form == ":?"} == set(REQUIRED)
    assert all(example[name] == "" for name in REQUIRED)  # copied as is: compose refuses
    assert "/.env" in (REPO_ROOT / ".gitignore").read_text().splitlines()
    # nothing secret written into the file itself
    assert not re.search(r"postgresql://[^:]+:[^$]", COMPOSE.read_text())


def test_every_outrider_variable_is_a_setting() -> None:
    known = {f"OUTRIDER_{name.upper()}" for name in Settings.model_fields}
    for name, service in services().items():
        for variable in service.get("environment", {}):
            if variable.startswith("OUTRIDER_"):
                assert variable in known, (name, variable)


def test_replicas_share_the_store_and_the_secrets() -> None:
    found = services()
    shared = ("OUTRIDER_DATABASE_URL", "OUTRIDER_PAGE_TOKEN_SECRET", "OUTRIDER_CLUSTER_SECRET")
    first, second = (found[name]["environment"] for name in REPLICAS)
    for variable in shared:
        assert first[variable] and first[variable] == second[variable], variable
    migrate = found["migrate"]["environment"]
    assert first["OUTRIDER_DATABASE_URL"] == migrate["OUTRIDER_DATABASE_URL"]
    # the URL names the compose service that runs PostgreSQL, with its password
    password = found["postgres"]["environment"]["POSTGRES_PASSWORD"]
    url = f"postgresql://outrider:{password}@postgres:5432/outrider"
    assert first["OUTRIDER_DATABASE_URL"] == url
    assert found["postgres"]["image"].startswith("postgres:")
    Settings(database_url=url, cluster_secret=first["OUTRIDER_CLUSTER_SECRET"])  # valid values
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


def published(service: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(host address, host port, container port) of each published port."""
    return [tuple(mapping.split(":")) for mapping in service["ports"]]  # type: ignore[misc]


def test_ports_are_published_on_loopback_unless_told_otherwise() -> None:
    for name in REPLICAS:
        assert {address for address, _, _ in published(services()[name])} == {"127.0.0.1"}
        everywhere = services({"OUTRIDER_PUBLISH_ADDRESS": "0.0.0.0"})[name]
        assert {address for address, _, _ in published(everywhere)} == {"0.0.0.0"}
    assert "ports" not in services()["postgres"]  # reached inside the compose network only


def test_replicas_listen_on_distinct_host_ports_and_stop_gently() -> None:
    found = services()
    host_ports = [port for name in REPLICAS for _, port, _ in published(found[name])]
    assert len(host_ports) == len(set(host_ports)) == 4
    for name in REPLICAS:
        grace = float(found[name]["environment"]["OUTRIDER_SHUTDOWN_GRACE"])
        assert seconds(found[name]["stop_grace_period"]) > longest_shutdown(grace)


def test_replicas_relay_to_each_other_by_service_name() -> None:
    found = services()
    for name in REPLICAS:
        host, port = found[name]["environment"]["OUTRIDER_ADVERTISE_ADDRESS"].split(":")
        assert host == name  # the compose service's DNS name
        assert port in {container for _, _, container in published(found[name])}


def test_every_service_has_resource_limits_and_replicas_fit_their_runs() -> None:
    found = services()
    for name, service in found.items():
        limits = service["deploy"]["resources"]["limits"]
        assert float(limits["cpus"]) > 0 and mebibytes(limits["memory"]) > 0, name
    for name in REPLICAS:
        resources = found[name]["deploy"]["resources"]
        runs = int(found[name]["environment"]["OUTRIDER_MAX_CONCURRENT_RUNS"])
        assert mebibytes(resources["reservations"]["memory"]) >= needed_memory_mib(runs)
        assert mebibytes(resources["limits"]["memory"]) >= 2 * needed_memory_mib(runs)
        assert mebibytes(found[name]["shm_size"].replace("m", "M")) >= 256  # Chromium's /dev/shm


def test_the_image_builds_on_the_public_debian_image_unless_told_otherwise() -> None:
    dockerfile = (REPO_ROOT / "Dockerfile").read_text()
    default = re.search(r"^ARG BASE_IMAGE=(\S+)$", dockerfile, re.M)
    assert default and default.group(1) == "debian:bookworm-slim"
    for name in (*REPLICAS, "migrate"):
        assert services()[name]["build"]["args"]["BASE_IMAGE"] == "debian:bookworm-slim"
        local = services({"OUTRIDER_BASE_IMAGE": "localhost/debian:bookworm-slim"})[name]
        assert local["build"]["args"]["BASE_IMAGE"] == "localhost/debian:bookworm-slim"
    # `make image` keeps building on the local base `make base-image` makes
    makefile = (REPO_ROOT / "Makefile").read_text()
    assert re.search(r"^BASE_IMAGE \?= localhost/debian:bookworm-slim$", makefile, re.M)
    assert "--build-arg BASE_IMAGE=$(BASE_IMAGE)" in makefile
