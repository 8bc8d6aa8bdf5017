"""The embedded sign-in's account types (issue 32; behaviour.md §3): on a chain with smart accounts the
account shown is the counterfactual smart account (eip155 default `smartAccount`), Account
switches to the EOA and back, the choice survives a reload, `allAccounts` lists both, and a
chain without smart accounts keeps the EOA. The smart accounts' read is a stand-in service here
(its real one runs against the dev chains in test_smart_account_chain.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from modalcore.chains.catalog import catalog
from modalcore.embedded.service import EmbeddedWallet
from modalcore_dev.devmail import LocalSmtpServer
from modalcore.core.services import ServiceError, ServiceTable, serve
from modalcore.embedded.smart import owner_of
from modalcore.services.domain.handles import SMART_ACCOUNTS, SmartAccountsArgs, SmartAccountsFound
from modalcore.enginetest import Harness
from modalcore.rules.addresses import checksum
from modalcore.slices.embedded import ApprovalDecided, SocialSignedIn
from modalcore import samples
from modalcore.flows.smart_account import SWITCH_HOLD_MS
from modalcore.services.domain.handles import BALANCES
from modalcore.slices.smart_account import SWITCH_TO_EOA, SWITCH_TO_SMART, smart_account_of

from .world import EmailWorld

SMART = "0x00000000000000000000000000000000000A11cE"  # checksummed
CHAIN = "eip155:31337"
OTHER = "eip155:31338"


def _networks(*smart: str) -> dict[str, Any]:
    known = catalog()
    return {chain: replace(known[chain], smart_accounts=chain in smart) for chain in (CHAIN, OTHER)}


def _stand_in(wallet: EmbeddedWallet, deployed: bool = False,
              fail: bool = False) -> tuple[ServiceTable, list[dict[str, Any]]]:
    asked: list[dict[str, Any]] = []

    async def run(ctx: Any, args: SmartAccountsArgs) -> SmartAccountsFound:
        asked.append({"identity": args.identity, "chains": list(args.chains)})
        if fail:
            raise ServiceError("the chain is unreachable")
        owner = owner_of(wallet.vault, args.identity)
        assert owner is not None
        return {"owner": owner, "accounts": [{"chain": c, "address": SMART, "deployed": deployed}
                                             for c in args.chains]}
    return {SMART_ACCOUNTS: serve(SMART_ACCOUNTS, run)}, asked


def _world(wallet: EmbeddedWallet, smtp: LocalSmtpServer, *smart: str, **stand_in: Any) -> tuple[EmailWorld, list[Any]]:
    services, asked = _stand_in(wallet, **stand_in)
    world = EmailWorld(wallet, smtp, services=services, known_networks=_networks(*smart),
                       options={"networks": [CHAIN, OTHER]})
    return world, asked


def _sign_in(world: EmailWorld, email: str = "sam@example.com") -> str:
    world.submit_email(email)
    world.type_code(world.code_for(email))
    world.settle_all()
    address = world.h.model.accounts.get("eip155").address
    assert address is not None
    return address


def test_an_email_sign_in_on_a_smart_account_chain_shows_the_smart_account(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, asked = _world(wallet, smtp, CHAIN, OTHER)
    address = _sign_in(world)
    account = world.h.model.accounts.get("eip155")
    owner = world.h.model.smart.owner
    assert address == SMART and owner != SMART
    assert asked == [{"identity": "email:sam@example.com", "chains": [CHAIN, OTHER]}]
    assert account.preferred_account_type == "smartAccount"
    assert account.all_accounts == ((SMART, "smartAccount"), (owner, "eoa"))
    assert account.smart_account_deployed is False
    assert world.h.host_state("account")["address"] == SMART
    assert world.h.host_state("account")["preferredAccountType"] == "smartAccount"
    assert world.h.host_state("account")["allAccounts"] == [
        {"address": SMART, "type": "smartAccount"}, {"address": owner, "type": "eoa"}]
    assert smart_account_of(world.h.model, CHAIN) is not None


def test_the_host_never_sees_the_eoa_before_the_smart_account(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, _ = _world(wallet, smtp, CHAIN)
    _sign_in(world)
    seen = {f["data"]["address"] for f in world.h.frames_of("host_event") if f.get("kind") == "account"}
    assert seen <= {"", SMART}


def test_account_switches_to_the_eoa_and_back(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, _ = _world(wallet, smtp, CHAIN)
    _sign_in(world)
    owner = world.h.model.smart.owner
    world.h.host("open")
    assert world.h.node("account/account-type").p["title"] == SWITCH_TO_EOA
    world.h.press("account/account-type")
    account = world.h.model.accounts.get("eip155")
    assert account.address == owner and account.caip_address == f"{CHAIN}:{owner}"
    assert account.preferred_account_type == "eoa"
    assert account.all_accounts == ((SMART, "smartAccount"), (owner, "eoa"))
    world.h.advance(SWITCH_HOLD_MS)  # no balance came (nobody answers it here): the host hears anyway
    assert world.h.host_state("account")["address"] == owner
    assert world.h.node("account/account-type").p["title"] == SWITCH_TO_SMART
    world.h.press("account/account-type")
    assert world.h.model.accounts.get("eip155").address == SMART
    world.h.advance(SWITCH_HOLD_MS)
    assert world.h.host_state("account")["address"] == SMART


def _account_events(world: EmailWorld, since: int) -> list[dict[str, Any]]:
    return [f["data"] for f in world.h.frames_of("host_event")[since:] if f.get("kind") == "account"]


def test_rule_each_switch_is_one_account_event_with_the_new_accounts_balance(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    """Issue 46: a switch used to send the new account with balance "" and again, 25-36 ms
    later, with its balance (the same event otherwise). The host now hears of it once, when the
    balance read answers."""
    world, _ = _world(wallet, smtp, CHAIN)
    _sign_in(world)
    owner = world.h.model.smart.owner
    world.h.host("open")
    for balance, address, kind in (("1", owner, "eoa"), ("2", SMART, "smartAccount")):
        since = len(world.h.frames_of("host_event"))
        world.h.press("account/account-type")
        assert _account_events(world, since) == []  # the balance is on its way
        world.h.settle_call(BALANCES, samples.balances(int(balance) * 10**18), after_ms=30)
        [event] = _account_events(world, since)
        assert (event["address"], event["preferredAccountType"]) == (address, kind)
        assert event["balance"].startswith(balance) and event["balance"].endswith("ETH")
        world.h.advance(SWITCH_HOLD_MS)  # the hold's timer was cancelled: nothing more
        assert len(_account_events(world, since)) == 1


def test_the_chosen_account_type_survives_a_reload(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, _ = _world(wallet, smtp, CHAIN)
    _sign_in(world)
    owner = world.h.model.smart.owner
    world.h.host("open")
    world.h.press("account/account-type")
    world.h.rejoin(last=None)
    world.settle_all()
    assert world.h.model.accounts.get("eip155").address == owner
    assert world.h.host_state("account")["address"] == owner
    assert world.h.node("account/account-type").p["title"] == SWITCH_TO_SMART


def test_a_chain_without_smart_accounts_keeps_the_eoa(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, asked = _world(wallet, smtp)
    address = _sign_in(world)
    account = world.h.model.accounts.get("eip155")
    assert asked == [] and address == world.h.model.smart.owner
    assert account.preferred_account_type == "eoa" and account.all_accounts == ((address, "eoa"),)
    world.h.host("open")
    assert world.h.find("account/account-type") is None


def test_switching_to_a_network_without_smart_accounts_shows_the_eoa(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, asked = _world(wallet, smtp, CHAIN)
    _sign_in(world)
    owner = world.h.model.smart.owner
    world.h.host("switch_network", network=OTHER)
    world.settle_all()
    account = world.h.model.accounts.get("eip155")
    assert account.caip_address == f"{OTHER}:{owner}" and account.preferred_account_type == "eoa"
    world.h.host("switch_network", network=CHAIN)
    world.settle_all()
    assert world.h.model.accounts.get("eip155").address == SMART


def test_a_failed_read_connects_the_eoa(wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, _ = _world(wallet, smtp, CHAIN, fail=True)
    address = _sign_in(world)
    assert address == world.h.model.smart.owner
    assert world.h.model.accounts.get("eip155").preferred_account_type == "eoa"


def test_the_choice_outlives_a_disconnect_and_the_next_sign_in_uses_it(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, _ = _world(wallet, smtp, CHAIN)
    _sign_in(world)
    world.h.host("open")
    world.h.press("account/account-type")
    world.h.host("disconnect")
    world.settle_all()
    assert world.h.model.accounts.get("eip155").status == "disconnected"
    assert world.h.model.smart.owner == "" and world.h.model.smart.preferred == "eoa"


def test_a_social_sign_in_waits_for_its_smart_account_and_keeps_its_provider() -> None:
    owner = "0x" + "ab" * 20
    h = Harness(is_open=True, options={"networks": [CHAIN]}, known_networks=_networks(CHAIN))
    h.session.model = replace(h.model, embedded=replace(h.model.embedded, socials=("google",)))
    h.session.render()
    h.press("connect/social/google")
    h.deliver(SocialSignedIn("google", "sub-1", owner, "zoe", "zoe@example.com"))
    assert h.model.accounts.get("eip155").status == "disconnected"  # not before its account is read
    [call] = h.pending_calls("embedded.smart_accounts")
    assert call.args_data == {"identity": "google:sub-1", "chains": [CHAIN]}
    h.settle_call("embedded.smart_accounts", {"owner": checksum(owner), "accounts": [
        {"chain": CHAIN, "address": SMART, "deployed": True}]})
    account = h.model.accounts.get("eip155")
    assert account.status == "connected" and account.address == SMART and account.smart_account_deployed
    assert account.social_provider == "google" and account.user_name == "zoe"


def test_an_answer_for_another_owner_is_not_taken() -> None:
    owner = "0x" + "ab" * 20
    h = Harness(is_open=True, options={"networks": [CHAIN]}, known_networks=_networks(CHAIN))
    h.session.model = replace(h.model, embedded=replace(h.model.embedded, socials=("google",)))
    h.session.render()
    h.press("connect/social/google")
    h.deliver(SocialSignedIn("google", "sub-1", owner, "zoe"))
    h.settle_call("embedded.smart_accounts", {"owner": "0x" + "cd" * 20, "accounts": [
        {"chain": CHAIN, "address": SMART, "deployed": True}]})
    account = h.model.accounts.get("eip155")
    assert account.address == checksum(owner) and account.preferred_account_type == "eoa"


def test_a_reload_reads_whether_the_smart_account_is_deployed_again(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, asked = _world(wallet, smtp, CHAIN)
    _sign_in(world)
    assert world.h.host_state("account")["smartAccountDeployed"] is False
    deployed_now, _ = _stand_in(wallet, deployed=True)
    world.services.update(deployed_now)  # meanwhile its first operation deployed it
    world.h.rejoin(last=None)
    world.settle_all()
    assert world.h.model.accounts.get("eip155").address == SMART
    assert world.h.host_state("account")["smartAccountDeployed"] is True


def test_an_approved_send_lost_to_a_reload_is_signed_and_sent_once(
        wallet: EmbeddedWallet, smtp: LocalSmtpServer) -> None:
    world, _ = _world(wallet, smtp, CHAIN)
    _sign_in(world)
    world.ask_wallet("eth_sendTransaction", [{"to": "0x" + "11" * 20, "value": "0x1"}])
    request = world.h.model.embedded.request
    assert request is not None
    world.h.deliver(ApprovalDecided(request.eid, approve=True))
    world.h.rejoin(last=None)  # the page reloads while the operation is on its way
    world.h.deliver(ApprovalDecided(request.eid, approve=True))  # a second Approve changes nothing
    [sign] = world.h.pending_calls("embedded.sign")
    assert sign.args_data["account"] == SMART and sign.args_data["method"] == "eth_sendTransaction"
