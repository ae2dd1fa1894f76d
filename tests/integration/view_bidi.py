#!/usr/bin/env python3
"""view_bidi.py - pa view's page in headless Firefox, over WebDriver BiDi.

    view_bidi.py FIREFOX PA WORKDIR PAGE.html FIXTURE [REPORT OPTIONS...] ...

(the arguments of view_cdp.py browser: pages and their fixtures, each with
pa report's options). Firefox starts headless with a fresh profile (its
user.js turns off what would reach the network: updates, telemetry,
captive portal, normandy, safe browsing, first-run pages) on a free port;
this speaks WebDriver BiDi over the WebSocket client of flamegraph_cdp.py
and checks with view_cdp.py's helpers, per page:

- the page loads without a JavaScript error (log.entryAdded events), its
  script ran (paView) and built its views (tabs, panes, timeline, flame
  graph canvas);
- the flat table (paView.flat()) is pa report --children/--no-children's,
  every row; the top-down and bottom-up trees agree with it;
- the flame graph has frames drawn in the first 1400x900 view, and a
  screenshot (WORKDIR/view-firefox.png for the first page,
  view-firefox-NAME.png for the others) is not blank and shows them;
- a comm filter and a DSO filter give pa report --comms/--dsos's table;
- a time range dragged on the timeline with Firefox's own mouse events
  gives pa report --time's table;
- a regular expression typed into the search box keeps and marks the
  matching rows (flat table, top-down tree, flame graph);
- a click on a flame frame selects its function and zooms on it.

Firefox's own output goes to WORKDIR/view-firefox.log. Prints FAIL lines
and a count; exits 0 when all checks pass, 1 when one fails, 77 when
Firefox cannot be started or driven. python3 standard library only.
"""
import base64
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flamegraph_cdp import WebSocket, free_port, png_rows, wait_port  # noqa: E402 (the shared WebSocket client)
import view_cdp as V  # noqa: E402 (checks against pa report)

WIDTH, HEIGHT = 1400, 900
CHECKS = [0]
_check = V.check


def counted(ok, what):
    """view_cdp.py's check(), counted (its helpers call it through here)."""
    CHECKS[0] += 1
    return _check(ok, what)


V.check = counted
# a fresh profile on a closed network: nothing fetched, no first-run page
PREFS = {
    "app.update.enabled": False,
    "app.update.auto": False,
    "app.normandy.enabled": False,
    "app.shield.optoutstudies.enabled": False,
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.startup.page": 0,
    "browser.aboutwelcome.enabled": False,
    "browser.safebrowsing.downloads.enabled": False,
    "browser.safebrowsing.downloads.remote.enabled": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "browser.safebrowsing.blockedURIs.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.enabled": False,
    "toolkit.telemetry.unified": False,
    "toolkit.telemetry.server": "",
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "messaging-system.rsexperimentloader.enabled": False,
    "browser.newtabpage.enabled": False,
    "network.dns.disablePrefetch": True,
    "network.prefetch-next": False,
    "extensions.update.enabled": False,
    "extensions.getAddons.cache.enabled": False,
    "remote.prefs.recommended": True,
}


