"""The caller of one A2A request, and the links its tasks carry: artifacts on the REST route
(read with the same key), one-time answer links for questions with secret fields."""

from __future__ import annotations

from dataclasses import dataclass

from outrider.server.core.names import parse_artifact_name
from outrider.server.core.principals import Principal
from outrider.server.core.runs.manager import RunManager


@dataclass(frozen=True)
class Caller:
    """Who calls, and the base URL (scheme://host[:port][/prefix]) it reached this server at."""

    principal: Principal
    base_url: str


class CallerLinks:
    def __init__(self, runs: RunManager, caller: Caller) -> None:
        self._runs = runs
        self._caller = caller

    def artifact_url(self, artifact_name: str) -> str:
        run_id, artifact_id = parse_artifact_name(artifact_name)
        return f"{self._caller.base_url}/v1/runs/{run_id}/artifacts/{artifact_id}"

    def answer_url(self, interaction_id: str) -> str | None:
        """Only for a question still pending, and a caller who could answer it with its key."""
        links = self._runs.answer_links
        if not links.shown_to(self._caller.principal):
            return None
        if not self._runs.interactions.is_pending(interaction_id):
            return None
        url = links.url(interaction_id)
        return url if "://" in url else self._caller.base_url + url
