"""The EIP-5792 request rules (rules/calls.py) and the approval's decoded calls
(embedded/decode_calls.py), pure: every refusal typed, every bound held."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from modalcore.embedded.decode_calls import describe_calls
from modalcore.rules import calls as rules

ACCOUNT = "0x00000000000000000000000000000000000A11cE"
TO = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65"


def _send(**request: object) -> rules.CallBatch | rules.CallsRefusal:
    return rules.parse_send_calls([{"version": "2.0.0", "chainId": "0x7a69", **request}], ACCOUNT)


def test_rule_the_calls_id_names_the_operation_and_the_chain() -> None:
    op = "0x" + "Ab" * 32
    calls_id = rules.calls_id(op, 31337)
    assert len(calls_id) == 2 + 128 and calls_id == calls_id.lower()
    assert rules.parse_calls_id([calls_id]) == (op.lower(), 31337)
    for bad in ([], [calls_id, calls_id], [calls_id[:-1]], [42], "x"):
        refused = rules.parse_calls_id(bad)
        assert isinstance(refused, rules.CallsRefusal) and refused.code in (rules.UNKNOWN_BUNDLE, rules.INVALID_PARAMS)


def test_rule_a_batch_keeps_each_call_and_defaults_value_and_data() -> None:
    batch = _send(calls=[{"to": TO}, {"to": TO, "value": "0x10", "data": "0xABCD"}])
    assert batch == rules.CallBatch(31337, "", (rules.Call(TO, 0, "0x"), rules.Call(TO, 16, "0xabcd")), "2.0.0")
    assert isinstance(rules.parse_send_calls([{"version": "1.0", "chainId": "0x1", "calls": [{"to": TO}]}], ACCOUNT),
                      rules.CallBatch)


def test_rule_bounds_are_refused_typed() -> None:
    assert isinstance(_send(calls=[{"to": TO}] * rules.MAX_CALLS), rules.CallBatch)
    too_many = _send(calls=[{"to": TO}] * (rules.MAX_CALLS + 1))
    assert isinstance(too_many, rules.CallsRefusal) and too_many.code == rules.BATCH_TOO_LARGE
    big = _send(calls=[{"to": TO, "data": "0x" + "00" * (rules.MAX_DATA_HEX // 2 + 1)}])
    assert isinstance(big, rules.CallsRefusal) and big.code == rules.INVALID_PARAMS
    huge_value = _send(calls=[{"to": TO, "value": "0x1" + "0" * 64}])
    assert isinstance(huge_value, rules.CallsRefusal)
    leading_zero = _send(calls=[{"to": TO}], chainId="0x07a69")
    assert isinstance(leading_zero, rules.CallsRefusal)


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=50),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
                    max_leaves=30))
def test_rule_any_params_give_a_batch_or_a_typed_refusal(params: object) -> None:
    for candidate in (params, [params], [{"version": "2.0.0", "chainId": "0x7a69", "calls": params}]):
        result = rules.parse_send_calls(candidate, ACCOUNT)
        assert isinstance(result, rules.CallBatch | rules.CallsRefusal)
        rows = describe_calls(json.dumps(candidate), None, ACCOUNT)
        assert rows and all(isinstance(label, str) and isinstance(text, str) for label, text in rows)


def test_rule_an_unknown_function_is_shown_as_its_selector_and_data() -> None:
    params = json.dumps([{"version": "2.0.0", "chainId": "0x7a69", "calls": [{"to": TO, "data": "0xdeadbeef01"}]}])
    rows = dict(describe_calls(params, None, ACCOUNT))
    assert rows["Call 1 function selector"] == "0xdeadbeef" and rows["Call 1 data"] == "0xdeadbeef01"
    # a known selector whose arguments do not decode is shown raw too
    params = json.dumps([{"version": "2.0.0", "chainId": "0x7a69", "calls": [{"to": TO, "data": "0x095ea7b3ff"}]}])
    assert dict(describe_calls(params, None, ACCOUNT))["Call 1 function selector"] == "0x095ea7b3"


def test_rule_status_follows_the_bundlers_receipt() -> None:
    assert rules.status_of(None) == rules.PENDING
    assert rules.status_of({"success": True}) == rules.CONFIRMED
    assert rules.status_of({"success": False}) == rules.REVERTED


def test_rule_the_paymaster_service_is_where_the_policy_sponsors_batches() -> None:
    from modalcore.server.config import parse_config

    chain = {"bundler_url": "http://127.0.0.1:1", "factory": TO}
    config = parse_config({"smart_accounts": {
        "chains": {"eip155:31337": {**chain, "paymaster": TO}, "eip155:31338": {**chain, "paymaster": TO},
                   "eip155:1": chain},
        "sponsor": {"projects": ["demo"], "chains": ["eip155:31337", "eip155:1"]}}})
    known = config.known_networks()
    assert known["eip155:31337"].sponsored_projects == ("demo",)
    assert known["eip155:31338"].sponsored_projects == ()  # not among the policy's chains
    assert known["eip155:1"].sponsored_projects == ()  # no paymaster there
    methods = parse_config({"smart_accounts": {"chains": {"eip155:31337": {**chain, "paymaster": TO}},
                                               "sponsor": {"projects": ["demo"], "chains": ["eip155:31337"],
                                                           "methods": ["eth_sendTransaction"]}}})
    assert methods.known_networks()["eip155:31337"].sponsored_projects == ()
