"""Profiles and credentials on PostgreSQL with two replicas (processes with the production agent
and their own Chromium): a run on one replica logs in with a credential and saves the profile; a
run on the other starts from it signed in, with no login and no question. The database holds none
of the password, the TOTP seed, the codes or the session cookie in plain text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
import psycopg

from outrider.v1 import credential_pb2, params_pb2, profile_pb2, run_event_pb2, run_pb2
from outrider.v1 import credential_service_pb2 as cs
from outrider.v1 import credential_service_pb2_grpc as csg
from outrider.v1 import profile_service_pb2 as ps
from outrider.v1 import profile_service_pb2_grpc as psg
from outrider.v1 import run_service_pb2 as rs
from outrider.v1 import run_service_pb2_grpc as rsg
from tests.profiles.support import SCENARIO, named, questions
from tests.store.conftest import ReplicaStarter
from tests.support.harness import TEST_VAULT_KEY
from tests.support.login_site import PASSWORD, SEED, USER, login_site

TABLES = ("runs", "events", "interactions", "profiles", "credentials", "credential_uses",
          "checkpoints", "side_effects", "artifact_chunks")  # fmt: skip


def replica(start: ReplicaStarter, script: Path, site: str) -> grpc.aio.Channel:
    started = start(
        production=True,
        OUTRIDER_MODEL=f"scripted:{script}",
        OUTRIDER_NETWORK_ALLOW=site.removeprefix("http://"),
        OUTRIDER_VAULT_KEYS=TEST_VAULT_KEY,
    )
    return grpc.aio.insecure_channel(f"127.0.0.1:{started.port}")


async def run(
    channel: grpc.aio.Channel, task: str, url: str, **options: Any
) -> tuple[run_pb2.Run, list[run_event_pb2.RunEvent]]:
    runs = rsg.RunServiceStub(channel)
    request = rs.AutomateRequest(
        params=params_pb2.AutomateParams(task=task, url=url),
        options=params_pb2.RunOptions(**options),
    )
    events = [r.event async for r in runs.Automate(request) if r.HasField("event")]
    ended = await runs.GetRun(rs.GetRunRequest(name=events[0].run))
    return ended.run, events


async def test_a_profile_saved_on_one_replica_is_used_on_another(
    start_replica: ReplicaStarter, postgres_url: str, tmp_path: Path
) -> None:
    script = tmp_path / "scenario.yaml"
    script.write_text(SCENARIO.read_text())
    with login_site() as site:
        first = replica(start_replica, script, site.url)
        second = replica(start_replica, script, site.url)
        secret = credential_pb2.CredentialSecret(username=USER, password=PASSWORD, totp_seed=SEED)
        await csg.CredentialServiceStub(first).SetCredential(
            cs.SetCredentialRequest(name="credentials/acme", origins=[site.url], secret=secret)
        )
        await psg.ProfileServiceStub(first).CreateProfile(
            ps.CreateProfileRequest(profile_id="acme")
        )
        saved, _ = await run(
            first, "Sign in to Acme and read who is signed in.", f"{site.url}/login",
            credentials=["credentials/acme"], profile="profiles/acme",
            profile_save=profile_pb2.PROFILE_SAVE_ON_SUCCESS,
        )  # fmt: skip
        assert saved.outcome.profile_save.saved, saved.outcome
        used, events = await run(second, "Read my Acme account.", f"{site.url}/account",
                                 profile="profiles/acme")  # fmt: skip
        assert used.outcome.success, used.outcome
        assert questions(events) == 0 and site.sign_ins == 1
        assert named(events, "profile_loaded")[0].profile_loaded.version == 1
        codes = [f["code"] for path, f in site.received if path == "/verify"]
        cookies = list(site.sessions)
        await first.close()
        await second.close()
    with psycopg.connect(postgres_url) as db:
        for table in TABLES:
            text = "\n".join(str(row[0]) for row in db.execute(f"SELECT t::text FROM {table} t"))
            for value in (PASSWORD, SEED, *codes, *cookies):
                assert value not in text and value.encode().hex() not in text, (table, value)
