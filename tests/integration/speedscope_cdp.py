#!/usr/bin/env python3
"""speedscope_cdp.py - check `pa export --format speedscope` files: the JSON
against perf's numbers, and what speedscope itself makes of them in headless
Chromium (driven over the DevTools protocol with flamegraph_cdp.py's client).

    speedscope_cdp.py json FILE.json REPORT.txt [options]
        The file's structure (speedscope's file format; with --schema, also
        the JSON schema speedscope ships), and per profile the samples and
        total period `pa report --stdio --sort tid|pid -n
        --show-total-period -g none --no-children` printed in REPORT.txt
        for its thread (process with --per-process) and event.
        --schema FILE      file-format-schema.json to validate against
        --exporter TEXT    the exporter field expected ("pa VERSION")
        --per-process      profiles are processes: REPORT.txt sorts by pid
        --unit UNIT        every profile's unit (default: nanoseconds for
                           cpu-clock and task-clock, else none)
        --folded FILE      the profiles' stacks, named and summed as
                           perf script | stackcollapse-perf.pl --period
                           would, must be FILE's lines (perf's own answer)

    speedscope_cdp.py browser CHROMIUM RELEASE_DIR WORKDIR FILE.json...
        Serves speedscope's release directory and the files from 127.0.0.1
        (python3 -m http.server, a free port), opens each file through
        speedscope's #profileURL=, and checks: the title, the active profile
        named in the toolbar, the profile list with every profile's name and
        total weight (several profiles), the flame chart drawn (screenshot
        pixels), the Sandwich view's totals and self weights of the visible
        rows, no script errors. Saves WORKDIR/speedscope-NAME.png (flame
        chart) and WORKDIR/speedscope-NAME-sandwich.png, printing their
        paths.

Prints FAIL lines; exits 0 when all checks pass, 1 when one fails, 77 when
Chromium cannot be started (browser). python3 standard library only.
"""
import collections
import decimal
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flamegraph_cdp import Browser, free_port, png_rows, wait_port  # noqa: E402 (the shared CDP client)

SCHEMA_URL = "https://www.speedscope.app/file-format-schema.json"
FAILS = []


def check(ok, what):
    if not ok:
        FAILS.append(what)
        print(f"FAIL: {what}")
    return ok


# ---- the JSON ----

def validate(schema, node, value, path="$"):
    """The draft-07 subset speedscope's schema uses: $ref, type, const,
    enum, properties, required, items, anyOf. A list of errors."""
    if "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#/definitions/"), ref
        return validate(schema, schema["definitions"][ref[len("#/definitions/"):]], value, path)
    errs = []
    t = node.get("type")
    types = {"object": dict, "array": list, "string": str, "number": (int, float),
             "integer": int, "boolean": bool}
    if t and (not isinstance(value, types[t]) or (t in ("number", "integer") and
                                                     isinstance(value, bool))):
        return [f"{path}: not a {t}"]
    if "const" in node and value != node["const"]:
        errs.append(f"{path}: {value!r} is not {node['const']!r}")
    if "enum" in node and value not in node["enum"]:
        errs.append(f"{path}: {value!r} not one of {node['enum']}")
    if "anyOf" in node and all(validate(schema, s, value, path) for s in node["anyOf"]):
        errs.append(f"{path}: matches none of anyOf")
    if isinstance(value, dict):
        for k in node.get("required", []):
            if k not in value:
                errs.append(f"{path}: no {k!r}")
        for k, sub in node.get("properties", {}).items():
            if k in value:
                errs += validate(schema, sub, value[k], f"{path}.{k}")
    if isinstance(value, list) and "items" in node:
        for i, v in enumerate(value):
            errs += validate(schema, node["items"], v, f"{path}[{i}]")
            if len(errs) > 5:
                break
    return errs


def report_rows(path, per_process):
    """{(event, id): (comm, samples, period)} from pa report's sections;
    event is the section's event name."""
    rows, event = {}, None
    key = re.compile(r"^\s+[0-9.]+%\s+(\d+)\s+(\d+)\s+(-?\d+):(.*?)\s*$")
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"^# Samples: .* of event '(.*)'$", line)
        if m:
            event = m.group(1)
            continue
        m = key.match(line)
        if m and event is not None:
            rows[(event, int(m.group(3)))] = (m.group(4), int(m.group(1)), int(m.group(2)))
    return rows


