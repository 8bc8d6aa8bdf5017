"""The wire side of a session (PROTOCOL.md): frames numbered and kept in a bounded resend ring
until acknowledged, missed frames for a socket that comes back, resume-token generations, intent
ids remembered for their acks, and the intent rate limit. No model here: the Elm program
(`engine/session.Session`) builds on it."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection
from typing import TypeVar

from ..rules.limits import INTENT_MEMORY, RATE_BURST, RATE_PER_S, RESUME_GRACE_MS, RING_BYTES, RING_SIZE
from ..wire.codec import decode, encode
from ..wire.serverframes import AckStatus, EffectCancel, EffectRequest, IntentAck, ServerFrame, encoded, server_frame, with_bytes
from .sharedframes import SHARED_SEQS, share

F = TypeVar("F", bound=ServerFrame)


class Connection:
    def __init__(self, now: int) -> None:
        self.out_seq = 0
        self.in_seq = 0  # highest client sequence number processed
        self.acked = 0  # highest server sequence number the client processed
        # at most RING_SIZE frames, RING_BYTES bytes (a list: an empty deque is ~0.7 KiB, and
        # most sessions' rings are empty: issue 17's idle figure)
        self.ring: list[tuple[int, bytes]] = []
        self.ring_bytes = 0
        self.intents: OrderedDict[str, AckStatus] = OrderedDict()
        self.tokens = RATE_BURST
        self.tokens_at = now
        self.token_gen = 0  # generation of the newest resume token
        self.token_prev_until = 0  # until then (ms) the generation before it is accepted too

    # ----- frames out
    def _next(self) -> int:
        """The number of the next frame (`_keep` it once built)."""
        self.out_seq += 1
        return self.out_seq

    def _keep(self, frame: F, known: dict[str, bytes] | None = None) -> F:
        """A numbered frame, encoded once: the ring holds its bytes until acknowledged (`known`:
        bytes of field values already packed)."""
        data = encoded(frame, known)
        if frame.s <= SHARED_SEQS:  # a welcome: the same bytes as many sessions' (one copy)
            data = share(data)
            with_bytes(frame, data)
        self.ring.append((frame.s, data))
        self.ring_bytes += len(data)
        # bounded in frames and in bytes (the newest frame always stays): a client that stops
        # acknowledging, or whose frames dropped out, gets a snapshot when it comes back
        while len(self.ring) > RING_SIZE or (self.ring_bytes > RING_BYTES and len(self.ring) > 1):
            self._drop_oldest()
        return frame

    def _drop_oldest(self) -> None:
        self.ring_bytes -= len(self.ring.pop(0)[1])

    def withhold(self, frames: list[ServerFrame], eids: Collection[str]) -> list[ServerFrame]:
        """`frames` with the `effect` frames of `eids` turned into `effect_cancel` frames of the
        same number, in the ring too: the browser is not asked, now or by a reconnect's replay.
        (The runner withholds a wallet request whose saved state did not land, issue 27; the
        effect's failure reaches `update` as its answer.)"""
        kept: list[ServerFrame] = []
        for frame in frames:
            if isinstance(frame, EffectRequest) and frame.eid in eids:
                cancel = EffectCancel(frame.s, frame.a, frame.eid)
                index = frame.s - self.ring[0][0] if self.ring else -1
                if 0 <= index < len(self.ring):
                    data = encoded(cancel)
                    self.ring_bytes += len(data) - len(self.ring[index][1])
                    self.ring[index] = (frame.s, data)
                kept.append(cancel)
            else:
                kept.append(frame)
        return kept

    # ----- resume tokens (PROTOCOL.md, "Resume"): the runtime signs, the session counts
    def accepts_token(self, generation: int, now: int) -> bool:
        """A (verified) token of this generation may resume the session: the newest one, or the
        one it replaced for RESUME_GRACE_MS. A newer generation than the saved one was issued
        too, and its rotation lost in a crash before the save: accepted."""
        if generation >= self.token_gen:
            return True
        return generation == self.token_gen - 1 and now < self.token_prev_until

    def rotate_token(self, now: int, presented: int | None = None) -> int:
        """The generation of the next token (each `joined` carries a new one); `presented` is
        the generation the client resumed with."""
        self.token_gen = max(self.token_gen, presented or 0)
        if self.token_gen > 0:
            self.token_prev_until = now + RESUME_GRACE_MS
        self.token_gen += 1
        return self.token_gen

    def _missed_since(self, last: int) -> list[ServerFrame] | None:
        """The frames numbered after `last`, as the ring keeps them (their bytes unchanged), or
        None when some dropped out."""
        if last == self.out_seq:
            return []
        if last > self.out_seq or not self.ring or self.ring[0][0] > last + 1:
            return None
        return [server_frame(decode(data), data) for seq, data in self.ring if seq > last]

    def _ack(self, acked: int) -> None:
        if acked > self.acked:
            self.acked = acked
        while self.ring and self.ring[0][0] <= self.acked:
            self._drop_oldest()

    # ----- intents (PROTOCOL.md, "Intents"): one ack per id, remembered; a token bucket
    def intent_ack(self, iid: str, status: AckStatus, error: str | None = None) -> IntentAck:
        frame = IntentAck(self._next(), self.in_seq, iid, status, error)
        if error is None:  # the usual ack (one per intent): its map packed at once, as `wire` orders it
            with_bytes(frame, encode({"t": IntentAck.t, "s": frame.s, "a": frame.a, "iid": iid, "status": status}))
        return self._keep(frame)

    def remember(self, iid: str, status: AckStatus) -> None:
        self.intents[iid] = status
        while len(self.intents) > INTENT_MEMORY:
            self.intents.popitem(last=False)

    def take_token(self, now: int) -> bool:
        elapsed = max(0, now - self.tokens_at) / 1000
        self.tokens = min(RATE_BURST, self.tokens + elapsed * RATE_PER_S)
        self.tokens_at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True
