"""behaviour.md §2: the transaction stack records what happens after a transaction."""

from __future__ import annotations

from dataclasses import dataclass, replace

from modalcore.slices.model import Model, Step, model_from_data, model_to_data
from modalcore.core.msg import Msg
from modalcore.core.shape import On, Slice
from modalcore.enginetest import Harness, build_model, table_with, with_history
from modalcore.slices import stack
from modalcore.slices.router import TxEntry

@dataclass(frozen=True)
class TestTxFinished(Msg):
    """What a send or a sign flow would deliver when the wallet answered (or was cancelled)."""

    __test__ = False
    cancel: bool = False


def _finished(model: Model, msg: TestTxFinished, now: int) -> Step:
    return stack.pop_tx(model, cancel=msg.cancel)


TABLE = table_with(Slice("tx-stack-tests", (On(TestTxFinished, _finished),)))


def session(*views: str, entries: tuple[TxEntry, ...]) -> Harness:
    base = build_model()
    model = replace(with_history(base, *views, tx_stack=entries), modal=replace(base.modal, open=True))
    return Harness(model, table=TABLE)


def test_tx_go_back_entry_pops_one_view() -> None:
    h = session("Account", "WalletSend", "WalletSendPreview", entries=(TxEntry(go_back=True),))
    h.deliver(TestTxFinished())
    assert h.history == ["Account", "WalletSend"]
    assert h.model.router.tx_stack == ()
    assert h.model.modal.open


# ConnectingSiwe and ApproveTransaction have no view module yet (router.VIEWS): the replace
# rule is checked on the model, through `stack.pop_tx` itself.
def opened_model(*views: str, entries: tuple[TxEntry, ...]) -> Model:
    base = build_model()
    return replace(with_history(base, *views, tx_stack=entries), modal=replace(base.modal, open=True))


def test_tx_replace_entry_jumps_to_the_entry_before_connecting_siwe() -> None:
    model = opened_model("Connect", "ConnectingExternal", "ConnectingSiwe", "ApproveTransaction",
                         entries=(TxEntry(replace=True),))
    after, cmds = stack.pop_tx(model)
    assert [route.view for route in after.router.history] == ["Connect", "ConnectingExternal"]
    assert after.modal.open and after.router.tx_stack == () and cmds == []


def test_tx_replace_entry_without_connecting_siwe_closes_modal_and_empties_history() -> None:
    h = session("Account", "WalletSendPreview", entries=(TxEntry(replace=True),))
    h.deliver(TestTxFinished())
    assert h.model.modal.open is False
    assert h.history == []
    assert h.node("modal").p["open"] is False


def test_tx_replace_entry_with_connecting_siwe_at_the_bottom_closes_modal() -> None:
    model = opened_model("ConnectingSiwe", "ApproveTransaction", entries=(TxEntry(replace=True),))
    after, _ = stack.pop_tx(model)
    assert after.modal.open is False
    assert after.router.history == ()


def test_tx_view_entry_resets_to_the_view() -> None:
    h = session("Account", "WalletSend", "WalletSendPreview", entries=(TxEntry(view="Account"),))
    h.deliver(TestTxFinished())
    assert h.history == ["Account"]
    assert h.node("modal").p["view"] == "Account"


def test_tx_entry_with_no_view_and_no_go_back_only_pops() -> None:
    h = session("Account", "WalletSend", entries=(TxEntry(view=None, go_back=False),))
    h.deliver(TestTxFinished())
    assert h.history == ["Account", "WalletSend"]
    assert h.model.router.tx_stack == ()


def test_tx_cancel_goes_back() -> None:
    h = session("Account", "WalletSend", "WalletSendPreview", entries=(TxEntry(view="Account"),))
    h.deliver(TestTxFinished(cancel=True))
    assert h.history == ["Account", "WalletSend"]
    assert h.model.router.tx_stack == ()


def test_tx_entries_pop_last_first() -> None:
    first, second = TxEntry(view="Account"), TxEntry(go_back=True)
    h = session("Account", "WalletSend", "WalletSendPreview", entries=(first, second))
    h.deliver(TestTxFinished())
    assert h.history == ["Account", "WalletSend"]
    assert h.model.router.tx_stack == (first,)


def test_tx_pop_with_an_empty_stack_does_nothing() -> None:
    h = session("Account", "WalletSend", entries=())
    before = h.model
    frames = h.deliver(TestTxFinished())
    assert h.model == before
    assert frames == []


def test_a_session_saved_with_the_retired_callback_names_still_loads() -> None:
    model = with_history(build_model(), "Account", "WalletSend", tx_stack=(TxEntry(view="Account"),))
    data = model_to_data(model)
    data["router"]["tx_stack"][0].update(on_success="TestTxSucceededCallback", on_cancel=None)
    assert model_from_data(data).router.tx_stack == (TxEntry(view="Account"),)
