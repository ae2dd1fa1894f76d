/* html.js - the script of pa's HTML flame graphs (embedded by flame/html.c).
 * Reads PA_FLAME: names, and frames as (depth, name index, kind, x, width)
 * in preorder; differential graphs (PA_FLAME.diff) add six numbers per frame
 * (self, baseline value, baseline self, colour as 0xRRGGBB, flags: 1 only in
 * new, baseline value of callees only in the baseline): the colours are
 * flame/out.c's, the script only shows them. Draws the frames wider than
 * half a pixel of the current zoom as positioned <div class="f"> elements
 * (so a big graph costs what is visible, not what exists). Click a frame to zoom into it, click an
 * ancestor (faded) or Escape to zoom out; the search box takes a regular
 * expression, paints matches and shows their share; hovering shows a
 * tooltip. #s=REGEX in the URL searches on load.
 * Must not contain the closing script tag. */
(function () {
	"use strict";
	var P = PA_FLAME, F = P.frames, names = P.names, S = P.stride || 5, n = (F.length / S) | 0;
	var DIFF = P.diff || null;
	var KIND = ["user", "kernel", "JIT", "inlined"];
	var ROW = 17, MINPX = 0.5, SEARCH_BG = "rgb(230,0,230)";
	var depth = new Int32Array(n), nm = new Int32Array(n), kind = new Uint8Array(n);
	var X = new Float64Array(n), W = new Float64Array(n), end = new Int32Array(n), parent = new Int32Array(n);
	var maxDepth = 0, stack = [], i;
	for (i = 0; i < n; i++) {
		depth[i] = F[S * i];
		nm[i] = F[S * i + 1];
		kind[i] = F[S * i + 2];
		X[i] = F[S * i + 3];
		W[i] = F[S * i + 4];
		while (stack.length && depth[stack[stack.length - 1]] >= depth[i])
			end[stack.pop()] = i;
		parent[i] = stack.length ? stack[stack.length - 1] : -1;
		stack.push(i);
		if (depth[i] > maxDepth)
			maxDepth = depth[i];
	}
	while (stack.length)
		end[stack.pop()] = n;

	var chart = document.getElementById("chart"), tip = document.getElementById("tip");
	var details = document.getElementById("details"), resetBtn = document.getElementById("reset");
	var searchBox = document.getElementById("search"), matched = document.getElementById("matched");
	var zoomed = 0, match = null, colours = {}, rendered = -1;
	/* the deepest frame drawn: the chart is as tall as what it shows
	 * (frames under MINPX are not drawn, as flamegraph.pl leaves frames
	 * under its minimum width out before it sizes the image) */
	var viewDepth = maxDepth;

	/* colours: the palettes of flame/out.c, seeded by the same hash */
	var enc = new TextEncoder();
	function hash(s) {
		var b = enc.encode(s), h = 0x811c9dc5;
		for (var k = 0; k < b.length; k++)
			h = Math.imul(h ^ b[k], 16777619) >>> 0;
		h ^= h >>> 16;
		h = Math.imul(h, 0x7feb352d) >>> 0;
		h ^= h >>> 15;
		h = Math.imul(h, 0x846ca68b) >>> 0;
		h ^= h >>> 16;
		return h >>> 0;
	}
	function colour(j) {
		if (DIFF) {
			var c = F[S * j + 8];
			return "rgb(" + ((c >> 16) & 255) + "," + ((c >> 8) & 255) + "," + (c & 255) + ")";
		}
		var key = nm[j] * 4 + kind[j];
		if (colours[key])
			return colours[key];
		var m = hash(names[nm[j]]), f = Math.floor, k = P.palette === 0 ? kind[j] : 0;
		var v1 = (m & 0xff) / 255, v2 = ((m >>> 8) & 0xff) / 255, v3 = ((m >>> 16) & 0xff) / 255, r, g, b;
		if (k === 1) {
			r = f(190 + 65 * v1); g = f(90 + 65 * v1); b = 0;
		} else if (k === 2) {
			r = f(50 + 60 * v1); g = f(200 + 55 * v1); b = r;
		} else if (k === 3) {
			r = f(50 + 60 * v1); g = f(165 + 55 * v1); b = g;
		} else if (P.palette === 0 && names[nm[j]].indexOf("::") >= 0) {
			r = f(175 + 55 * v1); g = r; b = f(50 + 20 * v1);
		} else if (P.palette === 0) {
			r = f(200 + 55 * v1); g = f(50 + 80 * v1); b = g;
		} else if (P.palette === 2) {
			r = 0; g = f(190 + 50 * v2); b = f(210 * v1);
		} else if (P.palette === 3) {
			r = f(80 + 60 * v1); g = r; b = f(190 + 55 * v2);
		} else {
			r = f(205 + 50 * v3); g = f(230 * v1); b = f(55 * v2);
		}
		return (colours[key] = "rgb(" + r + "," + g + "," + b + ")");
	}

	function commas(v) {
		return String(v).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
	}
	function pct(a, b) {
		return b ? ((100 * a) / b).toFixed(2) + "%" : "0.00%";
	}
	function top(d) {
		return (P.inverted ? d : viewDepth - d) * ROW;
	}

	function box(j, left, width, cls) {
		var e = document.createElement("div");
		e.className = "f" + cls + (match && match[j] ? " m" : "") + (DIFF ? (F[S * j + 9] & 1 ? " d n" : " d") : "");
		e.style.left = left.toFixed(2) + "px";
		e.style.width = width.toFixed(2) + "px";
		e.style.top = top(depth[j]) + "px";
		e.style.background = colour(j);
		e.dataset.i = j;
		if (width >= 12)
			e.textContent = names[nm[j]];
		return e;
	}

	function render() {
		if (!n) {
			chart.textContent = "No samples";
			return;
		}
		var cw = chart.clientWidth, zx = X[zoomed], zw = W[zoomed], s = cw / zw, j, e;
		viewDepth = depth[zoomed];
		for (j = zoomed, e = end[zoomed]; j < e; ) {
			if (W[j] * s < MINPX) {
				j = end[j];
				continue;
			}
			if (depth[j] > viewDepth)
				viewDepth = depth[j];
			j++;
		}
		chart.style.height = (viewDepth + 1) * ROW + "px";
		var frag = document.createDocumentFragment();
		for (var a = parent[zoomed]; a >= 0; a = parent[a])
			frag.appendChild(box(a, 0, cw, " a"));
		for (j = zoomed, e = end[zoomed]; j < e; ) {
			var w = W[j] * s;
			if (w < MINPX) {
				j = end[j];
				continue;
			}
			frag.appendChild(box(j, (X[j] - zx) * s, w, j === zoomed && zoomed ? " z" : ""));
			j++;
		}
		chart.replaceChildren(frag);
		rendered = zoomed;
		resetBtn.disabled = zoomed === 0;
		chart.dataset.zoomed = zoomed;
	}

	function zoom(j) {
		zoomed = j;
		hideTip();
		render();
	}

	function describe(j) {
		var t = commas(W[j]) + " " + P.unit + ", " + pct(W[j], P.total) + " of all";
		if (zoomed && j !== zoomed && parent[j] >= 0 && depth[j] > depth[zoomed])
			t += ", " + pct(W[j], W[zoomed]) + " of the zoomed frame";
		return t;
	}

	/* a differential graph's lines: baseline, changes, what is only on one side */
	function signed(v, digits) {
		return (v < 0 ? "-" : "+") + Math.abs(v).toFixed(digits);
	}
	/* as flame/out.c's pa_flame_change_str() prints it */
	function change(nv, bv) {
		if (DIFF.raw)
			return signed(nv - bv, 0) + " " + P.unit;
		return signed((P.total ? (100 * nv) / P.total : 0) - (DIFF.base ? (100 * bv) / DIFF.base : 0), 2) + " pp";
	}
	function diffLines(j) {
		var o = S * j, self = F[o + 5], base = F[o + 6], bself = F[o + 7], flags = F[o + 9], left = F[o + 10];
		var t = ["self " + commas(self) + " " + P.unit + ", " + pct(self, P.total) +
			 " of all; baseline " + commas(base) + " " + P.unit + ", " + pct(base, DIFF.base) + ", self " + pct(bself, DIFF.base),
			 "change: self " + change(self, bself) + ", total " + change(W[j], base)];
		if (flags & 1)
			t.push("only in new");
		if (left)
			t.push(commas(left) + " baseline " + P.unit + " in callees only in baseline (not drawn)");
		return t;
	}

	function showTip(j, cx, cy) {
		tip.replaceChildren();
		var b = document.createElement("b");
		b.textContent = names[nm[j]];
		tip.appendChild(b);
		var k = document.createElement("div");
		k.className = "kind";
		k.textContent = KIND[kind[j]] || "";
		tip.appendChild(k);
		var v = document.createElement("div");
		v.textContent = describe(j);
		tip.appendChild(v);
		if (parent[j] >= 0) {
			var p = document.createElement("div");
			p.textContent = pct(W[j], W[parent[j]]) + " of " + names[nm[parent[j]]];
			tip.appendChild(p);
		}
		var lines = DIFF ? diffLines(j) : [];
		for (var l = 0; l < lines.length; l++) {
			var dl = document.createElement("div");
			dl.className = "diff";
			dl.textContent = lines[l];
			tip.appendChild(dl);
		}
		tip.hidden = false;
		var r = tip.getBoundingClientRect(), x = cx + 14, y = cy + 14;
		if (x + r.width > window.innerWidth - 4)
			x = Math.max(4, cx - r.width - 14);
		if (y + r.height > window.innerHeight - 4)
			y = Math.max(4, cy - r.height - 14);
		tip.style.left = x + "px";
		tip.style.top = y + "px";
		details.textContent = names[nm[j]] + " (" + describe(j) + ")" + (lines.length ? "; " + lines.join("; ") : "");
	}
	function hideTip() {
		tip.hidden = true;
		details.textContent = "\u00a0";
	}

	function toRegExp(term) {
		try {
			return new RegExp(term);
		} catch (e) {
			return new RegExp(term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
		}
	}

	function search(term) {
		if (!term) {
			match = null;
			matched.textContent = "";
			render();
			return 0;
		}
		var re = toRegExp(term), byName = new Int8Array(names.length), hits = 0, sum = 0, j;
		for (j = 0; j < names.length; j++)
			byName[j] = re.test(names[j]) ? 1 : 0;
		match = new Uint8Array(n);
		for (j = 0; j < n; j++)
			hits += match[j] = byName[nm[j]];
		/* the share of the matches: outermost ones only */
		for (j = 0; j < n; ) {
			if (match[j]) {
				sum += W[j];
				j = end[j];
			} else {
				j++;
			}
		}
		matched.textContent = "Matched: " + pct(sum, P.total) + " (" + hits + " frame" + (hits === 1 ? "" : "s") + ")";
		render();
		return hits;
	}

	chart.addEventListener("click", function (ev) {
		var e = ev.target.closest(".f");
		if (e)
			zoom(+e.dataset.i);
	});
	chart.addEventListener("mousemove", function (ev) {
		var e = ev.target.closest(".f");
		if (e)
			showTip(+e.dataset.i, ev.clientX, ev.clientY);
		else
			hideTip();
	});
	chart.addEventListener("mouseleave", hideTip);
	resetBtn.addEventListener("click", function () {
		zoom(0);
	});
	var pending = 0;
	searchBox.addEventListener("input", function () {
		clearTimeout(pending);
		pending = setTimeout(function () {
			search(searchBox.value);
		}, n > 100000 ? 200 : 0);
	});
	document.addEventListener("keydown", function (ev) {
		if ((ev.ctrlKey || ev.metaKey) && (ev.key === "f" || ev.key === "F")) {
			ev.preventDefault();
			searchBox.focus();
			searchBox.select();
		} else if (ev.key === "/" && document.activeElement !== searchBox) {
			ev.preventDefault();
			searchBox.focus();
		} else if (ev.key === "Escape") {
			if (document.activeElement === searchBox && searchBox.value) {
				searchBox.value = "";
				search("");
			} else {
				zoom(0);
			}
		}
	});
	var resizing = 0;
	window.addEventListener("resize", function () {
		if (!resizing)
			resizing = requestAnimationFrame(function () {
				resizing = 0;
				render();
			});
	});

	var h = /^#s=(.*)$/.exec(location.hash);
	if (h) {
		searchBox.value = decodeURIComponent(h[1]);
		search(searchBox.value);
	} else {
		render();
	}
	/* the first view is the graph: with the root at the bottom, the page
	 * opens scrolled down to it (an icicle's root is at the top) */
	if (!P.inverted) {
		var r = chart.getBoundingClientRect();
		if (r.bottom > window.innerHeight)
			window.scrollTo(0, window.scrollY + r.bottom - window.innerHeight + 2 * ROW);
	}
	window.pa_flame = {zoom: zoom, search: search, names: names, frames: n};
})();
