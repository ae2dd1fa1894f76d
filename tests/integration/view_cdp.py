#!/usr/bin/env python3
"""view_cdp.py - check pages written by `pa view` against `pa report`.

    view_cdp.py data PAGE.html CHILDREN.txt SELF.txt [REPORT-V.err [SRCLINE.txt]]
    view_cdp.py browser CHROMIUM PA WORKDIR PAGE.html FIXTURE [REPORT OPTIONS...]

data: the page's JSON read without a browser: per function, the children
and self percentages computed from its aggregates as the page does must
be the rows of `pa report --stdio -g none --sort dso,sym` with --children
(CHILDREN.txt) and --no-children (SELF.txt), every row, the same count;
the source lines of every function those of --no-children --sort
dso,sym,srcline (SRCLINE.txt) whose srcline names a line.

browser: the page opened from file:// in headless Chromium (the CDP client
of flamegraph_cdp.py): the flat table, the top-down and bottom-up trees,
a comm filter, a DSO filter (children and self), a time range (chosen by
dragging on the timeline, then compared with `pa report --time` of the
range the page shows), pages written with `pa view --comms/--dsos/--symbols`
(the first fixture's; their numbers are pa report's with the same option),
regex search, selection across views, keyboard navigation, the
flame graph drawn in the first 1400x900 view. Screenshots go to
WORKDIR/view-*.png (paths printed). Runs PA itself for the reports.
Exits 0 when all checks pass, 1 when one fails, 77 when Chromium cannot
be driven. python3 standard library only.
"""
import base64
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flamegraph_cdp import png_rows, start  # noqa: E402 (the shared CDP client)

FAILS = []
CH_ROW = re.compile(r"^\s+([\d.]+%)\s+([\d.]+%)\s+(.*?)\s+\[(.)\] (.*?)\s*$")
SELF_ROW = re.compile(r"^\s+([\d.]+%)\s+(.*?)\s+\[(.)\] (.*?)\s*$")


def check(ok, what):
    if not ok:
        FAILS.append(what)
        print(f"FAIL: {what}")
    return bool(ok)


def varints(data):
    """The LEB128 varints of a base64 string (page.c's put_varint)."""
    out, v, shift = [], 0, 0
    for b in base64.b64decode(data):
        v |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            out.append(v)
            v, shift = 0, 0
    return out


def unzig(z):
    return z >> 1 if z % 2 == 0 else -((z + 1) >> 1)


def decode_stacks(st):
    """page.c's put_stacks: the stacks as lists of frame indices."""
    v, nodes = varints(st["data"]), st["nodes"]
    par, fr, k = [-1] * nodes, [-1] * nodes, 0
    for i in range(1, nodes):
        par[i], fr[i] = i - 1 - v[k], v[k + 1]
        k += 2
    out, end = [], 0
    for _ in range(st["n"]):
        end += unzig(v[k])
        chain, nd = [], end
        while nd > 0:
            chain.append(fr[nd])
            nd = par[nd]
        out.append(chain[::-1] + [v[k + 1]])
        k += 2
    return out


def decode_aggs(ag):
    """page.c's put_aggs: flat [event, thread, bucket, stack, count, period] x n."""
    v, nev, units = varints(ag["data"]), ag["events"], ag["units"]
    out, k, bucket, stack = [], 0, 0, 0
    for _ in range(ag["n"]):
        ev, th = v[k] % nev, v[k] // nev
        bucket += unzig(v[k + 1])
        stack += unzig(v[k + 2])
        count, period, k = count_period(v, k + 3, units[ev])
        out += [ev, th, bucket, stack, count, period]
    return out


def count_period(v, k, unit):
    """page.c's put_count at v[k]: (count, period, the index after them)."""
    count = v[k] >> 1
    if v[k] & 1:
        return count, v[k + 1], k + 2
    return count, count * unit, k + 1


def decode_laggs(lg, nev, units):
    """page.c's put_lines: flat [event, thread, bucket, frame, line, count,
    period] x n."""
    v, out, k, bucket = varints(lg["data"]), [], 0, 0
    for _ in range(lg["n"]):
        ev, th = v[k] % nev, v[k] // nev
        bucket += unzig(v[k + 1])
        frame, line = v[k + 2], v[k + 3]
        count, period, k = count_period(v, k + 4, units[ev])
        out += [ev, th, bucket, frame, line, count, period]
    return out


def page_data(path):
    """The page's data object with stacks and aggs decoded: d["stacks"] a
    list of lists of frame indices, d["aggs"] the flat list of [event,
    thread, bucket, stack, count, period] per aggregate."""
    text = open(path, encoding="utf-8").read()
    m = re.search(r'<script id="pa-data" type="application/json">\n(.*?)</script>', text, re.S)
    if not m:
        raise ValueError(f"{path}: no data element")
    d = json.loads(m.group(1))
    d["stacks"] = decode_stacks(d["stacks"])
    d["aggs_units"] = d["aggs"]["units"]
    d["laggs"] = decode_laggs(d["laggs"], d["aggs"]["events"], d["aggs"]["units"])
    d["aggs"] = decode_aggs(d["aggs"])
    return d


