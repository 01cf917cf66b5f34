"""Tool arguments checked against their schemas (tools.py) and turned into contract messages.

Shapes are checked here (types, enums, unknown keys); what the values may be (URL forms, lengths,
domains) is the server's validation, whose violations come back named by argument.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf import struct_pb2

from outrider.client.requests import research_mode, run_name
from outrider.client.session_service import session_name
from outrider.mcp.backend import Params
from outrider.mcp.errors import Refused
from outrider.mcp.tools import KINDS, STATES
from outrider.v1 import params_pb2, profile_pb2, run_pb2

_RUN_OPTION_KEYS = frozenset({"model", "cancel_on_disconnect"})
_AUTOMATE_OPTION_KEYS = _RUN_OPTION_KEYS | {
    "max_iterations",
    "trusted_hostnames",
    "allowed_domains",
    "blocked_domains",
    "profile",
    "profile_save",
    "credentials",
}
PROFILE_SAVE_VALUES = {
    "never": profile_pb2.PROFILE_SAVE_NEVER,
    "on_success": profile_pb2.PROFILE_SAVE_ON_SUCCESS,
    "always": profile_pb2.PROFILE_SAVE_ALWAYS,
}
STATE_VALUES = {name: run_pb2.RunState.Value(f"RUN_STATE_{name.upper()}") for name in STATES}
KIND_VALUES = {name: run_pb2.RunKind.Value(f"RUN_KIND_{name.upper()}") for name in KINDS}
# AIP-155's request ids, as gRPC takes them (the stdio bridge starts runs over gRPC)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)


@dataclass(frozen=True)
class Start:
    """`request_id`: the caller's idempotency key ("" for none), a UUID in lower case."""

    params: Params
    options: params_pb2.RunOptions
    request_id: str = ""


class _Args:
    """Reads one argument object, collecting every violation before refusing."""

    def __init__(self, given: Mapping[str, Any] | None, keys: frozenset[str], at: str = "") -> None:
        self.given: Mapping[str, Any] = given or {}
        self.at = at
        self.violations: dict[str, str] = {}
        for key in self.given:
            if key not in keys:
                self.violations[at + key] = "is not an argument of this tool"

    def _get(self, key: str, kind: type | tuple[type, ...], name: str) -> Any:
        value = self.given.get(key)
        if value is None:
            return None
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            self.violations[self.at + key] = f"must be {name}"
            return None
        return value

    def text(self, key: str, required: bool = False) -> str:
        value = self._get(key, str, "a string")
        if required and not value and self.at + key not in self.violations:
            self.violations[self.at + key] = "is required"
        return str(value or "")

    def flag(self, key: str) -> bool:
        return bool(self._get(key, bool, "true or false"))

    def integer(self, key: str, low: int, high: int) -> int | None:
        value = self._get(key, int, "an integer")
        if value is not None and not low <= value <= high:
            self.violations[self.at + key] = f"must be between {low} and {high}"
            return None
        return int(value) if value is not None else None

    def texts(self, key: str) -> list[str]:
        value = self._get(key, list, "an array of strings")
        if value is not None and not all(isinstance(item, str) for item in value):
            self.violations[self.at + key] = "must be an array of strings"
            return []
        return list(value or [])

    def choice(self, key: str, choices: tuple[str, ...] | Mapping[str, Any]) -> str:
        value = self.text(key)
        if value and value not in choices:
            self.violations[self.at + key] = f"must be one of: {', '.join(choices)}"
            return ""
        return value

    def mapping(self, key: str) -> Mapping[str, Any]:
        return self._get(key, dict, "an object") or {}

    def request_id(self) -> str:
        value = self.text("request_id")
        if value and not _UUID.fullmatch(value):
            self.violations[self.at + "request_id"] = (
                "must be a UUID such as 3f2b8c1e-5d4a-4e7b-9c0d-2a6f8e1b7c3d"
            )
        return value.lower()

    def check(self) -> None:
        if self.violations:
            raise Refused(
                "INVALID_ARGUMENT", "invalid arguments", "INVALID_ARGUMENT", self.violations
            )


def automate_start(given: Mapping[str, Any] | None, interactive: bool) -> Start:
    """`interactive`: the client can answer questions; otherwise the agent asks none and
    actions that would need an approval are refused at once."""
    keys = {"task", "url", "data", "guardrails", "session", "options", "request_id"}
    args = _Args(given, frozenset(keys))
    request_id = args.request_id()
    params = params_pb2.AutomateParams(
        task=args.text("task", required=True),
        url=args.text("url"),
        guardrails=args.text("guardrails"),
        interactive=interactive,
    )
    data = args.mapping("data")
    options = _Args(args.mapping("options"), _AUTOMATE_OPTION_KEYS, "options.")
    params.trusted_hostnames.extend(options.texts("trusted_hostnames"))
    iterations = options.integer("max_iterations", 1, 500)
    if iterations is not None:
        params.max_iterations = iterations
    run_options = _run_options(options)
    run_options.allowed_domains.extend(options.texts("allowed_domains"))
    run_options.blocked_domains.extend(options.texts("blocked_domains"))
    _vault_options(options, run_options)
    run_options.refuse_held_actions = not interactive
    run_options.session = session_name(args.text("session"))
    _check_all(args, options)
    if data:
        params.data.CopyFrom(_struct(data))
    return Start(params, run_options, request_id)


