"""Tracking events derived at the runtime edge, and their deterministic ids (no randomness:
the same session input yields the same event id, in a replay too)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from ..slices.accounts import holds_connection
from ..slices.model import Model
from ..ports.analytics import AnalyticsSink, TrackedEvent
from ..ports.observe import Step
from ..wire.serverframes import Joined

MODAL_CREATED = "MODAL_CREATED"  # counted locally, never posted (behaviour.md §7)
# the session doctor's diagnoses (issue 44), counted locally per flow, cause and wallet (the
# event's name carries them, so the store's counts per event and day are the counts the issue
# asks for), never posted: `DOCTOR connect request_rejected io.metamask`
DOCTOR = "DOCTOR"


def doctor_event(flow: str, cause: str, wallet: str) -> str:
    return f"{DOCTOR} {flow} {cause} {wallet or '-'}"


def event_id(session_id: str, at: int, event: str, index: int) -> str:
    """A UUID-shaped id from the session, the time, the event and its place in the step."""
    data = bytearray(hashlib.sha256(f"{session_id}|{at}|{event}|{index}".encode()).digest()[:16])
    data[6] = (data[6] & 0x0F) | 0x40  # version 4
    data[8] = (data[8] & 0x3F) | 0x80  # RFC 4122 variant
    text = data.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def visitor_address(model: Model) -> str:
    return model.accounts.get(model.networks.active_namespace).address or ""


def enabled(model: Model) -> bool:
    """The host's `features.analytics` (`analytics: false` sends nothing)."""
    return bool(model.options.features.analytics)


def make_event(model: Model, session_id: str, at: int, name: str, props: Mapping[str, object],
               index: int, kind: str = "track") -> TrackedEvent:
    return TrackedEvent(session_id, model.project_id, name, at, props,
                        event_id=event_id(session_id, at, name, index),
                        address=visitor_address(model), url=model.origin, kind=kind)


def derived(step: Step) -> list[tuple[str, dict[str, object]]]:
    """CONNECT_SUCCESS, CONNECT_ERROR, DISCONNECT_SUCCESS, MODAL_OPEN, MODAL_CLOSE and
    MODAL_CREATED, from the model before and after one input."""
    before, after = step.before, step.after
    events: list[tuple[str, dict[str, object]]] = []
    first = step.frames[0] if step.frames else None
    if step.cause is None and isinstance(first, Joined) and not first.resumed:
        events.append((MODAL_CREATED, {}))
    found = after.doctor.last
    if found is not None and after.doctor.count != before.doctor.count:
        events.append((doctor_event(found.flow, found.cause.value, found.wallet), {}))
    if (before.accounts is after.accounts and before.networks is after.networks
            and before.connection is after.connection and before.modal is after.modal):
        return events  # the slices every other event reads are the same (immutable) objects
    old = before.accounts.get(before.networks.active_namespace)
    new = after.accounts.get(after.networks.active_namespace)
    # a reload's re-sync (connected -> connecting -> connected) holds the connection: no
    # DISCONNECT_SUCCESS, and no second CONNECT_SUCCESS for the same account (issue 31)
    if new.status == "connected" and (not holds_connection(old) or old.address != new.address):
        wallet = new.connected_wallet_info
        events.append(("CONNECT_SUCCESS", {"method": "browser",
                                           "name": wallet.name if wallet else ""}))
    elif holds_connection(old) and not holds_connection(new):
        events.append(("DISCONNECT_SUCCESS", {}))
    if after.connection.error and after.connection.error != before.connection.error:
        events.append(("CONNECT_ERROR", {"message": after.connection.error}))
    if after.modal.open != before.modal.open:
        connected = new.status == "connected"
        events.append(("MODAL_OPEN" if after.modal.open else "MODAL_CLOSE",
                       {"connected": connected}))
    return events


class AnalyticsObserver:
    """Hands the derived events of each step to the analytics sink."""

    def __init__(self, sink: AnalyticsSink) -> None:
        self.sink = sink

    async def observe(self, step: Step) -> None:
        if not enabled(step.after):
            return
        for index, (name, props) in enumerate(derived(step)):
            self.sink.track(make_event(step.after, step.session_id, step.at, name, props,
                                       1000 + index))
