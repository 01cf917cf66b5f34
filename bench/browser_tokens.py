"""Token counts with OpenAI's cl100k_base encoding.

tiktoken downloads its encoding file on first use, which fails where the internet is not
reached. Then the same file is taken from the `bpe-openai` package, which ships it
(data/cl100k_base.tiktoken.gz), and handed to tiktoken through its cache; tiktoken checks the
file's SHA-256 before using it.
Without either package the count falls back to characters / 4, and says so.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.resources
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


@dataclass(frozen=True)
class Counter:
    count: Callable[[str], int]
    method: str  # how tokens are counted, for the report


def _tiktoken() -> Counter:
    import tiktoken

    encoding = tiktoken.get_encoding("cl100k_base")
    return Counter(lambda text: len(encoding.encode(text, disallowed_special=())), "tiktoken")


def _seed_cache_from_bpe_openai() -> None:
    """Puts bpe-openai's copy of the encoding file where tiktoken looks for its download."""
    packed = importlib.resources.files("bpe_openai.data") / "cl100k_base.tiktoken.gz"
    cache = Path(tempfile.gettempdir()) / "bench-tiktoken-cache"
    cache.mkdir(exist_ok=True)
    name = hashlib.sha1(CL100K_URL.encode()).hexdigest()
    (cache / name).write_bytes(gzip.decompress(packed.read_bytes()))
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)


def token_counter() -> Counter:
    try:
        return _tiktoken()
    except ImportError:
        pass
    except Exception:  # the download failed: try the shipped copy
        try:
            _seed_cache_from_bpe_openai()
            counter = _tiktoken()
            return Counter(counter.count, "tiktoken cl100k_base (encoding file from bpe-openai)")
        except Exception:
            pass
    return Counter(lambda text: (len(text) + 3) // 4, "APPROXIMATION: characters / 4")
