#!/usr/bin/env python3
"""firstview_cdp.py - the first view of an HTML flame graph is the graph:
open each FILE.html in headless Chromium at 1400x900 (a laptop's browser
window), as loaded, without scrolling or clicking, and check that frames
are drawn inside the window, the root frame among them (at the bottom of
the window for a flame graph, the top for --inverted), and that the page
is not much taller than the frames drawn (frames too narrow to draw do not
size it). A screenshot of each is kept as WORKDIR/firstview-NAME.png.

    firstview_cdp.py CHROMIUM WORKDIR FILE.html...

Exits 0 when all checks pass, 1 when one fails, 77 when Chromium cannot be
started. The browser plumbing is flamegraph_cdp.py's.
"""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flamegraph_cdp import start  # noqa: E402

FAILS = []


def check(ok, what):
    if not ok:
        FAILS.append(what)
        print(f"FAIL: {what}")


VIEW = ("(() => { const fs = Array.from(document.querySelectorAll('#chart .f'));"
        " const vis = fs.filter(e => { const r = e.getBoundingClientRect();"
        " return r.bottom > 0 && r.top < innerHeight && r.width > 0; });"
        " const root = fs.find(e => e.dataset.i === '0'); const rr = root && root.getBoundingClientRect();"
        " const c = document.getElementById('chart').getBoundingClientRect();"
        " return {visible: vis.length, drawn: fs.length, root: rr ? {top: rr.top, bottom: rr.bottom} : null,"
        " chart: c.height, rows: new Set(fs.map(e => e.style.top)).size,"
        " page: document.documentElement.scrollHeight, inner: innerHeight,"
        " inverted: !!PA_FLAME.inverted}; })()")


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    chromium, workdir, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    signal.alarm(120)
    b = start(chromium, workdir, 1400, 900)
    try:
        for path in paths:
            name = os.path.splitext(os.path.basename(path))[0]
            b.call("Page.navigate", url="file://" + os.path.abspath(path))
            b.event("Page.loadEventFired")
            b.js("new Promise(r => requestAnimationFrame(() => setTimeout(r, 50)))")
            v = b.js(VIEW)
            b.screenshot(os.path.join(workdir, f"firstview-{name}.png"))
            check(v["visible"] >= 2, f"{name}: frames in the first view ({v})")
            root = v["root"]
            check(root is not None and 0 <= root["top"] and root["bottom"] <= v["inner"],
                  f"{name}: the root frame in the first view ({v})")
            if root and not v["inverted"] and v["page"] > v["inner"]:
                # a page taller than the window opens scrolled to the root
                check(root["bottom"] > v["inner"] / 2, f"{name}: the root in the lower half ({v})")
            # the chart is as tall as the rows of frames drawn
            check(v["chart"] <= (v["rows"] + 1) * 17 + 1, f"{name}: the chart's height is the frames' ({v})")
            print(f"{name}: {v['visible']} of {v['drawn']} frames in view, page {v['page']} px")
    finally:
        b.close()
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
