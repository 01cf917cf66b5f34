"""deploy/kubernetes (both topologies) as a security reviewer reads it: every Outrider pod is held
by a NetworkPolicy that lets it reach DNS, PostgreSQL, its fellow replicas' gRPC port and (pods
that browse only) the public internet on HTTP(S), and nothing else (no cluster-internal address,
no cloud metadata); no pod gets a service-account token; every container runs as non-root on a
read-only root filesystem with writable volumes for what it writes."""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.deploy.test_kubernetes import DEPLOY, TOPOLOGIES, manifest_files
from tests.support.harness import REPO_ROOT

PUBLIC = ("93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c")
# What a page must never make the browser reach: metadata services, private networks, loopback.
FORBIDDEN = (
    "169.254.169.254",
    "169.254.170.2",
    "10.0.0.1",
    "10.96.0.1",
    "100.64.0.1",
    "127.0.0.1",
    "172.16.0.1",
    "172.31.255.254",
    "192.168.1.1",
    "0.0.0.0",
    "fd00:ec2::254",
    "fe80::1",
    "::1",
    "::ffff:169.254.169.254",
)
DNS = {
    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
    "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
}
POSTGRESQL = {"podSelector": {"matchLabels": {"app.kubernetes.io/name": "postgresql"}}}


def documents(directory: Path) -> list[dict[str, Any]]:
    files = manifest_files(directory)
    return [doc for path in files for doc in yaml.safe_load_all(path.read_text())]


def pod_templates(directory: Path) -> list[dict[str, Any]]:
    kinds = ("Deployment", "Job")
    return [doc["spec"]["template"] for doc in documents(directory) if doc["kind"] in kinds]


def policies_of(directory: Path, labels: dict[str, str]) -> list[dict[str, Any]]:
    found = [doc for doc in documents(directory) if doc["kind"] == "NetworkPolicy"]
    return [p for p in found if p["spec"]["podSelector"]["matchLabels"].items() <= labels.items()]


def browses(template: dict[str, Any]) -> bool:
    """Whether the pod runs browser and research agents (the API role executes no run)."""
    (container,) = template["spec"]["containers"]
    env = {e["name"]: e.get("value") for e in container.get("env", [])}
    return "command" not in container and env.get("OUTRIDER_ROLE") != "api"


def ip_allowed(policy: dict[str, Any], address: str, port: int) -> bool:
    """Whether an egress rule of the policy lets this address and TCP port through."""
    ip = ipaddress.ip_address(address)
    for rule in policy["spec"]["egress"]:
        if not any(p["port"] == port and p["protocol"] == "TCP" for p in rule["ports"]):
            continue
        for block in (peer["ipBlock"] for peer in rule["to"] if "ipBlock" in peer):
            network = ipaddress.ip_network(block["cidr"])
            excepted = any(ip in ipaddress.ip_network(e) for e in block.get("except", []))
            if ip.version == network.version and ip in network and not excepted:
                return True
    return False


@pytest.mark.parametrize("directory", TOPOLOGIES, ids=lambda p: p.name)
def test_every_pod_is_held_by_an_egress_policy_that_opens_only_what_it_needs(
    directory: Path,
) -> None:
    for template in pod_templates(directory):
        (policy,) = policies_of(directory, template["metadata"]["labels"])
        assert set(policy["spec"]["policyTypes"]) == {"Ingress", "Egress"}
        outrider = {"app.kubernetes.io/name": "outrider"}
        for rule in policy["spec"]["egress"]:
            assert rule.get("to") and rule.get("ports"), "a rule open to every destination or port"
            for peer in rule["to"]:
                own = peer.get("podSelector", {}).get("matchLabels", {}).items() >= outrider.items()
                assert peer in (DNS, POSTGRESQL) or "ipBlock" in peer or own, peer
                if own:  # fellow replicas: their gRPC port only (relays)
                    assert rule["ports"] == [{"port": 50051, "protocol": "TCP"}]
        public = [ip_allowed(policy, address, 443) for address in PUBLIC]
        assert public == [browses(template)] * 2, template["metadata"]["labels"]


@pytest.mark.parametrize("directory", TOPOLOGIES, ids=lambda p: p.name)
def test_no_pod_reaches_metadata_private_or_loopback_addresses(directory: Path) -> None:
    for template in pod_templates(directory):
        (policy,) = policies_of(directory, template["metadata"]["labels"])
        for address in FORBIDDEN:
            for port in (80, 443):
                assert not ip_allowed(policy, address, port), (address, port)
        assert not ip_allowed(policy, PUBLIC[0], 22)  # HTTP(S) only


def home_of_the_images_user() -> str:
    dockerfile = (REPO_ROOT / "Dockerfile").read_text()
    user = re.search(r"useradd\b[^\n]*--create-home[^\n]*\s(\w+)\s*\\?$", dockerfile, re.M)
    assert user, "the Dockerfile no longer creates its user with a home"
    return f"/home/{user.group(1)}"


@pytest.mark.parametrize("directory", TOPOLOGIES, ids=lambda p: p.name)
def test_pods_get_no_token_and_a_read_only_root_with_writable_volumes(directory: Path) -> None:
    for template in pod_templates(directory):
        pod = template["spec"]
        assert pod["automountServiceAccountToken"] is False
        assert pod["securityContext"]["runAsNonRoot"] is True
        volumes = {volume["name"] for volume in pod["volumes"]}
        for container in pod["containers"]:
            security = container["securityContext"]
            assert security["readOnlyRootFilesystem"] is True
            assert security["allowPrivilegeEscalation"] is False
            assert security["capabilities"]["drop"] == ["ALL"]
            mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
            assert set(mounts.values()) <= volumes
            assert "/tmp" in mounts
            if browses(template):  # Chromium writes its profile under $HOME, and /dev/shm
                assert {home_of_the_images_user(), "/dev/shm", "/var/lib/outrider"} <= set(mounts)


def test_the_single_replica_keeps_its_data_on_the_claim() -> None:
    (template,) = pod_templates(DEPLOY)
    claims = {v["name"] for v in template["spec"]["volumes"] if "persistentVolumeClaim" in v}
    (container,) = template["spec"]["containers"]
    data = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}["/var/lib/outrider"]
    assert data in claims
