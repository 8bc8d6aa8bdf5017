"""Which strings the views show, read from the source (no import, no rendering).

Every string literal and f-string in `modalcore/views/*.py`, the behaviour.md strings of
`rules/texts.py`, the words of the engine's own pages in `SHOWN_PAGES`, and the literals the
slices pass to the snackbar, when it reads as words (a letter, and a space or a capital first:
not a node id, prop value or icon name). An f-string
becomes a template: each `{expression}` a named placeholder (`{wallet.name}` is `{name}`, a
computed number `{n}`), which `catalog.Template` compiles to a pattern; a template with `{n}`
is a count and has plural forms. Docstrings are skipped. New views are picked up by their
file: `python -m modalcore i18n check` lists what a catalogue lacks after a merge.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
# Formatted by Babel from the locale's data, never translated by hand (formats.py).
AUTOMATIC = frozenset((
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
))
_WORDY = re.compile(r"[A-Za-z]")
_ID_LIKE = re.compile(r"^[A-Za-z0-9_.:/-]*[/_:][A-Za-z0-9_.:/-]*$|^[A-Z][A-Za-z0-9]*[a-z][A-Z][A-Za-z0-9]*$")
# Rule modules whose messages a view draws as they are (besides rules/texts.py and rpc_errors.py).
SHOWN_RULES = ("names.py",)
# Pages of the engine's origin whose words are module constants, drawn in the session's language
# (continue on your phone, issue 44: the phone's page and the computer's confirmation frame).
SHOWN_PAGES = ("server/handoff_texts.py",)
_SNACK_CALLS = frozenset(("show", "show_error", "show_loading", "show_success"))


@dataclass(frozen=True)
class Found:
    msgid: str
    where: str  # path:line


# Lower-case single words a view draws as they are (the separator's "or", issue 39 item 9): the
# rule below would take them for a token.
SHORT_WORDS = frozenset(("or",))


def is_text(value: str) -> bool:
    """Words a visitor reads, not a technical token."""
    if value in SHORT_WORDS:
        return True
    literal = re.sub(r"\{[a-z0-9_]+\}", "", value)
    if not _WORDY.search(literal) or _ID_LIKE.match(value):
        return False
    if value.startswith(("http", "data:", "0x", "eip155", "--")) or "<" in value or "='" in value:
        return False
    return " " in value.strip() or literal[:1].isupper()


# Formatters of amounts (rules/format.py): their value is an {amount}, written in the locale.
_AMOUNTS = {"floor3": "amount", "quantity3": "amount", "fiat": "amount", "usd": "amount"}
_CASES = frozenset(("lower", "upper", "strip", "title"))
_COUNTING = frozenset(("round", "max", "min", "len", "int", "abs", "sum", "rounded_count"))


def _placeholder(expr: ast.expr, taken: set[str]) -> str:
    if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and not expr.args
            and expr.func.attr in _CASES):
        return _placeholder(expr.func.value, taken)  # `{state.receiver.lower()}` is a {receiver}
    if isinstance(expr, ast.Name):
        name = expr.id
    elif isinstance(expr, ast.Attribute):
        name = expr.attr
    elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name | ast.Attribute) and (
            (expr.func.id if isinstance(expr.func, ast.Name) else expr.func.attr) not in _COUNTING):
        func = expr.func.id if isinstance(expr.func, ast.Name) else expr.func.attr
        name = _AMOUNTS.get(func) or func.rsplit("_", 1)[-1]  # `truncate_address(...)` is an {address}
    else:
        name = "n"  # a computed number: a count
    name = name.lower()
    base, i = name, 2
    while name in taken:
        name, i = f"{base}{i}", i + 1
    taken.add(name)
    return name


def _choices(expr: ast.expr) -> list[str] | None:
    """The words an `{'pay with' if c else 'receive'}` inside an f-string draws; None when a
    branch is not a plain string (then the expression is a placeholder)."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return [expr.value.replace("{", "{{").replace("}", "}}")]
    if isinstance(expr, ast.IfExp):
        body, orelse = _choices(expr.body), _choices(expr.orelse)
        return None if body is None or orelse is None else body + orelse
    return None


def templates(joined: ast.JoinedStr) -> list[str]:
    """The templates an f-string draws: one, or one per branch of a conditional word in it."""
    out: list[str] = [""]
    taken: set[str] = set()
    for part in joined.values:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            pieces = [part.value.replace("{", "{{").replace("}", "}}")]
        elif isinstance(part, ast.FormattedValue):
            pieces = _choices(part.value) or ["{" + _placeholder(part.value, taken) + "}"]
        else:
            continue
        out = [a + b for a in out for b in pieces]
    return out


def template(joined: ast.JoinedStr) -> str:
    return templates(joined)[0]


def _docstrings(tree: ast.Module) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


_NOT_TEXT_CALLS = frozenset(("getattr", "hasattr", "setattr", "isinstance", "LookupError"))
# Connector types the views compare against, never drawn.
# Constants the slices hold that are not words for a view: connector types, and the default
# statement of a sign-in message (signed as it is, EIP-4361 allows ASCII only: never translated).
NOT_SHOWN = frozenset(("EXTERNAL", "AUTH", "Sign in to continue"))


