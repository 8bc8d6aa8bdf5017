"""The session doctor (issue 44 item 2): each failed or abandoned connect gets its cause from the
closed list, decided from the session's own typed steps (never from the wallet's text), and the
failure screen offers the support code. Driven through intents, as a visitor would."""

from __future__ import annotations

from modalcore.core.cmds import EffectSettled, EffectTo
from modalcore.flows.connect import WalletAccountsAnswered
from modalcore.engine.persist import session_from_bytes, session_to_bytes
from modalcore.enginetest import Harness
from modalcore.slices.connecting import CONNECT_TIMEOUT_MS
from modalcore.slices.doctor import Cause, Diagnosis, support_code

from ..devwallet import ADDRESS, WALLET_NODE, dev_session
from ..walletconnect.test_engine_views import harness as wc_harness
from ..walletconnect.test_engine_views import uri as wc_uri
from ..walletconnect.test_phone_deep_link import _pick as pick
from ..walletconnect.test_phone_deep_link import phone


def _pressed_dev_wallet() -> Harness:
    h = dev_session()
    h.host("open")
    h.press(WALLET_NODE)
    return h


def _last(h: Harness) -> Diagnosis:
    found = h.model.doctor.last
    assert found is not None, "no diagnosis"
    return found


def test_a_wallet_that_rejects_is_request_rejected_and_offers_the_support_code() -> None:
    h = _pressed_dev_wallet()
    h.answer("eth_requestAccounts", code=4001, message="User rejected the request.")
    found = _last(h)
    assert (found.flow, found.cause) == ("connect", Cause.REQUEST_REJECTED)
    assert found.wallet == h.model.router.param
    h.expect(view="ConnectingExternal", text="Copy support code")
    h.press("external/support-code")
    copy = h.last_effect()
    assert copy["kind"] == "clipboard"
    assert copy["req"]["text"] == support_code(h.model.project_id, h.model.session_id)
    h.answer_last(None)
    h.expect(text="Support code copied")


def test_the_cause_is_the_failures_kind_not_the_wallets_words() -> None:
    """A wallet that says "rejected" in an error of its own is a wallet error, not a refusal."""
    h = _pressed_dev_wallet()
    h.answer("eth_requestAccounts", code=-32603, message="User rejected the request.")
    assert _last(h).cause is Cause.WALLET_ERROR


def test_a_wallet_that_never_answers_is_wallet_timed_out() -> None:
    h = _pressed_dev_wallet()
    h.advance(CONNECT_TIMEOUT_MS + 1)
    assert (_last(h).flow, _last(h).cause) == ("connect", Cause.WALLET_TIMED_OUT)


def test_a_request_the_engine_could_not_save_first_is_store_unavailable() -> None:
    h = _pressed_dev_wallet()
    effect = h.pending_effect("eth_requestAccounts")
    to = EffectTo(WalletAccountsAnswered, h.model.router.param)
    h.deliver(EffectSettled(effect["eid"], to, False, error_code=-32000, error_message="not saved",
                            failure="not_sent"))
    assert _last(h).cause is Cause.STORE_UNAVAILABLE


def test_a_wallet_with_no_account_is_an_invalid_answer() -> None:
    h = _pressed_dev_wallet()
    h.answer("eth_requestAccounts", [])
    assert _last(h).cause is Cause.INVALID_ANSWER


def test_closing_the_modal_while_the_wallet_is_asked_is_abandoned() -> None:
    h = _pressed_dev_wallet()
    h.host("close")
    assert (_last(h).flow, _last(h).cause) == ("connect", Cause.ABANDONED)


def test_a_connect_that_succeeds_has_no_diagnosis() -> None:
    h = dev_session()
    h.connect_wallet()
    assert h.model.accounts.get("eip155").address == ADDRESS
    assert h.model.doctor.last is None and h.model.doctor.count == 0


def test_a_relay_that_cannot_be_reached_is_relay_unreachable() -> None:
    h = wc_harness()
    h.host("open")
    h.press("connect/wallet/walletConnect")
    h.relay("wc_pair", code=-32000, message="relay unreachable: connection refused")
    found = _last(h)
    assert (found.flow, found.cause) == ("connect", Cause.RELAY_UNREACHABLE)


def test_the_support_code_is_bound_to_the_project() -> None:
    one = support_code("project-a", "session-1")
    assert one == support_code("project-a", "session-1")
    assert one != support_code("project-b", "session-1")
    assert "session-1" not in one and len(one) == 14


def test_a_wallet_on_a_network_the_app_does_not_support_is_wrong_network() -> None:
    h = dev_session()
    h.connect_wallet(chain_id="0x89")  # Polygon: not among the app's networks
    assert h.view == "UnsupportedChain"
    assert (_last(h).flow, _last(h).cause) == ("connect", Cause.WRONG_NETWORK)


def test_a_phone_that_opened_the_wallet_app_and_never_came_back_is_deep_link_not_followed() -> None:
    h = phone()
    h.host("open")
    h.press("connect/wallet/walletConnect")
    pick(h, "metamask")
    h.relay("wc_pair", {"uri": wc_uri(), "expiry": 240})  # the wallet's app opens with the pairing
    assert h.model.walletconnect.deep_linked
    h.host("close")
    found = _last(h)
    assert (found.flow, found.cause) == ("connect", Cause.DEEP_LINK_NOT_FOLLOWED)
    assert found.wallet and found.wallet != "walletConnect"


def test_closing_a_walletconnect_qr_code_unscanned_is_abandoned() -> None:
    h = wc_harness()
    h.host("open")
    h.press("connect/wallet/walletConnect")
    h.relay("wc_pair", {"uri": wc_uri(), "expiry": 240})
    h.host("close")
    assert (_last(h).flow, _last(h).cause) == ("connect", Cause.ABANDONED)


def test_the_walletconnect_failure_screen_offers_the_support_code() -> None:
    h = wc_harness()
    h.host("open")
    h.press("connect/wallet/walletConnect")
    h.relay("wc_pair", code=-32000, message="relay unreachable")
    codes = [n for n in h.of_type("button") if n.id.endswith("/support-code")]
    assert [n.p["text"] for n in codes] == ["Copy support code"]
    h.press(codes[0].id)
    assert h.last_effect()["req"]["text"] == support_code(h.model.project_id, h.model.session_id)


def test_a_wallet_the_page_has_no_provider_of_is_wallet_not_installed() -> None:
    """The renderer answers EIP-1193 4900 (Disconnected) for a connector it cannot find."""
    h = _pressed_dev_wallet()
    h.answer("eth_requestAccounts", code=4900, message="connector dev.modal.wallet is not available")
    assert (_last(h).flow, _last(h).cause) == ("connect", Cause.WALLET_NOT_INSTALLED)


def test_a_diagnosis_survives_the_sessions_save_and_load() -> None:
    """A reload (or another worker) still offers the support code for the same failure."""
    h = _pressed_dev_wallet()
    h.answer("eth_requestAccounts", code=4001, message="User rejected the request.")
    loaded = session_from_bytes(session_to_bytes(h.session))
    assert loaded.model.doctor == h.model.doctor
    assert loaded.model.doctor.last is not None and loaded.model.doctor.last.cause is Cause.REQUEST_REJECTED
