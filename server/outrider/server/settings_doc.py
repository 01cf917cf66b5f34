"""The table of every setting, generated from the settings classes so the docs cannot drift;
beside it the metrics, spans and log fields from the telemetry catalogue.

    python -m outrider.server.settings_doc                 print the settings table (Markdown)
    python -m outrider.server.settings_doc --write FILE    replace FILE's generated sections
    python -m outrider.server.settings_doc --check FILE    exit 1 when a section is stale

Nested settings (browser, research, providers) are read through their own environment prefix;
fields with their own variable names (provider keys) list those names.
"""

from __future__ import annotations

import argparse
import enum
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args, get_origin

import annotated_types
from pydantic import AliasChoices, SecretStr
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined
from pydantic_settings import BaseSettings

from outrider.server.settings import Settings
from outrider.server.telemetry import catalogue as telemetry_catalogue

BEGIN = "<!-- BEGIN GENERATED settings: python -m outrider.server.settings_doc --write "
END = "<!-- END GENERATED settings -->"
TELEMETRY_BEGIN = "<!-- BEGIN GENERATED telemetry: python -m outrider.server.settings_doc --write "
TELEMETRY_END = "<!-- END GENERATED telemetry -->"
_BOUNDS = ((annotated_types.Ge, ">="), (annotated_types.Gt, ">"), (annotated_types.Le, "<="))


@dataclass(frozen=True)
class SettingRow:
    variables: tuple[str, ...]
    kind: str
    default: str
    description: str


def setting_rows(model: type[BaseSettings] = Settings) -> Iterator[SettingRow]:
    """One row per leaf setting, in declaration order; nested settings inline."""
    prefix = str(model.model_config.get("env_prefix", ""))
    for name, field in model.model_fields.items():
        nested = field.annotation
        if isinstance(nested, type) and issubclass(nested, BaseSettings):
            yield from setting_rows(nested)
            continue
        yield SettingRow(
            _variables(prefix, name, field),
            _kind(field),
            _default(field),
            field.description or "",
        )


def markdown_table() -> str:
    lines = ["| variable | type | default | meaning |", "|---|---|---|---|"]
    for row in setting_rows():
        names = " / ".join(f"`{name}`" for name in row.variables)
        lines.append(f"| {names} | {row.kind} | {row.default} | {_cell(row.description)} |")
    return "\n".join(lines) + "\n"


def _variables(prefix: str, name: str, field: FieldInfo) -> tuple[str, ...]:
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return tuple(str(choice) for choice in alias.choices)
    if isinstance(alias, str):
        return (alias,)
    return (f"{prefix}{name}".upper(),)


def _kind(field: FieldInfo) -> str:
    kind = _type_name(field.annotation)
    bounds = [
        f"{sign} {getattr(meta, bound.__name__.lower())}"
        for meta in field.metadata
        for bound, sign in _BOUNDS
        if isinstance(meta, bound)
    ]
    return f"{kind} ({', '.join(bounds)})" if bounds else kind


def _type_name(annotation: Any) -> str:
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is tuple:
        return "comma-separated list"
    if origin is dict or annotation is dict:
        return "JSON object"
    if args and type(None) in args:  # Optional[X]
        return _type_name(next(a for a in args if a is not type(None)))
    if annotation is SecretStr:
        return "secret"
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return " \\| ".join(str(member.value) for member in annotation)
    names = {str: "text", int: "integer", float: "number", bool: "boolean", Path: "path"}
    return names.get(annotation, getattr(annotation, "__name__", str(annotation)))


def _default(field: FieldInfo) -> str:
    value = field.default
    if value is PydanticUndefined and field.default_factory is not None:
        value = field.default_factory()  # type: ignore[call-arg]
    if value is None:
        return "unset"
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    if value in ("", (), {}):
        return "empty" if not isinstance(value, dict) else "`{}`"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, tuple):
        value = ",".join(str(item) for item in value)
    return f"`{value}`"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def replace_section(document: str, table: str, begin: str = BEGIN, end: str = END) -> str:
    """The document with the text between its `begin` and `end` markers replaced by `table`."""
    start = document.index(begin)
    body_start = document.index("\n", start) + 1
    stop = document.index(end, body_start)
    return document[:body_start] + table + document[stop:]


def generated(document: str) -> str:
    """The document with both generated sections (settings, telemetry) brought up to date."""
    with_settings = replace_section(document, markdown_table())
    catalogue = telemetry_catalogue.markdown() + "\n"
    return replace_section(with_settings, catalogue, TELEMETRY_BEGIN, TELEMETRY_END)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", type=Path, help="replace the generated section of this file")
    action.add_argument("--check", type=Path, help="exit 1 when this file's section is stale")
    args = parser.parse_args(argv)
    table = markdown_table()
    if args.write is None and args.check is None:
        sys.stdout.write(table)
        return 0
    path: Path = args.write or args.check
    current = path.read_text()
    wanted = generated(current)
    if args.check is not None:
        if wanted != current:
            print(f"{path}: a generated table is stale; run {BEGIN[29:-2].strip()}{path}")
            return 1
        return 0
    path.write_text(wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