class Firefox:
    """Headless Firefox and one WebDriver BiDi session on its first tab."""

    def __init__(self, firefox, workdir):
        self.proc = self.ws = None
        self.profile = tempfile.mkdtemp(prefix="firefox-profile-", dir=workdir)
        try:
            self._start(firefox, workdir)
        except BaseException:
            self.close()
            raise

    def _start(self, firefox, workdir):
        with open(os.path.join(self.profile, "user.js"), "w") as f:
            for k, v in PREFS.items():
                f.write(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n")
        port = free_port()
        self.log = os.path.join(workdir, "view-firefox.log")
        with open(self.log, "wb") as log:
            # its own process group: the content processes go with it
            self.proc = subprocess.Popen(
                [firefox, "--headless", f"--remote-debugging-port={port}", "--profile",
                 self.profile, "--no-remote", "about:blank"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                env={**os.environ, "MOZ_CRASHREPORTER_DISABLE": "1"})
        # (up to 60 s: a first start on a loaded machine can be slow)
        if not wait_port(port, 60, lambda: self.proc.poll() is None):
            if self.proc.poll() is not None:
                raise OSError(f"firefox exited with status {self.proc.returncode}: "
                              f"{self.log_tail()}")
            raise OSError("firefox did not open its remote debugging port")
        self.ws = WebSocket("127.0.0.1", port, "/session")
        self.next_id = 0
        self.events = []
        self.replies = {}
        self.call("session.new", capabilities={})
        self.call("session.subscribe", events=["log.entryAdded"])
        self.ctx = self.call("browsingContext.getTree")["contexts"][0]["context"]
        self.call("browsingContext.setViewport", context=self.ctx,
                  viewport={"width": WIDTH, "height": HEIGHT}, devicePixelRatio=1)

    def log_tail(self):
        try:
            return " | ".join(open(self.log, errors="replace").read().splitlines()[-3:])
        except OSError:
            return ""

    def send(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        return self.next_id

    def reply(self, mid):
        while mid not in self.replies:
            msg = json.loads(self.ws.recv())
            if msg.get("type") == "event":
                self.events.append(msg)
            elif "id" in msg:
                self.replies[msg["id"]] = msg
        msg = self.replies.pop(mid)
        if msg.get("type") == "error":
            raise RuntimeError(f"BiDi error: {msg.get('error')}: {msg.get('message')}")
        return msg.get("result", {})

    def call(self, method, **params):
        return self.reply(self.send(method, **params))

    def js(self, expr):
        """expr's value (awaited) as JSON: what view_cdp.py's checks take."""
        r = self.call("script.evaluate", target={"context": self.ctx}, awaitPromise=True,
                      expression=f"Promise.resolve(({expr})).then(v => JSON.stringify(v))")
        if r.get("type") == "exception":
            d = r.get("exceptionDetails", {})
            raise RuntimeError(f"exception in {expr!r}: {d.get('text')}")
        v = r["result"]
        return json.loads(v["value"]) if v.get("type") == "string" else None

    def navigate(self, url):
        self.call("browsingContext.navigate", context=self.ctx, url=url, wait="complete")

    def errors(self):
        """The page's JavaScript errors and console errors seen so far."""
        out = [e["params"] for e in self.events if e.get("method") == "log.entryAdded" and
               e["params"].get("level") == "error"]
        self.events = []
        return out

    def screenshot(self, path):
        data = self.call("browsingContext.captureScreenshot", context=self.ctx)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def mouse(self, *steps):
        """A pointer action sequence: ("move", x, y), ("down",), ("up",)."""
        acts = []
        for s in steps:
            if s[0] == "move":
                acts.append({"type": "pointerMove", "x": int(s[1]), "y": int(s[2])})
            else:
                acts.append({"type": "pointer" + s[0].capitalize(), "button": 0})
        self.call("input.performActions", context=self.ctx, actions=[
            {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
             "actions": acts}])
        self.call("input.releaseActions", context=self.ctx)

    def type(self, text):
        acts = []
        for ch in text:
            acts += [{"type": "keyDown", "value": ch}, {"type": "keyUp", "value": ch}]
        self.call("input.performActions", context=self.ctx,
                  actions=[{"type": "key", "id": "keyboard", "actions": acts}])

    def wait(self, expr, seconds=10):
        for _ in range(int(seconds * 20)):
            if self.js(expr):
                return True
            time.sleep(0.05)
        return False

    def close(self):
        if self.proc is not None and self.proc.poll() is None and self.ws is not None:
            try:  # (Firefox ends its content processes itself)
                self.ws.sock.settimeout(10)
                self.call("browser.close")
                self.proc.wait(timeout=15)
            except (OSError, RuntimeError, ValueError, subprocess.TimeoutExpired):
                pass
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.terminate()
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                pass
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)


def check_views(b, name):
    """The page's script ran and built its views, without an error."""
    errs = b.errors()
    for e in errs:
        print(f"    {e.get('type')} error: {e.get('text')}")
    V.check(not errs, f"{name}: page loaded without a JavaScript error ({len(errs)})")
    if not V.check(b.js("typeof paView === 'object'"), f"{name}: page script ran (paView)"):
        return False
    views = b.js("(a => a ? {tabs: Array.from(a.querySelectorAll('.tabs button'))"
                 ".map(e => e.dataset.tab), panes: Array.from(a.querySelectorAll('.pane'))"
                 ".map(e => e.id), timeline: !!a.querySelector('#timeline canvas'), "
                 "flame: !!a.querySelector('#flame canvas'), hdr: (a.querySelector('.hdr') || "
                 "{textContent: ''}).textContent.includes('samples')} : null)"
                 "(document.getElementById('app'))")
    ok = V.check(views and views["tabs"] == ["flame", "td", "bu", "flat", "src"] and
                 views["panes"] == ["pane-flame", "pane-td", "pane-bu", "pane-flat",
                                    "pane-src"] and
                 views["timeline"] and views["flame"], f"{name}: #app holds the views {views}")
    V.check(views and views["hdr"], f"{name}: header summary shown")
    return ok


def check_shot(shot, name):
    """The screenshot is the viewport and not one colour."""
    w, bpp, rows = png_rows(shot)
    colours = set()
    for y in range(0, len(rows), 7):
        row = rows[y]
        for x in range(0, w, 7):
            colours.add(row[x * bpp:x * bpp + 3])
    V.check(w == WIDTH and len(rows) == HEIGHT, f"{name}: screenshot {w}x{len(rows)}, "
            f"viewport {WIDTH}x{HEIGHT}")
    V.check(len(colours) > 8, f"{name}: screenshot not blank ({len(colours)} colours)")


def drag_time(b, pa, name, fixture, ropts, d):
    """A time range dragged on the timeline with the mouse: pa report --time's table."""
    if not d.get("has_time"):
        return
    r = b.js("(r => ({x: r.x, y: r.y, w: r.width}))"
             "(document.getElementById('timeline').getBoundingClientRect())")
    if r["y"] + 6 >= HEIGHT:
        V.check(False, f"{name}: timeline within the first view (at y {r['y']})")
        return
    x0, x1 = r["x"] + 160 + (r["w"] - 160) * 0.3, r["x"] + 160 + (r["w"] - 160) * 0.7
    y = r["y"] + 6
    b.mouse(("move", x0, y), ("down",), ("move", (x0 + x1) / 2, y), ("move", x1, y), ("up",))
    ta = b.js("paView.timeArg()")
    if V.check(ta, f"{name}: dragging on the timeline chooses a time range"):
        V.same_flat(b, f"{name}: --time {ta}", pa, fixture, ropts, ["--time", ta])
    b.js("document.getElementById('f-alltime').click()")
    V.check(not b.js("paView.timeArg()"), f"{name}: 'whole recording' resets the time range")


def search_typed(b, name):
    """A regular expression typed into the search box."""
    b.js("paView.showTab('flat')")
    names = [r["name"] for r in b.js("paView.flat()")]
    pat = "^(main|__libc|0x0000)|burn|leaf"
    want = sorted(n for n in names if re.search(pat, n))
    b.js("(e => (e.value = '', e.focus()))(document.getElementById('search'))")
    b.type(pat)
    V.check(b.wait("paView.state.re !== null && paView.state.re.source === "
                   + json.dumps(pat)), f"{name}: search typed into the box ran")
    got = b.js("paView.flat()")
    V.check(sorted(r["name"] for r in got) == want and all(r["match"] for r in got),
            f"{name}: search {pat!r} keeps and marks {len(want)} rows (got {len(got)})")
    b.js("paView.showTab('td')")
    tdm = b.js("Array.from(document.querySelectorAll('#td .row.m .fn')).map(e => e.textContent)")
    V.check(all(re.search(pat, n) for n in tdm) and (tdm or not want),
            f"{name}: search marks top-down rows ({len(tdm)})")
    b.js("paView.showTab('flame')")
    fm = [f for f in b.js("paView.flameFrames()") if f["match"]]
    V.check(bool(fm) == bool(want) and all(re.search(pat, f["name"]) for f in fm),
            f"{name}: search paints flame frames ({len(fm)})")
    V.check(b.js("document.getElementById('matched').textContent").startswith("Matched: "),
            f"{name}: matched share shown")
    b.js("paView.search('')")


def click_flame(b, name):
    """A click on the widest frame above the root: selected and zoomed on."""
    b.js("paView.showTab('flame')")
    fr = b.js("paView.flameFrames()")
    top, left = V.flame_in_view(b, HEIGHT)
    wide = [f for f in fr if f["d"] >= 1 and f["w"] >= 4]
    cands = [f for f in wide if 0 < top + f["y"] + 8 < HEIGHT]
    V.check(cands or not wide, f"{name}: a wide flame frame above the root in view")
    if not cands:
        V.scroll_home(b)
        return
    f = max(cands, key=lambda f: (f["w"], -f["d"]))
    b.mouse(("move", left + f["x"] + f["w"] / 2, top + f["y"] + 8), ("down",), ("up",))
    V.scroll_home(b)
    sel = b.js("document.getElementById('selected').textContent")
    V.check(sel.startswith(f"selected: {f['name']} ["),
            f"{name}: a click on flame frame {f['name']!r} selects it ({sel!r})")
    V.check(b.js("paView.state.zoom !== null"), f"{name}: the click zooms on the frame")
    b.js("(document.getElementById('flame-reset').click(), paView.select(-1))")


def browse_one(b, pa, workdir, page, fixture, ropts, shot):
    name = "firefox " + os.path.basename(page).rsplit(".", 1)[0]
    b.errors()
    b.navigate("file://" + os.path.abspath(page))
    if not check_views(b, name):
        return
    d = V.page_data(page)
    V.D_CHAIN[:] = [1] if any(len(s) > 2 for s in d["stacks"]) else []
    fr = V.check_flame(b, name, shot)
    check_shot(shot, name)
    b.js("paView.showTab('flat')")
    V.same_flat(b, f"{name}: flat", pa, fixture, ropts, [])
    V.check_trees(b, name)
    b.js("paView.showTab('flat')")
    comms = b.js("Array.from(document.getElementById('f-comm').options).map(o => o.value)"
                 ".filter(v => v)")
    if comms:
        c = comms[-1]
        b.js(f"paView.setFilter({{comm: {json.dumps(c)}}})")
        V.same_flat(b, f"{name}: --comms {c}", pa, fixture, ropts, ["--comms", c])
        b.js("paView.setFilter({comm: ''})")
    dsos = b.js("Array.from(document.getElementById('f-dso').options).map(o => o.value)"
                ".filter(v => v)")
    if dsos:
        b.js(f"paView.setFilter({{dso: {json.dumps(dsos[0])}}})")
        V.same_flat(b, f"{name}: --dsos {dsos[0]}", pa, fixture, ropts, ["--dsos", dsos[0]])
        b.js("paView.setFilter({dso: ''})")
    drag_time(b, pa, name, fixture, ropts, d)
    search_typed(b, name)
    if fr:
        click_flame(b, name)
    errs = b.errors()
    for e in errs:
        print(f"    {e.get('type')} error: {e.get('text')}")
    V.check(not errs, f"{name}: no JavaScript error while used ({len(errs)})")


def main():
    if len(sys.argv) < 6:
        print(__doc__)
        return 2
    firefox, pa, workdir, *rest = sys.argv[1:]
    # a kill (ctest's timeout) still ends Firefox and removes the profile
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    b = None
    try:
        try:
            b = Firefox(firefox, workdir)
        except (OSError, RuntimeError) as e:
            print(f"SKIP: cannot drive firefox over WebDriver BiDi: {e}")
            return 77
        first = True
        for page, fixture, ropts in V.pages_of(rest):
            base = os.path.basename(page).rsplit(".", 1)[0]
            shot = os.path.join(workdir, "view-firefox.png" if first else
                                f"view-firefox-{base}.png")
            first = False
            try:
                browse_one(b, pa, workdir, page, fixture, ropts, shot)
            except RuntimeError as e:  # (a script exception: the page's fault)
                V.check(False, f"firefox {base}: {e}")
    finally:
        if b is not None:
            b.close()
    print(f"firefox: {CHECKS[0]} checks, {len(V.FAILS)} failed")
    return 1 if V.FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
