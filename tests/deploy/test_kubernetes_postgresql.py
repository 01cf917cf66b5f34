"""deploy/kubernetes/postgresql: API and worker Deployments on one PostgreSQL, with the cluster
secret, a migration Job and a disruption budget per Deployment, agree with the settings and the
server's roles (the schema checks are in test_kubernetes.py, the security ones beside it)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from outrider.server.core.shutdown import longest_shutdown
from outrider.server.grpc_edge.server import RUN_SERVICE
from outrider.server.settings import Settings
from tests.deploy.sizing import mebibytes, needed_memory_mib
from tests.deploy.test_kubernetes import DEPLOY, manifest_files

OVERLAY = DEPLOY / "postgresql"
CLUSTER_SECRET = "outrider-cluster"
SHARED = ("OUTRIDER_DATABASE_URL", "OUTRIDER_CLUSTER_SECRET", "OUTRIDER_PAGE_TOKEN_SECRET")


def documents() -> list[dict[str, Any]]:
    files = manifest_files(OVERLAY)
    return [doc for path in files for doc in yaml.safe_load_all(path.read_text())]


def named(kind: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in documents() if d["kind"] == kind}


def container(deployment: str) -> dict[str, Any]:
    (found,) = named("Deployment")[deployment]["spec"]["template"]["spec"]["containers"]
    return dict(found)


def settings_of(deployment: str, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """What the server of that Deployment reads: the ConfigMap, its own env, the Secret's keys."""
    spec = container(deployment)
    for name, value in named("ConfigMap")["outrider-settings"]["data"].items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("OUTRIDER_DATABASE_URL", "postgresql://outrider:pw@db:5432/outrider")
    monkeypatch.setenv("OUTRIDER_CLUSTER_SECRET", "c" * 64)
    monkeypatch.setenv("OUTRIDER_PAGE_TOKEN_SECRET", "p" * 64)
    for item in spec["env"]:
        value = item.get("value", "10.1.2.3").replace("$(POD_IP)", "10.1.2.3")
        monkeypatch.setenv(item["name"], value)
    return Settings()


ROLES = [("outrider-api", "api"), ("outrider-worker", "worker")]


@pytest.mark.parametrize(("deployment", "role"), ROLES)
def test_each_deployment_is_its_role_on_the_shared_store(
    deployment: str, role: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = settings_of(deployment, monkeypatch)  # valid: an API role needs the cluster store
    assert settings.role == role and settings.advertise_address == "10.1.2.3:50051"
    assert named("Deployment")[deployment]["spec"]["replicas"] >= 2
    spec = container(deployment)
    secrets = [s["secretRef"] for s in spec["envFrom"] if "secretRef" in s]
    assert {"name": CLUSTER_SECRET} in secrets  # required: no replica starts without it
    names = [item["name"] for item in spec["env"]]
    assert names.index("POD_IP") < names.index("OUTRIDER_ADVERTISE_ADDRESS")  # $(POD_IP) expands
    assert spec["readinessProbe"]["grpc"]["service"] == RUN_SERVICE


def test_the_kustomization_documents_the_secret_the_deployments_need() -> None:
    text = (OVERLAY / "kustomization.yaml").read_text()
    assert f"kubectl create secret generic {CLUSTER_SECRET}" in text
    assert all(f"--from-literal={variable}=" in text for variable in SHARED)


def test_workers_stop_gently_and_fit_their_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = settings_of("outrider-worker", monkeypatch)
    pod = named("Deployment")["outrider-worker"]["spec"]["template"]["spec"]
    assert pod["terminationGracePeriodSeconds"] >= longest_shutdown(settings.shutdown_grace)
    resources = container("outrider-worker")["resources"]
    needed = needed_memory_mib(settings.max_concurrent_runs)
    assert mebibytes(resources["requests"]["memory"]) >= needed
    assert mebibytes(resources["limits"]["memory"]) >= 2 * needed


def test_the_migration_job_runs_outrider_migrate_on_the_shared_database() -> None:
    (job,) = named("Job").values()
    (spec,) = job["spec"]["template"]["spec"]["containers"]
    assert spec["command"] == ["/opt/outrider/venv/bin/outrider", "migrate"]
    (url,) = spec["env"]
    assert url["name"] == "OUTRIDER_DATABASE_URL"
    assert url["valueFrom"]["secretKeyRef"] == {"name": CLUSTER_SECRET, "key": url["name"]}


def test_budgets_and_the_service_select_their_own_pods() -> None:
    deployments = named("Deployment")
    budgets = named("PodDisruptionBudget")
    assert set(budgets) == set(deployments)
    for name, deployment in deployments.items():
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        assert deployment["spec"]["selector"]["matchLabels"] == labels
        assert budgets[name]["spec"]["selector"]["matchLabels"] == labels
    (service,) = named("Service").values()
    api = deployments["outrider-api"]["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"] == api  # callers reach API replicas, not the workers
    targets = {p["targetPort"] for p in service["spec"]["ports"]}
    assert targets == {p["name"] for p in container("outrider-api")["ports"]}