def sections(path):
    """{event name: its rows' text} of a pa report (one section per event)."""
    out, name = {}, None
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"^# Samples: .* of event '(.*)'$", line.rstrip("\n"))
        if m:
            name = m.group(1)
            out[name] = ""
        elif name is not None:
            out[name] += line
    return out


def rows_of(text, children, only):
    """Sorted (dso, name, children, self) or (dso, name, self) rows: a list,
    since two symbols of one name in one DSO are two rows. only: the DSO
    of --dsos (whose column pa report drops then, as perf)."""
    rows = []
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        m = (CH_ROW if children else SELF_ROW).match(line)
        if not m:
            continue
        if children:
            rows.append((m.group(3) or only, m.group(5), m.group(1), m.group(2)))
        else:
            rows.append((m.group(2) or only, m.group(4), m.group(1)))
    return sorted(rows)


def fmt(v, total):
    return "%.2f%%" % (100.0 * v / total if total > 0 else 0.0)


INLINED = " (inlined)"


class Replay:
    """view.js's replay of perf's --children entry tree (page.c's replay
    object): perf's dso,sym comparison (pa report's report/keys.c), the
    Linux kernel's rb-tree insertion, the samples in the trace's order."""

    def __init__(self, d):
        self.d, y = d, d["replay"]["sym"]
        self.inl, self.start, self.end = y[0::3], y[1::3], y[2::3]
        v, k, aggs = varints(d["replay"]["seq"]), 0, d["aggs"]
        units = d["aggs_units"]
        self.seq = []
        for _ in range(d["replay"]["n"]):
            i = (v[k] >> 1) * 6
            per = v[k + 1] if v[k] & 1 else units[aggs[i]]
            k += 2 if v[k] & 1 else 1
            self.seq.append((i, per))

    def sym_name(self, f):
        n = self.d["frames"][f][0]
        return n[:-len(INLINED)] if self.inl[f] else n

    def cmp(self, le, r):
        fl, fr = self.d["frames"][le], self.d["frames"][r]
        if not fl[1] or not fr[1]:
            if fl[1] or fr[1]:
                return 1 if fl[1] else -1
        elif fl[1] != fr[1]:
            return 1 if fr[1] > fl[1] else -1
        if not fl[3] and not fr[3]:
            dd = (int(fr[0], 16) - int(fl[0], 16)) % (1 << 64)
            return 0 if dd == 0 else 1 if dd < (1 << 63) else -1
        if not fl[3] or not fr[3]:
            return 1 if fl[3] else -1
        if le == r:
            return 0
        if self.inl[le] or self.inl[r]:
            a, b = self.sym_name(le), self.sym_name(r)
            if a != b:
                return 1 if a > b else -1
            if self.start[le] <= self.end[r] and self.end[le] >= self.start[r]:
                return 0
        if self.start[le] != self.start[r]:
            return 1 if self.start[r] > self.start[le] else -1
        return (self.end[r] > self.end[le]) - (self.end[r] < self.end[le])

    def findnew(self, t, f, i):
        p, x, d = -1, t["root"], 0
        while x >= 0:
            p = x
            d = self.cmp(t["key"][x], f)
            if not d:
                return x
            x = t["L"][x] if d < 0 else t["R"][x]
        e = len(t["key"])
        for k, v in (("key", f), ("L", -1), ("R", -1), ("P", p), ("red", 1), ("first", i),
                     ("acc", 0), ("self", 0), ("n", 0)):
            t[k].append(v)
        if p < 0:
            t["root"] = e
        elif d < 0:
            t["L"][p] = e
        else:
            t["R"][p] = e
        rb_insert_color(t, e)
        t["gen"] += 1
        return e

    def tree(self, event, b0, b1):
        t = {"root": -1, "gen": 0}
        for k in ("key", "L", "R", "P", "red", "first", "acc", "self", "n"):
            t[k] = []
        memo, aggs = {}, self.d["aggs"]
        for i, per in self.seq:
            if aggs[i] != event or not b0 <= aggs[i + 2] <= b1:
                continue
            m = memo.get(i)
            if m is None or m[0] != t["gen"]:
                st = self.d["stacks"][aggs[i + 3]]
                ents = [self.findnew(t, st[-1], i)]
                for f in st[:-1]:  # (root first: --children's caller order)
                    if all(self.cmp(t["key"][e], f) for e in ents):
                        ents.append(self.findnew(t, f, i))
                m = memo[i] = (t["gen"], ents)
            t["self"][m[1][0]] += per
            t["n"][m[1][0]] += 1
            for e in m[1]:
                t["acc"][e] += per
        return t


