"""The wheel build (`pip wheel .`): the engine's packages only, with the renderer bundle the
engine serves (renderer/dist, built by `make renderer`) copied in as `modalcore/static`. A wheel
without the bundle is refused, never shipped empty.

An editable install (`pip install -e .`, what `make run` and `make test` do) also maps the
development packages, `modalcore_dev` and `modalcore_testing`, which no wheel carries."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
BUNDLE = HERE / "renderer" / "dist"
# what an installed engine serves: the modal for host pages (with its precompressed copies) and
# the recording inspector's page
STATIC_FILES = ("modal.js", "modal.js.br", "modal.js.gz", "loader.js", "loader.js.br", "loader.js.gz", "inspect.js")
EDITABLE = "editable_wheel" in sys.argv
ENGINE = ["modalcore", "modalcore.*"]
DEVELOPMENT = ["modalcore_dev", "modalcore_dev.*", "modalcore_testing", "modalcore_testing.*"]


class BuildWithBundle(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return  # a checkout serves renderer/dist itself (server/config.py)
        missing = [name for name in STATIC_FILES if not (BUNDLE / name).is_file()]
        if missing:
            raise SystemExit(f"modalcore wheel: renderer/dist lacks {', '.join(missing)}; "
                             "build it first (`make renderer`, or `cd renderer && node build.mjs`)")
        static = Path(self.build_lib) / "modalcore" / "static"
        static.mkdir(parents=True, exist_ok=True)
        for name in STATIC_FILES:
            shutil.copyfile(BUNDLE / name, static / name)


setup(
    packages=find_packages(include=ENGINE + (DEVELOPMENT if EDITABLE else [])),
    cmdclass={"build_py": BuildWithBundle},
)
