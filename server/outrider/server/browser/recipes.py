"""Recipes: what a successful browser run did, kept so the same task on the same site can be
replayed without the model (replay.py).

A step names its target by ARIA role and accessible name (never by our run-unique E<n> refs) and
carries the page state it was taken on: the page's scheme, host and path, and a fingerprint of
the view with refs and field values left out. Values are kept only when they are nobody's:
`data` values become {{data:path}} placeholders and {{secret:path}} placeholders stay as they
are (both are filled in from the replaying run's own `data`); form-data answers never appear in
a call's arguments; a value holding any known secret spoils the recipe, which is then not kept.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from outrider.server.browser.page_model import SHORT_ROLES, SLOW_PAGE_NOTE
from outrider.server.browser.recipe_store import Recipe, Step
from outrider.server.browser.secrets import Secrets
from outrider.server.models.base import ToolCall

# Tool calls that change or move through the page; the others (find, extract, link_url) only
# inform the model, and a replay has no model to inform.
REPLAYABLE = frozenset(
    {
        "click",
        "fill",
        "select",
        "check",
        "uncheck",
        "hover",
        "focus",
        "press",
        "scroll",
        "goto",
        "back",
        "forward",
        "reload",
        "wait",
        "tabs",
        "upload",
        "request_input",
    }
)
_REFS = re.compile(r" ?\[E\d+\]")
_FIELD_LINE = re.compile(
    r"^(\s*(?:- )?(?:input|textbox|searchbox|combobox|select|spinbutton|slider)"
    r'(?: "(?:[^"\\]|\\.)*")?).*$',
    re.MULTILINE,
)
# An element as the view writes it: role, name if any, flags ([active], [checked]...), ref; at
# the start of a line or of a table cell ("| ", or after a clickable row's "row [E8]: "). A line
# whose text holds ": " is quoted YAML-style ('button "Next: address" [E9]', quotes doubled).
_ROW_REF = re.compile(r"row \[(E\d+)\]")
_ELEMENT = re.compile(
    r"(?P<at>^ *(?:- )?'?(?:row \[E\d+\]: )?|\| )"
    r'(?P<role>[a-z][a-z0-9]*)(?: "(?P<name>(?:[^"\\]|\\.)*)")?'
    r"(?: \[[a-z][^\]]*\])* \[(?P<ref>E\d+)\]",
    re.MULTILINE,
)
# The view's short role names back to ARIA roles (a native select is written "select").
_LONG_ROLES = {short: role for role, short in SHORT_ROLES.items()} | {"select": "combobox"}
_DATA_PLACEHOLDER = re.compile(r"\{\{data:([^}]+)\}\}")
_SECRET_PLACEHOLDER = re.compile(r"\{\{secret:[^}]+\}\}")
_MIN_DATA_CHARS = 3  # shorter data values ("1", "no") are too common to be told apart in text


def recipe_key(tenant: str, task: str, url: str) -> str:
    """The tenant + normalised task text + the start URL's host and path, hashed. Per tenant: a
    recipe carries what its run saw (its plan, its answer), which other tenants must not get."""
    parts = urlsplit(url)
    task_text = " ".join(task.lower().split())
    text = f"{tenant}\n{task_text}\n{parts.netloc.lower()}{parts.path or '/'}"
    return hashlib.sha256(text.encode()).hexdigest()


def page_address(url: str) -> str:
    """Scheme, host and path: the query may carry what a form sent."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


def fingerprint(view: str) -> str:
    """The view without refs (they differ run to run) and field values (typed values differ)."""
    text = _FIELD_LINE.sub(r"\1", _REFS.sub("", view))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def role_and_name(view: str, ref: str) -> list[str] | None:
    """[role, accessible name] of a ref as the view shows it (roles spelled as Playwright's
    get_by_role takes them); None when the view has no element with that ref."""
    return next((target for found, target in _elements(view) if found == ref), None)


def shown_refs(view: str) -> list[str]:
    """The refs of every element the view shows, in order."""
    return [ref for ref, _ in _elements(view)]


def refs_named(view: str, target: list[str]) -> list[str]:
    """The refs of the view's elements with that [role, accessible name]."""
    return [ref for ref, found in _elements(view) if found == target]


def _elements(view: str) -> Iterator[tuple[str, list[str]]]:
    """(ref, [role, name]) of every element the view shows with a ref, several to a line in a
    table row ("INV-7 | Acme | button "Open INV-7" [E12]")."""
    for match in _ELEMENT.finditer(view):
        row = _ROW_REF.search(match.group("at"))
        if row:
            yield row.group(1), ["row", ""]
        role = match.group("role")
        role = "heading" if re.fullmatch(r"h\d", role) else _LONG_ROLES.get(role, role)
        name = json.loads(f'"{match.group("name")}"') if match.group("name") else ""
        if "'" in match.group("at"):
            name = name.replace("''", "'")
        yield match.group("ref"), [role, name]


