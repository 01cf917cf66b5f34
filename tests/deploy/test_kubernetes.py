"""deploy/kubernetes: every manifest validates against the Kubernetes schemas (strict, so a
misspelt field fails), and the manifests agree with the code and the image they deploy."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from outrider.server.grpc_edge.server import SERVICE_NAMES
from outrider.server.settings import Settings
from tests.deploy.sizing import mebibytes, needed_memory_mib
from tests.support.harness import REPO_ROOT

DEPLOY = REPO_ROOT / "deploy" / "kubernetes"
TOPOLOGIES = (DEPLOY, DEPLOY / "postgresql")  # one replica on SQLite; API + workers on PostgreSQL
# The oldest Kubernetes still in upstream support when written, and the newest schemas we have.
VERSIONS = ("1.32.0", kubernetes_validate.latest_version() + ".0")


def manifest_files(directory: Path = DEPLOY) -> list[Path]:
    kustomization = yaml.safe_load((directory / "kustomization.yaml").read_text())
    return [directory / name for name in kustomization["resources"]]


def every_manifest_file() -> list[Path]:
    return [path for directory in TOPOLOGIES for path in manifest_files(directory)]


def manifests() -> dict[str, dict[str, Any]]:
    """Every resource by kind."""
    found = {}
    for path in manifest_files():
        for document in yaml.safe_load_all(path.read_text()):
            found[document["kind"]] = document
    return found


@pytest.mark.parametrize("directory", TOPOLOGIES, ids=lambda p: p.name)
def test_kustomization_lists_every_manifest(directory: Path) -> None:
    on_disk = {p.name for p in directory.glob("*.yaml")} - {"kustomization.yaml"}
    assert {p.name for p in manifest_files(directory)} == on_disk


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("path", every_manifest_file(), ids=lambda p: str(p.relative_to(DEPLOY)))
def test_manifest_validates_against_the_kubernetes_schema(path: Path, version: str) -> None:
    for document in yaml.safe_load_all(path.read_text()):
        kubernetes_validate.validate(document, version, strict=True)


def test_the_validator_does_catch_a_wrong_field() -> None:
    deployment = manifests()["Deployment"]
    deployment["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]["grpcc"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, VERSIONS[0], strict=True)


def container() -> dict[str, Any]:
    containers = manifests()["Deployment"]["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return dict(containers[0])


def configured_settings(monkeypatch: pytest.MonkeyPatch) -> Settings:
    """The settings the ConfigMap gives the server (so its values must be valid settings)."""
    for name, value in manifests()["ConfigMap"]["data"].items():
        monkeypatch.setenv(name, value)
    return Settings()


def test_configmap_values_are_valid_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    data = manifests()["ConfigMap"]["data"]
    assert all(name.startswith("OUTRIDER_") for name in data)
    fields = {f"OUTRIDER_{name.upper()}" for name in Settings.model_fields}
    assert set(data) <= fields, set(data) - fields
    configured_settings(monkeypatch)


def test_termination_grace_outlasts_the_shutdown_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    grace = configured_settings(monkeypatch).shutdown_grace
    spec = manifests()["Deployment"]["spec"]["template"]["spec"]
    # runs get `grace`, cancelled ones as long again to write their terminal events
    assert spec["terminationGracePeriodSeconds"] >= 2 * grace + 10


def test_probes_ask_grpc_health_on_the_served_port(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = configured_settings(monkeypatch)
    spec = container()
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        assert spec[probe]["grpc"]["port"] == settings.port, probe
    assert spec["readinessProbe"]["grpc"]["service"] in SERVICE_NAMES
    ports = {p["name"]: p["containerPort"] for p in spec["ports"]}
    assert ports == {"grpc": settings.port, "http": settings.rest_port}
    exposed = re.search(r"^EXPOSE (.*)$", (REPO_ROOT / "Dockerfile").read_text(), re.MULTILINE)
    assert exposed and sorted(map(int, exposed.group(1).split())) == sorted(ports.values())


def test_service_and_budget_select_the_deployments_pods() -> None:
    found = manifests()
    labels = found["Deployment"]["spec"]["template"]["metadata"]["labels"]
    assert found["Deployment"]["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert found["Service"]["spec"]["selector"].items() <= labels.items()
    assert found["PodDisruptionBudget"]["spec"]["selector"]["matchLabels"].items() <= labels.items()
    targets = {p["targetPort"] for p in found["Service"]["spec"]["ports"]}
    assert targets == {p["name"] for p in container()["ports"]}


def test_pod_runs_as_the_images_user_with_the_data_dir_on_the_volume() -> None:
    dockerfile = (REPO_ROOT / "Dockerfile").read_text()
    uid = re.search(r"useradd --uid (\d+)", dockerfile)
    data_dir = re.search(r"OUTRIDER_DATA_DIR=(\S+)", dockerfile)
    assert uid and data_dir
    pod = manifests()["Deployment"]["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsUser"] == int(uid.group(1))
    mounts = {m["name"]: m["mountPath"] for m in container()["volumeMounts"]}
    assert mounts["data"] == data_dir.group(1)
    claim = {v["name"]: v for v in pod["volumes"]}["data"]["persistentVolumeClaim"]["claimName"]
    assert claim == manifests()["PersistentVolumeClaim"]["metadata"]["name"]


def test_resources_cover_the_measured_memory_of_the_configured_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The request must hold the idle tree plus the configured runs, the limit twice it."""
    needed_mib = needed_memory_mib(configured_settings(monkeypatch).max_concurrent_runs)
    resources = container()["resources"]
    assert mebibytes(resources["requests"]["memory"]) >= needed_mib
    assert mebibytes(resources["limits"]["memory"]) >= 2 * needed_mib
    assert resources["requests"]["cpu"]
