"""python -m reports.screenshot INDEX_HTML [--out PNG] [--width 1400] [--height 3000]

Renders a report page with headless Chromium (Debian package `chromium`) so a
person or a test can look at what a reader sees. Prints the PNG path."""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .errors import ReportError

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def find_browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def screenshot(index: Path, out: Path, width: int = 1400, height: int = 3000, timeout: float = 120) -> Path:
    browser = find_browser()
    if browser is None:
        raise ReportError(f"no headless browser found (tried {', '.join(BROWSERS)}); "
                          "install the Debian package `chromium`")
    index, out = Path(index).resolve(), Path(out).resolve()
    if not index.exists():
        raise ReportError(f"{index}: no such page")
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as profile:
        # A throwaway profile keeps runs independent; --no-sandbox because CI
        # containers run as root, where Chromium's sandbox refuses to start.
        command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                   f"--user-data-dir={profile}", f"--window-size={width},{height}",
                   f"--screenshot={out}", index.as_uri()]
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0 or not out.exists():
        raise ReportError(f"{browser} failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reports.screenshot", description=__doc__.splitlines()[2])
    parser.add_argument("index", type=Path)
    parser.add_argument("--out", type=Path, default=None, help="PNG to write (default: next to the page)")
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=3000)
    args = parser.parse_args(argv)
    try:
        out = screenshot(args.index, args.out or args.index.with_name("index_screenshot.png"),
                         args.width, args.height)
    except ReportError as exc:
        print(f"reports.screenshot: error: {exc}", file=sys.stderr)
        return 2
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
