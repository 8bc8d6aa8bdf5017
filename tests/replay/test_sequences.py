"""Rule: a hand-written, input-only sequence runs (sequence numbers, effect ids and call
purposes filled in) and its expectations are checked; a failed one is named in words with its
line. The same steps from pytest through `modalcore.enginetest.Harness`."""

from __future__ import annotations

from pathlib import Path

import pytest

from modalcore import samples
from modalcore.__main__ import main
from modalcore.enginetest import Harness
from modalcore.replay.sequence import run_sequence

from .conftest import RENAMED, ROOT, SEQUENCES


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "seq.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("path", sorted(SEQUENCES.glob("*.jsonl")), ids=lambda p: p.stem)
def test_fixture_sequences_hold(path: Path) -> None:
    result = run_sequence(path)
    assert result.failure is None, result.failure
    assert result.expectations >= 3


def test_a_sequence_passes_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, """# open, go to All Wallets and back
{"host": "open"}
{"expect": {"view": "Connect", "open": true, "text": ["Dev Wallet", "Get started"]}}
{"press": "connect/all-wallets"}
{"wait": 500}
{"expect": {"view": "AllWallets", "node": "header/back", "no_text": "Get started"}}
{"press": "header/back"}
{"expect": {"view": "Connect"}}
""")
    assert main(["replay", str(path)]) == 0
    assert f"ok        {path}: 7 steps, 3 expectations held" in capsys.readouterr().out


def test_a_failed_expectation_is_named_with_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, """{"host": "open"}
{"press": "connect/all-wallets"}
{"expect": {"view": "Connect", "text": "Get started"}}
{"press": "header/back"}
""")
    assert main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert (f"FAILED    {path} line 3: expected view 'Connect', the view is 'AllWallets'; "
            "expected 'Get started' on screen (AllWallets); texts on screen: 'All Wallets', 'Dev Wallet'") in out
    assert "total: 1 file, 0 ok, 1 diverged or failed" in out


@pytest.mark.usefixtures("renamed_snack")
def test_an_expectation_fails_on_a_changed_engine() -> None:
    result = run_sequence(SEQUENCES / "connect_and_copy.jsonl")
    assert result.failure is not None
    line, message = result.failure
    assert line == 9  # {"expect": {"text": "Address copied"}}
    assert message.startswith("expected 'Address copied' on screen (Account); texts on screen: ")
    assert repr(RENAMED) in message


def test_a_refused_intent_fails_unless_its_status_is_expected(tmp_path: Path) -> None:
    result = run_sequence(_write(tmp_path, '{"press": "no/such/node"}\n'))
    assert result.failure == (1, "press no/such/node was acknowledged 'invalid' "
                                 "(no node 'no/such/node' in the current tree), expected 'ok'")
    result = run_sequence(_write(tmp_path, '{"press": "no/such/node", "status": "invalid"}\n'))
    assert result.failure is None


def test_an_answer_nobody_asked_for_is_a_failure_in_words(tmp_path: Path) -> None:
    result = run_sequence(_write(tmp_path, '{"call": "balances"}\n'))
    assert result.failure == (1, "no balances call was asked for; pending calls: []")


def test_a_malformed_sequence_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, '{"host": "open"}\n{"jump": 3}\n')
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "line 2: a step names one of join, host, press" in err
    assert err.startswith(f"replay: bad sequence {path}: ")  # issue 46: not "bad recording"


def test_rule_counts_are_in_the_right_number(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, '{"host": "open"}\n{"expect": {"open": true}}\n')
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"ok        {path}: 2 steps, 1 expectation held" in out
    assert "total: 1 file, 1 ok" in out


def test_the_sequence_transcript_uses_the_sequence_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--transcript", str(SEQUENCES / "rejected_then_retry.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "line 4 " in out and "press connect/wallet/dev.modal.wallet → ConnectingExternal" in out
    assert "effect_result e1 for eth_requestAccounts: error 4001" in out


# ----- the same from pytest: the Harness


def test_harness_connects_settles_and_expects() -> None:
    h = Harness.from_join(samples.join())
    h.connect_wallet()
    h.expect(view="Account", open=False, call="balances", host={"account": {"isConnected": True}})
    h.settle_call("balances", samples.balances(native_wei=2 * samples.ETHER))
    h.host("open")
    h.expect(text="2.000 ETH", node="account/copy")
    with pytest.raises(AssertionError, match="expected view 'Connect', the view is 'Account'"):
        h.expect(view="Connect")


def test_harness_sample_results_are_what_the_slices_read() -> None:
    h = Harness.from_join(samples.join())
    h.connect_wallet()
    h.settle_call("balances", samples.SAMPLES["balances"])
    h.host("open")
    h.intent("account/tabs", "select", {"value": "2"})  # Activity
    h.settle_call("history", samples.history(samples.transaction(quantity="1.5", symbol="ETH")))
    h.expect(text=["Sent", "-1.500 ETH", "To 0x7099…79C8"])


# ----- the testers' docs: their worked examples are the ones that run


def _docs_block(page: str, language: str) -> str:
    """The first fenced block of that language on a page of docs/testers/."""
    text = (ROOT / "docs" / "testers" / page).read_text(encoding="utf-8")
    start = text.index(f"```{language}\n") + len(language) + 4
    return text[start:text.index("```", start)]


def test_the_documented_sequence_is_the_fixture() -> None:
    block = _docs_block("sequences.md", "")
    fixture = (SEQUENCES / "connect_and_copy.jsonl").read_text(encoding="utf-8")
    assert block.splitlines()[1:] == fixture.splitlines()[1:]


def test_the_documented_pytest_example_passes() -> None:
    namespace: dict[str, object] = {}
    exec(compile(_docs_block("pytest.md", "python"), "docs/testers/pytest.md", "exec"), namespace)
    test = namespace["test_copying_the_address_says_so"]
    assert callable(test)
    test()


@pytest.mark.parametrize("line", [
    '{"wait": "soon"}', '{"wait": -5}', '{"resync": true}', '{"host": 3}',
    '{"expect": {"screen": "Account"}}', '{"expect": "Account"}',
    '{"effect": "eth_chainId", "error": "rejected"}', '{"press": "x", "argz": {}}',
    '{"call": "balances", "after_ms": "1s"}', 'not json', '[1]', '{"jump": 3}',
])
def test_rule_every_malformed_sequence_exits_2_before_anything_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str) -> None:
    """One documented code for a malformed file (docs/testers/record-replay.md, replay/cli.py): a step that is not
    one, or whose fields have the wrong types, is refused with its line; 1 is for a step that
    runs and fails."""
    path = _write(tmp_path, '{"host": "open"}\n' + line + "\n")
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "line 2:" in err and "Traceback" not in err


def test_rule_a_well_formed_step_that_fails_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, '{"host": "open"}\n{"press": "no/such/node"}\n')
    assert main(["replay", str(path)]) == 1
    assert "FAILED" in capsys.readouterr().out
