"""Issue 17: saving costs what changed. A live session's save re-packs only the model slices
that changed since its previous save, and the bytes are exactly those of a full save."""

from __future__ import annotations

from typing import Any

from modalcore.engine.persist import ModelPacker, load_bytes, session_to_bytes
from modalcore.testing import RunnerRig


async def test_only_changed_slices_are_packed_and_bytes_match_a_full_save(
    rig: RunnerRig, intent: Any,
) -> None:
    packer = ModelPacker()
    session = rig.session
    assert session_to_bytes(session, (), packer) == session_to_bytes(session)
    everything = packer.packed
    steps = [("host", "open"), ("connect/all-wallets", "press"), ("header/back", "press"),
             ("host", "close")]
    for seq, (node, act) in enumerate(steps, start=1):
        before = session.model
        rig.runner.put_frame(intent(seq, node, act), rig.outlet)
        await rig.runner.settled()
        changed = sum(1 for name in type(before).__dataclass_fields__
                      if getattr(before, name) is not getattr(session.model, name))
        packed_before = packer.packed
        data = session_to_bytes(session, rig.runner.pending_timers(), packer)
        assert data == session_to_bytes(session, rig.runner.pending_timers())
        assert packer.packed - packed_before == changed < everything
        assert load_bytes(data)[0].model == session.model
