"""Page tokens are signed with a key that survives restarts and that replicas can share."""

from __future__ import annotations

import stat
from pathlib import Path

import grpc
import pytest

from outrider.server.core.paging import KEY_FILE_NAME
from outrider.v1 import params_pb2, run_service_pb2
from tests.support.harness import Harness, rich_error, start_harness, stop_harness


async def first_page_token(harness: Harness) -> str:
    for _ in range(2):
        await harness.runs.CreateRun(
            run_service_pb2.CreateRunRequest(automate=params_pb2.AutomateParams(task="t"))
        )
    page = await harness.runs.ListRuns(run_service_pb2.ListRunsRequest(page_size=1))
    assert page.next_page_token
    return page.next_page_token


async def second_page(harness: Harness, token: str) -> list[str]:
    page = await harness.runs.ListRuns(run_service_pb2.ListRunsRequest(page_token=token))
    return [r.name for r in page.runs]


async def refuses(harness: Harness, token: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await second_page(harness, token)
    assert rich_error(caught.value).violations.keys() == {"page_token"}


def key_files(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.startswith(KEY_FILE_NAME)]


async def test_the_key_file_is_private_and_tokens_survive_a_restart(tmp_path: Path) -> None:
    harness = await start_harness(tmp_path)
    try:
        token = await first_page_token(harness)
        before = await second_page(harness, token)
    finally:
        await stop_harness(harness)
    key_file = tmp_path / KEY_FILE_NAME
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    harness = await start_harness(tmp_path)
    try:
        assert await second_page(harness, token) == before
    finally:
        await stop_harness(harness)
    assert key_files(tmp_path) == [KEY_FILE_NAME]  # no draft left beside it


async def test_replicas_with_the_same_secret_accept_each_others_tokens(tmp_path: Path) -> None:
    one = await start_harness(tmp_path / "one", page_token_secret="shared secret")
    two = await start_harness(tmp_path / "two", page_token_secret="shared secret")
    three = await start_harness(tmp_path / "three", page_token_secret="another secret")
    alone = await start_harness(tmp_path / "alone")
    try:
        await first_page_token(two)  # two's runs are older than one's
        token = await first_page_token(one)
        assert len(await second_page(two, token)) == 2  # all of two's runs: older than the cursor
        await refuses(three, token)
        await refuses(alone, token)
        assert not (tmp_path / "one" / KEY_FILE_NAME).exists()
    finally:
        for harness in (one, two, three, alone):
            await stop_harness(harness)
