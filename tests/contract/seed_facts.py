"""The facts of the Tabstack contract (seed 000) the tests check: every event name per endpoint and
the field names its payload uses. They are committed in seed_events.json so any clone can check
them; when the seed sits beside the checkout, a test re-extracts them to prove the file current."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.support.harness import REPO_ROOT

SEED = REPO_ROOT.parent / "shared" / "seeds" / "000_9cfbb463157c2cb8.txt"
FACTS_FILE = Path(__file__).with_name("seed_events.json")

# endpoint ("automate" or "research") -> event name -> field names anywhere in its payload
Facts = dict[str, dict[str, list[str]]]

_ENVELOPE = re.compile(r"Envelope for the “([^”]+)” event from /v1/(automate|research)\.")
_FIELD = re.compile(r"^([a-z][a-zA-Z0-9_]*): \S", re.MULTILINE)


def committed_facts() -> Facts:
    facts: Facts = json.loads(FACTS_FILE.read_text())
    return facts


def facts_from_seed(text: str) -> Facts:
    """Each envelope runs from its heading to its `event: Literal[...]` line; nested types are
    printed flat in between, so the field names of the whole payload tree are collected."""
    facts: Facts = {"automate": {}, "research": {}}
    for heading in _ENVELOPE.finditer(text):
        event, endpoint = heading.groups()
        end = text.index(f'event: Literal["{event}"]', heading.end())
        names = set(_FIELD.findall(text[heading.end() : end])) - {"data"}
        facts[endpoint][event] = sorted(names)
    return facts
