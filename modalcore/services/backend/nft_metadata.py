"""An NFT's image from its token URI (ERC-721 `tokenURI(uint256)`), read without a request.

On-chain metadata (`data:application/json;base64,…` or `data:application/json,…`) is decoded
here and its `image` (or `image_url`) kept when it is an https URL or a small `data:image/…`;
the browser draws it (an `<img>`, so an SVG runs nothing). A token URI that names a server
(https, ipfs) is not fetched by the engine: a request to any address a contract names is a
server-side request forgery risk and a wait on a stranger's server in every scan, so those
tokens keep the placeholder the view draws (issue 28 item 6).
"""

from __future__ import annotations

import base64
import binascii
import json
from urllib.parse import unquote_to_bytes

from ...rules.nft_images import usable_image
from .abi import call_data

MAX_TOKEN_URI = 64 * 1024  # characters of a token URI decoded (on-chain metadata is often a few KB)


def token_uri_call(token_id: int) -> str:
    return call_data("tokenURI(uint256)", [token_id])


def _json_payload(uri: str) -> bytes | None:
    header, comma, body = uri.partition(",")
    if not comma or not header.lower().startswith("data:application/json"):
        return None
    if header.lower().endswith(";base64"):
        try:
            return base64.b64decode(body, validate=False)
        except (binascii.Error, ValueError):
            return None
    return unquote_to_bytes(body)


def image_from_token_uri(uri: str) -> str:
    """The image a token URI gives without a request; "" when it gives none that way."""
    if not uri or len(uri) > MAX_TOKEN_URI:
        return ""
    if uri.lower().startswith("data:image/"):
        return usable_image(uri)
    payload = _json_payload(uri)
    if payload is None:
        return ""
    try:
        metadata = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return ""
    if not isinstance(metadata, dict):
        return ""
    return usable_image(metadata.get("image")) or usable_image(metadata.get("image_url"))
