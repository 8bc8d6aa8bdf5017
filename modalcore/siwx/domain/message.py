"""EIP-4361 (Sign-In with Ethereum) messages: build, render and strictly parse (behaviour.md §3).

The text layout follows the EIP-4361 ABNF exactly::

    {domain} wants you to sign in with your Ethereum account:
    {address}

    {statement}

    URI: {uri}
    Version: 1
    Chain ID: {chainId}
    Nonce: {nonce}
    Issued At: {issuedAt}
    Expiration Time: {expirationTime}      (optional)
    Not Before: {notBefore}                (optional)
    Request ID: {requestId}                (optional)
    Resources:                             (optional, only with at least one resource)
    - {resource}

The ABNF lets `Resources:` stand with no item under it, but the common libraries (SpruceID's
`siwe` for Python) rebuild such a message without the line and then refuse its signature, so an
empty resource list is the same as none: it is never written, and parsing it gives None.
Without a statement the ABNF (`address LF LF [ statement LF ] LF "URI: "`) leaves two blank
lines between the address and the URI line. No trailing newline. Everything here is pure (no
clock, no randomness) so the engine's update functions may use it.

Sign-In with Solana (modalcore/siwx/domain/solana.py) writes the same layout with its own header,
address and Chain ID: `SignInMessage` holds what the two share (fields, rules, text, data,
parser) and `SiwxMessage` is the eip155 one.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, fields
from datetime import datetime, timedelta, timezone
from typing import Any, ClassVar, Self

from eth_utils.address import is_checksum_address, to_checksum_address

from .grammar import MessageParser, SiwxMessageError, SiwxParseError, camel

_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
# RFC 3986 authority: [ userinfo "@" ] host [ ":" port ]
_DOMAIN = re.compile(
    r"^(?:[A-Za-z0-9._~!$&'()*+,;=:%-]*@)?"
    r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]+)"
    r"(?::[0-9]*)?$"
)
# RFC 3986 URI: scheme ":" then only characters a URI may hold.
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*$")
# EIP-4361: statement = 1*( reserved / unreserved / " " )
_STATEMENT = re.compile(r"^[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;= ]+$")
_NONCE = re.compile(r"^[A-Za-z0-9]{8,}$")
_CHAIN_ID = re.compile(r"^[1-9][0-9]*$")
# request-id = *pchar
_REQUEST_ID = re.compile(r"^[A-Za-z0-9\-._~!$&'()*+,;=:@%]*$")
_DATETIME = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"
)
_CAIP2_EIP155 = re.compile(r"^eip155:([1-9][0-9]*)$")


def timestamp_ms(text: str) -> int:
    """Unix milliseconds of an RFC 3339 date-time (fractions past ms are truncated)."""
    match = _DATETIME.match(text)
    if not match:
        raise SiwxMessageError(f"not an RFC 3339 date-time: {text!r}")
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    if zone in ("Z", "z"):
        tz = timezone.utc
    else:
        sign = 1 if zone[0] == "+" else -1
        tz_hours, tz_minutes = int(zone[1:3]), int(zone[4:6])
        if tz_hours > 23 or tz_minutes > 59:
            raise SiwxMessageError(f"bad time zone offset: {text!r}")
        tz = timezone(sign * timedelta(hours=tz_hours, minutes=tz_minutes))
    try:
        moment = datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second), tzinfo=tz
        )
    except ValueError as error:
        raise SiwxMessageError(f"not a valid date-time: {text!r}") from error
    millis = int((fraction or ".0")[1:4].ljust(3, "0"))
    return int(moment.timestamp()) * 1000 + millis


def iso_from_ms(ms: int) -> str:
    """RFC 3339 UTC text with milliseconds, e.g. 2024-05-01T12:00:00.000Z."""
    moment = datetime.fromtimestamp(ms // 1000, tz=timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{ms % 1000:03d}Z"


def parse_chain_id(value: int | str) -> int:
    """An EIP-155 chain id from an int, a decimal string or a CAIP-2 id ("eip155:1")."""
    if isinstance(value, bool):
        raise SiwxMessageError("chain id must be a positive integer", "chainId")
    if isinstance(value, int):
        if value <= 0:
            raise SiwxMessageError("chain id must be a positive integer", "chainId")
        return value
    text = str(value)
    caip = _CAIP2_EIP155.match(text)
    if caip:
        return int(caip.group(1))
    if _CHAIN_ID.match(text):
        return int(text)
    raise SiwxMessageError(f"not an EIP-155 chain id: {text!r}", "chainId")


@dataclass(frozen=True, kw_only=True)
class SignInMessage(ABC):
    """What SIWE and SIWS messages share (CAIP-122 in the EIP-4361 text layout): the fields
    around the address and the chain id, their rules, the text, the behaviour.md §3 data and the strict
    parser. A subclass adds its header, its address and chain id fields and their rules.
    Construction validates every field (SiwxMessageError); fields are given by keyword."""

    HEADER_SUFFIX: ClassVar[str]
    domain: str
    uri: str
    nonce: str
    issued_at: str
    statement: str | None = None
    version: str = "1"
    expiration_time: str | None = None
    not_before: str | None = None
    request_id: str | None = None
    resources: tuple[str, ...] | None = None

    @property
    @abstractmethod
    def signer(self) -> str:
        """The address line: the account as the message writes it."""

    @property
    @abstractmethod
    def chain_reference(self) -> str:
        """The Chain ID line (an EIP-155 number, a Solana cluster's CAIP-2 reference)."""

    @property
    @abstractmethod
    def caip2(self) -> str:
        """The chain as a CAIP-2 id ("eip155:1")."""

    @abstractmethod
    def _check_account(self) -> None:
        """Refuse (SiwxMessageError) an address or chain id the namespace does not allow."""

    @classmethod
    @abstractmethod
    def _from_layout(cls, address: str, chain: str, shared: dict[str, object]) -> Self:
        """The message of parsed text: its address and Chain ID lines and the shared fields."""

    def __post_init__(self) -> None:
        if not isinstance(self.domain, str) or not _DOMAIN.match(self.domain):
            raise SiwxMessageError(f"invalid domain: {self.domain!r}", "domain")
        self._check_account()
        if self.statement is not None and (
            not isinstance(self.statement, str) or not _STATEMENT.match(self.statement)
        ):
            raise SiwxMessageError("statement must be one line of URI-safe ASCII", "statement")
        if not isinstance(self.uri, str) or not _URI.match(self.uri):
            raise SiwxMessageError(f"invalid uri: {self.uri!r}", "uri")
        if self.version != "1":
            raise SiwxMessageError("version must be '1'", "version")
        if not isinstance(self.nonce, str) or not _NONCE.match(self.nonce):
            raise SiwxMessageError("nonce must be at least 8 letters or digits", "nonce")
        for name in ("issued_at", "expiration_time", "not_before"):
            value = getattr(self, name)
            if value is None and name != "issued_at":
                continue
            if not isinstance(value, str):
                raise SiwxMessageError(f"{name} must be an RFC 3339 date-time", camel(name))
            try:
                timestamp_ms(value)
            except SiwxMessageError as error:
                raise SiwxMessageError(error.detail, camel(name)) from None
        if self.request_id is not None and (
            not isinstance(self.request_id, str) or not _REQUEST_ID.match(self.request_id)
        ):
            raise SiwxMessageError("request id must be URI path characters", "requestId")
        if self.resources is not None:
            if not isinstance(self.resources, tuple):
                object.__setattr__(self, "resources", tuple(self.resources))
            if not self.resources:  # no resources: no `Resources:` line (see the module doc)
                object.__setattr__(self, "resources", None)
            for resource in self.resources or ():
                if not isinstance(resource, str) or not _URI.match(resource):
                    raise SiwxMessageError(f"invalid resource uri: {resource!r}", "resources")

    # -- times -----------------------------------------------------------------------------

    @property
    def issued_at_ms(self) -> int:
        return timestamp_ms(self.issued_at)

    @property
    def expiration_time_ms(self) -> int | None:
        return None if self.expiration_time is None else timestamp_ms(self.expiration_time)

    @property
    def not_before_ms(self) -> int | None:
        return None if self.not_before is None else timestamp_ms(self.not_before)

    # -- text ------------------------------------------------------------------------------

    def to_text(self) -> str:
        lines = [self.domain + self.HEADER_SUFFIX, self.signer, ""]
        if self.statement is not None:
            lines.append(self.statement)
        lines.append("")
        lines += [
            f"URI: {self.uri}",
            f"Version: {self.version}",
            f"Chain ID: {self.chain_reference}",
            f"Nonce: {self.nonce}",
            f"Issued At: {self.issued_at}",
        ]
        if self.expiration_time is not None:
            lines.append(f"Expiration Time: {self.expiration_time}")
        if self.not_before is not None:
            lines.append(f"Not Before: {self.not_before}")
        if self.request_id is not None:
            lines.append(f"Request ID: {self.request_id}")
        if self.resources:
            lines.append("Resources:")
            lines += [f"- {resource}" for resource in self.resources]
        return "\n".join(lines)

    @classmethod
    def parse(cls, text: str) -> Self:
        """Parse the text strictly; SiwxParseError names what is wrong."""
        address, chain, shared = MessageParser(text, cls.HEADER_SUFFIX).parse()
        try:
            return cls._from_layout(address, chain, shared)
        except SiwxParseError:
            raise
        except SiwxMessageError as error:
            raise SiwxParseError(error.detail, error.field) from None

    # -- plain data (behaviour.md §3 names) --------------------------------------------------------

    def to_data(self) -> dict[str, Any]:
        """behaviour.md §3 message fields; chainId as a CAIP-2 id ("eip155:1"), absent fields omitted."""
        data: dict[str, object] = {
            "domain": self.domain,
            "accountAddress": self.signer,
            "uri": self.uri,
            "version": self.version,
            "chainId": self.caip2,
            "nonce": self.nonce,
            "issuedAt": self.issued_at,
        }
        optional = {
            "statement": self.statement,
            "expirationTime": self.expiration_time,
            "notBefore": self.not_before,
            "requestId": self.request_id,
            "resources": None if self.resources is None else list(self.resources),
        }
        data.update({key: value for key, value in optional.items() if value is not None})
        return data


@dataclass(frozen=True, kw_only=True)
class SiwxMessage(SignInMessage):
    """One EIP-4361 message: an EIP-55 address and an EIP-155 chain id."""

    HEADER_SUFFIX: ClassVar[str] = " wants you to sign in with your Ethereum account:"

    account_address: str
    chain_id: int

    @property
    def signer(self) -> str:
        return self.account_address

    @property
    def chain_reference(self) -> str:
        return str(self.chain_id)

    @property
    def caip2(self) -> str:
        return f"eip155:{self.chain_id}"

    def _check_account(self) -> None:
        if not isinstance(self.account_address, str) or not _ADDRESS.match(self.account_address):
            raise SiwxMessageError("address must be 0x and 40 hex digits", "accountAddress")
        if not is_checksum_address(self.account_address):
            raise SiwxMessageError("address must be EIP-55 checksummed", "accountAddress")
        if isinstance(self.chain_id, bool) or not isinstance(self.chain_id, int) or self.chain_id <= 0:
            raise SiwxMessageError("chain id must be a positive integer", "chainId")

    @classmethod
    def _from_layout(cls, address: str, chain: str, shared: dict[str, Any]) -> SiwxMessage:
        if not _CHAIN_ID.match(chain):
            raise SiwxParseError(f"invalid chain id: {chain!r}", "chainId")
        return cls(account_address=address, chain_id=int(chain), **shared)

    # -- plain data (behaviour.md §3 names) --------------------------------------------------------

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> SiwxMessage:
        """The inverse of `to_data` (chainId may be an int, a decimal string or CAIP-2)."""
        known = {camel(f.name) for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise SiwxMessageError(f"unknown message fields: {sorted(unknown)}")
        resources = data.get("resources")
        try:
            return cls(
                domain=data["domain"],
                account_address=data["accountAddress"],
                uri=data["uri"],
                chain_id=parse_chain_id(data["chainId"]),
                nonce=data["nonce"],
                issued_at=data["issuedAt"],
                statement=data.get("statement"),
                version=data.get("version", "1"),
                expiration_time=data.get("expirationTime"),
                not_before=data.get("notBefore"),
                request_id=data.get("requestId"),
                resources=None if resources is None else tuple(resources),
            )
        except KeyError as error:
            raise SiwxMessageError(f"missing message field {error.args[0]}", error.args[0]) from None

    @classmethod
    def create(
        cls,
        *,
        domain: str,
        address: str,
        uri: str,
        chain_id: int | str,
        nonce: str,
        now_ms: int,
        statement: str | None = None,
        ttl_ms: int | None = None,
        not_before_ms: int | None = None,
        request_id: str | None = None,
        resources: list[str] | tuple[str, ...] | None = None,
    ) -> SiwxMessage:
        """A message issued at `now_ms`, expiring `ttl_ms` later when given. The address is
        checksummed here, so a lowercase address from a wallet is fine."""
        if not isinstance(address, str) or not _ADDRESS.match(address):
            raise SiwxMessageError("address must be 0x and 40 hex digits", "accountAddress")
        return cls(
            domain=domain,
            account_address=to_checksum_address(address),
            uri=uri,
            chain_id=parse_chain_id(chain_id),
            nonce=nonce,
            issued_at=iso_from_ms(now_ms),
            statement=statement,
            expiration_time=None if ttl_ms is None else iso_from_ms(now_ms + ttl_ms),
            not_before=None if not_before_ms is None else iso_from_ms(not_before_ms),
            request_id=request_id,
            resources=None if resources is None else tuple(resources),
        )
