"""Languages: intent → patch per language (the render-edge translation included), catalogue
sizes, snapshot bytes. The same press cycle as engine_bench's, with `opts.locale` set."""

from __future__ import annotations

import time
from typing import Any

from modalcore.engine.session import Session
from modalcore.i18n.catalog import LANGUAGES, catalogue
from modalcore.i18n.extract import extract
from modalcore.slices.model import initial_model
from modalcore.slices.options import parse_options
from modalcore.wire.frames import Env
from modalcore.wire.serverframes import encoded
from modalcore_dev.bench.engine_bench import OPTIONS, WALLETS, Clicker
from modalcore_dev.bench.parts import Parts
from modalcore_dev.bench.stats import Lines, line, summary

CYCLE = [("host", "open"), ("connect/all-wallets", "press"), ("header/back", "press"), ("host", "close")]


def new_session(language: str) -> Session:
    options: dict[str, Any] = {**OPTIONS, "locale": language}
    session = Session("s", initial_model("demo", "http://localhost:3000", parse_options(options), Env(), WALLETS), 0)
    session.welcome("token", resumed=False, last=None)
    return session


def intent_to_patch(language: str, rounds: int = 2000) -> list[float]:
    session = new_session(language)
    clicker = Clicker(session)
    timings = []
    for index in range(rounds):
        node, act = CYCLE[index % len(CYCLE)]
        start = time.perf_counter_ns()
        frames = clicker.intent(node, act)
        for frame in frames:
            encoded(frame)
        timings.append((time.perf_counter_ns() - start) / 1000)
        clicker.settle(clicker.pending)
    return timings


def run(parts: Parts) -> Lines:
    rounds = parts.size(2000, 8)
    out: Lines = ["Languages (engine-rendered):"]
    strings = len(extract())
    out.append(line("strings per catalogue", f"{strings} ({', '.join(LANGUAGES[1:])})", measured=[strings]))
    english = summary(intent_to_patch("en", rounds))
    for language in LANGUAGES:
        s = english if language == "en" else summary(intent_to_patch(language, rounds))
        bytes_ = len(encoded(new_session(language).snapshot()))
        out.append(line(f"intent → patch p50 / p99, {language}",
                        f"{s['p50']:.0f} / {s['p99']:.0f} µs; Connect snapshot {bytes_} B",
                        measured=[s["p50"], s["p99"], bytes_]))
    start = time.perf_counter()
    for language in LANGUAGES[1:]:
        catalogue.cache_clear()
        catalogue(language)
    took = (time.perf_counter() - start) * 1000
    out.append(line(f"catalogue load ({len(LANGUAGES) - 1} languages, once per process)", f"{took:.0f} ms",
                    measured=[took]))
    return out


if __name__ == "__main__":
    print("\n".join(map(str, run(Parts()))))
