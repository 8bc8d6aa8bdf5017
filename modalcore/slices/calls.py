"""EIP-5792 batches of the embedded smart account (issue 32 item 4): the shapes the engine's
`embedded.calls_status` service answers, and the batch `wallet_showCallsStatus` shows in the
modal (view CallsStatus). The work across slices is flows/calls.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..core.cmds import Reply
from ..core.msg import Msg
from ..rules.calls import MAX_LOGS, MAX_TOPICS
from ..services.domain.handles import CALLS_STATUS

STATUS_SERVICE = CALLS_STATUS
VIEW = "CallsStatus"

Hash = Annotated[str, Field(pattern=r"^0x[0-9a-fA-F]{64}$")]
Quantity = Annotated[str, Field(pattern=r"^0x[0-9a-fA-F]{1,64}$")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CallsLog(_Strict):
    address: str = Field(pattern=r"^0x[0-9a-fA-F]{40}$")
    topics: list[Hash] = Field(max_length=MAX_TOPICS)
    data: str = Field(pattern=r"^0x[0-9a-fA-F]*$", max_length=16_386)


class CallsReceipt(_Strict):
    """EIP-5792's receipt: the transaction that included the batch's UserOperation, with the
    operation's own logs."""

    logs: list[CallsLog] = Field(max_length=MAX_LOGS)
    status: Literal["0x1", "0x0"]
    blockHash: Hash
    blockNumber: Quantity
    gasUsed: Quantity
    transactionHash: Hash


class CallsStatusResult(_Strict):
    """`embedded.calls_status`: 100 pending, 200 confirmed, 500 reverted (rules/calls.py)."""

    status: Literal[100, 200, 400, 500]
    receipts: list[CallsReceipt] = Field(default_factory=list, max_length=1)


@dataclass(frozen=True)
class CallsStatusRead(Reply):
    """`embedded.calls_status` answered. `key`: the request's eid for `wallet_getCallsStatus`,
    "view:" + the calls id for the CallsStatus view."""

    result: CallsStatusResult | None = None


@dataclass(frozen=True)
class PressedRefreshCallsStatus(Msg):
    pass


@dataclass(frozen=True)
class ShownBatch:
    """The batch the CallsStatus view shows: its id, chain, and what was last read."""

    calls_id: str
    chain: str  # CAIP-2
    status: int | None = None  # None: not read yet
    transaction_hash: str = ""
    reading: bool = False
    failed: bool = False  # the last read failed (the bundler or chain did not answer)


@dataclass(frozen=True)
class CallsState:
    shown: ShownBatch | None = None