def rb_insert_color(t, node):
    """lib/rbtree.c's __rb_insert (view.js's rbInsertColor)."""
    P, red = t["P"], t["red"]
    parent = P[node]
    while True:
        if parent < 0:
            red[node] = 0
            return
        if not red[parent]:
            return
        gp = P[parent]
        left = parent != t["R"][gp]
        A, B = (t["L"], t["R"]) if left else (t["R"], t["L"])
        tmp = B[gp]
        if tmp >= 0 and red[tmp]:
            red[tmp] = red[parent] = 0
            node, red[gp] = gp, 1
            parent = P[node]
            continue
        tmp = B[parent]
        if node == tmp:
            tmp = A[node]
            B[parent], A[node] = tmp, parent
            if tmp >= 0:
                P[tmp], red[tmp] = parent, 0
            P[parent], red[parent] = node, 1
            parent, tmp = node, B[node]
        A[gp], B[parent] = tmp, gp
        if tmp >= 0:
            P[tmp], red[tmp] = gp, 0
        g = P[gp]
        P[parent], red[parent] = g, red[gp]
        P[gp], red[gp] = parent, 1
        if g < 0:
            t["root"] = parent
        elif t["L"][g] == gp:
            t["L"][g] = parent
        else:
            t["R"][g] = parent
        return


def flat_of(d, event=0, replay=True):
    """The page's flat table computed here: sorted (dso, name, children,
    self, shown by --no-children, split) rows, and the total; replay
    False: a row per function even where the page replays perf's tree."""
    if replay and d.get("replay"):
        return replay_flat(d, event)
    ch, se, total = {}, {}, 0
    aggs = d["aggs"]
    for i in range(0, len(aggs), 6):
        if aggs[i] != event:
            continue
        st, p = d["stacks"][aggs[i + 3]], aggs[i + 5]
        total += p
        for f in set(st):
            ch[f] = ch.get(f, 0) + p
        se[st[-1]] = se.get(st[-1], 0) + p

    out = []
    for f in ch:
        name, dso = d["frames"][f][:2]
        out.append((dso or "[unknown]", name, fmt(ch[f], total), fmt(se.get(f, 0), total),
                    f in se, False))
    return sorted(out), total


def replay_flat(d, event, b0=0, b1=None):
    """flat_of of a page that replays perf's entry tree: a row per entry
    (a function perf split has two, split True); b0, b1: the time buckets
    (all by default)."""
    aggs = d["aggs"]
    b1 = d["buckets"] - 1 if b1 is None else b1
    total = sum(aggs[i + 5] for i in range(0, len(aggs), 6)
                if aggs[i] == event and b0 <= aggs[i + 2] <= b1)
    t = Replay(d).tree(event, b0, b1)
    parts = {}
    for f in t["key"]:
        parts[f] = parts.get(f, 0) + 1
    out = []
    for e, f in enumerate(t["key"]):
        name, dso = d["frames"][f][:2]
        out.append((dso or "[unknown]", name, fmt(t["acc"][e], total), fmt(t["self"][e], total),
                    t["n"][e] > 0, parts[f] > 1))
    return sorted(out), total


def merge_split(rows, total):
    """paView.flat()'s rows with the entries of a function perf split
    (split, with their values cv and sv) merged into one row: the
    function's, as --no-children and the trees show it."""
    out, merged = [], {}
    for r in rows:
        if not r.get("split"):
            out.append(r)
            continue
        m = merged.setdefault((r["dso"], r["name"]), dict(r, cv=0, sv=0, samples=0, se=False))
        m["cv"] += r["cv"]
        m["sv"] += r["sv"]
        m["samples"] += r["samples"]
        m["se"] |= r["se"]
    for m in merged.values():
        m["children"], m["self"] = fmt(m["cv"], total), fmt(m["sv"], total)
        out.append(m)
    return out


LINE = re.compile(r"^[^\[\]]*:[1-9][0-9]*$")


def srcline_rows(text, only=None):
    """(dso, symbol, srcline, overhead) rows of pa report --no-children
    --sort dso,sym,srcline (one event's section) whose srcline names a
    line (not perf's fallbacks), sorted; columns where the header puts
    them. only: the DSO of --dsos (no DSO column then). A srcline perf
    cut to the column's width (report.h's Limits: a one-sample row whose
    srcline perf computes only to print it) is taken as the page's line
    it starts, when the page has one of the same function and value."""
    rows, cut = srcline_split(text, only)
    return rows + cut


