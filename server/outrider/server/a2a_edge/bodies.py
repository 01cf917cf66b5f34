"""What /a2a takes as a JSON-RPC body, checked before the SDK's dispatcher sees it: JSON in UTF-8
as RFC 8259 has it (no NaN or Infinity, no unpaired surrogates), nesting at most MAX_DEPTH
levels, numbers a double holds. Anything else is the client's mistake and is answered as one, a
parse error or an invalid request in our words; the dispatcher answers some of these as internal
errors quoting Python (a 5,000-digit id, bytes that are not UTF-8, data nested 100 deep)."""

from __future__ import annotations

import json
import math
from typing import Any

from a2a.server.jsonrpc_models import JSONParseError
from a2a.server.request_handlers.response_helpers import build_error_response
from a2a.utils.errors import InvalidRequestError
from starlette.responses import JSONResponse, Response

# A message's data may nest 20 levels (core/validation.py) inside the request's envelope;
# deeper bodies would exceed protobuf's limit in the dispatcher.
MAX_DEPTH = 32
_NOT_JSON = "Parse error: the body must be JSON (RFC 8259) in UTF-8"


def parsed(raw: bytes) -> Any:
    """The body, or the response refusing it."""
    try:
        body = json.loads(raw.decode("utf-8"), parse_constant=_refused_constant)
        json.dumps(body, ensure_ascii=False).encode()  # raises on an unpaired surrogate
    except RecursionError:
        return _invalid(f"the body nests deeper than {MAX_DEPTH} levels")
    except ValueError:  # not UTF-8, not JSON, a number of 4,300 digits or more
        return JSONResponse(build_error_response(None, JSONParseError(message=_NOT_JSON)))
    problem = _unfit(body)
    return body if problem is None else _invalid(problem)


def _refused_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _invalid(problem: str) -> Response:
    error = InvalidRequestError(message=f"Invalid request: {problem}")
    return JSONResponse(build_error_response(None, error))


def _unfit(body: Any) -> str | None:
    """What makes a parsed body one the dispatcher cannot take, walked without recursion."""
    stack = [(body, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            if depth > MAX_DEPTH:
                return f"the body nests deeper than {MAX_DEPTH} levels"
            stack.extend((child, depth + 1) for child in item)
        elif isinstance(item, int | float) and not _fits_a_double(item):
            return "its numbers must fit a double (at most about 1.8e308)"
    return None


def _fits_a_double(number: float) -> bool:
    try:
        return math.isfinite(float(number))
    except OverflowError:
        return False
