"""The session proposal's namespaces, built from the host's CAIP-2 networks.

As AppKit does today, every network goes into `optionalNamespaces` (a wallet that lacks one of
them still approves the others); `required` chains, if a host insists, go into
`requiredNamespaces`. Only eip155 networks are proposed: the methods and events below are EVM's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ...rules.caip import CaipError, parse_caip2
from .sign_rpc import Metadata, Participant, ProposalNamespace, Relay, SessionProposeParams

EIP155_METHODS = (
    "eth_sendTransaction",
    "personal_sign",
    "eth_signTypedData_v4",
    "wallet_switchEthereumChain",
    "wallet_addEthereumChain",
)
# EIP-5792 (issue 32): proposed as AppKit's WCNamespaceUtil does, so a wallet that batches
# says so in its session; the host's requests go to the wallet as they are. Not part of the
# sign-in's recap (walletconnect authenticate keeps EIP155_METHODS).
EIP5792_METHODS = ("wallet_getCapabilities", "wallet_sendCalls", "wallet_getCallsStatus", "wallet_showCallsStatus")
PROPOSED_METHODS = EIP155_METHODS + EIP5792_METHODS
EIP155_EVENTS = ("chainChanged", "accountsChanged")


class ProposalError(ValueError):
    """No proposable network (or an invalid one) among the host's networks."""


def eip155_chains(networks: Iterable[str]) -> list[str]:
    """The eip155 CAIP-2 ids among `networks`, in order, without duplicates."""
    chains: list[str] = []
    for network in networks:
        try:
            caip = parse_caip2(network)
        except CaipError as error:
            raise ProposalError(f"invalid network {network!r}") from error
        if caip.namespace == "eip155" and str(caip) not in chains:
            chains.append(str(caip))
    return chains


def build_namespaces(networks: Sequence[str], required: Sequence[str] = ()) -> tuple[
        dict[str, ProposalNamespace], dict[str, ProposalNamespace]]:
    """(requiredNamespaces, optionalNamespaces) for the host's networks."""
    chains = eip155_chains(networks)
    if not chains:
        raise ProposalError("no eip155 network to propose")
    must = eip155_chains(required)
    missing = [c for c in must if c not in chains]
    if missing:
        raise ProposalError(f"required networks not among the host's networks: {missing}")
    def namespace(ids: list[str]) -> ProposalNamespace:
        return ProposalNamespace(chains=ids, methods=list(PROPOSED_METHODS), events=list(EIP155_EVENTS))
    required_ns = {"eip155": namespace(must)} if must else {}
    return required_ns, {"eip155": namespace(chains)}


def build_proposal(*, networks: Sequence[str], public_key: str, metadata: Metadata, pairing_topic: str,
                   proposal_id: int, expiry_timestamp: int, required: Sequence[str] = ()) -> SessionProposeParams:
    """wc_sessionPropose params, with the SDK 2.25 extras (id, pairingTopic, expiryTimestamp)."""
    required_ns, optional_ns = build_namespaces(networks, required)
    return SessionProposeParams(
        relays=[Relay(protocol="irn")],
        proposer=Participant(publicKey=public_key, metadata=metadata),
        requiredNamespaces=required_ns,
        optionalNamespaces=optional_ns,
        expiryTimestamp=expiry_timestamp,
        pairingTopic=pairing_topic,
        id=proposal_id,
    )
