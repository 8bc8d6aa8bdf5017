"""Sign in with Farcaster (issue 33; behaviour.md §2 ConnectingFarcaster): the channel the engine opened
on the auth relay, and the messages of its life. What they do across slices (connect the
embedded account) is the Farcaster flow (`flows/farcaster.py`).

The channel is opened by ConnectingFarcaster's engine-origin frame, for its key
(`/embedded/farcaster`, server/verify_farcaster.py), which delivers its token, URL and nonce as
`FarcasterChannelOpened`; the verdict
on the relay's answer (message, signature, ID registry) from `farcaster.status`: the session
only learns it, and on `verified` the address of the FID's embedded key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..core.cmds import Reply
from ..core.msg import Msg
from ..rules import limits as L

VIEW = "ConnectingFarcaster"
POLL_TIMER = "farcaster-poll"
POLL_MS = 1000  # the auth-client's default status interval


@dataclass(frozen=True)
class FarcasterChannel:
    attempt: int = 0  # which frame opens it: a fresh channel is a fresh frame
    token: str = ""  # empty while the channel is being opened
    url: str = ""  # farcaster://connect?channelToken=...
    nonce: str = ""
    error: str | None = None  # refused, failed: shown with Try again
    # the host requires sign-in and the approval may sign it (flows/farcaster_siwx.py): the
    # channel carries the SIWX message's domain, URI and this SIWX nonce of the session, asked
    # before the frame may open it
    signs_in: bool = False
    sign_in_nonce: str = ""
    frame_key: str = ""  # the key the channel was opened for (ChannelOpened.public_key)


class ChannelOpened(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    channel_token: str = Field(pattern=r"^[A-Za-z0-9_-]{16,64}$")
    url: str = Field(pattern=r"^farcaster://connect\?", max_length=2048)
    nonce: str = Field(pattern=r"^[A-Za-z0-9]{8,64}$")
    # the frame's public key the channel was opened for, which the verified answer registers
    # (a linked phone's: slices/handoff.adopt)
    public_key: str = Field(default="", max_length=L.DEVICE_KEY_CHARS)


class ChannelStatus(BaseModel):
    """`farcaster.status`: still pending, expired (open a fresh channel), refused (the answer
    failed a check: `reason`), or verified with who signed in and the address of their key."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    state: Literal["pending", "expired", "refused", "verified"]
    reason: str = Field(default="", max_length=200)
    fid: int = Field(default=0, ge=0, lt=2**63)
    username: str = Field(default="", max_length=64)
    display_name: str = Field(default="", max_length=128)
    pfp_url: str = Field(default="", max_length=1024)
    address: str = Field(default="", pattern=r"^(0x[0-9a-fA-F]{40})?$")


@dataclass(frozen=True)
class FarcasterChannelOpened(Reply):
    """ConnectingFarcaster's frame opened a channel for its key (`key`: the frame's attempt),
    delivered by the engine's route; a `Failure` ("upstream"): the relay could not be reached."""

    result: ChannelOpened | None = None


@dataclass(frozen=True)
class FarcasterStatusRead(Reply):
    """`farcaster.status` answered (`key`: the channel token)."""

    result: ChannelStatus | None = None


class SignInNonce(BaseModel):
    """`siwx.nonce`, as a Farcaster channel's nonce must be (the relay's bound)."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    nonce: str = Field(pattern=r"^[A-Za-z0-9]{8,64}$")


class SignedSignIn(BaseModel):
    """`farcaster.sign_in`: the SIWX message signed by the FID's embedded key (EIP-191), or for its
    smart account: the same 65 bytes once deployed, ERC-6492-wrapped before (~400 bytes)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    signature: str = Field(pattern=r"^0x(?:[0-9a-fA-F]{2}){65,}$", max_length=2 + 2 * 2048)


@dataclass(frozen=True)
class FarcasterSignInNonce(Reply):
    """`siwx.nonce` for the channel of attempt `key`: the nonce its sign-in will carry."""

    result: SignInNonce | None = None


@dataclass(frozen=True)
class FarcasterSignInSigned(Reply):
    """`farcaster.sign_in` answered (`key`: the CAIP address signing in); `ok=False`: the
    approval did not cover the message (the session signs in in two steps)."""

    result: SignedSignIn | None = None


@dataclass(frozen=True)
class FarcasterPollDue(Msg):
    token: str


@dataclass(frozen=True)
class PressedRetryFarcaster(Msg):
    pass
