"""The start form as a run's spec, and back: what a person typed becomes the same RunSpec an API
start makes (the core checks it as it checks every door's), and a refused start shows the form
again with every value kept except secrets.

The form is built from sections that each read their own fields: what to do (the kind, the task
or question, the start page), how (data, guardrails, interactive, the firewall's trusted hosts),
budgets, the model, the network, the session it goes on in, and the profile it starts from
with the credentials it may fill. A new choice is a section of its own here and a fieldset in
templates/start.html.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format, struct_pb2

from outrider.server.console_edge.forms import Form
from outrider.server.core.errors import InvalidArgument
from outrider.server.core.runs.starting import RunSpec
from outrider.server.core.secrets.redaction import mask_secrets, secret_placeholder
from outrider.v1 import params_pb2, profile_pb2, run_pb2
from outrider.v1 import research_events_pb2 as re_pb

KINDS = {"browser": run_pb2.RUN_KIND_AUTOMATE, "research": run_pb2.RUN_KIND_RESEARCH}
RESEARCH_MODES = {
    "fast": (re_pb.RESEARCH_MODE_FAST, "Fast: one pass, no judge"),
    "balanced": (re_pb.RESEARCH_MODE_BALANCED, "Balanced: 3 passes"),
    "deep": (re_pb.RESEARCH_MODE_DEEP, "Deep: 5 passes, with a judge"),
    "max": (re_pb.RESEARCH_MODE_MAX, "Max: 5 passes, the strongest models"),
    "ultra": (re_pb.RESEARCH_MODE_ULTRA, "Ultra: 10 passes, the strongest models"),
}
RECIPE_MODES = {
    "": (params_pb2.RECIPE_MODE_UNSPECIFIED, "Off"),
    "record": (params_pb2.RECIPE_MODE_RECORD, "Record a recipe when it succeeds"),
    "replay": (params_pb2.RECIPE_MODE_REPLAY, "Replay a recipe when there is one"),
}
PROFILE_SAVES = {
    "": (profile_pb2.PROFILE_SAVE_NEVER, "Never: only read it"),
    "on_success": (profile_pb2.PROFILE_SAVE_ON_SUCCESS, "When the run succeeds"),
    "always": (profile_pb2.PROFILE_SAVE_ALWAYS, "Always, when the run ends"),
}
# Fields of the form that hold lists, one entry a line.
_LINES = ("trusted_hostnames", "allowed_domains", "blocked_domains", "credentials")
_FLAGS = ("interactive", "unsafe_mode", "omit_prompts", "nocache", "include_full_text")


class FormProblem(Exception):
    """A value the form cannot turn into a request (not a number, not JSON)."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name


@dataclass
class StartValues:
    """What the form shows: what the person gave (never a secret back), and what was wrong."""

    kind: str = "browser"
    text: dict[str, str] = field(default_factory=dict)
    flags: frozenset[str] = frozenset()
    errors: dict[str, str] = field(default_factory=dict)  # field -> why it was refused
    problems: list[str] = field(default_factory=list)  # not tied to one field
    secrets_cleared: bool = False

    def get(self, name: str) -> str:
        return self.text.get(name, "")

    def checked(self, name: str) -> bool:
        return name in self.flags


def values_of(form: Form) -> StartValues:
    """The submitted form as typed, the data's secret values blanked."""
    text = {name: value for name, value in form.pairs if name not in _FLAGS}
    data, cleared = _without_secrets(text.get("data", ""))
    text["data"] = data
    kind = form.get("kind") if form.get("kind") in KINDS else "browser"
    flags = frozenset(name for name in _FLAGS if form.get(name))
    return StartValues(kind, text, flags, secrets_cleared=cleared)


def spec_of(form: Form, model: str) -> RunSpec:
    """The run the form asks for; FormProblem for a value that is not what its field takes."""
    kind = form.get("kind") if form.get("kind") in KINDS else "browser"
    options = params_pb2.RunOptions(
        model=model,
        allowed_domains=_lines(form.get("allowed_domains")),
        blocked_domains=_lines(form.get("blocked_domains")),
        omit_prompts=bool(form.get("omit_prompts")),
        session=_session_name(form.get("session")),
    )
    if kind == "research":
        return RunSpec(run_pb2.RUN_KIND_RESEARCH, _research(form), options)
    options.recipes = RECIPE_MODES.get(form.get("recipes"), RECIPE_MODES[""])[0]
    _vault_choices(form, options)
    return RunSpec(run_pb2.RUN_KIND_AUTOMATE, _automate(form), options)


