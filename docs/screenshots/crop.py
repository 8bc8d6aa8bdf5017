"""Crop PNGs through Chromium (no image library in the lock):

    python docs/screenshots/crop.py X Y WIDTH HEIGHT IN.png [OUT.png] [IN2.png ...]

Each IN is drawn at its natural size and the rectangle (X, Y, WIDTH, HEIGHT) written back in
place (or to OUT.png when exactly one input and an output are given); PYTHONPATH at the checkout."""

from __future__ import annotations

import base64
import sys
from pathlib import Path

from modalcore_testing.chromium import LOOPBACK_ONLY, sync_chromium

x, y, width, height = (int(v) for v in sys.argv[1:5])
files = [Path(p) for p in sys.argv[5:]]
pairs = [(files[0], files[1])] if len(files) == 2 and not files[1].exists() else [(f, f) for f in files]

with sync_chromium(LOOPBACK_ONLY) as browser:
    page = browser.new_page(viewport={"width": 1280, "height": 900}, device_scale_factor=1)
    for source, target in pairs:
        data = base64.b64encode(source.read_bytes()).decode()
        page.set_content("<style>body{margin:0}img{display:block}</style>"
                         f"<img src='data:image/png;base64,{data}'>")
        page.wait_for_function("document.images[0].complete")
        size = page.evaluate("[document.images[0].naturalWidth, document.images[0].naturalHeight]")
        page.set_viewport_size({"width": max(size[0], 1), "height": max(size[1], 1)})
        page.screenshot(path=str(target), clip={"x": x, "y": y, "width": min(width, size[0] - x),
                                                "height": min(height, size[1] - y)})
        print(target, target.stat().st_size, "bytes")
