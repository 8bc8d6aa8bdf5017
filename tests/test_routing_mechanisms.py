"""At most five routing mechanisms in the engine (issue 41 item 1), listed in
docs/contributors/architecture.md ("One path through a session"): a new one fails here.

Two shapes of routing are looked for in every module of `modalcore`:

- an isinstance ladder over the session's inputs: one function that tells apart three or more
  input types (messages, client frames, commands, the runner's inbox items) on the same subject,
  by `isinstance` or by `match` class patterns. Allowed only where the list names it.
- a table of handlers: a dict at module or class level of three or more entries whose values
  are functions (or messages), i.e. a name -> handler dispatch. Allowed only for the registries
  the list names.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pathlib
import types
import typing
from collections import defaultdict

import modalcore
from modalcore.core import cmds
from modalcore.core.msg import Msg
from modalcore.runtime import runner_inputs
from modalcore.wire import frames

PACKAGE = pathlib.Path(modalcore.__file__).parent
ROOT = PACKAGE.parent

# The places the list in docs/contributors/architecture.md names ("module" or "module::function").
LADDERS_ALLOWED = {
    "modalcore/server/endpoint.py::take",  # 1. the socket edge: the connection's own frames (join, leave)
    "modalcore/runtime/runner.py::_process",  # 2. the runner's inbox
    "modalcore/engine/decode.py",  # 3. the decoder: every input -> one typed Msg
    "modalcore/engine/session.py::_step",  # 5. the interpreter: what the session does itself
    "modalcore/engine/interpret.py::interpret",  # 5. the interpreter: the rest, by command type
}
REGISTRIES_ALLOWED = {
    "modalcore/slices/host.py::HOST_ACTIONS",  # 3. the decoder's: the virtual node `host`
}
LADDER = 3  # input types told apart on one subject in one function

_CLIENT_FRAMES = tuple(typing.get_args(typing.get_args(frames.ClientFrame)[0]))
_ITEMS = tuple(typing.get_args(runner_inputs.Item))
_COMMANDS = tuple(typing.get_origin(c) or c for c in typing.get_args(cmds.Cmd))
INPUT_TYPES: tuple[type, ...] = (Msg, *_CLIENT_FRAMES, *_ITEMS, *_COMMANDS)


def _is_input_type(value: object) -> bool:
    return isinstance(value, type) and issubclass(value, INPUT_TYPES)


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _class_names(node: ast.expr) -> list[str]:
    """The names an isinstance's second argument names (`A`, `(A, B)`, `A | B`, `mod.A`)."""
    if isinstance(node, ast.Tuple):
        return [name for elt in node.elts for name in _class_names(elt)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _class_names(node.left) + _class_names(node.right)
    if isinstance(node, ast.Name | ast.Attribute):
        return [ast.unparse(node)]
    return []


def _pattern_names(pattern: ast.pattern) -> list[str]:
    if isinstance(pattern, ast.MatchClass):
        return [ast.unparse(pattern.cls)]
    if isinstance(pattern, ast.MatchOr):
        return [name for sub in pattern.patterns for name in _pattern_names(sub)]
    if isinstance(pattern, ast.MatchAs) and pattern.pattern is not None:
        return _pattern_names(pattern.pattern)
    return []


def _checks(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, set[str]]:
    """subject -> the class names it is checked against, in one function (not in nested ones)."""
    found: dict[str, set[str]] = defaultdict(set)
    todo: list[ast.AST] = list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"
                and len(node.args) == 2):
            found[ast.unparse(node.args[0])].update(_class_names(node.args[1]))
        if isinstance(node, ast.Match):
            subject = ast.unparse(node.subject)
            for case in node.cases:
                found[subject].update(_pattern_names(case.pattern))
        todo.extend(ast.iter_child_nodes(node))
    return found


def _resolve(module: types.ModuleType, dotted: str) -> object:
    value: object = module
    for part in dotted.split("."):
        value = getattr(value, part, None)
    return value


