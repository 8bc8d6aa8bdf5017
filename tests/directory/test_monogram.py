"""A wallet without an image gets a monogram the engine draws: deterministic, escaped SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from modalcore.directory.domain.monogram import colours, initials, monogram_svg


def test_initials_skip_generic_words() -> None:
    assert initials("MetaMask") == "M"
    assert initials("Trust Wallet") == "T"
    assert initials("Magic Eden Wallet") == "ME"
    assert initials("Safe{Wallet}") == "S"
    assert initials("1inch Wallet") == "1"
    assert initials("Crypto.com | DeFi Wallet") == "C"
    assert initials("") == "?"


def test_colours_are_deterministic_and_differ_between_wallets() -> None:
    assert colours("rainbow") == colours("rainbow")
    assert colours("rainbow") != colours("metamask")
    assert all(len(c) == 7 and c.startswith("#") for c in colours("x"))


def test_the_svg_is_well_formed_and_escapes_the_name() -> None:
    svg = monogram_svg("evil", 'A<b>&"wallet"')
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg") and root.get("aria-label") == 'A<b>&"wallet"'
    text = root.find("{http://www.w3.org/2000/svg}text")
    assert text is not None and text.text == "A"
    assert "<b>" not in svg and "<script" not in svg


def test_same_wallet_same_bytes() -> None:
    assert monogram_svg("rainbow", "Rainbow") == monogram_svg("rainbow", "Rainbow")
