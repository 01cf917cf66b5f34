"""Builders of the contract's parameter messages from plain Python values."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import struct_pb2

from outrider.client.vault import PROFILE_SAVES, credential_name, profile_name
from outrider.v1 import params_pb2, research_events_pb2

_MODES = {
    "fast": research_events_pb2.RESEARCH_MODE_FAST,
    "balanced": research_events_pb2.RESEARCH_MODE_BALANCED,
    "deep": research_events_pb2.RESEARCH_MODE_DEEP,
    "max": research_events_pb2.RESEARCH_MODE_MAX,
    "ultra": research_events_pb2.RESEARCH_MODE_ULTRA,
}


RECIPE_MODES = {
    "": params_pb2.RECIPE_MODE_UNSPECIFIED,
    "off": params_pb2.RECIPE_MODE_OFF,
    "record": params_pb2.RECIPE_MODE_RECORD,
    "replay": params_pb2.RECIPE_MODE_REPLAY,
}


@dataclass(frozen=True)
class Options:
    """Outrider's own options of a run (RunOptions)."""

    cancel_on_disconnect: bool = False
    include_screenshot_images: bool = False
    model: str = ""
    allowed_domains: tuple[str, ...] = field(default=())
    blocked_domains: tuple[str, ...] = field(default=())
    omit_prompts: bool = False  # ai:generation events without the prompt bodies
    recipes: str = ""  # "record" or "replay" (browser runs, servers with OUTRIDER_RECIPES)
    refuse_held_actions: bool = False  # a caller that cannot answer approvals: refuse at once
    session: str = ""  # "sessions/{id}": run in that session (see AsyncClient.sessions)
    profile: str = ""  # "profiles/{id}" (or the id): start from its saved browser state
    # "never", "on_success" or "always": write the state back to `profile` (in a session: to the
    # profile the session was created from)
    profile_save: str = ""
    credentials: tuple[str, ...] = field(default=())  # "credentials/{id}" the run may fill

    def to_proto(self) -> params_pb2.RunOptions:
        return params_pb2.RunOptions(
            cancel_on_disconnect=self.cancel_on_disconnect,
            include_screenshot_images=self.include_screenshot_images,
            model=self.model,
            allowed_domains=self.allowed_domains,
            blocked_domains=self.blocked_domains,
            omit_prompts=self.omit_prompts,
            recipes=RECIPE_MODES[self.recipes],
            refuse_held_actions=self.refuse_held_actions,
            session=self.session,
            profile=profile_name(self.profile) if self.profile else "",
            profile_save=PROFILE_SAVES[self.profile_save],
            credentials=[credential_name(c) for c in self.credentials],
        )


def automate_params(
    task: str,
    *,
    url: str = "",
    data: Mapping[str, Any] | None = None,
    guardrails: str = "",
    interactive: bool = False,
    max_iterations: int | None = None,
    trusted_hostnames: Iterable[str] = (),
    unsafe_mode: bool = False,
) -> params_pb2.AutomateParams:
    params = params_pb2.AutomateParams(
        task=task,
        url=url,
        guardrails=guardrails,
        interactive=interactive,
        trusted_hostnames=list(trusted_hostnames),
        unsafe_mode=unsafe_mode,
    )
    if data:
        struct = struct_pb2.Struct()
        struct.update(dict(data))
        params.data.CopyFrom(struct)
    if max_iterations is not None:
        params.max_iterations = max_iterations
    return params


def research_params(
    query: str, *, mode: str = "fast", fetch_timeout: int | None = None, nocache: bool = False
) -> params_pb2.ResearchParams:
    """`mode` is fast, balanced, deep, max or ultra (the contract's ResearchMode)."""
    params = params_pb2.ResearchParams(query=query, mode=research_mode(mode), nocache=nocache)
    if fetch_timeout is not None:
        params.fetch_timeout = fetch_timeout
    return params


def research_mode(mode: str) -> research_events_pb2.ResearchMode:
    if mode.lower() not in _MODES:
        raise ValueError(f"unknown research mode {mode!r}; choose from {sorted(_MODES)}")
    return _MODES[mode.lower()]


def run_name(run: str) -> str:
    """ "runs/abc" for "abc" or "runs/abc"."""
    return run if run.startswith("runs/") else f"runs/{run}"


def interaction_name(interaction: str) -> str:
    return interaction if interaction.startswith("interactions/") else f"interactions/{interaction}"