def srcline_split(text, only):
    """srcline_rows' rows whose srcline names a line, and the others."""
    rows, cut, cols = [], [], None
    for line in text.splitlines():
        if line.startswith("# Overhead"):
            cols = [line.index(c) if c in line else None
                    for c in ("Shared Object", "Symbol", "Source:Line")]
            continue
        if line.startswith("#") or not line.strip() or not cols:
            continue
        p_sym, p_src = cols[1], cols[2]
        pct = line[:cols[0] if cols[0] is not None else p_sym].strip()
        dso = line[cols[0]:p_sym].strip() if cols[0] is not None else only
        sym, src = line[p_sym:p_src].strip()[4:], line[p_src:].strip()
        (rows if LINE.match(src) else cut).append((dso, sym, src, pct))
    return sorted(rows), cut


def uncut(page, rep):
    """rep (srcline_rows) with each row that is not one of the page's but
    whose srcline starts one of the page's rows of the same function and
    value (perf cut it to the column's width) replaced by that row; other
    rows that do not name a line left out."""
    left, out, rest = list(page), [], []
    for r in rep:
        if r in left:
            out.append(r)
            left.remove(r)
        else:
            rest.append(r)
    for r in rest:
        m = [p for p in left if p[0] == r[0] and p[1] == r[1] and p[3] == r[3] and
             p[2].startswith(r[2]) and len(r[2]) >= 3]
        if m:
            out.append(m[0])
            left.remove(m[0])
        elif LINE.match(r[2]):
            out.append(r)
    return sorted(out)


def page_srclines(d, event):
    """The source view's line rows of every function without filters:
    (dso, function, srcline, share of the total), sorted."""
    aggs, lg = d["aggs"], d["laggs"]
    total = sum(aggs[i + 5] for i in range(0, len(aggs), 6) if aggs[i] == event)
    sums = {}
    for j in range(0, len(lg), 7):
        if lg[j] == event:
            k = (lg[j + 3], lg[j + 4])
            sums[k] = sums.get(k, 0) + lg[j + 6]
    return sorted((d["frames"][f][1] or "[unknown]", d["frames"][f][0], d["lines"][ln - 1][0],
                   fmt(v, total)) for (f, ln), v in sums.items())


def compare(what, page, rep, opts):
    """Two sorted row lists: the differences printed."""
    if check(page == rep, f"{what}: {len(page)} rows, pa report {opts} {len(rep)}"):
        return True
    for r in sorted(set(page) ^ set(rep))[:10]:
        print(f"    {'page' if r in page else 'pa report'} only: {r}")
    return False


def check_data(args):
    page, children, selfs = args[:3]
    d = page_data(page)
    if len(args) > 4:
        # source lines: pa report --sort dso,sym,srcline's rows with a line
        sl = sections(args[4])
        for name, text in sl.items():
            evs = [i for i, e in enumerate(d["events"])
                   if e == name or e.split(":")[0] == name.split(":")[0]]
            if check(len(evs) == 1, f"{page}: event {name!r} in the page"):
                mine = page_srclines(d, evs[0])
                compare(f"{page} ({name}) source lines", mine, uncut(mine, srcline_rows(text)),
                        "--no-children --sort dso,sym,srcline")
    if len(args) > 3:
        # pa report -v's notes on DSOs (on stderr): the page's, one each
        lines = [ln for ln in open(args[3], errors="replace") if ln.startswith("pa: ")]
        check(len(lines) == len(d["notes"]), f"{page}: {len(d['notes'])} DSO notes, "
              f"pa report -v {len(lines)}")
        for dso, _, why in d["notes"]:
            check(any(f"'{dso}'" in ln and ln.rstrip("\n").endswith(why) for ln in lines),
                  f"{page}: note on {dso!r} ({why!r}) is pa report -v's")
    for k in ("header", "events", "frames", "threads", "stacks", "aggs", "notes", "t0", "width"):
        check(k in d, f"{page}: data has {k}")
    # one section of pa report per event with samples, by its name
    ch_secs, se_secs = sections(children), sections(selfs)
    check(ch_secs, f"{page}: pa report --children has rows")
    check(sorted(ch_secs) == sorted(se_secs), f"{page}: same events in both reports")
    for name, text in ch_secs.items():
        # (pa report may add modifiers the page's names leave out)
        evs = [i for i, e in enumerate(d["events"])
               if e == name or e.split(":")[0] == name.split(":")[0]]
        if not check(len(evs) == 1, f"{page}: event {name!r} in the page {d['events']}"):
            continue
        ev = evs[0]
        flat, _ = flat_of(d, ev)
        what = f"{page} ({name})"
        compare(what, [r[:4] for r in flat], rows_of(text, True, None), "--children")
        # (--no-children: one row per function, the page's without the replay)
        plain, _ = flat_of(d, ev, replay=False)
        compare(what, [r[:2] + (r[3],) for r in plain if r[4]],
                rows_of(se_secs.get(name, ""), False, None), "--no-children")
    n = sum(d["aggs"][i + 4] for i in range(0, len(d["aggs"]), 6))
    check(n == d["header"]["samples"], f"{page}: aggregates hold {n} samples of "
          f"{d['header']['samples']}")
    return 1 if FAILS else 0