def ladders(source: str, label: str, module: types.ModuleType | None) -> list[str]:
    """The functions of `source` that tell apart LADDER or more input types on one subject."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for subject, names in _checks(node).items():
            if len(names) < LADDER:
                continue
            if module is None:
                module = importlib.import_module(label.removesuffix(".py").replace("/", ".").removesuffix(".__init__"))
            inputs = sorted(name for name in names if _is_input_type(_resolve(module, name)))
            if len(inputs) >= LADDER:
                found.append(f"{label}::{node.name} over {subject}: {', '.join(inputs)}")
    return found


def _is_handler(value: object) -> bool:
    return isinstance(value, types.FunctionType | types.BuiltinFunctionType | types.MethodType | Msg)


def _candidate_tables(tree: ast.Module) -> list[tuple[str | None, str]]:
    """(class or None, name) of dict displays of 3+ entries whose values are not constants."""
    found: list[tuple[str | None, str]] = []

    def visit(body: list[ast.stmt], owner: str | None) -> None:
        for stmt in body:
            if isinstance(stmt, ast.ClassDef) and owner is None:
                visit(stmt.body, stmt.name)
            target, value = None, None
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target, value = stmt.targets[0], stmt.value
            elif isinstance(stmt, ast.AnnAssign):
                target, value = stmt.target, stmt.value
            if (isinstance(target, ast.Name) and isinstance(value, ast.Dict) and len(value.values) >= LADDER
                    and not any(isinstance(v, ast.Constant) for v in value.values)):
                found.append((owner, target.id))

    visit(tree.body, None)
    return found


def registries(source: str, label: str) -> list[str]:
    """The dicts of handlers (3+ functions or messages) at module or class level of `source`."""
    candidates = _candidate_tables(ast.parse(source))
    if not candidates:
        return []
    module = importlib.import_module(label.removesuffix(".py").replace("/", ".").removesuffix(".__init__"))
    found = []
    for owner, name in candidates:
        table = _resolve(module, f"{owner}.{name}" if owner else name)
        if not isinstance(table, dict):
            continue
        values = list(table.values())
        if len(values) >= LADDER and all(_is_handler(v) or callable(v) for v in values) \
                and sum(1 for v in values if _is_handler(v) and not inspect.isclass(v)) >= LADDER:
            found.append(f"{label}::{f'{owner}.' if owner else ''}{name}")
    return found


def _sources() -> list[tuple[pathlib.Path, str]]:
    return [(path, path.relative_to(ROOT).as_posix()) for path in sorted(PACKAGE.rglob("*.py"))]


def _allowed(hit: str, allowed: set[str]) -> bool:
    place = hit.split(" ", 1)[0]
    return place in allowed or place.split("::", 1)[0] in allowed


def test_rule_no_isinstance_ladder_over_inputs_outside_the_listed_routing_places() -> None:
    found = [hit for path, label in _sources() for hit in ladders(path.read_text(), label, None)]
    assert [hit for hit in found if not _allowed(hit, LADDERS_ALLOWED)] == []
    # the list is what the code has: a place that no longer routes is taken off it
    assert {hit.split(" ", 1)[0] for hit in found} >= {p for p in LADDERS_ALLOWED if "::" in p}


def test_rule_no_table_of_handlers_outside_the_listed_registries() -> None:
    found = [hit for path, label in _sources() for hit in registries(path.read_text(), label)]
    assert [hit for hit in found if not _allowed(hit, REGISTRIES_ALLOWED)] == []


def test_the_ladder_check_sees_a_new_ladder_over_messages() -> None:
    sample = (
        "def route(msg):\n"
        "    if isinstance(msg, EffectSettled):\n        return 1\n"
        "    if isinstance(msg, CallSettled):\n        return 2\n"
        "    match msg:\n        case WalletAnswered():\n            return 3\n"
    )
    assert ladders(sample, "modalcore/core/cmds.py", cmds) == [
        "modalcore/core/cmds.py::route over msg: CallSettled, EffectSettled, WalletAnswered"]
    # three checks of values that are not inputs are no ladder
    assert ladders(sample.replace("Settled", "To").replace("WalletAnswered", "Failure"),
                   "modalcore/core/cmds.py", cmds) == []