def tidy(name):
    """A frame's name as stackcollapse-perf.pl makes it of perf script's
    "NAME (DSO)": no " (inlined)", "[DSO]" for an unknown symbol, cut at
    the first "(" (but "(anonymous namespace)"), no quotes, ';' -> ':'."""
    if name.endswith(" (inlined)"):
        name = name[:-len(" (inlined)")]
    m = re.fullmatch(r"\[unknown\] \((.*)\)", name)
    if m:
        name = "[" + m.group(1).rsplit("/", 1)[-1] + "]"
    else:
        cut = len(name)
        for i, c in enumerate(name):
            if c == "(" and not name.startswith("(anonymous namespace)", i):
                cut = i
                break
        name = name[:cut]
    return name.replace('"', "").replace("'", "").replace(";", ":")


def check_json(argv):
    path, report = argv[0], argv[1]
    opts = {"--schema": None, "--exporter": None, "--folded": None, "--unit": None}
    per_process, i = False, 2
    while i < len(argv):
        if argv[i] == "--per-process":
            per_process, i = True, i + 1
        else:
            opts[argv[i]], i = argv[i + 1], i + 2
    what = os.path.basename(path)
    try:
        d = json.load(open(path, encoding="utf-8"))
    except (OSError, ValueError) as e:
        check(False, f"{what}: not JSON: {e}")
        return
    if opts["--schema"]:
        errs = validate(json.load(open(opts["--schema"])), {"$ref": "#/definitions/FileFormat.File"}, d)
        check(not errs, f"{what}: speedscope's schema: {errs[:3]}")
    check(d.get("$schema") == SCHEMA_URL, f"{what}: $schema")
    if opts["--exporter"]:
        check(d.get("exporter") == opts["--exporter"],
              f"{what}: exporter {d.get('exporter')!r}, want {opts['--exporter']!r}")
    frames, profiles = d["shared"]["frames"], d["profiles"]
    # frames: each once; file and line together, a positive line
    keys = [(f.get("name"), f.get("file"), f.get("line")) for f in frames]
    check(len(set(keys)) == len(keys), f"{what}: a frame listed twice")
    for f in frames:
        ok = isinstance(f.get("name"), str) and f["name"] and set(f) <= {"name", "file", "line"}
        ok = ok and ("file" in f) == ("line" in f)
        ok = ok and ("line" not in f or (isinstance(f["line"], int) and f["line"] > 0 and
                                         isinstance(f["file"], str) and f["file"]))
        if not check(ok, f"{what}: frame {f}"):
            break
    used = set()
    for p in profiles:
        n, w = p["samples"], p["weights"]
        check(p["type"] == "sampled" and p["startValue"] == 0 and p["endValue"] == sum(w) and
              len(n) == len(w), f"{what}: profile {p['name']!r}: type, values, lengths")
        check(all(s and all(isinstance(x, int) and 0 <= x < len(frames) for x in s) for s in n),
              f"{what}: profile {p['name']!r}: a stack empty or out of range")
        check(all(isinstance(x, int) and x >= 0 for x in w), f"{what}: {p['name']!r}: weights")
        for s in n:
            used.update(s)
    check(len(used) == len(frames), f"{what}: {len(frames) - len(used)} frames in no sample")
    totals = [sum(p["weights"]) for p in profiles]
    if profiles:
        check(d.get("activeProfileIndex") == totals.index(max(totals)),
              f"{what}: activeProfileIndex {d.get('activeProfileIndex')} is not the heaviest")

    # the numbers of pa report, per thread (process) and event
    rows = report_rows(report, per_process)
    events = sorted({e for e, _ in rows})
    several = len(events) > 1
    want = {}
    for (event, tid), (comm, samples, period) in rows.items():
        name = f"{comm} ({tid})" + (f" {event}" if several else "")
        unit = opts["--unit"] or (
            "nanoseconds" if event.split(":")[0] in ("cpu-clock", "task-clock") else "none")
        want[name] = (samples, period, unit)
    got = {p["name"]: (len(p["samples"]), sum(p["weights"]), p["unit"]) for p in profiles}
    check(len(got) == len(profiles), f"{what}: two profiles of one name")
    check(got == want, f"{what}: profiles (name: samples, period, unit) differ from pa report:"
          f"\n    report: {sorted(want.items())[:6]}\n    json:   {sorted(got.items())[:6]}")
    check(bool(profiles), f"{what}: no profile")

    if opts["--folded"]:
        agg = collections.Counter()
        for p in profiles:
            comm = p["name"].rsplit(" (", 1)[0]
            for s, w in zip(p["samples"], p["weights"]):
                agg[";".join([comm] + [tidy(frames[x]["name"]) for x in s])] += w
        got_lines = sorted(f"{k} {v}" for k, v in agg.items())
        exp_lines = sorted(open(opts["--folded"], encoding="utf-8").read().splitlines())
        extra = sorted(set(got_lines) - set(exp_lines))[:3]
        missing = sorted(set(exp_lines) - set(got_lines))[:3]
        check(got_lines == exp_lines, f"{what}: stacks (root first) are not perf's folded stacks of "
              f"{os.path.basename(opts['--folded'])}:\n    extra {extra}\n    missing {missing}")