# ---- in the browser ----
def report(pa, fixture, ropts, children, extra):
    out = subprocess.run([pa, "report", "-i", fixture, *ropts, "--stdio", "-g", "none",
                          "--sort", "dso,sym", "--children" if children else "--no-children",
                          *extra], capture_output=True, text=True, check=False).stdout
    only = extra[extra.index("--dsos") + 1] if "--dsos" in extra else None
    return rows_of(out, children, only)


def same_flat(b, what, pa, fixture, ropts, extra, self_only=False):
    """The flat table against pa report with extra options: its rows
    with children (ch) against --children, its rows with self (se) against
    --no-children, every row, every number. With --dsos pa report (as
    perf) leaves the DSO column out, though the rows of the chosen
    samples' callers are of other DSOs: rows compared without it."""
    got = b.js("paView.flat()")
    rep_self = report(pa, fixture, ropts, False, extra)
    nodso = "--dsos" in extra

    def strip(rows):
        return sorted(r[1:] for r in rows) if nodso else rows
    ok = check(rep_self, f"{what}: pa report --no-children {' '.join(extra)} has rows")
    one = merge_split(got, b.js("paView.total()"))
    ok &= compare(what, strip(sorted((r["dso"], r["name"], r["self"]) for r in one
                                     if r["samples"] and r.get("se", True))),
                  strip(rep_self), "--no-children " + " ".join(extra))
    if self_only:
        return ok
    rep_ch = report(pa, fixture, ropts, True, extra)
    page = sorted((r["dso"], r["name"], r["children"], r["self"]) for r in got
                  if r.get("ch", True))
    ok &= compare(what, strip(page), strip(rep_ch), "--children " + " ".join(extra))
    return ok


def check_trees(b, what):
    flat = {(r["dso"], r["name"]): r
            for r in merge_split(b.js("paView.flat()"), b.js("paView.total()"))}
    b.js("paView.showTab('td')")
    td = [r for r in b.js("paView.rowsOf('td')") if r["depth"] == 0]
    check(td, f"{what}: top-down tree has rows")
    for r in td:
        f = flat.get((r["dso"], r["name"]))
        # a root that is only ever a root: its children are the function's
        check(f and float(r["children"][:-1]) <= float(f["children"][:-1]) + 1e-9,
              f"{what}: top-down root {r['name']} {r['children']} within its function's "
              f"{f and f['children']}")
    tops = sum(float(r["children"][:-1]) for r in td)
    check(abs(tops - float(b.js("(paView.total() ? 100 : 0)")) * 1) < 0.5 + 0.01 * len(td) or
          b.js("paView.state.comm !== ''"), f"{what}: top-down roots sum to 100% ({tops})")
    b.js("paView.showTab('bu')")
    bu = [r for r in b.js("paView.rowsOf('bu')") if r["depth"] == 0]
    check(bu, f"{what}: bottom-up tree has rows")
    for r in bu:
        f = flat.get((r["dso"], r["name"]))
        check(f and r["children"] == f["self"], f"{what}: bottom-up {r['name']} {r['children']}"
              f" is its self {f and f['self']}")
    # expand the first bottom-up row: its callers
    b.js("paView.expand('bu', 0)")
    rows = b.js("paView.rowsOf('bu')")
    if len(D_CHAIN) and rows and len(rows) > len(bu):
        check(rows[1]["depth"] == 1, f"{what}: bottom-up row expands to its callers")


D_CHAIN = []


def key(b, k):
    code = {"ArrowDown": 40, "ArrowUp": 38, "ArrowRight": 39, "ArrowLeft": 37, "Enter": 13}[k]
    for t in ("rawKeyDown", "keyUp"):
        b.call("Input.dispatchKeyEvent", type=t, key=k, code=k, windowsVirtualKeyCode=code,
               nativeVirtualKeyCode=code)


def check_keys(b, what):
    b.js("paView.showTab('td')")
    before = len(b.js("paView.rowsOf('td')"))
    key(b, "ArrowRight")
    after = len(b.js("paView.rowsOf('td')"))
    check(after > before or not D_CHAIN, f"{what}: right arrow expands ({before} -> {after})")
    key(b, "ArrowDown")
    check(b.js("paView.state.focus.td") == 1, f"{what}: down arrow moves the focus")
    key(b, "Enter")
    sel = b.js("paView.state.sel")
    check(sel is not None and sel >= 0, f"{what}: enter selects the function")
    key(b, "ArrowUp")
    key(b, "ArrowLeft")
    check(len(b.js("paView.rowsOf('td')")) == before, f"{what}: left arrow collapses")
    return sel


