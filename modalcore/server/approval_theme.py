"""The approval frame's look follows the visitor's theme (behaviour.md §3 Theme: themeMode light or dark,
themeVariables), as the modal around it does (renderer/src/styles.css): the same palettes per
mode, and the `--w3m-*` variables the session holds (accent, font family, base font size and
border radius, colour mix) become the page's CSS custom properties.

The values come from the host page, so only plain CSS values are written into the frame's
style sheet: one with a character that could end the declaration or the style element
(`;`, `{`, `}`, `<`, `>`, `\\`, `@`, a comment, `url(`) is dropped and the default stands.
"""

from __future__ import annotations

import re

from ..slices.theme import DEFAULT_VARIABLES, ThemeState

# the modal's palettes (renderer/src/styles.css .wm-root and .wm-root[data-theme="light"])
PALETTES: dict[str, dict[str, str]] = {
    "dark": {"base": "#191a1a", "fg": "#e4e7e7", "fg-2": "#949e9e", "soft": "rgb(255 255 255 / 0.08)",
             "line": "rgb(255 255 255 / 0.07)"},
    "light": {"base": "#ffffff", "fg": "#141414", "fg-2": "#5c6565", "soft": "rgb(0 0 0 / 0.07)",
              "line": "rgb(0 0 0 / 0.07)"},
}
# theme variable -> the frame's property (Approve is filled like the modal's primary button:
# the accent mixed with black, AA contrast with white text)
VARIABLES = {
    "--w3m-accent": "accent",
    "--w3m-font-family": "font",
    "--w3m-font-size-master": "fm",
    "--w3m-border-radius-master": "rm",
    "--w3m-color-mix": "mix",
    "--w3m-color-mix-strength": "mix-strength",
}
_PLAIN = re.compile(r"^[\w\s#%(),.'\"/+-]*$")


def plain_value(value: str) -> bool:
    """A value that stays one CSS declaration value inside a <style> element."""
    return bool(_PLAIN.match(value)) and "/*" not in value and "*/" not in value and "url(" not in value.lower()


def properties(theme: ThemeState) -> dict[str, str]:
    """The frame's custom properties for this theme (without the leading `--`)."""
    mode = theme.mode if theme.mode in PALETTES else "dark"
    props = dict(PALETTES[mode])
    given = theme.css_variables()
    for variable, name in VARIABLES.items():
        value = given.get(variable, "")
        props[name] = value if value and plain_value(value) else DEFAULT_VARIABLES[variable]
    return props


def style(theme: ThemeState) -> str:
    """The approval page's style sheet."""
    mode = theme.mode if theme.mode in PALETTES else "dark"
    root = ";".join(f"--{name}:{value}" for name, value in properties(theme).items())
    return (
        f":root{{color-scheme:{mode};{root}}}"
        "body{font-family:var(--font);font-size:calc(var(--fm) * 1.4);line-height:1.4;margin:0;padding:12px;"
        "background:color-mix(in srgb,var(--mix) var(--mix-strength),var(--base));color:var(--fg)}"
        "h1{font-size:calc(var(--fm) * 1.6);margin:0 0 8px} dl{margin:0 0 12px}"
        "dt{color:var(--fg-2);font-size:calc(var(--fm) * 1.2);margin-top:6px;overflow-wrap:break-word}"
        # words wrap between words; only a token longer than the line (an address, hex) breaks
        "dd{margin:0;white-space:pre-wrap;overflow-wrap:break-word;max-height:160px;overflow:auto}"
        ".who{color:var(--fg-2);font-size:calc(var(--fm) * 1.2);margin-bottom:8px} .row{display:flex;gap:8px}"
        "button{flex:1;padding:10px;border-radius:calc(var(--rm) * 3);border:0;font:inherit;cursor:pointer}"
        "#approve{background:color-mix(in srgb,var(--accent) 74%,#000);color:#fff} #reject{background:var(--soft);color:var(--fg)}"
        "#state{margin-top:8px}"
        # Reject and Approve stay in sight however long the details are: the foot sticks to the
        # frame's bottom edge (the frame is at most its node's height; the details scroll above)
        ".actions{position:sticky;bottom:0;padding:8px 12px 12px;margin:0 -12px -12px;"
        "background:color-mix(in srgb,var(--mix) var(--mix-strength),var(--base));"
        "box-shadow:0 -1px 0 var(--line)}"
    )
