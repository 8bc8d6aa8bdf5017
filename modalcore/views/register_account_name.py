"""RegisterAccountName (behaviour.md §2): type a name (letters, digits, hyphens, at least 4 characters,
behaviour.md §5), see whether it is free and a few free names near it, register it."""

from __future__ import annotations

from ..rules.names import AUTH_CONNECTOR_ID, full_name, registration_problem
from ..slices.model import Model
from ..slices.register_name import PressedNameSuggestion, PressedRegisterName, change_name
from ..wire.nodes import Node, node
from . import parts

TITLE = "Choose name"


def _status(model: Model) -> Node | None:
    state = model.register_name
    if state.error:
        return node("text", "register-name/error", text=state.error, variant="small", tone="error")
    if state.problem:
        return node("text", "register-name/problem", text=state.problem, variant="small", tone="error")
    if not state.label:
        return None
    if state.checking or state.checked != state.label:
        return node("text", "register-name/checking", text="Checking availability", variant="small",
                    tone="muted")
    name = full_name(state.label, state.suffix)
    if state.available:
        return node("text", "register-name/available", text=f"{name} is available", variant="small",
                    tone="success")
    return node("text", "register-name/taken", text=f"{name} is taken", variant="small", tone="error")


def body(model: Model) -> Node:
    state = model.register_name
    account = model.accounts.get(model.networks.active_namespace)
    gate = registration_problem("name", model.networks.active, account.address,
                                account.connector_id == AUTH_CONNECTOR_ID)
    children: list[Node] = [
        node("text", "register-name/intro", text="Choose a name for your account; it stands for your "
             "address in apps that support it.", variant="small", tone="muted"),
    ]
    if gate is not None:
        children.append(node("text", "register-name/gate", text=gate.message, variant="small", tone="error"))
        return parts.column("register-name/body", children, gap=12)
    children.append(node("input", "register-name/input", on={"change": change_name}, value=state.label,
                         placeholder="Choose name", kind="text", label="Account name",
                         unit=state.suffix or None, invalid=True if state.problem else None,
                         autofocus=True))
    status = _status(model)
    if status is not None:
        children.append(status)
    # suggestions stand in for a taken name: none while the typed one is available (issue 39 item 9)
    if state.suggestions and state.checked == state.label and not state.problem and not state.available:
        children.append(node("stack", "register-name/suggestions", [
            node("button", f"register-name/suggestion/{name}", on={"press": PressedNameSuggestion(name)},
                 text=name, variant="secondary")
            for name in state.suggestions
        ], dir="row", gap=8, justify="center", wrap=True))
    ready = bool(state.available) and state.checked == state.label and not state.problem
    children.append(node("button", "register-name/submit", on={"press": PressedRegisterName()},
                         pending={"press": "busy"}, text="Register", variant="main",
                         disabled=None if ready else True))
    return parts.column("register-name/body", children, gap=12)