def flame_in_view(b, height=900):
    """Scrolls the page so that the flame graph's bottom row (its roots, the
    widest frames) is in the viewport, as a user scrolls down to a flame graph
    taller than the window (a recording's deep stacks); returns the canvas's
    top and left in the viewport. scroll_home() undoes it."""
    rect = "document.querySelector('#flame canvas').getBoundingClientRect()"
    bottom = b.js(f"{rect}.bottom")
    if bottom > height:
        b.js(f"window.scrollBy(0, {int(bottom - height) + 4})")
    return b.js(f"{rect}.top"), b.js(f"{rect}.left")


def scroll_home(b):
    b.js("window.scrollTo(0, 0)")


def check_flame(b, what, shot):
    b.js("paView.showTab('flame')")
    fr = b.js("paView.flameFrames()")
    top, left = flame_in_view(b)
    visible = [f for f in fr if top + f["y"] < 900 and top + f["y"] + 16 > 0]
    check(visible, f"{what}: flame frames drawn in a 1400x900 view ({len(fr)} in all)")
    b.screenshot(shot)
    print(f"screenshot: {shot}")
    scroll_home(b)
    w, bpp, rows = png_rows(shot)
    painted = 0
    # the widest frames first: a frame narrower than a pixel may paint none
    for f in sorted(visible, key=lambda f: -f["w"])[:20]:
        y = int(top + f["y"] + 8)
        x = int(left + f["x"] + min(f["w"], 40) / 2)
        if 0 <= y < len(rows) and 0 <= x < w:
            px = rows[y][x * bpp:x * bpp + 3]
            painted += px != b"\xff\xff\xff"
    check(painted, f"{what}: screenshot shows flame frames painted")
    return fr


def drag(b, x0, x1):
    r = b.js("(r => ({x: r.x, y: r.y, w: r.width, h: r.height}))"
             "(document.getElementById('timeline').getBoundingClientRect())")
    y = r["y"] + 6
    b.call("Input.dispatchMouseEvent", type="mouseMoved", x=r["x"] + x0, y=y)
    b.call("Input.dispatchMouseEvent", type="mousePressed", x=r["x"] + x0, y=y, button="left",
           clickCount=1)
    b.call("Input.dispatchMouseEvent", type="mouseMoved", x=r["x"] + x1, y=y, button="left")
    b.call("Input.dispatchMouseEvent", type="mouseReleased", x=r["x"] + x1, y=y, button="left",
           clickCount=1)


