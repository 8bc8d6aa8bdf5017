"""Which NFT image a session keeps and draws (issue 28 item 6): an https URL (the browser fetches
it into an `<img>`) or a small inline `data:image/…`; anything else draws the placeholder."""

from __future__ import annotations

MAX_IMAGE_URL = 2048
MAX_DATA_IMAGE = 16 * 1024  # an inline image kept in the tree (24 tiles at most are drawn)
IMAGE_TYPES = ("data:image/svg+xml", "data:image/png", "data:image/jpeg", "data:image/gif", "data:image/webp")


def usable_image(image: object) -> str:
    """`image` when a session may keep it, else ""."""
    if not isinstance(image, str):
        return ""
    if image.startswith("https://") and len(image) <= MAX_IMAGE_URL and not any(c in image for c in "\"'<> \n"):
        return image
    if image.lower().startswith(IMAGE_TYPES) and len(image) <= MAX_DATA_IMAGE:
        return image
    return ""
