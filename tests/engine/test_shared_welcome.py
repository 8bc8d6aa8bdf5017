"""Issue 17, idle memory: sessions share what is the same between them (the bytes of identical
welcome frames, the default and option-derived model slices). The rules: sharing never changes
what a session sends, replays or redraws, and one session's change never reaches another that
shared with it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from modalcore.core.evolve import replace
from modalcore.engine import sharedframes
from modalcore.enginetest import Harness
from modalcore.slices.model import initial_model
from modalcore.slices.options import parse_options
from modalcore.wire.codec import decode, encode
from modalcore.wire.frames import Env


def _ring(h: Harness) -> list[tuple[int, bytes]]:
    return list(h.session.ring)


def test_two_new_sessions_of_one_page_hold_one_copy_of_their_welcome(
    make: Callable[..., Harness],
) -> None:
    a, b = make(session_id="session-a"), make(session_id="session-b")
    ring_a, ring_b = _ring(a), _ring(b)
    assert ring_a and [seq for seq, _ in ring_a] == [seq for seq, _ in ring_b]
    for (_, data_a), (_, data_b) in zip(ring_a, ring_b, strict=True):
        assert data_a is data_b  # one object
        assert data_a == encode(decode(data_a))  # and the bytes of the frame it says


def test_one_sessions_change_never_reaches_a_session_it_shared_with(
    make: Callable[..., Harness],
) -> None:
    a, b = make(session_id="session-a"), make(session_id="session-b")
    before = [(seq, bytes(data)) for seq, data in _ring(b)]
    a.host("open")
    a.press("connect/all-wallets")
    assert [(seq, bytes(data)) for seq, data in _ring(b)] == before
    assert b.session.model.modal.open is False
    assert b.session.model.router.view != a.session.model.router.view


def test_a_session_that_shared_answers_as_one_that_shared_nothing(
    make: Callable[..., Harness],
) -> None:
    """The same journey, compacted before each input, from a session whose welcome bytes are
    shared and from one made with an empty share table (its own copies): same frames, same
    bytes, same tree."""
    make(session_id="other")  # its welcome is in the table
    shared = make()
    sharedframes._frames.clear()
    alone = make()
    assert all(x is not y for (_, x), (_, y) in zip(_ring(shared), _ring(alone), strict=True))
    steps: list[Callable[[Harness], object]] = [
        lambda h: h.host("open"), lambda h: h.press("connect/all-wallets"),
        lambda h: h.press("header/back"), lambda h: h.host("close"),
    ]
    for step in steps:
        shared.session.compact()
        assert step(shared) == step(alone)
        assert _ring(shared) == _ring(alone)
        assert shared.session.tree == alone.session.tree
    assert shared.frames == alone.frames


def test_a_frame_past_the_welcome_is_a_sessions_own(make: Callable[..., Harness]) -> None:
    a, b = make(session_id="session-a"), make(session_id="session-b")
    for h in (a, b):
        for _ in range(3):
            h.host("open")
            h.host("close")
    late_a = [data for seq, data in _ring(a) if seq > sharedframes.SHARED_SEQS]
    late_b = [data for seq, data in _ring(b) if seq > sharedframes.SHARED_SEQS]
    assert late_a and late_a == late_b
    assert all(x is not y for x, y in zip(late_a, late_b, strict=True))


def test_the_share_table_is_bounded() -> None:
    for index in range(sharedframes.SHARED_FRAMES + 10):
        sharedframes.share(encode({"t": "theme", "n": index}))
    assert len(sharedframes._frames) == sharedframes.SHARED_FRAMES
    big = bytes(sharedframes.SHARED_FRAME_BYTES + 1)
    assert sharedframes.share(big) is big and big not in sharedframes._frames


def test_models_of_one_page_share_their_slices_and_changes_stay_their_own() -> None:
    options = parse_options({"networks": ["eip155:1", "eip155:10"], "themeMode": "light"})
    a = initial_model("p", "https://a.example", options, Env())
    b = initial_model("p", "https://a.example", options, Env())
    names = [f.name for f in dataclasses.fields(a) if f.name not in ("env",)]
    assert all(getattr(a, name) is getattr(b, name) for name in names)
    changed = replace(a, modal=replace(a.modal, open=True), theme=replace(a.theme, mode="dark"))
    assert b.modal.open is False and b.theme.mode == "light"
    assert changed.modal.open is True and a.modal.open is False
    other = initial_model("p", "https://a.example", parse_options({"networks": ["eip155:10"]}), Env())
    assert other.networks != a.networks and other.theme.mode == "dark"
