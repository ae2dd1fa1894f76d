#!/usr/bin/env python3
"""flamegraph_cdp.py - drive headless Chromium over the DevTools protocol to
check an interactive flame graph written by `pa flamegraph`.

    flamegraph_cdp.py CHROMIUM FILE.html|FILE.svg WORKDIR

The graph must come from the folded stacks written by flamegraph.sh: it
clicks "compute" and expects it to fill the width while its sibling
"parse_input" disappears, searches "vector|operator" (via the search box,
or the SVG's Search prompt) and expects those frames painted and
"Matched: 45.45%", hovers a frame and expects its details, and saves a
screenshot as WORKDIR/NAME-zoomed.png. Prints FAIL lines; exits 0 when all
checks pass, 1 when one fails, 77 when Chromium cannot be started.
python3 standard library only: the WebSocket client is the minimum CDP needs.
"""
import base64
import http.client
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import zlib

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
         "--window-size=1200,700", "--hide-scrollbars"]


def free_port():
    """A TCP port nothing listens on now, for a browser's debugging server."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_port(port, seconds, alive=None):
    """Whether something listens on port within seconds; alive() (when
    given) is asked between tries and ends the wait when it says False."""
    for _ in range(int(seconds * 10)):
        if alive is not None and not alive():
            return False
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.1)
    return False


class WebSocket:
    """RFC 6455 client: text frames out (masked), frames in, pings answered."""

    def __init__(self, host, port, path):
        self.sock = socket.create_connection((host, port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise OSError("websocket handshake: connection closed")
            head += chunk
        head, self.buf = head.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise OSError("websocket handshake refused: " + head.decode(errors="replace"))

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise OSError("websocket closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _send(self, opcode, data):
        mask = os.urandom(4)
        n = len(data)
        head = bytes([0x80 | opcode])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 1 << 16:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def send(self, text):
        self._send(0x1, text.encode())

    def recv(self):
        message = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            data = self._read(n)
            if mask:
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
            opcode = b0 & 0x0F
            if opcode == 0x9:
                self._send(0xA, data)
                continue
            if opcode == 0x8:
                raise OSError("websocket closed by the browser")
            if opcode in (0x0, 0x1, 0x2):
                message += data
                if b0 & 0x80:
                    return message.decode()


class Browser:
    def __init__(self, chromium, url, workdir):
        self.profile = tempfile.mkdtemp(prefix="chromium-profile-", dir=workdir)
        # chromium's singleton socket directory goes to a TMPDIR of its own,
        # removed by close(); a short path, as a socket's path is limited
        self.tmp = tempfile.mkdtemp(prefix="pa-chromium-")
        self.proc = subprocess.Popen([chromium, *FLAGS, f"--user-data-dir={self.profile}", url],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     env={**os.environ, "TMPDIR": self.tmp})
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        # (up to 60 s: a first start on a loaded machine can be slow)
        for _ in range(600):
            if os.path.exists(port_file) and open(port_file).read().count("\n") >= 1:
                break
            if self.proc.poll() is not None:
                raise OSError(f"chromium exited with status {self.proc.returncode}")
            time.sleep(0.1)
        else:
            raise OSError("chromium did not open its debugging port")
        port = int(open(port_file).read().split()[0])
        pages = []
        for _ in range(100):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", "/json/list")
            pages = [t for t in json.loads(conn.getresponse().read()) if t.get("type") == "page"]
            conn.close()
            if pages:
                break
            time.sleep(0.1)
        if not pages:
            raise OSError("no page target")
        path = pages[0]["webSocketDebuggerUrl"].split(str(port), 1)[1]
        self.ws = WebSocket("127.0.0.1", port, path)
        self.next_id = 0
        self.events = []
        self.replies = {}

    def send(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        return self.next_id

    def _pump(self):
        msg = json.loads(self.ws.recv())
        if "id" in msg:
            self.replies[msg["id"]] = msg
        else:
            self.events.append(msg)

    def reply(self, mid):
        while mid not in self.replies:
            self._pump()
        msg = self.replies.pop(mid)
        if "error" in msg:
            raise RuntimeError(f"CDP error: {msg['error']}")
        return msg.get("result", {})

    def call(self, method, **params):
        return self.reply(self.send(method, **params))

    def event(self, name):
        while True:
            for i, e in enumerate(self.events):
                if e["method"] == name:
                    return self.events.pop(i)["params"]
            self._pump()

    def js(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"exception in {expr!r}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def click(self, x, y, wait=True):
        self.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
        self.call("Input.dispatchMouseEvent", type="mousePressed", x=x, y=y, button="left",
                  clickCount=1)
        mid = self.send("Input.dispatchMouseEvent", type="mouseReleased", x=x, y=y,
                        button="left", clickCount=1)
        return self.reply(mid) if wait else mid

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)
        shutil.rmtree(self.tmp, ignore_errors=True)


def start(chromium, workdir, width, height):
    """A headless Chromium showing pages at width x height; exits 77 when
    it cannot be started."""
    try:
        b = Browser(chromium, "about:blank", workdir)
    except OSError as e:
        print(f"SKIP: cannot drive chromium: {e}")
        sys.exit(77)
    try:
        b.call("Runtime.enable")
        b.call("Page.enable")
        b.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
               deviceScaleFactor=1, mobile=False)
    except BaseException:
        b.close()
        raise
    return b


def png_rows(path):
    """Width, bytes per pixel and the rows of an 8-bit RGB/RGBA PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    if depth != 8 or interlace or ctype not in (2, 6):
        raise ValueError("unexpected PNG layout")
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, bpp, rows


