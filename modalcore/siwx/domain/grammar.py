"""The EIP-4361 text grammar every CAIP-122 message shares (SIWE, SIWS, Farcaster's): the errors
of a message that breaks it, and the line-by-line parser (modalcore/siwx/domain/message.py checks the
fields it gives)."""

from __future__ import annotations

from typing import Any


class SiwxMessageError(ValueError):
    """A message field that breaks EIP-4361 (raised when building or parsing)."""

    def __init__(self, detail: str, field: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.field = field


class SiwxParseError(SiwxMessageError):
    """Text that is not a well-formed EIP-4361 message."""


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


class MessageParser:
    """Line-by-line parser over the EIP-4361 grammar; one instance per text. It gives the
    address and Chain ID lines as written and the shared fields by their attribute names; the
    message class checks them."""

    def __init__(self, text: str, header_suffix: str) -> None:
        if not isinstance(text, str):
            raise SiwxParseError("message must be text")
        if "\r" in text:
            raise SiwxParseError("message must use LF line endings")
        self.lines = text.split("\n")
        self.index = 0
        self.header_suffix = header_suffix

    def _peek(self) -> str | None:
        return self.lines[self.index] if self.index < len(self.lines) else None

    def _take(self, what: str) -> str:
        line = self._peek()
        if line is None:
            raise SiwxParseError(f"message ends before {what}")
        self.index += 1
        return line

    def _tagged(self, tag: str, field: str) -> str:
        line = self._take(f"the {tag!r} line")
        if not line.startswith(tag):
            raise SiwxParseError(f"expected {tag!r} at line {self.index}", field)
        return line[len(tag):]

    def _optional(self, tag: str, field: str) -> str | None:
        line = self._peek()
        if line is None or not line.startswith(tag):
            return None
        return self._tagged(tag, field)

    def parse(self) -> tuple[str, str, dict[str, Any]]:
        header = self._take("the header")
        if not header.endswith(self.header_suffix):
            raise SiwxParseError("first line must end with" + self.header_suffix, "domain")
        domain = header[: -len(self.header_suffix)]
        address = self._take("the address")
        if self._take("a blank line") != "":
            raise SiwxParseError("expected a blank line after the address")
        statement: str | None = None
        line = self._take("the statement or a blank line")
        if line != "":
            statement = line
            if self._take("a blank line") != "":
                raise SiwxParseError("the statement must be one line followed by a blank line")
        uri = self._tagged("URI: ", "uri")
        version = self._tagged("Version: ", "version")
        chain = self._tagged("Chain ID: ", "chainId")
        nonce = self._tagged("Nonce: ", "nonce")
        issued_at = self._tagged("Issued At: ", "issuedAt")
        expiration_time = self._optional("Expiration Time: ", "expirationTime")
        not_before = self._optional("Not Before: ", "notBefore")
        request_id = self._optional("Request ID: ", "requestId")
        resources: tuple[str, ...] | None = None
        if self._peek() == "Resources:":
            self.index += 1
            items: list[str] = []
            while (item := self._peek()) is not None and item.startswith("- "):
                items.append(item[2:])
                self.index += 1
            resources = tuple(items)
        if self.index != len(self.lines):
            raise SiwxParseError(f"unexpected text at line {self.index + 1}")
        shared = {
            "domain": domain,
            "uri": uri,
            "nonce": nonce,
            "issued_at": issued_at,
            "statement": statement,
            "version": version,
            "expiration_time": expiration_time,
            "not_before": not_before,
            "request_id": request_id,
            "resources": resources,
        }
        return address, chain, shared
