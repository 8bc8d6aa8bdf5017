"""Issue 17, idle memory: a live session whose tree went unused drops it (with its node index,
parent map and view memo) and draws it again on its next input. The rule: a compacted session
answers every input exactly as one that never compacted does (same frames, same bytes), and an
input that the dropped tree would have refused is refused the same way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from modalcore.core.evolve import replace
from modalcore.enginetest import Harness

Step = Callable[[Harness], Any]

JOURNEY: list[Step] = [
    lambda h: h.host("open"),
    lambda h: h.press("connect/all-wallets"),
    lambda h: h.intent("no/such/node"),
    lambda h: h.press("header/back"),
    lambda h: h.host("set_theme_mode", mode="light"),
    lambda h: h.host("close"),
    lambda h: h.host("open"),
]


def _ring(h: Harness) -> list[tuple[int, bytes]]:
    return list(h.session.ring)


def test_a_session_compacted_before_every_input_sends_the_same_frames(
    make: Callable[..., Harness],
) -> None:
    kept, compacted = make(), make()
    for step in JOURNEY:
        compacted.session.compact()
        assert compacted.session.compacted
        assert step(kept) == step(compacted)
        assert compacted.last == kept.last
        assert _ring(compacted) == _ring(kept)  # byte for byte
        assert compacted.session.tree == kept.session.tree
    assert compacted.frames == kept.frames


def test_the_dropped_tree_is_drawn_from_the_model_it_was_drawn_from(
    make: Callable[..., Harness],
) -> None:
    """A model that changed after the last render (nothing drew it yet) still reaches the client:
    the tree drawn again is the one the client has, not the new model's, so the next render
    patches the difference. Drawing it from the current model would lose that patch."""
    kept, compacted = make(), make()
    for h in (kept, compacted):
        h.session.model = replace(h.session.model, modal=replace(h.session.model.modal, open=True))
    compacted.session.compact()
    assert compacted.session.render() and kept.session.render()
    assert _ring(compacted) == _ring(kept)
    assert compacted.session.tree == kept.session.tree


def test_a_press_on_a_node_of_the_dropped_tree_is_judged_against_it(
    make: Callable[..., Harness],
) -> None:
    h = make()
    h.host("open")
    h.session.compact()
    assert h.intent("no/such/node") == "invalid"  # the index drawn again refuses it
    h.session.compact()
    h.press("connect/all-wallets")  # and knows this one
    assert h.view == "AllWallets"


def test_only_a_tree_unused_since_the_previous_sweep_is_dropped(h: Harness) -> None:
    h.host("open")
    assert not h.session.compact_if_unused()  # drawn since: kept, marked unused
    assert h.session.compact_if_unused()  # unused for a whole period: dropped
    assert h.session.compacted
    assert not h.session.compact_if_unused()  # nothing left to drop
    h.host("close")  # drawn again, and used
    assert not h.session.compacted
    assert not h.session.compact_if_unused()