def browse_one(b, pa, workdir, page, fixture, ropts):
    name = os.path.basename(page).rsplit(".", 1)[0]
    url = "file://" + os.path.abspath(page)
    b.call("Page.navigate", url=url)
    b.event("Page.loadEventFired")
    if not check(b.js("typeof paView === 'object'"), f"{name}: page script ran"):
        return
    D_CHAIN[:] = [1] if any(len(s) > 2 for s in b.js("paView.data.stacks")) else []
    check(b.js("document.querySelector('.hdr').textContent.includes('samples')"),
          f"{name}: header summary shown")
    fr = check_flame(b, name, os.path.join(workdir, f"view-{name}-flame.png"))
    b.js("paView.showTab('flat')")
    same_flat(b, f"{name}: flat", pa, fixture, ropts, [])
    # sorting by a click on a column header
    b.js("document.querySelector('#flat th[data-k=name]').click()")
    names = [r["name"] for r in b.js("paView.flat()")]
    check(names == sorted(names, key=lambda n: n.encode("utf-16-be")), f"{name}: flat table "
          "sorted by name after a click on its header")
    b.js("document.querySelector('#flat th[data-k=self]').click()")
    selfs = [float(r["self"][:-1]) for r in b.js("paView.flat()")]
    check(selfs == sorted(selfs, reverse=True), f"{name}: flat table sorted by self")
    b.js("document.querySelector('#flat th[data-k=children]').click()")
    check_trees(b, name)
    sel = check_keys(b, name)
    if sel is not None:
        fn = b.js(f"paView.data.frames[{sel}][0]")
        b.js("paView.showTab('flat')")
        check(any(r["sel"] and r["name"] == fn for r in b.js("paView.flat()")),
              f"{name}: selection highlighted in the flat table")
        check(any(f["sel"] for f in b.js("paView.flameFrames()")) or not fr,
              f"{name}: selection highlighted in the flame graph")
    check_source(b, name, pa, workdir, page, fixture, ropts, [])
    shot = os.path.join(workdir, f"view-{name}-source.png")
    b.screenshot(shot)
    print(f"screenshot: {shot}")
    b.js("paView.showTab('flat')")
    # a comm filter
    comms = sorted({t[2] for t in b.js("paView.data.threads") if t[2]})
    if comms:
        c = comms[-1]
        b.js(f"paView.setFilter({{comm: {json.dumps(c)}}})")
        same_flat(b, f"{name}: --comms {c}", pa, fixture, ropts, ["--comms", c])
        check_source(b, f"{name}: --comms {c}", pa, workdir, page, fixture, ropts, ["--comms", c])
        b.js("paView.showTab('flat')")
        b.js("paView.setFilter({comm: ''})")
    # a DSO filter (as pa report --dsos: the samples whose own address is
    # in the DSO, all the rows of their stacks, the total kept)
    dsos = b.js("Array.from(document.getElementById('f-dso').options).map(o => o.value)"
                ".filter(v => v)")
    for dso in dsos[:1]:
        b.js(f"paView.setFilter({{dso: {json.dumps(dso)}}})")
        same_flat(b, f"{name}: --dsos {dso}", pa, fixture, ropts, ["--dsos", dso])
        td = b.js("paView.showTab('td'), paView.rowsOf('td')")
        check(td, f"{name}: --dsos {dso}: top-down tree keeps the stacks")
        b.js("paView.showTab('flat')")
        b.js("paView.setFilter({dso: ''})")
    # a time range dragged on the timeline
    if b.js("paView.data.has_time"):
        w = b.js("document.getElementById('timeline').clientWidth")
        drag(b, 160 + (w - 160) * 0.3, 160 + (w - 160) * 0.7)
        ta = b.js("paView.timeArg()")
        check(ta, f"{name}: dragging on the timeline chooses a time range")
        if ta:
            b.screenshot(os.path.join(workdir, f"view-{name}-time.png"))
            print(f"screenshot: {os.path.join(workdir, f'view-{name}-time.png')}")
            if b.js("paView.data.replay === null"):
                same_flat(b, f"{name}: --time {ta}", pa, fixture, ropts, ["--time", ta])
            else:
                replay_range(b, f"{name}: --time {ta}", pa, workdir, page, fixture, ropts, ta)
        b.js("paView.setFilter({b0: 0, b1: paView.data.buckets - 1})")
    # regex search
    names = [r["name"] for r in b.js("paView.flat()")]
    pat = "^(main|__libc|0x0000)|burn"
    want = [n for n in names if re.search(pat, n)]
    b.js(f"paView.search({json.dumps(pat)})")
    got = [r["name"] for r in b.js("paView.flat()")]
    check(sorted(got) == sorted(want), f"{name}: search {pat!r} keeps {len(want)} rows "
          f"(got {len(got)})")
    b.js("paView.showTab('td')")
    tdm = b.js("Array.from(document.querySelectorAll('#td .row.m .fn')).map(e => e.textContent)")
    check(all(re.search(pat, n) for n in tdm), f"{name}: search marks top-down rows")
    b.js("paView.showTab('flame')")
    fm = [f for f in b.js("paView.flameFrames()") if f["match"]]
    check(bool(fm) == bool(want) and all(re.search(pat, f["name"]) for f in fm),
          f"{name}: search paints flame frames ({len(fm)})")
    check(b.js("document.getElementById('matched').textContent").startswith("Matched: "),
          f"{name}: matched share shown")
    shot = os.path.join(workdir, f"view-{name}-search.png")
    b.screenshot(shot)
    print(f"screenshot: {shot}")
    b.js("paView.search('')")
    check(not b.js("paView.search('(')"), f"{name}: a bad regular expression is refused")


def check_source(b, what, pa, workdir, page, fixture, ropts, extra):
    """The Source tab of the function with the most source lines: its rows
    with a line are pa report --no-children --sort dso,sym,srcline's of the
    function (with extra, the page's filter set to the same); a line of
    prog.c (the recording made here) shows that line's text."""
    d = page_data(page)
    ev = b.js("paView.state.event")
    count = {}
    for dso, fn, _, _ in page_srclines(d, ev):
        count[(dso, fn)] = count.get((dso, fn), 0) + 1
    if not check(count or not d["lines"], f"{what}: functions with source lines"):
        return
    if not count:
        return
    dso, fn = max(count, key=lambda k: (count[k], k))
    b.js(f"paView.select(paView.frameIndex({json.dumps(fn)}, {json.dumps(dso)}))")
    b.js("paView.showTab('src')")
    got = b.js("paView.source()")
    out = subprocess.run([pa, "report", "-i", fixture, *ropts, "--stdio", "-g", "none",
                          "--no-children", "--sort", "dso,sym,srcline", *extra],
                         capture_output=True, text=True, check=False).stdout
    mine = sorted((dso, fn, r["line"], r["self"]) for r in got if r["has"])
    check(mine or extra, f"{what}: the Source tab shows {fn}'s lines")
    want = [r for r in uncut(mine, srcline_rows(out)) if r[0] == dso and r[1] == fn]
    compare(f"{what}: source lines of {fn}", mine, want,
            "--sort dso,sym,srcline " + " ".join(extra))
    prog = os.path.join(workdir, "prog.c")
    shown = [r for r in got if r["line"].startswith("prog.c:")]
    if os.path.exists(prog) and shown and not extra:
        text = open(prog, encoding="utf-8").read().split("\n")
        ok = all(r["text"] == text[int(r["line"].split(":")[1]) - 1].expandtabs(8)
                 for r in shown)
        check(ok, f"{what}: prog.c's lines shown with their text")
        print(f"{what}: {len(shown)} lines of prog.c shown with their text")
        # the search marks the lines whose srcline or text it matches (a
        # pattern from the first line's text: it matches one at least)
        texts = [r["text"].strip() for r in shown if len(r["text"].strip()) >= 3]
        pat = re.escape(texts[0][:12]) if texts else "sink"
        b.js(f"paView.search({json.dumps(pat)})")
        got = b.js("paView.source()")
        want = [r["has"] and bool(re.search(pat, r["text"]) or re.search(pat, r["line"]))
                for r in got]
        check([r["match"] for r in got] == want and (any(want) or not texts),
              f"{what}: search {pat!r} marks source lines")
        b.js("paView.search('')")


