"""An intent's ack is packed at once from its map (not through the generic frame map): rule, its
bytes are those of the frame's wire map packed, with and without an error, whatever the ids."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from modalcore.engine.connection import Connection
from modalcore.wire.codec import encode
from modalcore.wire.serverframes import ACK_STATUSES, AckStatus, encoded, wire


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=40), st.sampled_from(ACK_STATUSES), st.none() | st.text(max_size=20),
       st.integers(min_value=0, max_value=2**40))
def test_rule_an_intent_ack_is_its_wire_map_packed(iid: str, status: AckStatus, error: str | None,
                                                   seq: int) -> None:
    connection = Connection(0)
    connection.in_seq = seq
    frame = connection.intent_ack(iid, status, error)
    assert encoded(frame) == encode(wire(frame))
    assert connection.ring[-1] == (frame.s, encode(wire(frame)))