def row_share(png, y, rgb, x0=0, x1=None):
    """The share of pixels of row y in [x0, x1) that have colour rgb (+-2)."""
    w, bpp, rows = png
    row, x1 = rows[int(y)], x1 or w
    hits = sum(1 for x in range(int(x0), int(x1))
               if all(abs(row[x * bpp + k] - rgb[k]) <= 2 for k in range(3)))
    return hits / max(1, int(x1) - int(x0))


def rgb_of(css):
    return tuple(int(v) for v in css[css.index("(") + 1:css.index(")")].split(",")[:3])


FAILS = []


def check(ok, what):
    if not ok:
        FAILS.append(what)
        print(f"FAIL: {what}")


def close_to(a, b, tol=1.0):
    return a is not None and b is not None and abs(a - b) <= tol


EXPECTED = ["all", "myprog", "main", "compute", "parse_input", "std::vector<int>::push_back",
            "operator<<(std::ostream&, char const*)", "vfs_read", "LFoo::bar"]


def test_html(b, shots):
    names = b.js("Array.from(document.querySelectorAll('#chart .f')).map(e => e.textContent)")
    for n in EXPECTED:
        check(n in names, f"html: frame {n!r} drawn")
    box = ("(n => { const e = Array.from(document.querySelectorAll('#chart .f'))"
           ".find(e => e.textContent === n); if (!e) return null; const r = e.getBoundingClientRect();"
           " return {x: r.x, y: r.y, w: r.width, h: r.height, cls: e.className}; })")
    chart_w = b.js("document.getElementById('chart').clientWidth")
    compute, sibling = b.js(f"{box}('compute')"), b.js(f"{box}('parse_input')")
    leaf = b.js(f"{box}('std::vector<int>::push_back')")
    check(compute and sibling and leaf, "html: compute, parse_input, push_back have boxes")
    if not (compute and sibling and leaf):
        return
    check(compute["w"] < chart_w * 0.6, "html: compute is not full width before the click")

    # hover: tooltip with the name, the count and the share
    b.call("Input.dispatchMouseEvent", type="mouseMoved", x=leaf["x"] + 5, y=leaf["y"] + 5)
    tip = b.js("(t => t.hidden ? null : t.textContent)(document.getElementById('tip'))")
    check(tip and "std::vector<int>::push_back" in tip and "30 samples" in tip and "27.27%" in tip,
          f"html: hover tooltip shows name, samples, share (got {tip!r})")

    # click: zoom into compute
    b.click(compute["x"] + compute["w"] / 2, compute["y"] + compute["h"] / 2)
    after = b.js(f"{box}('compute')")
    check(after and close_to(after["w"], chart_w) and close_to(after["x"], b.js(
        "document.getElementById('chart').getBoundingClientRect().x")),
        f"html: clicked frame fills the width ({after and after['w']} of {chart_w})")
    check(b.js(f"{box}('parse_input')") is None, "html: sibling parse_input gone after the zoom")
    leaf2 = b.js(f"{box}('std::vector<int>::push_back')")
    check(leaf2 and leaf2["w"] > leaf["w"] * 1.5, "html: child push_back widened by the zoom")
    main = b.js(f"{box}('main')")
    check(main and " a" in main["cls"], "html: ancestor main still shown, faded")
    check(b.js("!document.getElementById('reset').disabled"), "html: Reset zoom enabled")

    # search through the box: type, then look at the painted frames
    sb = b.js("(r => ({x: r.x + r.width / 2, y: r.y + r.height / 2}))"
              "(document.getElementById('search').getBoundingClientRect())")
    b.click(sb["x"], sb["y"])
    b.call("Input.insertText", text="vector|operator")
    # the search runs from a timer after the input event: wait for its
    # paint (up to 5 s), not for a fixed time
    b.js("new Promise(r => { const t0 = Date.now(); (function w() {"
         " if (document.querySelector('#chart .f.m') || Date.now() - t0 > 5000) r();"
         " else setTimeout(w, 20); })(); })")
    hits = b.js("Array.from(document.querySelectorAll('#chart .f.m')).map(e => e.textContent)")
    check(sorted(hits or []) == sorted(["std::vector<int>::push_back",
                                        "operator<<(std::ostream&, char const*)"]),
          f"html: search paints the matches (got {hits})")
    matched = b.js("document.getElementById('matched').textContent")
    check(matched and "Matched: 45.45%" in matched, f"html: matched share (got {matched!r})")
    bg = b.js("getComputedStyle(document.querySelector('#chart .f.m')).backgroundColor")
    check(bg == "rgb(230, 0, 230)", f"html: matches in magenta (got {bg!r})")
    b.screenshot(shots + "-zoomed.png")
    png = png_rows(shots + "-zoomed.png")
    z = b.js(f"{box}('compute')")
    zbg = rgb_of(b.js("getComputedStyle(document.querySelector('#chart .f.z')).backgroundColor"))
    x0 = b.js("document.getElementById('chart').getBoundingClientRect().x")
    check(row_share(png, z["y"] + 2, zbg, x0 + 2, x0 + chart_w - 2) > 0.9,
          "html: screenshot shows compute across the width")
    check(row_share(png, leaf2["y"] + 2, (230, 0, 230), x0 + 2, x0 + chart_w - 2) > 0.9,
          "html: screenshot shows the matches in magenta")

    # reset zoom: the sibling comes back
    rb = b.js("(r => ({x: r.x + r.width / 2, y: r.y + r.height / 2}))"
              "(document.getElementById('reset').getBoundingClientRect())")
    b.click(rb["x"], rb["y"])
    check(b.js(f"{box}('parse_input')") is not None, "html: Reset zoom brings parse_input back")


