"""Global options after the subcommand: `outrider runs list --json` means `outrider --json runs
list`. The group's own options (whatever the callback declares) are moved to the front before
parsing, so they work on either side of the subcommand."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def option_arity(params: Iterable[Any]) -> dict[str, bool]:
    """Option name -> whether it takes a value, for a click/typer command's parameters."""
    return {
        name: not (param.is_flag or param.count)
        for param in params
        if param.param_type_name == "option"
        for name in (*param.opts, *param.secondary_opts)
    }


def hoist_global_options(takes_value: dict[str, bool], args: list[str]) -> list[str]:
    front: list[str] = []
    rest: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--":  # everything after it is positional
            rest.extend(args[index:])
            break
        name, has_equals, _ = arg.partition("=")
        if name not in takes_value:
            rest.append(arg)
        else:
            front.append(arg)
            if takes_value[name] and not has_equals and index + 1 < len(args):
                index += 1
                front.append(args[index])
        index += 1
    return front + rest