def _vault_choices(form: Form, options: params_pb2.RunOptions) -> None:
    """The profile the browser starts from (and whether the run saves to it) and the credentials
    it may fill, by name or id; the core checks they are the tenant's."""
    options.profile = _named("profiles", form.get("profile"))
    if options.profile:
        options.profile_save = PROFILE_SAVES.get(form.get("profile_save"), PROFILE_SAVES[""])[0]
    options.credentials.extend(_named("credentials", c) for c in _lines(form.get("credentials")))


def _automate(form: Form) -> params_pb2.AutomateParams:
    params = params_pb2.AutomateParams(
        task=form.get("task").strip(),
        url=form.get("url").strip(),
        guardrails=form.get("guardrails").strip(),
        interactive=bool(form.get("interactive")),
        trusted_hostnames=_lines(form.get("trusted_hostnames")),
        unsafe_mode=bool(form.get("unsafe_mode")),
    )
    for name in ("max_iterations", "max_validation_attempts"):
        number = _number(form, name)
        if number is not None:
            setattr(params, name, number)
    data = form.get("data").strip()
    if data:
        params.data.CopyFrom(_data(data))
    return params


def _research(form: Form) -> params_pb2.ResearchParams:
    mode = RESEARCH_MODES.get(form.get("mode"), RESEARCH_MODES["fast"])[0]
    params = params_pb2.ResearchParams(
        query=form.get("query").strip(),
        mode=mode,
        nocache=bool(form.get("nocache")),
        include_full_text=bool(form.get("include_full_text")),
    )
    timeout = _number(form, "fetch_timeout")
    if timeout is not None:
        params.fetch_timeout = timeout
    return params


def _session_name(text: str) -> str:
    """The session as the form takes it: its name (sessions/...) or its id alone; the core
    checks that it is a live session of the run's kind in the principal's tenant."""
    return _named("sessions", text)


def _named(collection: str, text: str) -> str:
    """A resource's name from its name or its id alone ("" stays "")."""
    text = text.strip()
    return text if not text or text.startswith(f"{collection}/") else f"{collection}/{text}"


def _number(form: Form, name: str) -> int | None:
    text = form.get(name).strip()
    if not text:
        return None
    if not text.isdigit() or len(text) > 9:
        raise FormProblem(name, "must be a whole number")
    return int(text)


def _data(text: str) -> struct_pb2.Struct:
    try:
        parsed: Any = json.loads(text)
    except json.JSONDecodeError as error:
        raise FormProblem("data", f"is not JSON: {error.msg} (line {error.lineno})") from None
    if not isinstance(parsed, dict):
        raise FormProblem("data", 'must be a JSON object, e.g. {"email": "ada@example.com"}')
    data = struct_pb2.Struct()
    try:
        json_format.ParseDict(parsed, data)
    except (json_format.ParseError, ValueError) as error:
        raise FormProblem("data", f"cannot be sent: {error}") from None
    return data


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.replace(",", "\n").splitlines() if line.strip()]


def _without_secrets(text: str) -> tuple[str, bool]:
    """The data as typed, or, when it holds secret values, as JSON with them blanked (written
    {"$secret": ""}): a refused form never shows a secret back."""
    try:
        parsed = json.loads(text) if text.strip() else None
    except ValueError:
        return text, False  # not JSON: shown as typed, with the parse error
    found: dict[str, str] = {}
    masked = mask_secrets(parsed, found)
    if not found:
        return text, False
    placeholders = {secret_placeholder(path) for path in found}
    return json.dumps(_blanked(masked, placeholders), indent=2, ensure_ascii=False), True


def _blanked(value: Any, placeholders: set[str]) -> Any:
    if isinstance(value, str) and value in placeholders:
        return {"$secret": ""}
    if isinstance(value, dict):
        return {key: _blanked(item, placeholders) for key, item in value.items()}
    if isinstance(value, list):
        return [_blanked(item, placeholders) for item in value]
    return value


def field_of(path: str) -> str:
    """The form field a core field violation names ("trusted_hostnames[2]" -> its field)."""
    return path.split("[", 1)[0].split(".", 1)[0]


def note_violations(values: StartValues, error: InvalidArgument) -> None:
    """The core's refusal, each reason by the field it names (a field's reasons joined)."""
    for violation in error.violations:
        name = field_of(violation.field)
        shown = (values.errors.get(name, ""), violation.description)
        values.errors[name] = "; ".join(filter(None, shown))
