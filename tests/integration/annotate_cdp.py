#!/usr/bin/env python3
"""annotate_cdp.py - pa annotate --html's page in headless Chromium: the
ranking table lists NR symbols, each linking to its listing on the page;
each listing shows the source beside the assembly (the source column left
of the instruction column, on one row); the hottest instruction of the
first listing is shaded (a background other than the page's), a cold one
is not. A screenshot is kept as WORKDIR/annotate.png.

    annotate_cdp.py CHROMIUM WORKDIR PAGE.html NR

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


PAGE = ("(() => { const links = Array.from(document.querySelectorAll('table:first-of-type a'));"
        " const targets = links.filter(a => document.getElementById(a.getAttribute('href').slice(1)));"
        " const t = document.querySelector('table.code');"
        " const rows = t ? Array.from(t.rows) : [];"
        " const pct = r => parseFloat(r.cells[1].textContent);"
        " const hot = rows.reduce((b, r) => (!b || pct(r) > pct(b)) ? r : b, null);"
        " const cold = rows.find(r => pct(r) === 0);"
        " const bg = r => r ? getComputedStyle(r).backgroundColor : null;"
        " const side = rows.every(r => r.cells[0].getBoundingClientRect().right <="
        "   r.cells[3].getBoundingClientRect().left &&"
        "   Math.abs(r.cells[0].getBoundingClientRect().top - r.cells[3].getBoundingClientRect().top) < 1);"
        " return {links: links.length, targets: targets.length, listings:"
        " document.querySelectorAll('table.code').length, rows: rows.length,"
        " hot: bg(hot), cold: bg(cold), page: getComputedStyle(document.body).backgroundColor,"
        " side: side}; })()")


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    chromium, workdir, path, nr = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    signal.alarm(120)
    b = start(chromium, workdir, 1400, 900)
    try:
        b.call("Page.navigate", url="file://" + os.path.abspath(path))
        b.event("Page.loadEventFired")
        v = b.js(PAGE)
        b.screenshot(os.path.join(workdir, "annotate.png"))
        check(v["links"] == nr, f"the ranking lists {nr} symbols ({v})")
        check(v["targets"] == v["links"], f"every symbol links to its listing ({v})")
        check(v["listings"] >= 1 and v["rows"] > 0, f"listings with instructions ({v})")
        check(v["side"], f"source beside assembly on each row ({v})")
        check(v["hot"] not in (None, v["page"], "rgba(0, 0, 0, 0)"), f"the hottest line shaded ({v})")
        check(v["cold"] in (None, v["page"], "rgba(0, 0, 0, 0)"), f"a cold line not shaded ({v})")
        print(f"{v['links']} symbols, {v['listings']} listings, {v['rows']} rows in the first")
    finally:
        b.close()
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
