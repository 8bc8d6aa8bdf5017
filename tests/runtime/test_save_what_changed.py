"""Issue 17: saving costs what changed. A live session's save re-packs only the model slices
that changed since its previous save, and the bytes are exactly those of a full save."""

from __future__ import annotations

from typing import Any

import msgpack

from modalcore.engine.persist import ModelPacker, load_bytes, session_to_bytes
from modalcore.slices.model import model_to_data
from modalcore_testing import RunnerRig
from modalcore.wire.codec import encode


async def test_only_changed_slices_are_packed_and_bytes_match_a_full_save(
    rig: RunnerRig, intent: Any,
) -> None:
    packer = ModelPacker()
    session = rig.session
    assert session_to_bytes(session, (), packer) == session_to_bytes(session)
    everything = packer.packed
    assert packer.pack(session.model) == encode(model_to_data(session.model))
    steps = [("host", "open"), ("connect/all-wallets", "press"), ("header/back", "press"),
             ("host", "close")]
    for seq, (node, act) in enumerate(steps, start=1):
        before = session.model
        rig.runner.put_frame(intent(seq, node, act), rig.outlet)
        await rig.runner.settled()
        changed = sum(1 for name in type(before).__dataclass_fields__
                      if getattr(before, name) is not getattr(session.model, name))
        packed_before = packer.packed
        model_bytes = packer.pack(session.model)
        assert model_bytes == encode(model_to_data(session.model))  # a full pack, byte for byte
        assert packer.packed - packed_before == changed < everything
        data = session_to_bytes(session, rig.runner.commands.pending_timers(), packer)
        assert packer.packed - packed_before == changed  # nothing more for the save itself
        assert load_bytes(data)[0].model == session.model


def test_a_session_saved_in_format_1_still_loads(rig: RunnerRig) -> None:
    """Sessions saved before the model was packed slice by slice (format 1) are still read."""
    current = msgpack.unpackb(session_to_bytes(rig.session), raw=False)
    current["format"] = 1
    current["model"] = model_to_data(rig.session.model)
    old = msgpack.packb(current, use_bin_type=True)
    assert load_bytes(old)[0].model == rig.session.model


async def test_rule_remembered_intents_are_packed_once_and_saves_stay_exact(
    rig: RunnerRig, intent: Any,
) -> None:
    """Issue 17: a save packs only the intent ids remembered since the previous one. Rule: with
    the session remembering more ids than INTENT_MEMORY over time (the oldest forgotten), every
    save through a packer is byte for byte a save without one, and loads the same ids."""
    from modalcore.rules.limits import INTENT_MEMORY

    packer = ModelPacker()
    session = rig.session
    cycle = [("host", "open"), ("host", "close")]
    seq = 0
    for round_ in range(INTENT_MEMORY // 2 + 20):
        for node, act in cycle:
            seq += 1
            rig.clock.advance(100)  # within the rate limit
            rig.runner.put_frame(intent(seq, node, act), rig.outlet)
        await rig.runner.settled()
        if round_ % 7 == 0 or round_ > INTENT_MEMORY // 2:
            data = session_to_bytes(session, rig.runner.commands.pending_timers(), packer)
            assert data == session_to_bytes(session, rig.runner.commands.pending_timers())
            assert list(load_bytes(data)[0].intents.items()) == list(session.intents.items())
    assert len(session.intents) == INTENT_MEMORY
    fresh = ModelPacker()
    packer.pack_intents(session.intents)
    assert packer.pack_intents(session.intents) == fresh.pack_intents(session.intents)
    assert msgpack.unpackb(fresh.pack_intents(session.intents), raw=False) == [
        list(entry) for entry in session.intents.items()]


async def test_rule_a_live_save_writes_a_slice_equal_to_its_default_as_nil(
    rig: RunnerRig, intent: Any,
) -> None:
    """Format 3 (a live session's save): a slice equal to its default is nil, and loads back
    as that default; one that differs is written whole."""
    from modalcore.engine.persist import session_to_save
    from modalcore.slices.send_form import SendState

    packer = ModelPacker(shared=True)
    rig.runner.put_frame(intent(1, "host", "open"), rig.outlet)
    await rig.runner.settled()
    session = rig.session
    saved = session_to_save(session, (), packer)
    raw = msgpack.unpackb(saved.data, raw=False)
    model = msgpack.unpackb(raw["model"], raw=False)
    assert raw["format"] == 3
    assert model["send"] is None and session.model.send == SendState()
    assert model["modal"] is not None and model["modal"]["open"] is True
    assert len(saved.data) < len(session_to_bytes(session)) - 1000
    assert load_bytes(saved.data, {})[0].model == session.model


async def test_rule_host_events_and_theme_packed_again_only_when_they_changed(
    rig: RunnerRig, intent: Any,
) -> None:
    """A live save packs what the host events and the theme last said only when the session
    replaced it (`ModelPacker.pack_host` / `pack_theme`). Rule: across steps that change the
    host events (open, close) and the theme (dark, light), every save through a kept packer is
    byte for byte a save without one, and carries what the session last sent: never a stale copy."""
    packer = ModelPacker()
    session = rig.session
    steps = [("host", "open", {}), ("host", "set_theme_mode", {"mode": "dark"}), ("host", "close", {}),
             ("host", "open", {}), ("host", "set_theme_mode", {"mode": "light"}), ("host", "close", {})]
    themes = set()
    for seq, (node, act, args) in enumerate(steps, start=1):
        rig.runner.put_frame(intent(seq, node, act, args), rig.outlet)
        await rig.runner.settled()
        data = session_to_bytes(session, rig.runner.commands.pending_timers(), packer)
        assert data == session_to_bytes(session, rig.runner.commands.pending_timers())
        saved = msgpack.unpackb(data, raw=False)
        assert saved["host_sent"] == session.host_sent and saved["theme_sent"] == session.theme_sent
        assert saved["host_sent"]["state"]["open"] is session.model.modal.open
        themes.add(repr(saved["theme_sent"]))
    assert len(themes) == 2  # the theme did change (dark, then light)


def test_rule_a_model_whose_dict_is_not_its_fields_in_order_is_read_field_by_field(rig: RunnerRig) -> None:
    """A save reads the model's slices from its instance dict only when that dict holds exactly
    the model's fields in their order (persist._slices); rule: a model whose dict was built in
    another order, or holds one more attribute, packs to the same bytes."""
    from modalcore.slices.model import Model

    model = rig.session.model
    expected = encode(model_to_data(model))
    reordered = object.__new__(Model)
    reordered.__dict__.update(reversed(list(model.__dict__.items())))
    assert list(reordered.__dict__) != list(model.__dict__)
    assert ModelPacker().pack(reordered) == expected
    extra = object.__new__(Model)
    extra.__dict__.update(model.__dict__)
    extra.__dict__["_cached"] = object()  # something that is not a field: never packed
    assert ModelPacker().pack(extra) == expected
    assert ModelPacker().pack(model) == expected
