"""Data many sessions hold alike, saved once by content hash (issue 17).

The wallet directory's lists (All Wallets pages, the featured and recommended picks) come from a
shared public directory: every session with the same filters holds the same wallets, and they
were ~70 % of a saved session. A save refers to them by hash, in chunks of one directory page,
and the store keeps each chunk once (`SessionStore.save(..., blobs=...)`).

A referenced chunk the store no longer has (expired, evicted) is not an error of the session:
its list is put back to "not loaded" (`REFETCH`), and the directory asks for it again when its
view is in sight. Search results stay inline: what a visitor types decides them, so they would
make the store's shared data grow with typing.
"""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Mapping
from functools import cache
from typing import Any, get_type_hints

import msgpack
from pydantic import TypeAdapter

from ..slices.directory_query import PAGE_ENTRIES, DirectoryState
from ..wire.codec import encode

BLOB_EXT = 1  # msgpack ext type of a reference: its data is the chunk's 16-byte digest
CHUNK = PAGE_ENTRIES  # items per chunk: one directory page, so a page's chunk is shared as is

# model field -> its fields saved by reference (tuples of wallets)
SHARED: Mapping[str, tuple[str, ...]] = {"directory": ("wallets", "featured", "recommended")}
# model field -> list field -> what the model's data becomes when a chunk of that list is gone
REFETCH: Mapping[str, Mapping[str, Mapping[str, object]]] = {
    "directory": {
        "wallets": {"wallets": (), "page": 0, "pages": "idle"},
        "featured": {"featured": (), "featured_status": "idle"},
        "recommended": {"recommended": (), "recommended_status": "idle"},
    },
}
_TYPES: Mapping[str, type] = {"directory": DirectoryState}


def digest_of(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@cache
def _adapter(field: str) -> TypeAdapter[Any]:
    return TypeAdapter(_TYPES[field])


@cache
def _item_adapter(field: str, key: str) -> TypeAdapter[Any]:
    return TypeAdapter(get_type_hints(_TYPES[field])[key])


class SharedPacker:
    """Packs a model field with shared lists as references; remembers each chunk it packed (by
    the identity of its items) so an unchanged page is neither dumped nor hashed again."""

    def __init__(self) -> None:
        # (field, list, start) -> (the chunk's items, digest, msgpack bytes)
        self._chunks: dict[tuple[str, str, int], tuple[tuple[object, ...], str, bytes]] = {}

    def pack(self, field: str, value: object) -> tuple[bytes, dict[str, bytes]]:
        """The field's msgpack bytes (lists as arrays of references) and the chunks they refer to."""
        keys = SHARED[field]
        data = _adapter(field).dump_python(value, mode="python", exclude=set(keys))
        blobs: dict[str, bytes] = {}
        for key in keys:
            items: tuple[object, ...] = getattr(value, key)
            refs = []
            for start in range(0, len(items), CHUNK):
                chunk = items[start:start + CHUNK]
                known = self._chunks.get((field, key, start))
                if known is not None and len(known[0]) == len(chunk) and all(map(operator.is_, chunk, known[0])):
                    _, digest, packed = known
                else:
                    packed = encode(_item_adapter(field, key).dump_python(chunk, mode="python"))
                    digest = digest_of(packed)
                    self._chunks[(field, key, start)] = (chunk, digest, packed)
                refs.append(msgpack.ExtType(BLOB_EXT, bytes.fromhex(digest)))
                blobs[digest] = packed
            for stale in [k for k in self._chunks if k[:2] == (field, key) and k[2] >= len(items)]:
                del self._chunks[stale]
            data[key] = refs
        return encode(data), blobs


class _Gone:
    """Stands for a referenced chunk the store did not return (or returned altered)."""


GONE = _Gone()


def resolver(blobs: Mapping[str, bytes]) -> Any:
    """The msgpack `ext_hook` that puts each referenced chunk's items in place (GONE when missing)."""

    def hook(code: int, data: bytes) -> object:
        if code != BLOB_EXT:
            return msgpack.ExtType(code, data)
        digest = data.hex()
        packed = blobs.get(digest)
        if packed is None or digest_of(packed) != digest:
            return GONE
        return msgpack.unpackb(packed, raw=False, strict_map_key=False)

    return hook


def restore(model_data: dict[str, Any]) -> list[str]:
    """Join each shared list's chunks in `model_data` (saved with references, unpacked with
    `resolver`), in place; a list with a chunk gone is reset to be fetched again. The lists
    that were reset."""
    reset: list[str] = []
    for field, keys in SHARED.items():
        data = model_data[field]
        for key in keys:
            chunks = data[key]
            if any(chunk is GONE for chunk in chunks):
                data.update(REFETCH[field][key])
                reset.append(f"{field}.{key}")
            else:
                data[key] = [item for chunk in chunks for item in chunk]
    return reset