def research_start(given: Mapping[str, Any] | None) -> Start:
    args = _Args(given, frozenset({"query", "mode", "session", "options", "request_id"}))
    request_id = args.request_id()
    query = args.text("query", required=True)
    mode = args.choice("mode", ("fast", "balanced", "deep", "max", "ultra")) or "fast"
    options = _Args(args.mapping("options"), _RUN_OPTION_KEYS, "options.")
    run_options = _run_options(options)
    run_options.session = session_name(args.text("session"))
    _check_all(args, options)
    params = params_pb2.ResearchParams(query=query, mode=research_mode(mode))
    return Start(params, run_options, request_id)


def keeps_running(given: Mapping[str, Any] | None) -> bool:
    """Whether a start's arguments ask that its run never end with the call (an explicit
    `options.cancel_on_disconnect: false`): then not even notifications/cancelled cancels it."""
    options = (given or {}).get("options")
    return isinstance(options, Mapping) and options.get("cancel_on_disconnect") is False


def run_of(given: Mapping[str, Any] | None, *extra: str) -> tuple[str, _Args]:
    """The run argument as a resource name, and the reader for the tool's other arguments."""
    args = _Args(given, frozenset({"run", *extra}))
    run = args.text("run", required=True)
    return (run_name(run) if run else ""), args


def get_run_args(given: Mapping[str, Any] | None) -> tuple[str, bool]:
    run, args = run_of(given, "wait")
    wait = args.flag("wait")
    args.check()
    return run, wait


def cancel_args(given: Mapping[str, Any] | None) -> tuple[str, str]:
    run, args = run_of(given, "reason")
    reason = args.text("reason")
    args.check()
    return run, reason


def list_args(given: Mapping[str, Any] | None) -> tuple[int, str, list[int], int]:
    """(page size, page token, states, kind) of a ListRuns call."""
    args = _Args(given, frozenset({"state", "kind", "page_size", "page_token"}))
    state = args.choice("state", STATE_VALUES)
    kind = args.choice("kind", KIND_VALUES)
    size = args.integer("page_size", 1, 100) or 20
    token = args.text("page_token")
    args.check()
    states = [STATE_VALUES[state]] if state else []
    return size, token, states, KIND_VALUES[kind] if kind else run_pb2.RUN_KIND_UNSPECIFIED


def artifact_arg(given: Mapping[str, Any] | None) -> str:
    args = _Args(given, frozenset({"artifact"}))
    name = args.text("artifact", required=True)
    args.check()
    return name


@dataclass(frozen=True)
class NewSession:
    kind: int
    start_url: str
    idle_timeout: int | None  # seconds
    max_life: int | None
    request_id: str = ""
    profile: str = ""  # "profiles/<id>" as given (the server checks it, as for automate's)


def start_session_args(given: Mapping[str, Any] | None) -> NewSession:
    keys = {"kind", "start_url", "idle_timeout_seconds", "max_life_seconds", "profile"}
    args = _Args(given, frozenset(keys | {"request_id"}))
    kind = args.choice("kind", KIND_VALUES) or "automate"
    start_url = args.text("start_url")
    idle = args.integer("idle_timeout_seconds", 1, 2**31 - 1)
    life = args.integer("max_life_seconds", 1, 2**31 - 1)
    profile = args.text("profile")
    if profile and not profile.startswith("profiles/"):  # the same on stdio as over HTTP
        args.violations["profile"] = 'must look like "profiles/<id>"'
    request_id = args.request_id()
    args.check()
    return NewSession(KIND_VALUES[kind], start_url, idle, life, request_id, profile)


def end_session_args(given: Mapping[str, Any] | None) -> tuple[str, str]:
    args = _Args(given, frozenset({"session", "reason"}))
    session = args.text("session", required=True)
    reason = args.text("reason")
    args.check()
    return session_name(session), reason


def argument_path(field: str) -> str:
    """The tool argument a server-side violation names (the contract's field path): parameters
    that the tools take as options move under "options.", the session is an argument of its
    own."""
    if field == "options.session":
        return "session"
    field = field.removeprefix("params.").removeprefix("automate.").removeprefix("research.")
    if field.startswith(("trusted_hostnames", "max_iterations")):
        return f"options.{field}"
    return field


def _vault_options(options: _Args, run_options: params_pb2.RunOptions) -> None:
    """The profile the run starts from (and saves to), and the credentials it may fill."""
    run_options.profile = options.text("profile")
    save = options.choice("profile_save", PROFILE_SAVE_VALUES)
    run_options.profile_save = PROFILE_SAVE_VALUES[save] if save else 0  # type: ignore[assignment]
    run_options.credentials.extend(options.texts("credentials"))


def _run_options(options: _Args) -> params_pb2.RunOptions:
    return params_pb2.RunOptions(
        model=options.text("model"),
        cancel_on_disconnect=options.flag("cancel_on_disconnect"),
        omit_prompts=True,  # prompt bodies are of no use to an MCP client and make events big
    )


def _check_all(*readers: _Args) -> None:
    violations = {k: v for reader in readers for k, v in reader.violations.items()}
    if violations:
        raise Refused("INVALID_ARGUMENT", "invalid arguments", "INVALID_ARGUMENT", violations)


def _struct(data: Mapping[str, Any]) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    try:
        struct.update(dict(data))
    except (ValueError, TypeError) as error:
        raise Refused(
            "INVALID_ARGUMENT", str(error), "INVALID_ARGUMENT", {"data": str(error)}
        ) from None
    return struct
