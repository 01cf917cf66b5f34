"""Logging in by hand once (ProfileService.StartProfileLogin, the console's "New profile"): a
browser run with no agent, loaded with the profile's state, at the login page; a person takes
it over, logs in and hands it back, and the state is saved to the profile when they did."""

from __future__ import annotations

from collections.abc import Sequence

from outrider.server.core.errors import InvalidArgument
from outrider.server.core.principals import Principal
from outrider.server.core.runs.starting import RunSpec
from outrider.server.core.validation import http_url_violations
from outrider.server.core.vault.names import parse_profile_name, profile_name
from outrider.server.core.vault.profiles import Profiles
from outrider.v1 import params_pb2, profile_pb2, run_pb2


def login_spec(
    profiles: Profiles,
    principal: Principal,
    profile: str,
    url: str,
    allowed_domains: Sequence[str] = (),
) -> RunSpec:
    """The by-hand run for `profile` (NotFound when the tenant has none such)."""
    profile_id = parse_profile_name(profile, "profile")
    row = profiles.row(principal, profile_id)
    start = url or row.check_url
    if not start:
        raise InvalidArgument.single("url", "give the login page: the profile has no check")
    problems = http_url_violations(start, "url")
    if problems:
        raise InvalidArgument(problems)
    name = profile_name(profile_id)
    params = params_pb2.AutomateParams(
        task=f"Log in for {name}, then hand the browser back: it is saved to the profile.",
        url=start,
        interactive=True,
    )
    options = params_pb2.RunOptions(
        profile=name,
        profile_save=profile_pb2.PROFILE_SAVE_ON_SUCCESS,
        by_hand=True,
        allowed_domains=allowed_domains,
    )
    return RunSpec(run_pb2.RUN_KIND_AUTOMATE, params, options)
