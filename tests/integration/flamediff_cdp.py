#!/usr/bin/env python3
"""flamediff_cdp.py - check a differential flame graph written by
`pa flamegraph --diff base.folded new.folded` (the profiles of
flamediff.sh) in headless Chromium over the DevTools protocol:

    flamediff_cdp.py CHROMIUM WORKDIR FILE.html|FILE.svg...

At 1400x900: the legend is there; grow is red, shrink blue, steady white,
fresh outlined as only in new, gone not drawn (colours read from the DOM
and from a screenshot, kept as WORKDIR/flamediff-html.png or -svg.png, and
WORKDIR/flamediff-html-hover.png with grow's tooltip);
hovering grow, shrink, fresh and main shows their changes; clicking grow
zooms into it; searching "shr" paints shrink. Exits 0 when all checks
pass, 1 when one fails, 77 when Chromium cannot be started. The browser
plumbing is flamegraph_cdp.py's.
"""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flamegraph_cdp import png_rows, start, rgb_of, row_share  # noqa: E402

FAILS = []


def check(ok, what):
    if not ok:
        FAILS.append(what)
        print(f"FAIL: {what}")


def reddish(c):
    return c and c[0] >= 230 and c[1] < 120 and c[2] < 120


def bluish(c):
    return c and c[2] >= 230 and c[0] < 150 and c[1] < 150


def centre(b, elem_js):
    return b.js(f"(r => ({{x: r.x + r.width / 2, y: r.y + r.height / 2}}))(({elem_js}).getBoundingClientRect())")


def test_html(b, shot):
    box = ("(n => { const e = Array.from(document.querySelectorAll('#chart .f'))"
           ".find(e => e.textContent === n); if (!e) return null; const r = e.getBoundingClientRect();"
           " const s = getComputedStyle(e);"
           " return {x: r.x, y: r.y, w: r.width, h: r.height, cls: e.className, bg: s.backgroundColor,"
           " outline: s.outlineStyle}; })")
    f = {n: b.js(f"{box}({n!r})") for n in ("grow", "shrink", "steady", "fresh", "main", "gone")}
    for n in ("grow", "shrink", "steady", "fresh", "main"):
        check(f[n] is not None, f"html: frame {n} drawn")
    check(f["gone"] is None, "html: the baseline-only frame gone is not drawn")
    if None in (f["grow"], f["shrink"], f["steady"], f["fresh"], f["main"]):
        return
    grow, shrink, steady = rgb_of(f["grow"]["bg"]), rgb_of(f["shrink"]["bg"]), rgb_of(f["steady"]["bg"])
    check(reddish(grow), f"html: grow is red (got {grow})")
    check(bluish(shrink), f"html: shrink is blue (got {shrink})")
    check(steady == (255, 255, 255), f"html: steady is white (got {steady})")
    check(f["fresh"]["outline"] == "dashed" and f["grow"]["outline"] != "dashed",
          f"html: fresh (only) outlined dashed (got {f['fresh']['outline']})")
    legend = b.js("(e => e && e.textContent)(document.getElementById('legend'))")
    check(legend and "grew" in legend and "shrank" in legend and "only in new" in legend
          and "Frames only in the baseline: 1 (20 samples)" in legend, f"html: legend (got {legend!r})")

    b.screenshot(shot)
    png = png_rows(shot)
    check(row_share(png, f["grow"]["y"] + 3, grow, f["grow"]["x"] + 3, f["grow"]["x"] + f["grow"]["w"] - 3) > 0.8,
          "html: screenshot shows grow in red")
    check(row_share(png, f["shrink"]["y"] + 3, shrink, f["shrink"]["x"] + 3,
                    f["shrink"]["x"] + f["shrink"]["w"] - 3) > 0.8, "html: screenshot shows shrink in blue")

    def hover(n):
        e = f[n]
        b.call("Input.dispatchMouseEvent", type="mouseMoved", x=e["x"] + e["w"] / 2, y=e["y"] + e["h"] / 2)
        return b.js("(t => t.hidden ? null : t.textContent)(document.getElementById('tip'))") or ""
    tip = hover("grow")
    b.screenshot(shot.replace(".png", "-hover.png"))
    check("grow" in tip and "100 samples" in tip and "50.00%" in tip and "baseline 10 samples, 10.00%" in tip
          and "self +40.00 pp, total +40.00 pp" in tip, f"html: hover grow (got {tip!r})")
    tip = hover("shrink")
    check("self -30.00 pp, total -30.00 pp" in tip, f"html: hover shrink (got {tip!r})")
    tip = hover("fresh")
    check("only in new" in tip and "+10.00 pp" in tip, f"html: hover fresh (got {tip!r})")
    tip = hover("main")
    check("20 baseline samples in callees only in baseline" in tip, f"html: hover main (got {tip!r})")

    # zoom into grow: it fills the chart, its siblings go
    chart_w = b.js("document.getElementById('chart').clientWidth")
    b.click(f["grow"]["x"] + f["grow"]["w"] / 2, f["grow"]["y"] + f["grow"]["h"] / 2)
    z = b.js(f"{box}('grow')")
    check(z and abs(z["w"] - chart_w) <= 1 and reddish(rgb_of(z["bg"])), f"html: zoomed grow fills the width ({z})")
    check(b.js(f"{box}('shrink')") is None, "html: sibling shrink gone after the zoom")
    b.js("document.getElementById('reset').click()")

    sb = centre(b, "document.getElementById('search')")
    b.click(sb["x"], sb["y"])
    b.call("Input.insertText", text="shr")
    b.js("new Promise(r => { const t0 = Date.now(); (function w() {"
         " if (document.querySelector('#chart .f.m') || Date.now() - t0 > 5000) r();"
         " else setTimeout(w, 20); })(); })")
    hits = b.js("Array.from(document.querySelectorAll('#chart .f.m')).map(e => e.textContent)")
    check(hits == ["shrink"], f"html: search paints shrink (got {hits})")
    matched = b.js("document.getElementById('matched').textContent")
    check(matched and "Matched: 10.00%" in matched, f"html: matched share (got {matched!r})")


