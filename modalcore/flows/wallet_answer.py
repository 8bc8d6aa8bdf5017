"""How the embedded wallet answers the request it holds (flows/approval.py, flows/assets.py):
the request is cleared, the approval view left, and the asking slice gets the reply it named."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.cmds import CancelTimer, Dispatch, WalletAnswered
from ..core.evolve import replace
from ..slices.embedded import EmbeddedRequest

if TYPE_CHECKING:
    from ..slices.model import Model, Step

APPROVE_VIEW = "ApproveTransaction"
TIMER = "embedded-approval"
INTERNAL_ERROR = -32603
INVALID_PARAMS = -32602


def answer(model: Model, request: EmbeddedRequest, *, result: object = None, code: int = 0,
           message: str = "") -> Step:
    """Clear the request, leave the approval view, and hand the asking slice its reply."""
    model = replace(model, embedded=replace(model.embedded, request=None))
    if model.router.view == APPROVE_VIEW:
        history = model.router.history
        model = replace(model, router=replace(model.router, history=history[:-1] or history))
    ok = code == 0
    # the answer travels as a browser wallet's would: by effect id, addressed by the session to
    # the reply the asking slice waits for, typed at the session's edge (engine/replies.py)
    answered = WalletAnswered(request.eid, ok, result if ok else None, error_code=code, error_message=message)
    return model, [CancelTimer(TIMER), Dispatch(answered)]
