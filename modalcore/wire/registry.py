"""The node vocabulary with typed props (PROTOCOL.md, "Tree nodes"): the one source of the
contract between the engine's views and the renderer's components (issue 12 item 7).

From it come `protocol/nodes.schema.json` (JSON Schema) and `renderer/src/nodes.gen.ts` (the
components' prop types): `python -m modalcore.wire.registry` writes both, and
tests/wire/test_node_registry.py fails when either is stale. `node()` refuses a type or a prop
the registry lacks; the test harness checks every prop's type in every tree it sees, and the
renderer's tests check that components read exactly the props listed here.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from . import framegen

JsonType = Literal["string", "integer", "boolean", "array", "object"]


@dataclass(frozen=True)
class Prop:
    type: JsonType
    doc: str = ""


S, I, B = Prop("string"), Prop("integer"), Prop("boolean")
STRINGS = Prop("array", "list of strings")

# Props any node may carry (PROTOCOL.md): the actions it offers, not drawn, accessible label,
# marked busy (the renderer's `isBusy` reads it on any node, as it does the "busy" hint), the
# engine page a press opens in a window (`pressHandler`: the click's user activation opens it).
COMMON: dict[str, Prop] = {
    "on": Prop("object", "action -> pending hint (null, a string, or {back: id})"),
    "hidden": B,
    "label": S,
    "busy": B,
    "popup": Prop("string", "a path on the engine the renderer opens in a window at the press, before the intent"),
}

NODE_TYPES: dict[str, dict[str, Prop]] = {
    "modal": {"open": B, "closable": B, "shake": I, "embedded": B, "view": S, "loading": B,
              "lang": Prop("string", "BCP 47 language of the texts; absent: en"),
              "dir": Prop("string", "ltr or rtl; absent: ltr")},
    "view": {"name": S, "title": S},
    "stack": {"dir": S, "gap": I, "align": S, "justify": S, "wrap": B, "pad": I},
    "text": {"text": S, "variant": S, "tone": S},
    "button": {"text": S, "variant": S, "icon": S, "disabled": B,
               "image": Prop("string", "a mark drawn instead of the icon (a social provider's)"),
               "pressed": Prop("boolean", "one of a set of choices: true the chosen one, false the others")},
    "list-item": {"title": S, "subtitle": S, "icon": S, "image": S, "trailing": S, "chevron": B,
                  "disabled": B},
    "wallet-item": {"name": S, "image": S, "lazy": B, "tag": S, "disabled": B},
    "image": {"src": S, "alt": S, "size": I, "round": B},
    "icon": {"name": S, "size": I, "tone": S, "badge": B},
    "input": {"value": S, "placeholder": S, "kind": S, "unit": S, "error": S, "invalid": B, "autofocus": B,
              "max": I, "disabled": B},
    "otp-input": {"length": I, "value": S, "error": S},
    "qr": {"n": Prop("integer", "modules per side"),
           "bits": Prop("string", "the modules row by row, 4 per hex digit, dark = 1 (encoded by the engine)"),
           "size": I, "image": S},
    "tabs": {"items": STRINGS, "active": I},
    "header": {"title": S, "back": B, "close": B},
    "snackbar": {"message": S, "variant": S, "open": B},
    "spinner": {"size": I},
    "link": {"text": S, "href": S},
    "checkbox": {"checked": B, "text": S},
    "separator": {"text": S},
    "avatar": {"address": S, "image": S, "size": I},
    "chip": {"text": S, "image": S, "icon": S},
    "alert": {"title": S, "message": S, "variant": S},
    "skeleton": {"w": I, "h": I, "round": B},
    "network-item": {"name": S, "image": S, "active": B, "disabled": B},
    "token-item": {"name": S, "symbol": S, "image": S, "amount": S, "value": S, "disabled": B},
    "activity-item": {"title": S, "subtitle": S, "time": S, "amount": S, "status": S, "image": S,
                      "disabled": B},
    "group": {"title": S},
    # a page of the engine's own origin (`src` is a path on the engine), drawn in a cross-origin
    # iframe: the embedded wallet's approval frame (issue 15)
    "frame": {"src": S, "title": S, "height": I},
}

ALLOWED: dict[str, frozenset[str]] = {t: frozenset({*props, *COMMON}) for t, props in NODE_TYPES.items()}


class NodeContractError(TypeError):
    """A node of a type, or with a prop, that the registry does not list."""


def check_names(t: str, props: Iterable[str]) -> None:
    """Raise unless `t` is a node type and every prop name is one of its props (cheap: `node()`
    runs it on every node it builds)."""
    allowed = ALLOWED.get(t)
    if allowed is None:
        raise NodeContractError(f"unknown node type {t!r}")
    extra = set(props) - allowed
    if extra:
        raise NodeContractError(f"{t} has no prop {', '.join(sorted(extra))} (wire/registry.py)")


def _type_ok(prop: Prop, value: object) -> bool:
    if prop.type == "string":
        return isinstance(value, str)
    if prop.type == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if prop.type == "boolean":
        return isinstance(value, bool)
    if prop.type == "array":
        return isinstance(value, list | tuple) and all(isinstance(item, str) for item in value)
    return isinstance(value, dict) and all(
        hint is None or isinstance(hint, str) or (isinstance(hint, dict) and set(hint) == {"back"})
        for hint in value.values()
    )


def prop_errors(t: str, props: Mapping[str, object], where: str = "") -> list[str]:
    spec = NODE_TYPES.get(t)
    if spec is None:
        return [f"{where}: unknown node type {t!r}"]
    errors = []
    for key, value in props.items():
        prop = spec.get(key) or COMMON.get(key)
        if prop is None:
            errors.append(f"{where}: {t} has no prop {key!r}")
        elif value is not None and not _type_ok(prop, value):
            errors.append(f"{where}: {t}.{key} is {prop.type}, got {value!r}")
    return errors


def tree_errors(wire: Mapping[str, Any]) -> list[str]:
    """Every way a wire tree (`{id, t, p?, c?}`) breaks the registry; [] when it validates."""
    errors: list[str] = []
    stack = [wire]
    while stack:
        current = stack.pop()
        errors += prop_errors(str(current.get("t")), current.get("p") or {}, str(current.get("id")))
        stack.extend(current.get("c") or ())
    return errors


# ----- generated artefacts


def json_schema() -> dict[str, Any]:
    def prop_schema(prop: Prop) -> dict[str, object]:
        if prop.type == "array":
            return {"type": "array", "items": {"type": "string"}}
        if prop.type == "object":
            hint = {"oneOf": [{"type": "null"}, {"type": "string"},
                              {"type": "object", "properties": {"back": {"type": "string"}},
                               "required": ["back"], "additionalProperties": False}]}
            return {"type": "object", "additionalProperties": hint, "description": prop.doc}
        return {"type": prop.type}

    defs: dict[str, object] = {}
    for t, props in NODE_TYPES.items():
        properties = {key: prop_schema(prop) for key, prop in {**props, **COMMON}.items()}
        defs[t] = {
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "t": {"const": t},
                "p": {"type": "object", "properties": properties, "additionalProperties": False},
                "c": {"type": "array", "items": {"$ref": "#/$defs/node"}},
            },
            "required": ["id", "t"],
            "additionalProperties": False,
        }
    defs["node"] = {"oneOf": [{"$ref": f"#/$defs/{t}"} for t in NODE_TYPES]}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://modalcore.dev/protocol/nodes.schema.json",
        "title": "modalcore tree node (generated from modalcore/wire/registry.py)",
        "$ref": "#/$defs/node",
        "$defs": defs,
    }


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2) + "\n"


_TS_TYPES = {"string": "string", "integer": "number", "boolean": "boolean", "array": "readonly string[]",
             "object": "OnMap"}


def _ts_name(t: str) -> str:
    return "".join(part.capitalize() for part in t.split("-")) + "Props"


def typescript_text() -> str:
    lines = [
        "// Generated by `python -m modalcore.wire.registry` from modalcore/wire/registry.py: do not edit.",
        "// The props of every node type the engine sends (PROTOCOL.md, \"Tree nodes\").",
        "",
        "export type PendingHintWire = null | string | { back: string };",
        "export type OnMap = Readonly<Record<string, PendingHintWire>>;",
        "",
    ]
    for t, props in NODE_TYPES.items():
        lines.append(f"export interface {_ts_name(t)} {{")
        for key, prop in {**props, **COMMON}.items():
            lines.append(f"  readonly {json.dumps(key) if '-' in key else key}?: {_TS_TYPES[prop.type]};")
        lines.append("}")
        lines.append("")
    lines.append("export interface NodePropsByType {")
    for t in NODE_TYPES:
        lines.append(f"  {json.dumps(t)}: {_ts_name(t)};")
    lines.append("}")
    lines.append("")
    lines.append("export type NodeType = keyof NodePropsByType;")
    lines.append("")
    lines.append("/** Every prop name of each node type (the common ones included). */")
    lines.append("export const NODE_PROPS: { readonly [T in NodeType]: readonly (keyof NodePropsByType[T])[] } = {")
    for t, props in NODE_TYPES.items():
        names = ", ".join(json.dumps(key) for key in {**props, **COMMON})
        lines.append(f"  {json.dumps(t)}: [{names}],")
    lines.append("};")
    return "\n".join(lines) + "\n"


ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = ROOT / "protocol" / "nodes.schema.json"
TS_PATH = ROOT / "renderer" / "src" / "nodes.gen.ts"


FRAMES_TS_PATH = ROOT / "renderer" / "src" / "frames.gen.ts"


def generated() -> dict[str, str]:
    """Every generated file (path under the repository -> its text): the node schema and the
    renderer's node prop and server frame types (wire/framegen.py)."""
    return {
        "protocol/nodes.schema.json": schema_text(),
        "renderer/src/nodes.gen.ts": typescript_text(),
        "renderer/src/frames.gen.ts": framegen.typescript_text(),
    }


def write(root: Path = ROOT, files: Callable[[], dict[str, str]] = generated) -> None:
    for path, text in files().items():
        (root / path).write_text(text)


def stale(root: Path = ROOT, files: Callable[[], dict[str, str]] = generated) -> list[str]:
    """The generated files that differ from what the registry and the frames give now."""
    return [path for path, text in files().items()
            if not (root / path).exists() or (root / path).read_text() != text]


def write_or_check(argv: list[str], files: Callable[[], dict[str, str]], command: str) -> int:
    """`command [--check] [ROOT]`: write `files()` under ROOT (the repository by default), or with
    `--check` only say which are stale (exit 1). The registry's own command and typegen's."""
    check = "--check" in argv
    rest = [arg for arg in argv if arg != "--check"]
    root = Path(rest[0]) if rest else ROOT
    if not check:
        write(root, files)
        return 0
    old = stale(root, files)
    for path in old:
        print(f"stale: {path} (run: {command})", file=sys.stderr)
    return 1 if old else 0


def main(argv: list[str]) -> int:
    """`python -m modalcore.wire.registry [--check] [ROOT]`: write the generated files, or with
    `--check` only say which are stale (exit 1)."""
    return write_or_check(argv, generated, "python -m modalcore.wire.registry")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