def test_svg(b, shots):
    names = b.js("pa_flame.names")
    for n in EXPECTED:
        check(n in (names or []), f"svg: frame {n!r} present")
    g = ("(n => { const i = pa_flame.names.indexOf(n); if (i < 0) return null;"
         " const g = document.getElementById('frames').children[i], r = g.children[1];"
         " const b = r.getBoundingClientRect();"
         " return {x: b.x, y: b.y, w: +r.getAttribute('width'), h: b.height,"
         " hidden: g.classList.contains('hide'), fill: r.getAttribute('fill'),"
         " label: g.children[2].textContent}; })")
    full = b.js("pa_fg.width - 2 * pa_fg.xpad")
    compute, leaf = b.js(f"{g}('compute')"), b.js(f"{g}('std::vector<int>::push_back')")
    check(compute and leaf, "svg: compute and push_back frames")
    if not (compute and leaf):
        return
    check(compute["label"] == "compute", "svg: compute labelled")
    b.call("Input.dispatchMouseEvent", type="mouseMoved", x=leaf["x"] + 5, y=leaf["y"] + 5)
    details = b.js("document.getElementById('details').textContent")
    check(details and "std::vector<int>::push_back (30 samples, 27.27%)" in details,
          f"svg: hover details (got {details!r})")

    b.click(compute["x"] + 20, compute["y"] + compute["h"] / 2)
    after, sib = b.js(f"{g}('compute')"), b.js(f"{g}('parse_input')")
    check(after and close_to(after["w"], full), f"svg: clicked frame fills the width ({after})")
    check(sib and sib["hidden"], "svg: sibling parse_input hidden after the zoom")
    leaf2 = b.js(f"{g}('std::vector<int>::push_back')")
    check(leaf2 and leaf2["w"] > leaf["w"] * 1.5 and not leaf2["hidden"], "svg: child widened")
    check(not b.js("document.getElementById('unzoom').classList.contains('hide')"),
          "svg: Reset Zoom shown")

    # Search: click the button, answer its prompt
    sr = b.js("(r => ({x: r.x + r.width / 2, y: r.y + r.height / 2}))"
              "(document.getElementById('search').getBoundingClientRect())")
    mid = b.click(sr["x"], sr["y"], wait=False)
    b.event("Page.javascriptDialogOpening")
    b.call("Page.handleJavaScriptDialog", accept=True, promptText="vector|operator")
    b.reply(mid)
    painted = b.js("Array.from(document.querySelectorAll('#frames rect'))"
                   ".filter(r => r.getAttribute('fill') === pa_fg.search_fill).length")
    check(painted == 2, f"svg: search paints 2 frames (got {painted})")
    matched = b.js("document.getElementById('matched').textContent")
    check(matched == "Matched: 45.45%", f"svg: matched share (got {matched!r})")
    b.screenshot(shots + "-zoomed.png")
    png = png_rows(shots + "-zoomed.png")
    z, left = b.js(f"{g}('compute')"), b.js(f"{g}('all')")["x"]
    check(row_share(png, z["y"] + 2, rgb_of(z["fill"]), left + 3, left + full - 3) > 0.9,
          "svg: screenshot shows compute across the width")
    lf = b.js(f"{g}('std::vector<int>::push_back')")
    check(row_share(png, lf["y"] + 2, (230, 0, 230), left + 3, left + full - 3) > 0.9,
          "svg: screenshot shows the matches in magenta")

    ur = b.js("(r => ({x: r.x + r.width / 2, y: r.y + r.height / 2}))"
              "(document.getElementById('unzoom').getBoundingClientRect())")
    b.click(ur["x"], ur["y"])
    sib = b.js(f"{g}('parse_input')")
    check(sib and not sib["hidden"], "svg: Reset Zoom shows parse_input again")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    chromium, path, workdir = sys.argv[1:]
    signal.alarm(120)
    b = start(chromium, workdir, 1200, 600)
    try:
        b.call("Page.navigate", url="file://" + os.path.abspath(path))
        b.event("Page.loadEventFired")
        b.js("new Promise(r => requestAnimationFrame(() => setTimeout(r, 50)))")
        shots = os.path.join(workdir, os.path.basename(path).replace(".", "-"))
        if path.endswith(".svg"):
            test_svg(b, shots)
        else:
            test_html(b, shots)
        errors = [e for e in b.events if e["method"] == "Runtime.exceptionThrown" or (
            e["method"] == "Runtime.consoleAPICalled" and e["params"]["type"] == "error")]
        check(not errors, f"no script errors (got {errors[:2]})")
    finally:
        b.close()
    print(f"{os.path.basename(path)}: {'ok' if not FAILS else f'{len(FAILS)} failed'}")
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
