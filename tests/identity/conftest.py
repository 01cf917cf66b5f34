"""Identity tests: the test IdP (node oidc-provider) and one real server per module."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from tests.identity.support import IdentityCase, identity_server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def identity(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[IdentityCase]:
    async with identity_server(tmp_path_factory.mktemp("identity")) as case:
        yield case
