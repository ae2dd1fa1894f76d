/* view.js - pa view's page: every view drawn from the data element
 * (view/page.c says its shape). The page's filters select aggregates;
 * every view is recomputed from the selected ones:
 *   total     the percentages' base, as pa report's: the periods of the
 *             event's samples in the time range (pa report's --comms,
 *             --pid, --tid, --dsos and --symbols hide rows, they keep
 *             the total)
 *   flat      per function: children (samples whose stack holds it, once
 *             per sample), self (samples where it is the leaf); the comm,
 *             pid, tid and DSO filters select samples (the DSO: by the
 *             sample's own address, as pa report --dsos and perf), the
 *             symbol filter by the sample's own symbol (pa report
 *             --symbols); with these, the rows are pa report's entries
 *             (entries(): shown as their first sample, with the period
 *             of every sample that reaches them)
 *   top-down  a trie of stacks, root first; bottom-up one leaf first
 *             (with a symbol filter, the frames it does not name are
 *             dimmed in the top-down tree and the flame graph)
 *   flame     the top-down trie drawn root at the bottom on a canvas
 * window.paView is the page's API (filters, selection, search, and what
 * each view shows), for scripts and tests. */
(function () {
  'use strict';
  const D = JSON.parse(document.getElementById('pa-data').textContent);
  const NA = 6; /* an aggregate: event, thread, bucket, stack, count, period */
  /* The bulk data (page.c's put_stacks, put_aggs): LEB128 varints in
   * base64. Decoded here into D.stacks (arrays of frame indices) and
   * D.aggs (flat, NA numbers an aggregate, in a Float64Array); the
   * top-down trie of the chains (TDS) is the page's as given. */
  function varints(b64) {
    let u;
    if (typeof Uint8Array.fromBase64 === 'function') u = Uint8Array.fromBase64(b64);
    else {
      const t = atob(b64);
      u = new Uint8Array(t.length);
      for (let i = 0; i < t.length; i++) u[i] = t.charCodeAt(i);
    }
    let p = 0;
    /* the next varint: below 2^28 an int (bit operations), else a double */
    return () => {
      let b = u[p++];
      if (b < 128) return b;
      let v = b & 127;
      b = u[p++]; v |= (b & 127) << 7; if (b < 128) return v;
      b = u[p++]; v |= (b & 127) << 14; if (b < 128) return v;
      b = u[p++]; v |= (b & 127) << 21; if (b < 128) return v;
      let m = 268435456;
      do { b = u[p++]; v += (b & 127) * m; m *= 128; } while (b >= 128);
      return v;
    };
  }
  /* zigzag: 0, 1, 2, 3 ... as 0, -1, 1, -2 ... */
  const unzig = z => z <= 0x7fffffff ? (z >>> 1) ^ -(z & 1) : z % 2 ? -(z + 1) / 2 : z / 2;
  const TDS = (() => {
    const e = D.stacks, rd = varints(e.data), N = e.nodes, n = e.n;
    const par = new Int32Array(N), fr = new Int32Array(N), dep = new Int32Array(N);
    const end = new Int32Array(n), stacks = new Array(n);
    par[0] = -1; fr[0] = -1;
    let maxD = 0;
    for (let i = 1; i < N; i++) {
      const q = i - 1 - rd();
      par[i] = q; fr[i] = rd(); dep[i] = dep[q] + 1;
      if (dep[i] > maxD) maxD = dep[i];
    }
    const tmp = new Int32Array(maxD + 1);
    for (let s = 0, nd = 0; s < n; s++) {
      nd += unzig(rd());
      end[s] = nd;
      for (let k = nd; k > 0; k = par[k]) tmp[dep[k] - 1] = fr[k];
      const a = [];
      for (let d = 0; d < dep[nd]; d++) a.push(tmp[d]);
      a.push(rd());
      stacks[s] = a;
    }
    D.stacks = stacks;
    return {par: par, fr: fr, dep: dep, end: end};
  })();
  const UNITS = D.aggs.units, NEV = D.aggs.events;
  D.aggs = (() => {
    const e = D.aggs, rd = varints(e.data), n = e.n, nev = e.events, units = e.units;
    const a = new Float64Array(n * NA);
    let b = 0, st = 0;
    for (let j = 0; j < n * NA; j += NA) {
      const x = rd(), ev = x % nev;
      a[j] = ev; a[j + 1] = (x - ev) / nev;
      a[j + 2] = b += unzig(rd());
      a[j + 3] = st += unzig(rd());
      const k = rd(), cnt = k <= 0x7fffffff ? k >>> 1 : Math.floor(k / 2);
      a[j + 4] = cnt;
      a[j + 5] = k % 2 ? rd() : cnt * units[ev];
    }
    return a;
  })();
  /* the line aggregates (page.c's put_lines): flat, NL numbers each */
  const NL = 7; /* event, thread, bucket, frame, line, count, period */
  D.laggs = (() => {
    const rd = varints(D.laggs.data), n = D.laggs.n, a = new Float64Array(n * NL);
    let b = 0;
    for (let j = 0; j < n * NL; j += NL) {
      const x = rd(), ev = x % NEV;
      a[j] = ev; a[j + 1] = (x - ev) / NEV;
      a[j + 2] = b += unzig(rd());
      a[j + 3] = rd(); a[j + 4] = rd();
      const k = rd(), cnt = k <= 0x7fffffff ? k >>> 1 : Math.floor(k / 2);
      a[j + 5] = cnt;
      a[j + 6] = k % 2 ? rd() : cnt * UNITS[ev];
    }
    return a;
  })();
  const ROW_H = 16, MIN_W = 1, MAX_ROWS = 5000;
  /* a stack: its chain root first, then its self frame (the sample's ip) */
  /* a stack's frames once each (the stack itself when it repeats none) */
  const uniq = (() => {
    const mark = new Int32Array(D.frames.length).fill(-1);
    return D.stacks.map((s, i) => {
      let u = null;
      for (let k = 0; k < s.length; k++) {
        if (mark[s[k]] !== i) { mark[s[k]] = i; if (u) u.push(s[k]); }
        else if (!u) u = s.slice(0, k);
      }
      return u || s;
    });
  })();
  const selfOf = s => D.stacks[s][D.stacks[s].length - 1];
  const I = D.init || {};
  const S = {
    event: firstEvent(), comm: I.comms || '', pid: I.pids || null, tid: I.tids || null,
    dso: I.dsos || '', sym: I.symbols || '',
    b0: 0, b1: D.buckets - 1, re: null, sel: -1, tab: 'flame',
    sortKey: 'children', sortDesc: true, zoom: null, open: {td: new Set(), bu: new Set()},
    focus: {td: 0, bu: 0}
  };
  let R = null; /* the computed views */
  const $ = id => document.getElementById(id);

  function firstEvent() {
    for (let i = 0; i < D.aggs.length; i += NA)
      if (D.aggs[i + 5] > 0 || D.aggs[i + 4] > 0) return D.aggs[i];
    return 0;
  }

  /* perf's "%.2f": the exact value rounded half to even, as printf does */
  function fixed2(x) {
    const s = x.toFixed(2), e = x.toFixed(25), dot = e.indexOf('.');
    if (dot < 0 || !/^50*$/.test(e.slice(dot + 3))) return s;
    const down = e.slice(0, dot + 3), last = +e[dot + 2];
    return last % 2 === 0 ? down : s;
  }
  function pct(v, total) { return fixed2(total > 0 ? 100.0 * v / total : 0) + '%'; }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, c => '&#' + c.charCodeAt(0) + ';');
  }
  function fname(f) { return D.frames[f][0]; }
  function fdso(f) { return D.frames[f][1] || '[unknown]'; }

  /* ---- filters and the computed views ---- */
  /* a filter's value (one value or a comma list, as pa report's
   * options) as a set of strings; null: no filter */
  function setOf(v) {
    if (v === null || v === undefined || v === '') return null;
    return new Set(String(v).split(',').filter(x => x !== ''));
  }
  const INLINED = ' (inlined)';
  /* F: the filters as sets (compute() makes them) */
  let F = {comm: null, pid: null, tid: null, dso: null, sym: null};
  function makeSets() {
    F = {comm: setOf(S.comm), pid: setOf(S.pid), tid: setOf(S.tid), dso: setOf(S.dso),
      sym: setOf(S.sym)};
  }
  /* a frame passes the symbol filter (pa report --symbols: by its
   * symbol's name, an inline frame's without its mark; an unresolved
   * address has none) */
  function rowOk(f) {
    if (!F.sym) return true;
    const fr = D.frames[f];
    if (!fr[3]) return false;
    const n = fr[0].endsWith(INLINED) ? fr[0].slice(0, -INLINED.length) : fr[0];
    return F.sym.has(n);
  }
  function rowFiltered() { return F.sym !== null; }
  function inBaseOf(ev, bucket) {
    return ev === S.event && bucket >= S.b0 && bucket <= S.b1;
  }
  function inBase(i) {
    return inBaseOf(D.aggs[i], D.aggs[i + 2]);
  }
  /* a sample of an event, thread (D.threads) and bucket whose own address
   * is in frame own passes the filters */
  function samplePasses(ev, thread, bucket, own) {
    if (!inBaseOf(ev, bucket)) return false;
    const th = D.threads[thread];
    if (F.comm && (th[2] === null || !F.comm.has(th[2]))) return false;
    if (F.pid && !F.pid.has(String(th[0]))) return false;
    if (F.tid && !F.tid.has(String(th[1]))) return false;
    /* --dsos: the DSO of the sample's own address (none without a map) */
    const leaf = D.frames[own];
    if (F.dso && (!leaf[1] || !F.dso.has(leaf[1]))) return false;
    return F.sym === null || rowOk(own);
  }
  function passes(i) {
    const a = D.aggs;
    return samplePasses(a[i], a[i + 1], a[i + 2], selfOf(a[i + 3]));
  }

  /* The tries' structure is fixed (the stacks are): built once, in typed
   * arrays (a node's parent, frame, depth; its children a linked list;
   * a child's id above its parent's), and compute() only sums values
   * into it. A node is present when a selected sample's stack passes
   * through it (n > 0); views get node objects made on demand. */
  /* top-down: a stack's chain, root first (the page gives this trie:
   * givenTrie() below); bottom-up (up): its self frame, then its chain
   * from the caller of the chain's leaf to the root. (node, frame) ->
   * child in an open-addressed table. */
  function buildTrie(up) {
    const st = D.stacks;
    let cap = 1;
    for (const s of st) cap += s.length;
    let size = 1024;
    while (size < 2 * cap) size *= 2;
    const tab = new Int32Array(size), mask = size - 1;
    const T = {par: new Int32Array(cap), fr: new Int32Array(cap), dep: new Int32Array(cap),
      first: new Int32Array(cap), next: new Int32Array(cap), end: new Int32Array(st.length),
      len: 1, v: null, s: null, n: null, objs: []};
    T.par[0] = -1; T.fr[0] = -1; T.first[0] = -1; T.next[0] = -1;
    /* the previous stack's path (frames, nodes): a common start is reused */
    let maxL = 1;
    for (const s of st) maxL = Math.max(maxL, s.length);
    const pf = new Int32Array(maxL), pn = new Int32Array(maxL);
    let pl = 0;
    for (let s = 0; s < st.length; s++) {
      const a = st[s], L = a.length, plen = up ? Math.max(1, L - 1) : L - 1;
      let nd = 0, k = 0;
      for (; k < plen && k < pl; k++) {
        if (pf[k] !== (up ? (k ? a[L - 2 - k] : a[L - 1]) : a[k])) break;
        nd = pn[k];
      }
      for (; k < plen; k++) {
        const f = up ? (k ? a[L - 2 - k] : a[L - 1]) : a[k];
        let h = (Math.imul(nd, 0x9E3779B1) ^ Math.imul(f + 1, 0x85EBCA77)) >>> 0;
        h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
        let j = (h ^ (h >>> 13)) & mask, c;
        while ((c = tab[j]) !== 0 && (T.par[c] !== nd || T.fr[c] !== f)) j = (j + 1) & mask;
        if (c === 0) {
          c = T.len++;
          T.par[c] = nd; T.fr[c] = f; T.dep[c] = T.dep[nd] + 1;
          T.first[c] = -1; T.next[c] = T.first[nd]; T.first[nd] = c;
          tab[j] = c;
        }
        nd = c;
        pf[k] = f;
        pn[k] = c;
      }
      pl = plen;
      T.end[s] = nd;
    }
    T.v = new Float64Array(T.len); T.s = new Float64Array(T.len); T.n = new Float64Array(T.len);
    return T;
  }
  /* the top-down trie as the page gives it (TDS: the nodes in the order
   * buildTrie(false) would make them) */
  function givenTrie(G) {
    const cap = G.par.length, first = new Int32Array(cap).fill(-1), next = new Int32Array(cap);
    next[0] = -1;
    for (let c = 1; c < cap; c++) { next[c] = first[G.par[c]]; first[G.par[c]] = c; }
    return {par: G.par, fr: G.fr, dep: G.dep, first: first, next: next, end: G.end, len: cap,
      v: new Float64Array(cap), s: new Float64Array(cap), n: new Float64Array(cap), objs: []};
  }
  const TD = givenTrie(TDS), BU = buildTrie(true);
  class TNode {
    constructor(T, id) {
      this.T = T; this.id = id; this.f = T.fr[id]; this.v = T.v[id]; this.s = T.s[id];
      this.n = T.n[id]; this.depth = T.dep[id]; this.path = ''; this._sorted = null;
      this._kids = null;
    }
    get parent() { return this.id > 0 ? node(this.T, this.T.par[this.id]) : null; }
    get sorted() { return this._sorted || (this._sorted = sortKids(this)); }
    /* the present children by frame (unsorted) */
    get kids() {
      if (!this._kids) {
        const T = this.T, m = new Map();
        for (let c = T.first[this.id]; c >= 0; c = T.next[c])
          if (T.n[c] > 0) m.set(T.fr[c], node(T, c));
        this._kids = m;
      }
      return this._kids;
    }
  }
  function node(T, id) {
    return T.objs[id] || (T.objs[id] = new TNode(T, id));
  }
  function trieReset(T) {
    T.v.fill(0); T.s.fill(0); T.n.fill(0);
    T.objs = [];
  }
  /* stack s's values at its node; trieSum() pushes them up */
  function trieAdd(T, s, p, c) {
    const e = T.end[s];
    T.v[e] += p; T.n[e] += c; T.s[e] += p;
  }
  function trieSum(T) {
    for (let i = T.len - 1; i > 0; i--) {
      const q = T.par[i];
      T.v[q] += T.v[i]; T.n[q] += T.n[i];
    }
  }
  function sortKids(nd) {
    return Array.from(nd.kids.values()).sort((a, b) => b.v - a.v || a.f - b.f);
  }

  function compute() {
    makeSets();
    const sp = new Float64Array(D.stacks.length), sc = new Float64Array(D.stacks.length);
    let total = 0, samples = 0;
    for (let i = 0; i < D.aggs.length; i += NA) {
      if (inBase(i)) total += D.aggs[i + 5];
      if (!passes(i)) continue;
      sp[D.aggs[i + 3]] += D.aggs[i + 5];
      sc[D.aggs[i + 3]] += D.aggs[i + 4];
      samples += D.aggs[i + 4];
    }
    /* (with a row filter the table is entries()'s, counted its own way) */
    const rows = !(F.comm || F.pid || F.tid || F.dso || F.sym);
    const ch = new Float64Array(D.frames.length), se = new Float64Array(D.frames.length);
    const sn = new Float64Array(D.frames.length), seen = new Uint8Array(D.frames.length);
    trieReset(TD);
    trieReset(BU);
    for (let s = 0; s < D.stacks.length; s++) {
      if (!sc[s]) continue;
      trieAdd(TD, s, sp[s], sc[s]);
      trieAdd(BU, s, sp[s], sc[s]);
      if (!rows) continue;
      const leaf = selfOf(s);
      for (const f of uniq[s]) { ch[f] += sp[s]; seen[f] = 1; }
      se[leaf] += sp[s];
      sn[leaf] += sc[s];
    }
    trieSum(TD);
    trieSum(BU);
    const flat = [];
    if (RP) replayed(flat);
    else if (!rows) entries(flat);
    else
      for (let f = 0; f < D.frames.length; f++)
        if (seen[f]) flat.push({f: f, children: ch[f], self: se[f], samples: sn[f], ch: true,
          se: sn[f] > 0});
    R = {total: total, samples: samples, flat: flat, td: node(TD, 0), bu: node(BU, 0)};
  }

  /* The flat table's rows with a comm, pid, tid, DSO or symbol filter,
   * as pa report's (perf's) entries: an entry is made by the first sample
   * (in the recording's order) that reaches it, and shown or hidden as
   * that sample passes the filters or not; a shown entry has the period of
   * every sample that reaches it, filtered or not. The aggregates are in
   * the order of their first samples, so the first aggregate of the base
   * (event, time range) that reaches a frame holds its first sample. A
   * row's ch: shown by pa report --children (its first sample reaching
   * it), se: by --no-children (its first sample with it as self). */
  function entries(flat) {
    const n = D.stacks.length, nf = D.frames.length;
    const sp = new Float64Array(n), sc = new Float64Array(n), first = new Float64Array(n);
    first.fill(Infinity);
    for (let i = 0; i < D.aggs.length; i += NA) {
      if (!inBase(i)) continue;
      const s = D.aggs[i + 3];
      sp[s] += D.aggs[i + 5];
      sc[s] += D.aggs[i + 4];
      if (i < first[s]) first[s] = i;
    }
    const ch = new Float64Array(nf), se = new Float64Array(nf), sn = new Float64Array(nf);
    const fch = new Float64Array(nf), fse = new Float64Array(nf);
    fch.fill(Infinity);
    fse.fill(Infinity);
    for (let s = 0; s < n; s++) {
      if (!sc[s]) continue;
      const leaf = selfOf(s);
      for (const f of uniq[s]) {
        ch[f] += sp[s];
        if (first[s] < fch[f]) fch[f] = first[s];
      }
      se[leaf] += sp[s];
      sn[leaf] += sc[s];
      if (first[s] < fse[leaf]) fse[leaf] = first[s];
    }
    for (let f = 0; f < nf; f++) {
      const c = fch[f] < Infinity && passes(fch[f]), e = fse[f] < Infinity && passes(fse[f]);
      if (c || e) flat.push({f: f, children: ch[f], self: se[f], samples: sn[f], ch: c, se: e});
    }
  }

  /* ---- perf's --children entries with inline frames (D.replay) ----
   * perf compares an inline frame's symbol by name and the others by
   * address (sort__sym_cmp): no order, so the shape of its hist-entry
   * rb-tree decides whether a sample finds the entry of its key or makes
   * a second one, which pa report --children prints as a row of its own.
   * The page replays that tree as pa report does: the samples of the
   * event and time range in the trace's order, each finding (or making)
   * its self entry, then one per chain frame, root first (--children's
   * default caller order), but for a frame equal to an entry the sample
   * already has (perf's he_cache). An entry is its first frame's; row
   * filters show it as its first sample passes them, as entries() below. */
  const RP = D.replay ? (() => {
    const rd = varints(D.replay.seq), n = D.replay.n, agg = new Float64Array(n);
    const per = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      const x = rd(), i = Math.floor(x / 2) * NA;
      agg[k] = i;
      per[k] = x % 2 ? rd() : UNITS[D.aggs[i]];
    }
    return {agg: agg, per: per, sym: D.replay.sym, addr: new Map(), base: null, tree: null};
  })() : null;
  const strcmp = (a, b) => a < b ? -1 : a > b ? 1 : 0;
  function symName(f) {
    return RP.sym[3 * f] ? fname(f).slice(0, -INLINED.length) : fname(f);
  }
  function addrOf(f) {
    let a = RP.addr.get(f);
    if (a === undefined) RP.addr.set(f, a = BigInt(fname(f)));
    return a;
  }
  /* perf's hist_entry__cmp of dso,sym (existing entry's frame l, new
   * frame r) as a sign: pa report's (report/keys.c dso_cmp, sym_cmp) */
  function entryCmp(l, r) {
    const fl = D.frames[l], fr = D.frames[r], y = RP.sym;
    if (!fl[1] || !fr[1]) {
      if (fl[1] || fr[1]) return fl[1] ? 1 : -1;
    } else {
      const c = strcmp(fr[1], fl[1]);
      if (c) return c;
    }
    if (!fl[3] && !fr[3]) { /* addresses by their wrapping difference */
      const d = BigInt.asIntN(64, addrOf(r) - addrOf(l));
      return d > 0n ? 1 : d < 0n ? -1 : 0;
    }
    if (!fl[3] || !fr[3]) return fl[3] ? 1 : -1;
    if (l === r) return 0;
    if (y[3 * l] || y[3 * r]) {
      const c = strcmp(symName(l), symName(r));
      if (c) return c;
      if (y[3 * l + 1] <= y[3 * r + 2] && y[3 * l + 2] >= y[3 * r + 1]) return 0;
    }
    const sl = y[3 * l + 1], sr = y[3 * r + 1], el = y[3 * l + 2], er = y[3 * r + 2];
    if (sl !== sr) return sr > sl ? 1 : -1;
    return er > el ? 1 : er < el ? -1 : 0;
  }
  /* the Linux kernel's rb-tree (lib/rbtree.c, as util/rbtree.c): its
   * rebalancing case for case, so that the tree has perf's shape */
  function rbChange(T, old, nw, p) {
    if (p < 0) T.root = nw;
    else if (T.L[p] === old) T.L[p] = nw;
    else T.R[p] = nw;
  }
  function rbRotateSet(T, old, nw) {
    const p = T.P[old];
    T.P[nw] = p; T.red[nw] = T.red[old];
    T.P[old] = nw; T.red[old] = 1;
    rbChange(T, old, nw, p);
  }
  function rbInsertColor(T, node) {
    const L = T.L, R = T.R, P = T.P, red = T.red;
    let parent = P[node];
    for (;;) {
      if (parent < 0) { red[node] = 0; return; }
      if (!red[parent]) return;
      const gp = P[parent], left = parent !== R[gp];
      /* (parent on gparent's right: the same with left and right swapped) */
      const A = left ? L : R, B = left ? R : L;
      let tmp = B[gp];
      if (tmp >= 0 && red[tmp]) { /* uncle red: flip colours, go up */
        red[tmp] = 0; red[parent] = 0;
        node = gp; parent = P[node]; red[node] = 1;
        continue;
      }
      tmp = B[parent];
      if (node === tmp) { /* rotate at parent */
        tmp = A[node]; B[parent] = tmp; A[node] = parent;
        if (tmp >= 0) { P[tmp] = parent; red[tmp] = 0; }
        P[parent] = node; red[parent] = 1;
        parent = node; tmp = B[node];
      }
      /* rotate at gparent */
      A[gp] = tmp; B[parent] = gp;
      if (tmp >= 0) { P[tmp] = gp; red[tmp] = 0; }
      rbRotateSet(T, gp, parent);
      return;
    }
  }
  /* perf's hists__findnew_entry: the entry of frame f, made (by the
   * sample of aggregate i) when the search finds none */
  function findnew(T, f, i) {
    let p = -1, x = T.root, d = 0;
    while (x >= 0) {
      p = x;
      d = entryCmp(T.key[x], f);
      if (!d) return x;
      x = d < 0 ? T.L[x] : T.R[x];
    }
    const e = T.key.length;
    T.key.push(f); T.L.push(-1); T.R.push(-1); T.P.push(p); T.red.push(1); T.first.push(i);
    T.acc.push(0); T.self.push(0); T.n.push(0);
    if (p < 0) T.root = e;
    else if (d < 0) T.L[p] = e;
    else T.R[p] = e;
    rbInsertColor(T, e);
    T.gen++;
    return e;
  }
  /* the entries of the base (event, time range): remade when it changes;
   * a sample of an aggregate finds the same entries as the one before
   * while the tree has not changed */
  function replayTree() {
    const base = S.event + ':' + S.b0 + ':' + S.b1;
    if (RP.base === base) return RP.tree;
    const T = {root: -1, gen: 0, key: [], L: [], R: [], P: [], red: [], first: [], acc: [],
      self: [], n: []};
    const memo = new Map(), a = D.aggs;
    for (let k = 0; k < RP.agg.length; k++) {
      const i = RP.agg[k], p = RP.per[k];
      if (!inBase(i)) continue;
      let m = memo.get(i);
      if (!m || m.gen !== T.gen) {
        const st = D.stacks[a[i + 3]], ents = [findnew(T, st[st.length - 1], i)];
        for (let j = 0; j + 1 < st.length; j++)
          if (!ents.some(e => !entryCmp(T.key[e], st[j]))) ents.push(findnew(T, st[j], i));
        memo.set(i, m = {gen: T.gen, ents: ents});
      }
      T.self[m.ents[0]] += p;
      T.n[m.ents[0]]++;
      for (const e of m.ents) T.acc[e] += p;
    }
    RP.base = base;
    return RP.tree = T;
  }
  /* the flat table's rows as replayed entries; a row's se: pa report
   * --no-children shows its function (whose row there sums the self of
   * the function's entries here: split marks them) */
  function replayed(flat) {
    const T = replayTree(), nf = D.frames.length, fse = new Float64Array(nf).fill(Infinity);
    const parts = new Int32Array(nf);
    for (let i = 0; i < D.aggs.length; i += NA) {
      if (!inBase(i)) continue;
      const leaf = selfOf(D.aggs[i + 3]);
      if (i < fse[leaf]) fse[leaf] = i;
    }
    for (let e = 0; e < T.key.length; e++) parts[T.key[e]]++;
    for (let e = 0; e < T.key.length; e++) {
      const f = T.key[e], c = passes(T.first[e]), s = T.n[e] > 0 && passes(fse[f]);
      if (c || s) flat.push({f: f, children: T.acc[e], self: T.self[e], samples: T.n[e], ch: c,
        se: s, split: parts[f] > 1});
    }
  }

  /* ---- source lines of the selected function ----
   * Its samples (by their own address) summed by source line, as pa
   * report --no-children --sort dso,sym,srcline's rows of the function: an
   * entry is made by its first sample and shown as that one passes the
   * filters (the line aggregates are in the order of their first
   * samples), with the period of every sample of the line in the base.
   * The function's samples addr2line names no line for make one row (line
   * 0): its self in the base but for those of lines. */
  function sourceOf(f) {
    const L = D.laggs, A = D.aggs, by = new Map();
    let fsum = 0, lsum = 0, fn = 0, ln = 0;
    for (let i = 0; i < A.length; i += NA)
      if (inBase(i) && selfOf(A[i + 3]) === f) { fsum += A[i + 5]; fn += A[i + 4]; }
    for (let j = 0; j < L.length; j += NL) {
      if (L[j + 3] !== f || !inBaseOf(L[j], L[j + 2])) continue;
      lsum += L[j + 6];
      ln += L[j + 5];
      let r = by.get(L[j + 4]);
      if (!r) by.set(L[j + 4], r = {line: L[j + 4], v: 0, n: 0,
        shown: samplePasses(L[j], L[j + 1], L[j + 2], f)});
      r.v += L[j + 6];
      r.n += L[j + 5];
    }
    const rows = Array.from(by.values()).filter(r => r.shown);
    if (fn > ln) rows.push({line: 0, v: fsum - lsum, n: fn - ln, shown: true});
    rows.sort((a, b) => b.v - a.v || a.line - b.line);
    return {rows: rows, fsum: fsum};
  }
  function renderSource() {
    dirty.add('src');
    if (S.tab === 'src') ensure('src');
  }
  function renderSourceNow() {
    const f = S.sel;
    if (f < 0) {
      $('src').innerHTML = '<p class="note">Select a function (in any view) to see the source ' +
        'lines its samples fell on.</p>';
      return;
    }
    const src = sourceOf(f);
    let s = '<p>Source lines of <b>' + esc(fname(f)) + '</b> [' + esc(fdso(f)) + ']: ' +
      pct(src.fsum, R.total) + ' of the total (self)</p>';
    if (!src.rows.length) {
      $('src').innerHTML = s + '<p class="note">no sample of it in the selection</p>';
      return;
    }
    s += '<table class="flat src"><thead><tr><th>Self</th><th>Share</th><th>Samples</th>' +
      '<th>Line</th><th>Source</th></tr></thead><tbody>';
    for (const r of src.rows) {
      const ln = r.line ? D.lines[r.line - 1] : null, share = src.fsum > 0 ? r.v / src.fsum : 0;
      /* (the search marks lines whose srcline or text it matches) */
      const m = S.re !== null && ln !== null && (S.re.test(ln[0]) || (ln[1] !== null &&
        S.re.test(ln[1])));
      s += '<tr style="background:rgba(255,80,0,' + (0.5 * share).toFixed(3) + ')"' +
        (m ? ' class="m"' : '') + ' data-line="' + r.line + '"><td class="num">' + pct(r.v, R.total) + '</td><td class="num">' +
        pct(r.v, src.fsum) + '</td><td class="num">' + r.n + '</td><td>' +
        (ln ? esc(ln[0]) : '(no source line)') + '</td><td class="code">' +
        (ln && ln[1] !== null ? esc(ln[1]) : '') + '</td></tr>';
    }
    $('src').innerHTML = s + '</tbody></table>';
  }

  /* ---- the header ---- */
  function headerHtml() {
    const h = D.header, ev = D.events.map(esc).join(', ');
    const t0 = BigInt(D.t0), t1 = t0 + BigInt(D.width) * BigInt(D.buckets);
    const dur = D.has_time ? (Number(t1 - t0) / 1e9).toFixed(3) + ' s' : 'n/a';
    const kv = [['host', h.host], ['arch', h.arch], ['os release', h.osrelease],
      ['perf version', h.perf_version], ['cpu', h.cpudesc], ['cpus online', h.nr_cpus],
      ['events', null], ['samples', h.samples], ['duration', dur]];
    let s = '<h1>pa view: ' + esc(D.title) + '</h1><div class="hdr">';
    for (const [k, v] of kv)
      s += '<span>' + k + ': <b>' + (k === 'events' ? ev : esc(v === null ? 'n/a' : v)) + '</b></span>';
    s += '</div>';
    if (h.cmdline.length) s += '<div class="hdr">cmdline: <b>' + esc(h.cmdline.join(' ')) + '</b></div>';
    if (D.filters) s += '<div class="hdr">recorded with filters: <b>' + esc(D.filters) + '</b></div>';
    if (D.notes.length) {
      s += '<details class="notes" id="notes"><summary>' + D.notes.length +
        ' DSO note(s) (pa report -v)</summary><ul>';
      for (const [dso, has, why] of D.notes)
        s += '<li>' + esc(dso) + ': ' + (has ? '' : 'no symbols: ') + esc(why) + '</li>';
      s += '</ul></details>';
    }
    return s;
  }

  /* ---- filter bar ---- */
  function options(list, cur) {
    return list.map(([v, t]) => '<option value="' + esc(v) + '"' + (String(cur) === String(v) ?
      ' selected' : '') + '>' + esc(t) + '</option>').join('');
  }
  function barHtml() {
    const evs = D.events.map((e, i) => [i, e]);
    const comms = Array.from(new Set(D.threads.map(t => t[2]).filter(c => c !== null))).sort();
    const pids = Array.from(new Set(D.threads.map(t => t[0]))).sort((a, b) => a - b);
    const tids = Array.from(new Set(D.threads.map(t => t[1]))).sort((a, b) => a - b);
    const dsos = Array.from(new Set(D.stacks.map((s, i) => D.frames[selfOf(i)][1])
      .filter(d => d))).sort();
    /* a value given on the command line (a comma list) as one more choice */
    const choice = (vals, cur) => {
      const list = [['', 'all']].concat(vals.map(v => [v, v]));
      if (cur !== null && cur !== '' && !list.some(([v]) => String(v) === String(cur)))
        list.push([cur, cur]);
      return options(list, cur);
    };
    return '<div class="bar">event <select id="f-event">' + options(evs, S.event) + '</select>' +
      'comm <select id="f-comm">' + choice(comms, S.comm) +
      '</select>pid <select id="f-pid">' + choice(pids, S.pid) +
      '</select>tid <select id="f-tid">' + choice(tids, S.tid) +
      '</select>DSO <select id="f-dso">' + choice(dsos, S.dso) +
      '</select>symbols <input id="f-sym" size="16" placeholder="name,name" value="' +
      esc(S.sym) + '"><button id="f-reset">reset filters</button>' +
      ' search <input id="search" size="28" placeholder="regular expression">' +
      ' <span id="matched"></span></div>' +
      '<div class="bar"><span>time: <span id="timearg"></span></span>' +
      '<button id="f-alltime">whole recording</button>' +
      '<span class="note">drag on the timeline to choose a time range</span></div>' +
      '<div id="timeline"></div>' +
      '<div class="bar" id="totals"></div>';
  }

  function bind() {
    $('f-event').onchange = e => setFilter({event: +e.target.value});
    $('f-comm').onchange = e => setFilter({comm: e.target.value});
    $('f-pid').onchange = e => setFilter({pid: e.target.value === '' ? null : e.target.value});
    $('f-tid').onchange = e => setFilter({tid: e.target.value === '' ? null : e.target.value});
    $('f-dso').onchange = e => setFilter({dso: e.target.value});
    $('f-sym').onchange = e => setFilter({sym: e.target.value.trim()});
    $('f-reset').onclick = () => setFilter({comm: '', pid: null, tid: null, dso: '', sym: '',
      b0: 0, b1: D.buckets - 1});
    $('f-alltime').onclick = () => setFilter({b0: 0, b1: D.buckets - 1});
    let timer = 0;
    $('search').oninput = e => {
      clearTimeout(timer);
      timer = setTimeout(() => search(e.target.value), 150);
    };
    for (const b of document.querySelectorAll('.tabs button'))
      b.onclick = () => showTab(b.dataset.tab);
    bindTimeline();
    bindTrees();
    bindFlame();
  }

  function setFilter(f) {
    Object.assign(S, f);
    S.zoom = null;
    S.open.td.clear();
    S.open.bu.clear();
    S.focus = {td: 0, bu: 0};
    for (const [id, k] of [['f-event', 'event'], ['f-comm', 'comm'], ['f-pid', 'pid'],
      ['f-tid', 'tid'], ['f-dso', 'dso'], ['f-sym', 'sym']]) {
      const v = S[k] === null ? '' : String(S[k]), el = $(id);
      if (el.tagName === 'SELECT' && v !== '' &&
        !Array.from(el.options).some(o => o.value === v)) {
        const o = document.createElement('option');
        o.value = o.textContent = v;
        el.appendChild(o);
      }
      el.value = v;
    }
    refresh();
  }

  function search(text) {
    let re = null;
    if ($('search').value !== text) $('search').value = text;
    $('search').classList.remove('bad');
    if (text !== '') {
      try { re = new RegExp(text); } catch (e) { $('search').classList.add('bad'); return false; }
    }
    S.re = re;
    render();
    return true;
  }
  function matches(f) { return S.re !== null && S.re.test(fname(f)); }

  /* perf's --time start,stop of the chosen buckets (both ends included) */
  function timeArg() {
    if (!D.has_time || (S.b0 === 0 && S.b1 === D.buckets - 1)) return '';
    const w = BigInt(D.width), t0 = BigInt(D.t0);
    const a = t0 + BigInt(S.b0) * w, b = t0 + BigInt(S.b1 + 1) * w - 1n;
    const sec = t => (t / 1000000000n) + '.' + String(t % 1000000000n).padStart(9, '0');
    return sec(a) + ',' + sec(b);
  }

  function refresh() {
    compute();
    render();
  }
  function render() {
    const ta = timeArg();
    $('timearg').textContent = ta ? '--time ' + ta : 'whole recording';
    $('totals').textContent = 'selected: ' + R.samples + ' samples, period ' + R.total +
      ' (percentages of this total, as pa report with the same filters)';
    /* the share of the selected samples with a matching frame */
    const m = S.re ? matchedShare() : 0;
    $('matched').textContent = S.re ? 'Matched: ' + pct(m, R.total) : '';
    drawTimeline();
    renderTree('td');
    renderTree('bu');
    renderFlat();
    renderSource();
    drawFlame();
  }
  function matchedShare() {
    let v = 0;
    for (let i = 0; i < D.aggs.length; i += NA) {
      if (!passes(i)) continue;
      if (uniq[D.aggs[i + 3]].some(matches)) v += D.aggs[i + 5];
    }
    return v;
  }

  /* ---- timeline: one row of buckets per thread ---- */
  const TL = {rows: [], w: 0, drag: null, labelW: 160, rowH: 14};
  function drawTimeline() {
    const box = $('timeline');
    let cv = box.querySelector('canvas');
    const byTid = new Map();
    for (let i = 0; i < D.aggs.length; i += NA) {
      if (D.aggs[i] !== S.event) continue;
      const th = D.threads[D.aggs[i + 1]];
      let r = byTid.get(th[1]);
      if (!r) byTid.set(th[1], r = {tid: th[1], pid: th[0], comm: th[2], c: new Float64Array(D.buckets)});
      r.c[D.aggs[i + 2]] += D.aggs[i + 4];
    }
    TL.rows = Array.from(byTid.values()).sort((a, b) => a.pid - b.pid || a.tid - b.tid).slice(0, 40);
    const w = Math.max(300, box.clientWidth || 800), h = TL.rows.length * TL.rowH + 4;
    if (!cv) { cv = document.createElement('canvas'); box.appendChild(cv); }
    cv.width = w;
    cv.height = h;
    TL.w = w;
    const g = cv.getContext('2d'), bw = (w - TL.labelW) / D.buckets;
    g.clearRect(0, 0, w, h);
    g.font = '11px sans-serif';
    TL.rows.forEach((r, k) => {
      const y = k * TL.rowH + 2;
      const max = r.c.reduce((m, v) => Math.max(m, v), 1);
      g.fillStyle = '#333';
      g.fillText(((r.comm === null ? ':' + r.tid : r.comm) + ' (' + r.tid + ')').slice(0, 24), 2, y + 11);
      for (let b = 0; b < D.buckets; b++) {
        if (!r.c[b]) continue;
        const dim = b < S.b0 || b > S.b1;
        g.fillStyle = dim ? '#ccc' : 'rgb(40,' + (160 - Math.round(100 * r.c[b] / max)) + ',200)';
        const hh = Math.max(2, Math.round((TL.rowH - 2) * r.c[b] / max));
        g.fillRect(TL.labelW + b * bw, y + TL.rowH - 1 - hh, Math.max(1, bw), hh);
      }
    });
    if (S.b0 > 0 || S.b1 < D.buckets - 1) {
      g.strokeStyle = '#e00';
      g.strokeRect(TL.labelW + S.b0 * bw, 0, (S.b1 - S.b0 + 1) * bw, h);
    }
  }
  function bucketAt(x) {
    const bw = (TL.w - TL.labelW) / D.buckets;
    return Math.min(D.buckets - 1, Math.max(0, Math.floor((x - TL.labelW) / bw)));
  }
  function bindTimeline() {
    const box = $('timeline');
    box.onmousedown = e => {
      const r = box.getBoundingClientRect();
      TL.drag = bucketAt(e.clientX - r.left);
      e.preventDefault();
    };
    window.addEventListener('mouseup', e => {
      if (TL.drag === null) return;
      const r = box.getBoundingClientRect(), b = bucketAt(e.clientX - r.left);
      const a = TL.drag;
      TL.drag = null;
      setFilter({b0: Math.min(a, b), b1: Math.max(a, b)});
    });
  }

  /* ---- the trees (top-down: td, bottom-up: bu) ---- */
  function visibleRows(kind) {
    const rows = [], open = S.open[kind];
    const walk = (nd, path) => {
      for (const k of nd.sorted) {
        if (rows.length >= MAX_ROWS) return;
        const p = path + '/' + k.f;
        k.path = p;
        rows.push(k);
        if (open.has(p)) walk(k, p);
      }
    };
    walk(R[kind], '');
    return rows;
  }
  /* a tree or the table not shown is drawn when shown (or asked for) */
  const dirty = new Set();
  function ensure(kind) {
    if (!dirty.has(kind)) return;
    dirty.delete(kind);
    if (kind === 'flat') renderFlatNow();
    else if (kind === 'src') renderSourceNow();
    else renderTreeNow(kind);
  }
  function renderTree(kind) {
    dirty.add(kind);
    if (S.tab === kind) ensure(kind);
  }
  function renderTreeNow(kind) {
    const el = $(kind);
    const rows = visibleRows(kind), open = S.open[kind];
    el.rowsList = rows;
    if (S.focus[kind] >= rows.length) S.focus[kind] = Math.max(0, rows.length - 1);
    let s = '<div class="hd"><span class="num">' + (kind === 'td' ? 'Children' : 'Total') +
      '</span><span class="num">Self</span><span>Function</span></div>';
    rows.forEach((nd, i) => {
      const cls = 'row' + (nd.f === S.sel ? ' sel' : '') + (matches(nd.f) ? ' m' : '') +
        (kind === 'td' && rowFiltered() && !rowOk(nd.f) ? ' dim' : '') +
        (i === S.focus[kind] ? ' focus' : '');
      const tw = nd.kids.size ? (open.has(nd.path) ? '\u25be' : '\u25b8') : '';
      s += '<div class="' + cls + '" data-i="' + i + '" data-depth="' + (nd.depth - 1) + '">' +
        '<span class="num ch">' + pct(nd.v, R.total) + '</span><span class="num se">' +
        pct(nd.s, R.total) + '</span><span class="nm" style="padding-left:' + (nd.depth - 1) * 14 +
        'px"><span class="tw">' + tw + '</span><span class="fn">' + esc(fname(nd.f)) +
        '</span><span class="dso">' + esc(fdso(nd.f)) + '</span></span></div>';
    });
    el.innerHTML = s;
  }
  function toggle(kind, i, want) {
    ensure(kind);
    const nd = $(kind).rowsList[i];
    if (!nd) return;
    const open = S.open[kind], isOpen = open.has(nd.path);
    if (want === undefined) want = !isOpen;
    if (want && nd.kids.size) open.add(nd.path);
    else open.delete(nd.path);
    renderTree(kind);
  }
  function keyTree(kind, e) {
    ensure(kind);
    const rows = $(kind).rowsList, i = S.focus[kind], nd = rows[i];
    if (!nd) return;
    const open = S.open[kind];
    if (e.key === 'ArrowDown') S.focus[kind] = Math.min(rows.length - 1, i + 1);
    else if (e.key === 'ArrowUp') S.focus[kind] = Math.max(0, i - 1);
    else if (e.key === 'ArrowRight') {
      if (nd.kids.size && !open.has(nd.path)) open.add(nd.path);
      else if (nd.kids.size) S.focus[kind] = i + 1;
    } else if (e.key === 'ArrowLeft') {
      if (open.has(nd.path)) open.delete(nd.path);
      else if (nd.parent && nd.parent.f >= 0) S.focus[kind] = rows.indexOf(nd.parent);
    } else if (e.key === 'Enter') {
      select(nd.f);
      toggle(kind, i);
      return;
    } else return;
    e.preventDefault();
    renderTree(kind);
    const f = $(kind).querySelector('.row.focus');
    if (f && f.scrollIntoView) f.scrollIntoView({block: 'nearest'});
  }
  function bindTrees() {
    for (const kind of ['td', 'bu']) {
      const el = $(kind);
      el.onclick = e => {
        const row = e.target.closest('.row');
        if (!row) return;
        const i = +row.dataset.i;
        S.focus[kind] = i;
        if (e.target.classList.contains('tw')) toggle(kind, i);
        else select(el.rowsList[i].f);
      };
      el.ondblclick = e => {
        const row = e.target.closest('.row');
        if (row) toggle(kind, +row.dataset.i);
      };
      el.onkeydown = e => keyTree(kind, e);
    }
  }

  /* ---- flat table ---- */
  const COLS = [['children', 'Children'], ['self', 'Self'], ['samples', 'Samples'],
    ['name', 'Function'], ['dso', 'DSO']];
  function renderFlat() {
    dirty.add('flat');
    if (S.tab === 'flat') ensure('flat');
  }
  function renderFlatNow() {
    const key = S.sortKey, dir = S.sortDesc ? -1 : 1;
    const val = r => key === 'name' ? fname(r.f) : key === 'dso' ? fdso(r.f) : r[key];
    const rows = R.flat.filter(r => !S.re || matches(r.f)).sort((a, b) => {
      const x = val(a), y = val(b);
      return (x < y ? -1 : x > y ? 1 : 0) * dir || b.children - a.children || a.f - b.f;
    });
    let s = '<table class="flat"><thead><tr>';
    for (const [k, t] of COLS)
      s += '<th data-k="' + k + '">' + t + (k === key ? (S.sortDesc ? ' \u25be' : ' \u25b4') : '') + '</th>';
    s += '</tr></thead><tbody>';
    for (const r of rows.slice(0, MAX_ROWS))
      /* (a row pa report --children hides, --no-children shows: no children) */
      s += '<tr data-f="' + r.f + '" data-ch="' + (r.ch ? 1 : 0) + '" data-se="' + (r.se ? 1 : 0) +
        (r.split ? '" data-cv="' + r.children + '" data-sv="' + r.self : '') + '" class="' + (r.f === S.sel ? 'sel' : '') + (matches(r.f) ? ' m' : '') +
        '"><td class="num">' + (r.ch ? pct(r.children, R.total) : '-') + '</td><td class="num">' +
        pct(r.self, R.total) + '</td><td class="num">' + r.samples + '</td><td class="nm">' +
        esc(fname(r.f)) + '</td><td>' + esc(fdso(r.f)) + '</td></tr>';
    $('flat').innerHTML = s + '</tbody></table>';
  }
  function sortBy(k) {
    if (S.sortKey === k) S.sortDesc = !S.sortDesc;
    else { S.sortKey = k; S.sortDesc = k !== 'name' && k !== 'dso'; }
    renderFlat();
  }

  /* ---- flame graph: canvas, root at the bottom ---- */
  const FL = {rects: [], w: 0, h: 0};
  function hue(name) {
    let h = 0;
    for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
    return h;
  }
  function flameColor(f) {
    if (f === S.sel) return 'rgb(60,120,230)';
    if (matches(f)) return 'rgb(230,0,230)';
    if (rowFiltered() && !rowOk(f)) return '#ddd8d0';
    const h = hue(fname(f));
    return 'rgb(' + (205 + h % 50) + ',' + (80 + (h >> 8) % 130) + ',' + (40 + (h >> 16) % 40) + ')';
  }
  function layoutFlame(width) {
    const rects = [];
    let base = R.td, x0 = 0, scale = R.total > 0 ? width / R.total : 0;
    if (S.zoom) {
      const z = findPath(R.td, S.zoom);
      if (z) { base = z; scale = z.v > 0 ? width / z.v : 0; }
      else S.zoom = null;
    }
    const anc = [];
    for (let a = base; a && a.f >= 0; a = a.parent) anc.unshift(a);
    anc.forEach((a, d) => rects.push({nd: a, x: 0, w: width, d: d, faded: a !== base}));
    /* only the children of at least MIN_W, which sort before the others
     * (by value): the subtrees of those narrower are not walked */
    const walk = (nd, x, d) => {
      const T = nd.T, big = [];
      for (let c = T.first[nd.id]; c >= 0; c = T.next[c])
        if (T.n[c] > 0 && T.v[c] * scale >= MIN_W) big.push(c);
      big.sort((a, b) => T.v[b] - T.v[a] || T.fr[a] - T.fr[b]);
      for (const c of big) {
        const k = node(T, c), w = k.v * scale;
        rects.push({nd: k, x: x, w: w, d: d, faded: false});
        walk(k, x, d + 1);
        x += w;
      }
    };
    walk(base, x0, anc.length);
    return rects;
  }
  function findPath(root, path) {
    let nd = root;
    for (const f of path) { nd = nd.kids.get(f); if (!nd) return null; }
    return nd;
  }
  function pathOf(nd) {
    const p = [];
    for (let a = nd; a && a.f >= 0; a = a.parent) p.unshift(a.f);
    return p;
  }
  function drawFlame() {
    const box = $('flame');
    let cv = box.querySelector('canvas');
    if (!cv) { cv = document.createElement('canvas'); box.appendChild(cv); }
    const width = Math.max(300, box.clientWidth || document.body.clientWidth - 24 || 800);
    const rects = layoutFlame(width);
    const depth = rects.reduce((m, r) => Math.max(m, r.d + 1), 0);
    const h = Math.max(1, depth) * ROW_H;
    cv.width = width;
    cv.height = h;
    FL.w = width;
    FL.h = h;
    const g = cv.getContext('2d');
    g.font = '11px sans-serif';
    g.textBaseline = 'middle';
    for (const r of rects) {
      r.y = h - (r.d + 1) * ROW_H;
      g.fillStyle = r.faded ? '#e8e2d8' : flameColor(r.nd.f);
      g.fillRect(r.x, r.y, Math.max(0.5, r.w - 0.5), ROW_H - 1);
      if (r.w > 30) {
        g.fillStyle = r.nd.f === S.sel ? '#fff' : '#000';
        const name = fname(r.nd.f), chars = Math.floor((r.w - 6) / 6.5);
        g.fillText(name.length > chars ? name.slice(0, Math.max(0, chars - 2)) + '..' : name,
          r.x + 3, r.y + ROW_H / 2);
      }
    }
    FL.rects = rects;
    $('flame-note').textContent = R.total ? '' : 'No samples with these filters.';
  }
  function flameAt(e) {
    const cv = $('flame').querySelector('canvas'), b = cv.getBoundingClientRect();
    const x = e.clientX - b.left, y = e.clientY - b.top;
    return FL.rects.find(r => x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + ROW_H) || null;
  }
  function bindFlame() {
    const box = $('flame'), tip = $('tip');
    box.onmousemove = e => {
      const r = flameAt(e);
      if (!r) { tip.hidden = true; return; }
      tip.hidden = false;
      tip.textContent = fname(r.nd.f) + ' [' + fdso(r.nd.f) + '] ' + pct(r.nd.v, R.total) +
        ' (' + r.nd.n + ' samples, self ' + pct(r.nd.s, R.total) + ')';
      tip.style.left = Math.min(e.clientX + 12, window.innerWidth - 320) + 'px';
      tip.style.top = (e.clientY + 14) + 'px';
    };
    box.onmouseleave = () => { tip.hidden = true; };
    box.onclick = e => {
      const r = flameAt(e);
      if (!r) return;
      select(r.nd.f, true);
      S.zoom = pathOf(r.nd);
      drawFlame();
    };
    $('flame-reset').onclick = () => { S.zoom = null; drawFlame(); };
  }

  /* ---- selection and tabs ---- */
  function select(f, noRender) {
    S.sel = f;
    $('selected').textContent = f >= 0 ? 'selected: ' + fname(f) + ' [' + fdso(f) + ']' : '';
    renderTree('td');
    renderTree('bu');
    renderFlat();
    renderSource();
    if (!noRender) drawFlame();
  }
  function showTab(t) {
    S.tab = t;
    for (const b of document.querySelectorAll('.tabs button')) b.classList.toggle('on', b.dataset.tab === t);
    for (const p of document.querySelectorAll('.pane')) p.classList.toggle('on', p.id === 'pane-' + t);
    if (t === 'flame') drawFlame();
    ensure(t);
    if (t === 'td' || t === 'bu') $(t).focus();
  }

  function build() {
    const app = $('app');
    document.title = 'pa view: ' + D.title;
    app.innerHTML = headerHtml() + barHtml() +
      '<div class="tabs"><button data-tab="flame">Flame graph</button>' +
      '<button data-tab="td">Top-down</button><button data-tab="bu">Bottom-up (callers)</button>' +
      '<button data-tab="flat">Functions</button><button data-tab="src">Source</button> ' +
      '<span id="selected" class="note"></span></div>' +
      '<div class="pane" id="pane-flame"><div class="bar"><button id="flame-reset">reset zoom</button>' +
      '<span class="note" id="flame-note"></span></div><div id="flame"></div></div>' +
      '<div class="pane" id="pane-td"><div class="tree" id="td" tabindex="0"></div></div>' +
      '<div class="pane" id="pane-bu"><div class="tree" id="bu" tabindex="0"></div></div>' +
      '<div class="pane" id="pane-flat"><div id="flat"></div></div>' +
      '<div class="pane" id="pane-src"><div id="src"></div></div>' +
      '<div id="tip" hidden></div>';
    $('flat').onclick = e => {
      const th = e.target.closest('th');
      if (th) return sortBy(th.dataset.k);
      const tr = e.target.closest('tr');
      if (tr && tr.dataset.f !== undefined) select(+tr.dataset.f);
    };
    bind();
    compute();
    showTab('flame');
    render();
    window.addEventListener('resize', () => { drawTimeline(); drawFlame(); });
  }

  /* the page's API: what each view shows, as text */
  function rowsOf(kind) {
    ensure(kind);
    return Array.from($(kind).querySelectorAll('.row')).map(r => ({
      name: r.querySelector('.fn').textContent, dso: r.querySelector('.dso').textContent,
      children: r.querySelector('.ch').textContent, self: r.querySelector('.se').textContent,
      depth: +r.dataset.depth}));
  }
  window.paView = {
    data: D, state: S, setFilter: setFilter, search: search, select: select, showTab: showTab,
    sortBy: sortBy, timeArg: timeArg, expand: (kind, i) => toggle(kind, i, true), rowsOf: rowsOf,
    frameIndex: (name, dso) => D.frames.findIndex((f, i) => f[0] === name &&
      (dso === undefined || fdso(i) === dso)),
    flat: () => (ensure('flat'), Array.from($('flat').querySelectorAll('tbody tr'))).map(tr => {
      const td = tr.children;
      return {children: td[0].textContent, self: td[1].textContent, samples: +td[2].textContent,
        name: td[3].textContent, dso: td[4].textContent, sel: tr.classList.contains('sel'),
        match: tr.classList.contains('m'), ch: tr.dataset.ch === '1', se: tr.dataset.se === '1',
        split: tr.dataset.sv !== undefined, cv: +tr.dataset.cv, sv: +tr.dataset.sv};
    }),
    flameFrames: () => FL.rects.map(r => ({name: fname(r.nd.f), x: r.x, y: r.y, w: r.w,
      d: r.d, sel: r.nd.f === S.sel, match: matches(r.nd.f),
      dim: rowFiltered() && !rowOk(r.nd.f)})),
    total: () => R.total,
    source: () => (ensure('src'), Array.from($('src').querySelectorAll('tbody tr'))).map(tr => {
      const td = tr.children;
      return {self: td[0].textContent, share: td[1].textContent, samples: +td[2].textContent,
        line: td[3].textContent, text: td[4].textContent, has: tr.dataset.line !== '0',
        match: tr.classList.contains('m')};
    })
  };
  build();
})();
