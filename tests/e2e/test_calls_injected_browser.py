"""EIP-5792 while an injected wallet is the active connector (issue 32 item 4), in Chromium: the
host's `getProvider().request` for the EIP-5792 methods goes to the wallet itself, as it is, and
what the wallet answers (here the Dev Wallet, which batches nothing: it forwards the method to its
chain, whose dev proxy refuses it, -32601) comes back to the host with its code. The engine
decides nothing for it."""

from __future__ import annotations

from .conftest import ACCOUNT_0, Demo, connect_dev_wallet

ASK = """([method, params]) => window.demoModal.getProvider().request({method, params})
  .then((result) => ({ok: true, result}), (e) => ({ok: false, code: e.code, message: String(e.message)}))"""


def test_rule_eip5792_requests_reach_the_injected_wallet_and_its_errors_come_back_typed(demo: Demo) -> None:
    connect_dev_wallet(demo)
    batch = {"version": "2.0.0", "chainId": "0x7a69", "from": ACCOUNT_0, "atomicRequired": True,
             "calls": [{"to": ACCOUNT_0, "value": "0x1"}]}
    for method, params in (("wallet_getCapabilities", [ACCOUNT_0]), ("wallet_sendCalls", [batch]),
                           ("wallet_getCallsStatus", ["0x" + "ab" * 32])):
        answer = demo.eval(ASK, [method, params])
        assert (answer["ok"], answer["code"]) == (False, -32601), (method, answer)
        assert method in answer["message"]
        assert [r["params"] for r in demo.wallet_requests(method)] == [params], method  # the wallet was asked
    # the browser logs the proxy's HTTP 403 of each refused method: expected here, nothing else
    refused = [e for e in demo.errors if "status of 403" in e]
    assert len(refused) == 3
    demo.errors[:] = [e for e in demo.errors if e not in refused]