def replay_range(b, what, pa, workdir, page, fixture, ropts, ta):
    """A time range on a page with inline frames (docs/view.md): the
    names of inline frames are the whole recording's, where pa report
    --time (as perf) names some by the questions asked for the range
    alone. So the table is checked against the page's own data replayed
    here for the range, and the replay against pa report --time on the
    page pa view --time writes."""
    d = page_data(page)
    st = b.js("paView.state")
    flat, _ = flat_of(d, st["event"])
    want, _ = replay_flat(d, st["event"], st["b0"], st["b1"])
    got = sorted((r["dso"], r["name"], r["children"], r["self"]) for r in b.js("paView.flat()"))
    compare(what, got, [r[:4] for r in want], "replayed here")
    check(len(want) != len(flat) or want != flat, f"{what}: the range changes the rows")
    sub = os.path.join(workdir, "view-range.html")
    r = subprocess.run([pa, "view", "-i", fixture, *ropts, "--time", ta, "-o", sub],
                       capture_output=True, text=True, check=False)
    if not check(r.returncode == 0, f"{what}: pa view --time: {r.stderr.strip()}"):
        return
    sd = page_data(sub)
    mine, _ = flat_of(sd, st["event"])
    compare(what + " (pa view --time)", [r[:4] for r in mine],
            report(pa, fixture, ropts, True, ["--time", ta]), "--children --time " + ta)


def browse_cli(b, pa, workdir, fixture, ropts, extra):
    """pa view with filters on its command line: the page starts with them
    and shows pa report's numbers with the same options."""
    what = f"pa view {' '.join(extra)}"
    page = os.path.join(workdir, "view-cli-" + re.sub(r"[^\w]+", "_", "-".join(extra)) + ".html")
    st = subprocess.run([pa, "view", "-i", fixture, *ropts, *extra, "-o", page],
                        capture_output=True, text=True, check=False)
    if not check(st.returncode == 0, f"{what}: status {st.returncode} {st.stderr.strip()}"):
        return
    b.call("Page.navigate", url="file://" + os.path.abspath(page))
    b.event("Page.loadEventFired")
    if not check(b.js("typeof paView === 'object'"), f"{what}: page script ran"):
        return
    b.js("paView.showTab('flat')")
    same_flat(b, what, pa, fixture, ropts, extra)


def pages_of(rest):
    """(page, fixture, report options) of "PAGE.html FIXTURE [OPTION...] ..." """
    i = 0
    while i < len(rest):
        page, fixture = rest[i], rest[i + 1]
        i += 2
        ropts = []
        while i < len(rest) and not rest[i].endswith(".html"):
            ropts.append(rest[i])
            i += 1
        yield page, fixture, ropts


def browse(args):
    chromium, pa, workdir, *rest = args
    b = start(chromium, workdir, 1400, 900)
    try:
        for page, fixture, ropts in pages_of(rest):
            browse_one(b, pa, workdir, page, fixture, ropts)
        # filters on pa view's command line: the page's initial filters,
        # the total kept (pa report's numbers with the same options)
        fixture, ropts = rest[1], []
        d = page_data(rest[0])
        comms = sorted({t[2] for t in d["threads"] if t[2]})
        st = {s[-1] for s in d["stacks"]}
        dsos = sorted({d["frames"][f][1] for f in st if d["frames"][f][1]})
        syms = sorted({d["frames"][f][0] for f in st if d["frames"][f][3]})
        if comms:
            browse_cli(b, pa, workdir, fixture, ropts, ["--comms", comms[-1]])
        if dsos:
            browse_cli(b, pa, workdir, fixture, ropts, ["--dsos", dsos[-1]])
        if len(syms) > 1:
            browse_cli(b, pa, workdir, fixture, ropts, ["--symbols", ",".join(syms[:2])])
    finally:
        b.close()
    return 1 if FAILS else 0


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("data", "browser"):
        print(__doc__)
        return 2
    if sys.argv[1] == "data":
        return check_data(sys.argv[2:])
    return browse(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
