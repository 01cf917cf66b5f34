"""Token counts with one of OpenAI's published encodings: cl100k_base by default (the benches'
stand-in for providers that publish no tokenizer), o200k_base for GPT-4o and GPT-4.1.

tiktoken downloads its encoding file on first use, which fails where the internet is not
reached. Then the same file is taken from the `bpe-openai` package, which ships it
(data/<name>.tiktoken.gz), and handed to tiktoken through its cache; tiktoken checks the
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

CL100K = "cl100k_base"
O200K = "o200k_base"  # GPT-4o, GPT-4.1 (tiktoken.encoding_for_model)


def _url(encoding: str) -> str:
    return f"https://openaipublic.blob.core.windows.net/encodings/{encoding}.tiktoken"


@dataclass(frozen=True)
class Counter:
    count: Callable[[str], int]
    method: str  # how tokens are counted, for the report


def _tiktoken(name: str) -> Counter:
    import tiktoken

    encoding = tiktoken.get_encoding(name)

    def count(text: str) -> int:
        return len(encoding.encode(text, disallowed_special=()))

    return Counter(count, f"tiktoken {name}")


def _seed_cache_from_bpe_openai(name: str) -> None:
    """Puts bpe-openai's copy of the encoding file where tiktoken looks for its download."""
    packed = importlib.resources.files("bpe_openai.data") / f"{name}.tiktoken.gz"
    cache = Path(tempfile.gettempdir()) / "bench-tiktoken-cache"
    cache.mkdir(exist_ok=True)
    key = hashlib.sha1(_url(name).encode()).hexdigest()
    (cache / key).write_bytes(gzip.decompress(packed.read_bytes()))
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)


def token_counter(encoding: str = CL100K) -> Counter:
    try:
        return _tiktoken(encoding)
    except ImportError:
        pass
    except Exception:  # the download failed: try the shipped copy
        try:
            _seed_cache_from_bpe_openai(encoding)
            counter = _tiktoken(encoding)
            return Counter(counter.count, f"{counter.method} (encoding file from bpe-openai)")
        except Exception:
            pass
    return Counter(lambda text: (len(text) + 3) // 4, "APPROXIMATION: characters / 4")
