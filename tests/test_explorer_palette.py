"""The explorer's stage and badge chips meet WCAG AA contrast (4.5:1) in every colour pair web/src/styles.css gives
them. axe-core in the browser (web/e2e/a11y.test.mjs) checks only the chips on screen when it runs, so a stage that
passes quickly (QUEUED at #8a6d1f, 4.33:1) was seen only when a run happened to catch it; this reads them all."""

from __future__ import annotations

import re
from pathlib import Path

STYLES = Path(__file__).resolve().parents[1] / "web" / "src" / "styles.css"
CHIP = re.compile(r"^\.((?:stage|badge)-[\w-]+) \{ background: ([^;]+); color: ([^;]+);", re.M)
VARIABLE = re.compile(r"^\s*(--[\w-]+):\s*(#[0-9a-fA-F]{6});", re.M)


def _luminance(colour: str) -> float:
    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * channel(red) + 0.7152 * channel(green) + 0.0722 * channel(blue)


def contrast(one: str, other: str) -> float:
    lighter, darker = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def test_every_stage_and_badge_chip_has_aa_contrast() -> None:
    css = STYLES.read_text(encoding="utf-8")
    variables = dict(VARIABLE.findall(css))

    def resolve(value: str) -> str:
        found = re.fullmatch(r"var\((--[\w-]+)\)", value.strip())
        return variables[found.group(1)] if found else value.strip()

    chips = {name: (resolve(background), resolve(colour)) for name, background, colour in CHIP.findall(css)}
    assert {"stage-queued", "stage-done", "stage-failed", "stage-running", "badge-warn"} <= set(chips), chips
    pulse = re.search(r"@keyframes pulse \{ 50% \{ background: (#[0-9a-fA-F]{6}); \} \}", css)
    assert pulse is not None, "the running chip's pulse colour moved: read it here too"
    pairs = {**chips, "stage-running at its pulse": (pulse.group(1), chips["stage-running"][1])}
    ratios = {name: contrast(*pair) for name, pair in pairs.items()}
    low = {name: round(ratio, 2) for name, ratio in ratios.items() if ratio < 4.5}
    assert not low, f"chips under 4.5:1 (WCAG AA): {low}"
