"""The relay's store of published messages: per topic, kept for their TTL, bounded in size and
count, with the clients that already have each message."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Limits:
    max_message: int = 256 * 1024  # characters of one published message
    max_per_topic: int = 200  # messages kept per topic (oldest dropped)
    max_topics_per_client: int = 10_000
    max_ttl: int = 30 * 86400
    max_topics: int = 50_000  # topics with stored messages (the oldest topic is dropped)
    max_outstanding: int = 1_000  # deliveries awaiting one client's acknowledgement


@dataclass
class Stored:
    id: int
    topic: str
    message: str
    tag: int
    published_at: int  # ms
    expires_at: int  # ms
    attestation: str | None = None
    received_by: set[str] = field(default_factory=set)  # client ids that acknowledged or published it

    def data(self) -> dict[str, object]:
        return {"topic": self.topic, "message": self.message, "attestation": self.attestation,
                "publishedAt": self.published_at, "tag": self.tag}


class Mailbox:
    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._topics: OrderedDict[str, OrderedDict[int, Stored]] = OrderedDict()

    def put(self, stored: Stored) -> None:
        if stored.topic not in self._topics and len(self._topics) >= self.limits.max_topics:
            self._topics.popitem(last=False)
        box = self._topics.setdefault(stored.topic, OrderedDict())
        box[stored.id] = stored
        while len(box) > self.limits.max_per_topic:
            box.popitem(last=False)

    def pending_for(self, topic: str, client_id: str, now_ms: int) -> list[Stored]:
        """Unexpired messages on `topic` that `client_id` has not received."""
        box = self._topics.get(topic)
        if not box:
            return []
        for expired in [m.id for m in box.values() if m.expires_at <= now_ms]:
            del box[expired]
        if not box:
            del self._topics[topic]
            return []
        return [m for m in box.values() if client_id not in m.received_by]

    def get(self, topic: str, message_id: int) -> Stored | None:
        box = self._topics.get(topic)
        return box.get(message_id) if box else None

    def count(self, topic: str) -> int:
        return len(self._topics.get(topic, ()))
