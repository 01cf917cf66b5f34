"""Issue 10, item 1, with the addresses loopback cannot show: in a private network namespace
(`unshare -n -m`, root) 10.9.9.9 and 169.254.169.254 are real listeners on port 80, and
/etc/hosts names them. The probe page in the research renderer reaches none of them, by address
or by name; the same page in an unguarded Chromium reaches them all over TCP (the control), so
the namespace works and the zeros mean something. (With only a loopback interface Chromium sends
no WebRTC or WebTransport datagrams even unguarded; test_render_guard shows those on loopback.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.research.netns_probe import TARGETS, hosts_file
from tests.research.probes import PROBES
from tests.support.harness import REPO_ROOT

SETUP = (
    "ip link set lo up && ip addr add 10.9.9.9/32 dev lo && ip addr add 169.254.169.254/32 dev lo"
    ' && mount --bind "$PROBE_HOSTS" /etc/hosts'
    ' && exec "$PROBE_PYTHON" -m tests.research.netns_probe'
)


def namespaces_available() -> bool:
    try:
        done = subprocess.run(["unshare", "-n", "-m", "true"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def run_in_namespace(tmp_path: Path) -> dict[str, Any]:
    hosts = tmp_path / "hosts"
    hosts.write_text(hosts_file())
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "PROBE_HOSTS": str(hosts)}
    done = subprocess.run(
        ["unshare", "-n", "-m", "sh", "-c", SETUP],
        cwd=REPO_ROOT,
        env={**env, "PROBE_PYTHON": sys.executable, "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.skipif(not namespaces_available(), reason="needs root: unshare -n -m")
def test_no_rendered_page_reaches_private_or_metadata_addresses_or_names(tmp_path: Path) -> None:
    result = run_in_namespace(tmp_path)
    control, guarded = result["unguarded"], result["guarded"]
    assert len(control["outcomes"]) == len(guarded["outcomes"]) == len(TARGETS) * len(PROBES)
    for target in TARGETS:  # what request routing cannot see reaches every one, names too
        wanted = {f"/{kind}/{target}" for kind in ("ws", "frame", "fetch")}
        assert wanted <= set(control["paths"]), control
    assert guarded["total"] == 0, guarded
