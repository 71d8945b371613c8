"""Renders the merged report with headless Chromium and checks that the page is
drawn (not blank) and that its images loaded (a broken image would leave the
figure areas white). Skips, saying why, where no browser is installed."""
from __future__ import annotations

import pytest

from reports.screenshot import find_browser, screenshot

np = pytest.importorskip("numpy")
image = pytest.importorskip("matplotlib.image")


@pytest.mark.skipif(find_browser() is None, reason="no headless Chromium installed (Debian package `chromium`)")
def test_rendered_page_is_not_blank(merged_report, tmp_path):
    png = screenshot(merged_report, tmp_path / "page.png", width=1400, height=9000)
    pixels = image.imread(png)[..., :3]
    assert pixels.shape[0] == 9000 and pixels.shape[1] == 1400
    # The top band holds the title and the run context: text, not a blank page.
    top = pixels[:300]
    assert (top < 0.5).mean() > 0.01
    # Somewhere further down the figures are drawn: many coloured (non-grey) pixels.
    spread = pixels.max(axis=2) - pixels.min(axis=2)
    assert (spread > 0.3).mean() > 0.002
