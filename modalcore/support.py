"""Support codes into redacted replays (issue 44, the session doctor): the code a visitor copies
from a failure screen (`slices/doctor.support_code`, a hash of the project and the session) names
one recorded session of that project (`serve --record-dir`); what an operator gets back is that
recording with no secrets, no email addresses and no signatures, which `modalcore inspect` steps
through. A code of another project, or of no recorded session, is the same typed refusal
(`unknown_support_code`): nothing says whether a session exists elsewhere."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .slices.doctor import support_code

CODE = re.compile(r"[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}")
MAX_PROJECT = 128
MAX_RECORDINGS = 10_000  # recordings a lookup reads the join of, at most
MAX_HEAD = 65_536  # bytes of a recording's first lines read to find its session and project
MAX_LINES = 200_000  # lines of one recording redacted, at most (a bigger one is refused)
EMAIL = re.compile(r"[A-Za-z0-9._%+\-]{1,64}@[A-Za-z0-9.\-]{1,253}\.[A-Za-z]{2,24}")
# an EIP-191/712 or ERC-6492 signature (65 bytes and up); long calldata goes with it
SIGNATURE = re.compile(r"0x[0-9a-fA-F]{130,}")
SYM_KEY = re.compile(r"symKey=[0-9a-fA-F]+")
# values kept under these keys are secrets whatever they look like
SECRET_KEYS = frozenset({"token", "resume", "secret", "password", "otp", "symKey", "sym_key",
                         "privateKey", "private_key", "signature", "jwt", "id_token", "cookie",
                         "session_token", "code_verifier", "seed", "mnemonic"})

Refusal = Literal["malformed_support_code", "unknown_support_code"]


@dataclass(frozen=True)
class SupportRefusal:
    reason: Refusal


def _head(path: Path) -> tuple[str, str] | None:
    """(session, project) of a recording, from its join line; None when it has none."""
    try:
        with path.open("rb") as file:
            head = file.read(MAX_HEAD)
    except OSError:
        return None
    for raw in head.split(b"\n")[:4]:
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if isinstance(line, dict) and line.get("k") == "join":
            frame = line.get("frame")
            session, project = line.get("session"), frame.get("project") if isinstance(frame, dict) else None
            if isinstance(session, str) and isinstance(project, str):
                return session, project
    return None


def find_recording(record_dir: Path, project: str, code: str) -> Path | SupportRefusal:
    """The recording of `project` whose session the support `code` names."""
    code = code.strip().upper()
    if not CODE.fullmatch(code) or not project or len(project) > MAX_PROJECT:
        return SupportRefusal("malformed_support_code")
    if not record_dir.is_dir():
        return SupportRefusal("unknown_support_code")
    for count, path in enumerate(sorted(record_dir.glob("*.jsonl"))):
        if count >= MAX_RECORDINGS:
            break
        head = _head(path)
        if head is not None and head[1] == project and support_code(project, head[0]) == code:
            return path
    return SupportRefusal("unknown_support_code")


class _Redactor:
    def __init__(self) -> None:
        self.names: dict[tuple[str, str], str] = {}

    def name(self, kind: str, value: str) -> str:
        key = (kind, value)
        if key not in self.names:
            self.names[key] = f"<{kind}-{sum(1 for k in self.names if k[0] == kind) + 1}>"
        return self.names[key]

    def text(self, value: str) -> str:
        value = EMAIL.sub(lambda m: self.name("email", m.group(0)), value)
        value = SIGNATURE.sub(lambda m: self.name("signature", m.group(0)), value)
        return SYM_KEY.sub(lambda m: "symKey=" + self.name("secret", m.group(0)), value)

    def value(self, value: object, key: str = "") -> object:
        if isinstance(value, str):
            return self.name("secret", value) if key in SECRET_KEYS and value else self.text(value)
        if isinstance(value, dict):
            return {str(k): self.value(v, str(k)) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v, key) for v in value]
        return value

    def line(self, line: dict[str, object]) -> dict[str, object]:
        frame = line.get("frame")
        if isinstance(frame, dict) and str(frame.get("node", "")).startswith("otp/"):
            # what the visitor types into the code field is the mailed one-time code
            frame = {**frame, "args": self.value(frame.get("args"), "otp")}
            line = {**line, "frame": frame}
        return {str(k): self.value(v, str(k)) for k, v in line.items()}


def redact(lines: Iterable[str]) -> list[str]:
    """The recording's lines with every email address, signature and secret replaced by a
    stable placeholder (`<email-1>`: the same value is the same placeholder throughout)."""
    redactor = _Redactor()
    out = []
    for raw in lines:
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except ValueError:  # a line cut short (the engine stopped while writing): left out
            continue
        out.append(json.dumps(redactor.line(line) if isinstance(line, dict) else line,
                              separators=(",", ":"), ensure_ascii=False))
    return out


def support_replay(record_dir: Path, project: str, code: str) -> list[str] | SupportRefusal:
    """The redacted recording the support `code` of `project` names, as JSON lines."""
    found = find_recording(record_dir, project, code)
    if isinstance(found, SupportRefusal):
        return found
    with found.open(encoding="utf-8") as file:
        lines = []
        for count, raw in enumerate(file):
            if count >= MAX_LINES:
                return SupportRefusal("unknown_support_code")
            lines.append(raw)
    return redact(lines)