def _variants(expr: ast.expr, taken: set[str]) -> list[str] | None:
    """The templates a `+` of strings can produce (`"Continue in " + name`, `"A. " + ("B" if c
    else "")`); None when `expr` is not made of strings."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return [expr.value.replace("{", "{{").replace("}", "}}")]
    if isinstance(expr, ast.JoinedStr):
        return templates(expr)
    if isinstance(expr, ast.IfExp):
        body, orelse = _variants(expr.body, taken), _variants(expr.orelse, taken)
        return None if body is None or orelse is None else body + orelse
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left, right = _variants(expr.left, taken), _variants(expr.right, taken)
        if left is None and right is None:
            return None
        left = left if left is not None else ["{" + _placeholder(expr.left, taken) + "}"]
        right = right if right is not None else ["{" + _placeholder(expr.right, taken) + "}"]
        return [a + b for a in left for b in right]
    return None


class _Collector(ast.NodeVisitor):
    def __init__(self, skip: set[int]) -> None:
        self.skip = skip
        self.found: list[tuple[str, int]] = []

    def visit_Raise(self, node: ast.Raise) -> None:
        return None  # error texts for developers, never drawn

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and (node.func.id in _NOT_TEXT_CALLS or node.func.id[:1].isupper()):
            return None  # lookups, and messages' fields (`PressedNavigate("Networks")` names a view)
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        for value in node.values:  # keys are lookups (view names, link kinds), values are shown
            self.visit(value)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        variants = _variants(node, set()) if isinstance(node.op, ast.Add) else None
        if variants is None:
            self.generic_visit(node)
            return
        self.found.extend((variant, node.lineno) for variant in variants)
        self._pieces(node)  # the expressions inside (a call's own texts), not the string pieces

    def _pieces(self, node: ast.expr) -> None:
        if isinstance(node, ast.BinOp):
            self._pieces(node.left)
            self._pieces(node.right)
        elif isinstance(node, ast.IfExp):
            self.visit(node.test)
            self._pieces(node.body)
            self._pieces(node.orelse)
        elif not (isinstance(node, ast.Constant | ast.JoinedStr)):
            self.visit(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        self.found.extend((t, node.lineno) for t in templates(node))

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and id(node) not in self.skip:
            self.found.append((node.value, node.lineno))


def _strings(tree: ast.AST, skip: set[int]) -> list[tuple[str, int]]:
    collector = _Collector(skip)
    collector.visit(tree)
    return collector.found


def _snack_literals(tree: ast.AST) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in _SNACK_CALLS and len(node.args) >= 2):
            for arg in ast.walk(node.args[1]):
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.append((arg.value, arg.lineno))
    return found


_TEXT_VARIABLES = frozenset(("text", "message", "title", "label"))


def _constants(tree: ast.Module) -> list[tuple[str, int]]:
    """Module-level `NAME = "words"` or `NAME = ("words", ...)` (the messages and labels a slice
    keeps for the snackbar or a view), and the literals of `text = ...` / `message = ...`
    anywhere (the texts a flow composes)."""
    found: list[tuple[str, int]] = []
    for stmt in tree.body:
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)
                and stmt.targets[0].id.isupper()):
            continue
        values = stmt.value.elts if isinstance(stmt.value, ast.Tuple) else [stmt.value]
        found += [(v.value, stmt.lineno) for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id in _TEXT_VARIABLES):
            found += [(c.value, c.lineno) for c in ast.walk(node.value)
                      if isinstance(c, ast.Constant) and isinstance(c.value, str)]
    return found


def extract(package: Path = PACKAGE) -> list[Found]:
    """Every shown string once, in source order (first place it occurs)."""
    seen: dict[str, Found] = {}

    def add(msgid: str, path: Path, line: int) -> None:
        if msgid in AUTOMATIC or msgid in NOT_SHOWN or msgid in seen or not is_text(msgid):
            return
        seen[msgid] = Found(msgid, f"{path.relative_to(package.parent)}:{line}")

    texts = package / "rules" / "texts.py"
    tree = ast.parse(texts.read_text())
    for stmt in tree.body:
        if (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant)
                and isinstance(stmt.value.value, str) and isinstance(stmt.targets[0], ast.Name)
                and stmt.targets[0].id != "SDK_TYPE"):
            add(stmt.value.value, texts, stmt.lineno)
    for path in sorted((package / "views").glob("*.py")):
        module = ast.parse(path.read_text())
        for value, line in _strings(module, _docstrings(module)):
            add(value, path, line)
    rpc = package / "rules" / "rpc_errors.py"
    module = ast.parse(rpc.read_text())
    for value, line in _strings(module, _docstrings(module)):  # wallet errors the views show
        if value[:1].isupper():  # the lowercase ones are what a node's message is matched on
            add(value, rpc, line)
    for name in SHOWN_RULES:  # the refusals a rule module words for the views (name rules, behaviour.md §8)
        path = package / "rules" / name
        module = ast.parse(path.read_text())
        for value, line in _strings(module, _docstrings(module)):
            add(value, path, line)
    for name in SHOWN_PAGES:
        path = package / name
        for value, line in _constants(ast.parse(path.read_text())):
            add(value, path, line)
    for path in [*sorted((package / "slices").glob("*.py")), *sorted((package / "flows").glob("*.py"))]:
        module = ast.parse(path.read_text())
        for value, line in [*_snack_literals(module), *_constants(module)]:
            add(value, path, line)
    return list(seen.values())


def is_plural(msgid: str) -> bool:
    return "{n}" in msgid