def test_svg(b, shot):
    g = ("(n => { const i = pa_flame.names.indexOf(n); if (i < 0) return null;"
         " const g = document.getElementById('frames').children[i], r = g.children[1];"
         " const b = r.getBoundingClientRect();"
         " return {x: b.x, y: b.y, w: +r.getAttribute('width'), h: b.height, sw: b.width,"
         " hidden: g.classList.contains('hide'), fill: r.getAttribute('fill'),"
         " dash: getComputedStyle(r).strokeDasharray}; })")
    f = {n: b.js(f"{g}({n!r})") for n in ("grow", "shrink", "steady", "fresh", "main", "gone")}
    for n in ("grow", "shrink", "steady", "fresh", "main"):
        check(f[n] is not None, f"svg: frame {n} present")
    check(f["gone"] is None, "svg: the baseline-only frame gone is not drawn")
    if None in (f["grow"], f["shrink"], f["steady"], f["fresh"], f["main"]):
        return
    grow, shrink, steady = rgb_of(f["grow"]["fill"]), rgb_of(f["shrink"]["fill"]), rgb_of(f["steady"]["fill"])
    check(reddish(grow), f"svg: grow is red (got {grow})")
    check(bluish(shrink), f"svg: shrink is blue (got {shrink})")
    check(steady == (255, 255, 255), f"svg: steady is white (got {steady})")
    check(f["fresh"]["dash"] not in ("none", "", None) and f["grow"]["dash"] in ("none", ""),
          f"svg: fresh (only) outlined dashed (got {f['fresh']['dash']!r}, {f['grow']['dash']!r})")
    legend = b.js("(e => e && e.textContent)(document.getElementById('legend'))")
    check(legend and "grew" in legend and "only in new" in legend
          and "Frames only in the baseline: 1 (20 samples)" in legend, f"svg: legend (got {legend!r})")

    b.screenshot(shot)
    png = png_rows(shot)
    check(row_share(png, f["grow"]["y"] + 3, grow, f["grow"]["x"] + 3, f["grow"]["x"] + f["grow"]["sw"] - 3) > 0.8,
          "svg: screenshot shows grow in red")
    check(row_share(png, f["shrink"]["y"] + 3, shrink, f["shrink"]["x"] + 3,
                    f["shrink"]["x"] + f["shrink"]["sw"] - 3) > 0.8, "svg: screenshot shows shrink in blue")

    def hover(n):
        e = f[n]
        b.call("Input.dispatchMouseEvent", type="mouseMoved", x=e["x"] + 5, y=e["y"] + e["h"] / 2)
        return b.js("document.getElementById('details').textContent") or ""
    d = hover("grow")
    check("grow (100 samples, 50.00%; baseline 10, 10.00%; self +40.00 pp, total +40.00 pp)" in d,
          f"svg: hover grow (got {d!r})")
    d = hover("shrink")
    check("self -30.00 pp" in d, f"svg: hover shrink (got {d!r})")
    d = hover("fresh")
    check("only in new" in d, f"svg: hover fresh (got {d!r})")

    full = b.js("pa_fg.width - 2 * pa_fg.xpad")
    b.click(f["grow"]["x"] + 5, f["grow"]["y"] + f["grow"]["h"] / 2)
    z, sib = b.js(f"{g}('grow')"), b.js(f"{g}('shrink')")
    check(z and abs(z["w"] - full) <= 1, f"svg: zoomed grow fills the width ({z})")
    check(sib and sib["hidden"], "svg: sibling shrink hidden after the zoom")
    b.js("pa_flame.unzoom()")

    sr = centre(b, "document.getElementById('search')")
    mid = b.click(sr["x"], sr["y"], wait=False)
    b.event("Page.javascriptDialogOpening")
    b.call("Page.handleJavaScriptDialog", accept=True, promptText="shr")
    b.reply(mid)
    painted = b.js("Array.from(document.querySelectorAll('#frames > g')).filter(g =>"
                   " g.children[1].getAttribute('fill') === pa_fg.search_fill).map(g => g.children[2].textContent)")
    check(painted == ["shrink"], f"svg: search paints shrink (got {painted})")
    matched = b.js("document.getElementById('matched').textContent")
    check(matched == "Matched: 10.00%", f"svg: matched share (got {matched!r})")


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    chromium, workdir, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    signal.alarm(120)
    b = start(chromium, workdir, 1400, 900)
    try:
        for path in paths:  # one browser for all: starting one is the slow part
            b.call("Page.navigate", url="file://" + os.path.abspath(path))
            b.event("Page.loadEventFired")
            b.js("new Promise(r => requestAnimationFrame(() => setTimeout(r, 50)))")
            kind = "svg" if path.endswith(".svg") else "html"
            shot = os.path.join(workdir, f"flamediff-{kind}.png")
            before = len(FAILS)
            (test_svg if kind == "svg" else test_html)(b, shot)
            errors = [e for e in b.events if e["method"] == "Runtime.exceptionThrown" or (
                e["method"] == "Runtime.consoleAPICalled" and e["params"]["type"] == "error")]
            b.events.clear()
            check(not errors, f"{kind}: no script errors (got {errors[:2]})")
            print(f"{os.path.basename(path)}: {'ok' if len(FAILS) == before else 'failed'}")
    finally:
        b.close()
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
