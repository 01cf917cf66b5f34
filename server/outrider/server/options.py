"""The command-line options of `outrider serve` and `python -m outrider.server`.

A few common settings have an option each; an option is the same setting as its OUTRIDER_*
variable (same type, same checks) and wins over it. Every other setting is a variable only.
Unknown options, and values a setting refuses, are usage errors (exit status 2)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError
from pydantic_settings import BaseSettings

from outrider.server.settings import Settings

# Settings fields with an option of their own, in the order `--help` lists them.
OPTION_FIELDS = ("host", "port", "rest_host", "rest_port", "data_dir", "model")

EPILOG = (
    "Every other setting is an OUTRIDER_* environment variable; "
    "`python -m outrider.server.settings_doc` lists them all (also in docs/operations.md)."
)


def option_name(field: str) -> str:
    return "--" + field.replace("_", "-")


def variable_name(field: str, settings_class: str = "Settings") -> str:
    return _env_prefix(settings_class) + field.upper()


def _env_prefix(settings_class: str) -> str:
    """OUTRIDER_, or the prefix of a nested settings class (OUTRIDER_BROWSER_, ...)."""
    nested = [field.default_factory for field in Settings.model_fields.values()]
    for kind in (Settings, *nested):
        if (
            isinstance(kind, type)
            and issubclass(kind, BaseSettings)
            and kind.__name__ == settings_class
        ):
            return str(kind.model_config.get("env_prefix", ""))
    return "OUTRIDER_"


def parser(prog: str) -> argparse.ArgumentParser:
    serve = argparse.ArgumentParser(
        prog=prog,
        description="Serve Outrider: gRPC and the REST/SSE (Tabstack) edge, until SIGTERM or "
        "Ctrl-C.",
        epilog=EPILOG,
        allow_abbrev=False,  # `--port` must not also answer to `--p`
    )
    for field in OPTION_FIELDS:
        info = Settings.model_fields[field]
        default = info.default if info.default not in ("", None) else "unset"
        serve.add_argument(
            option_name(field),
            dest=field,
            metavar=field.split("_")[-1].upper(),
            help=f"{info.description} Same as {variable_name(field)} (default: {default}).",
        )
    return serve


def settings_from(argv: Sequence[str], prog: str = "outrider serve") -> Settings:
    """The server's settings: the environment, with the options given on top."""
    serve = parser(prog)
    given = {
        name: value for name, value in vars(serve.parse_args(argv)).items() if value is not None
    }
    try:
        return Settings(**given)
    except ValidationError as error:
        serve.error(describe(error, given))


def describe(error: ValidationError, given: dict[str, Any]) -> str:
    """One line per refused setting, named as the user gave it (option or variable)."""
    lines = []
    for problem in error.errors():
        field = str(problem["loc"][0]) if problem["loc"] else ""
        if not field:  # a check across settings names them in its message
            lines.append(problem["msg"])
            continue
        where = option_name(field) if field in given else variable_name(field, error.title)
        lines.append(f"{where}: {problem['msg']}")
    return "; ".join(lines) or str(error)