# ---- in the browser ----

def js_fixed2(v):
    """JavaScript's Number.prototype.toFixed(2) (ties away from zero on the
    double's exact value)."""
    return str(decimal.Decimal(v).quantize(decimal.Decimal("0.01"), decimal.ROUND_HALF_UP))


def fmt(value, unit):
    """speedscope's value formatters (TimeFormatter for nanoseconds, the raw
    formatter's toLocaleString() in en-US for none)."""
    if unit != "nanoseconds":
        return f"{value:,}"
    s = value * 1e-9
    if s >= 60:
        return f"{int(s // 60)}:{int(s - (s // 60) * 60):02d}"
    if s >= 1:
        return js_fixed2(s) + "s"
    if s / 0.001 >= 1:
        return js_fixed2(s / 0.001) + "ms"
    if s / 1e-6 >= 1:
        return js_fixed2(s / 1e-6) + "\u00b5s"
    return js_fixed2(s / 1e-9) + "ns"


def sandwich_weights(d, p):
    """{frame name: (total, self)} as speedscope sums a profile: a frame
    counts once per sample however often it is on the stack; frames of one
    name but other files are separate rows, so names seen twice are left out."""
    frames, total, self_, names = d["shared"]["frames"], {}, {}, collections.Counter()
    for f in frames:
        names[f["name"]] += 1
    for s, w in zip(p["samples"], p["weights"]):
        for x in set(s):
            total[x] = total.get(x, 0) + w
        self_[s[-1]] = self_.get(s[-1], 0) + w
    return {frames[x]["name"]: (t, self_.get(x, 0)) for x, t in total.items()
            if names[frames[x]["name"]] == 1}


def wait_for(b, expr, timeout=20.0):
    t0 = time.time()
    while time.time() - t0 < timeout:
        v = b.js(expr)
        if v:
            return v
        time.sleep(0.1)
    return None


def key(b, k, code, vk):
    text = {"text": k} if len(k) == 1 else {}
    b.call("Input.dispatchKeyEvent", type="keyDown", key=k, code=code, windowsVirtualKeyCode=vk,
           **text)
    b.call("Input.dispatchKeyEvent", type="keyUp", key=k, code=code, windowsVirtualKeyCode=vk)


TEXT_BOX = ("(s => { const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);"
            " for (let n; (n = w.nextNode());) if (n.textContent.trim() === s) {"
            " const r = n.parentElement.getBoundingClientRect();"
            " return {x: r.x + r.width / 2, y: r.y + r.height / 2}; } return null; })")
# the rows of the table a click on the profile name opens: "#, Name, Total Weight"
PROFILE_TABLE = ("(() => { const t = document.body.innerText.split('\\n');"
                 " const i = t.findIndex(l => /^#\\tName\\tTotal Weight/.test(l)); if (i < 0) return null;"
                 " const r = []; for (let j = i + 1; j < t.length && /^\\d+\\t/.test(t[j]); j++)"
                 " r.push(t[j].split('\\t')); return r; })()")
# the Sandwich view's rows: "Total (pct)", "Self (pct)", "name"
SANDWICH = ("(() => { const t = document.body.innerText.split('\\n');"
            " const i = t.findIndex(l => /^Total\\tSelf\\tSymbol Name/.test(l)); if (i < 0) return null;"
            " const r = []; for (let j = i + 1; j + 2 < t.length; j += 3) {"
            " const a = t[j], b = t[j + 1], c = t[j + 2];"
            " if (!/\\(.*%\\)$/.test(a) || !b.startsWith('\\t') || !c.startsWith('\\t')) break;"
            " r.push([a, b.slice(1), c.slice(1)]); } return r; })()")