def data_leaves(data: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """(path, text) of every scalar of the model's view of `data`, placeholders left out."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from data_leaves(value, f"{prefix}{key}.")
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from data_leaves(value, f"{prefix}{index}.")
    elif data is not None and not isinstance(data, bool):
        text = str(data)
        if not _SECRET_PLACEHOLDER.fullmatch(text):
            yield prefix.rstrip("."), text


class Values:
    """Turns a run's values into what a recipe may keep, and back for the replaying run."""

    def __init__(self, secrets: Secrets, data: Any) -> None:
        self._secrets = secrets
        leaves = [leaf for leaf in data_leaves(data) if len(leaf[1]) >= _MIN_DATA_CHARS]
        self._leaves = sorted(leaves, key=lambda leaf: -len(leaf[1]))  # longest first
        self._by_path = dict(data_leaves(data))

    def keepable(self, value: Any) -> Any:
        """The value with `data` values as placeholders; None when it holds a secret."""
        if isinstance(value, dict):
            pairs = {key: self.keepable(item) for key, item in value.items()}
            return None if any(item is None for item in pairs.values()) else pairs
        if isinstance(value, list):
            kept = [self.keepable(item) for item in value]
            return None if any(item is None for item in kept) else kept
        if not isinstance(value, str):
            return value
        if self._secrets.redact(value) != value:
            return None
        for path, text in self._leaves:
            value = value.replace(text, f"{{{{data:{path}}}}}")
        return value

    def restored(self, value: Any) -> Any:
        """A kept value with this run's `data`; KeyError names a value this run lacks."""
        if isinstance(value, dict):
            return {key: self.restored(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.restored(item) for item in value]
        if not isinstance(value, str):
            return value
        for secret in _SECRET_PLACEHOLDER.findall(value):
            if self._secrets.substitute(secret) == secret:
                raise KeyError(secret)
        return _DATA_PLACEHOLDER.sub(lambda m: self._by_path[m.group(1)], value)


class Recorder:
    """Collects the steps of a model-driven run; `recipe()` once the run has succeeded."""

    def __init__(self, values: Values) -> None:
        self._values = values
        self.steps: list[Step] = []
        self.spoiled = ""  # why this run cannot become a recipe
        self._pending: Step | None = None
        self._unnamed = False
        self._state = ("", "")
        self._turn = 0

    def spoil(self, reason: str) -> None:
        self.spoiled = self.spoiled or reason

    def before(
        self, call: ToolCall, url: str, view: str, targets: list[list[str]] | None, turn: int
    ) -> None:
        """The call about to be made in model turn `turn`, the page it was chosen on (for a
        later call of a turn: the page as it was checked just before) and its targets' names
        (None when they could not be named)."""
        self._state = (page_address(url), fingerprint(view))
        self._turn = turn
        self._pending, self._unnamed = None, False
        if view.startswith(SLOW_PAGE_NOTE):
            self.spoil("a page could not be read in full (the browser was busy)")
        if call.name not in REPLAYABLE:
            return
        if targets is None:
            self._unnamed = True
            return
        arguments = {k: v for k, v in call.arguments.items() if k not in ("ref", "refs")}
        kept = self._values.keepable(arguments)
        if kept is None:
            self.spoil(f"the arguments of a {call.name} hold a secret")
            return
        self._pending = Step(call.name, kept, targets, *self._state, turn=self._turn)

    def after(self, ok: bool) -> None:
        """A call that failed changed nothing worth replaying (the model tried again)."""
        if ok and self._unnamed:
            self.spoil("an action's target could not be named by role and name")
        if ok and self._pending is not None:
            self.steps.append(self._pending)
        self._pending = None

    def recipe(
        self, key: str, task: str, url: str, plan: dict[str, Any], answer: str, quality: str
    ) -> Recipe | None:
        kept_answer = self._values.keepable(answer)
        if kept_answer is None:
            self.spoil("the answer holds a secret")
        if self.spoiled or not self.steps:
            return None
        final = Step("done", {"answer": kept_answer}, [], *self._state)
        kept_plan = {k: self._values.keepable(v) for k, v in plan.items()}
        if any(value is None for value in kept_plan.values()):
            kept_plan = {"plan": "Replay the recorded steps.", "success_criteria": "As recorded."}
        return Recipe(key, task, url, kept_plan, [*self.steps, final], kept_answer, quality)