def chart_drawn(png, top, bottom):
    """Share of non-white pixels and distinct colours between rows top and
    bottom of the screenshot."""
    w, bpp, rows = png
    coloured, colours = 0, set()
    for y in range(int(top), int(bottom), 4):
        row = rows[y]
        for x in range(0, w, 4):
            px = tuple(row[x * bpp:x * bpp + 3])
            if px != (255, 255, 255):
                coloured += 1
                colours.add(px)
    n = ((int(bottom) - int(top) + 3) // 4) * ((w + 3) // 4)
    return coloured / max(1, n), len(colours)


def check_page(b, base, path, workdir):
    what = os.path.basename(path)
    d = json.load(open(path, encoding="utf-8"))
    profiles, active = d["profiles"], d.get("activeProfileIndex", 0)
    ap = profiles[active]
    b.events.clear()
    b.call("Page.navigate", url="about:blank")
    url = base + "/index.html#profileURL=" + urllib.parse.quote(base + "/" + what, safe="")
    b.call("Page.navigate", url=url)
    b.event("Page.loadEventFired")
    title = wait_for(b, "document.title.endsWith(' - speedscope') && document.title")
    check(title == f"{d['name']} - speedscope", f"{what}: title {title!r}")
    shown = ap["name"] + (f" ({active + 1}/{len(profiles)})" if len(profiles) > 1 else "")
    check(wait_for(b, f"document.body.innerText.split('\\n').includes({json.dumps(shown)})"),
          f"{what}: toolbar does not name the active profile {shown!r}")
    # let the flame chart draw, then look at it
    b.js("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 300))))")
    canvases = b.js("Array.from(document.querySelectorAll('canvas')).map(c => {"
                    " const r = c.getBoundingClientRect(); return [r.y, r.height]; })") or []
    shot = os.path.join(workdir, "speedscope-" + what.replace(".json", "").replace(".", "-") + ".png")
    b.screenshot(shot)
    print(f"screenshot: {shot}")
    # the flame chart: the largest canvas below the toolbar (the minimap above it)
    chart = max((c for c in canvases if c[0] > 0), key=lambda c: c[1], default=None)
    if check(chart is not None, f"{what}: no flame chart canvas"):
        share, colours = chart_drawn(png_rows(shot), chart[0] + 20, min(chart[0] + 120, 690))
        check(share > 0.05 and colours >= 3,
              f"{what}: flame chart looks blank ({share:.1%} coloured, {colours} colours)")

    if len(profiles) > 1:
        box = b.js(f"{TEXT_BOX}({json.dumps(ap['name'])})")
        if check(box is not None, f"{what}: profile name not found to click"):
            b.click(box["x"], box["y"])
            table = wait_for(b, PROFILE_TABLE, 5) or []
            want = [[str(i + 1), p["name"], fmt(sum(p["weights"]), p["unit"])]
                    for i, p in enumerate(profiles)]
            check(table == want, f"{what}: profile list {table}, want {want}")
            key(b, "Escape", "Escape", 27)

    # Sandwich view of the active profile: totals and self weights
    key(b, "3", "Digit3", 51)
    rows = wait_for(b, SANDWICH, 5) or []
    check(len(rows) > 0, f"{what}: Sandwich view shows no rows")
    exp = sandwich_weights(d, ap)
    seen = 0
    for total, self_, name in rows:
        if name not in exp:
            continue
        seen += 1
        t, s = exp[name]
        got = (total.split(" (")[0], self_.split(" (")[0])
        check(got == (fmt(t, ap["unit"]), fmt(s, ap["unit"])),
              f"{what}: sandwich {name!r}: {got}, want {(fmt(t, ap['unit']), fmt(s, ap['unit']))}")
    check(seen > 0, f"{what}: no Sandwich row to compare")
    b.screenshot(shot.replace(".png", "-sandwich.png"))
    errors = [e for e in b.events if e["method"] == "Runtime.exceptionThrown" or (
        e["method"] == "Runtime.consoleAPICalled" and e["params"]["type"] == "error")]
    check(not errors, f"{what}: script errors {errors[:2]}")


def browser(argv):
    chromium, release, workdir, files = argv[0], argv[1], argv[2], argv[3:]
    signal.alarm(60 + 60 * len(files))
    www = tempfile.mkdtemp(prefix="speedscope-www-", dir=workdir)
    shutil.copytree(release, www, dirs_exist_ok=True)
    for f in files:
        shutil.copy(f, www)
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1",
                               "--directory", www, str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    b = None
    try:
        base = f"http://127.0.0.1:{port}"
        if not wait_port(port, 10):
            check(False, "http.server did not start")
            return
        try:
            b = Browser(chromium, "about:blank", workdir)
        except OSError as e:
            print(f"SKIP: cannot drive chromium: {e}")
            sys.exit(77)
        b.call("Runtime.enable")
        b.call("Page.enable")
        b.call("Emulation.setDeviceMetricsOverride", width=1200, height=700, deviceScaleFactor=1,
               mobile=False)
        for f in files:
            try:
                check_page(b, base, f, workdir)
            except (RuntimeError, OSError, KeyError, TypeError) as e:
                check(False, f"{os.path.basename(f)}: browser: {e}")
    finally:
        if b:
            b.close()
        server.terminate()
        server.wait()
        shutil.rmtree(www, ignore_errors=True)


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("json", "browser"):
        sys.exit(__doc__)
    if sys.argv[1] == "json":
        if len(sys.argv) < 4:
            sys.exit(__doc__)
        check_json(sys.argv[2:])
    else:
        if len(sys.argv) < 6:
            sys.exit(__doc__)
        browser(sys.argv[2:])
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
