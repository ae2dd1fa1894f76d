/* svg.js - the script of pa's SVG flame graphs (embedded by flame/svg.c).
 * Click a frame to zoom, click "Reset Zoom" (or Escape) to go back;
 * "Search" (or Ctrl-F) asks for a regular expression, colours the matching
 * frames and shows their share; hovering shows a frame's details.
 * ?s=REGEX in the URL searches on load. Reads pa_fg, written before it.
 * Must not contain the CDATA end marker. */
(function () {
	"use strict";
	var frames, details, unzoomBtn, searchBtn, matched;
	var gs = [], names = [], fills = [], X = [], W = [], D = [];
	var zoomed = null, searching = false;

	function init() {
		frames = document.getElementById("frames");
		details = document.getElementById("details");
		unzoomBtn = document.getElementById("unzoom");
		searchBtn = document.getElementById("search");
		matched = document.getElementById("matched");
		gs = Array.prototype.slice.call(frames.children);
		for (var i = 0; i < gs.length; i++) {
			var g = gs[i], t = g.firstElementChild.textContent;
			names[i] = t.substring(0, t.lastIndexOf(" ("));
			fills[i] = g.children[1].getAttribute("fill");
			X[i] = +g.getAttribute("data-x");
			W[i] = +g.getAttribute("data-w");
			D[i] = +g.getAttribute("data-d");
			g.setAttribute("data-i", i);
		}
		frames.addEventListener("click", function (ev) {
			var g = frameOf(ev.target);
			if (g)
				zoom(+g.getAttribute("data-i"));
		});
		frames.addEventListener("mouseover", function (ev) {
			var g = frameOf(ev.target);
			if (g)
				details.textContent = "Function: " + g.firstElementChild.textContent;
		});
		frames.addEventListener("mouseout", function () {
			details.textContent = " ";
		});
		unzoomBtn.addEventListener("click", unzoom);
		searchBtn.addEventListener("click", function () {
			if (searching)
				resetSearch();
			else
				askSearch();
		});
		document.addEventListener("keydown", function (ev) {
			if ((ev.ctrlKey || ev.metaKey) && (ev.key === "f" || ev.key === "F")) {
				ev.preventDefault();
				askSearch();
			} else if (ev.key === "Escape") {
				if (zoomed !== null)
					unzoom();
				else
					resetSearch();
			}
		});
		var s = new URLSearchParams(location.search).get("s");
		if (s)
			search(s);
		window.pa_flame = {zoom: zoom, unzoom: unzoom, search: search, resetSearch: resetSearch, names: names};
	}

	function frameOf(e) {
		while (e && e !== frames) {
			if (e.parentNode === frames)
				return e;
			e = e.parentNode;
		}
		return null;
	}

	/* Move frame i to pixel x, width w, and refit its label. */
	function place(i, x, w) {
		var g = gs[i], r = g.children[1], t = g.children[2];
		r.setAttribute("x", x.toFixed(1));
		r.setAttribute("width", w.toFixed(1));
		t.setAttribute("x", (x + 3).toFixed(2));
		var fit = Math.floor((w - 3) / (pa_fg.fontsize * pa_fg.fontwidth)), name = names[i];
		var chars = Array.from(name);
		t.textContent = fit < 3 ? "" : chars.length <= fit ? name : chars.slice(0, fit - 2).join("") + "..";
	}

	function zoom(i) {
		var zx = X[i], zw = W[i], zd = D[i];
		var full = pa_fg.width - 2 * pa_fg.xpad, s = full / zw;
		for (var j = 0; j < gs.length; j++) {
			var g = gs[j], x = X[j], w = W[j];
			if (D[j] < zd && x <= zx && x + w >= zx + zw) {
				g.classList.remove("hide");
				g.classList.add("parent");
				place(j, pa_fg.xpad, full);
			} else if (D[j] >= zd && x >= zx && x + w <= zx + zw) {
				g.classList.remove("hide", "parent");
				place(j, pa_fg.xpad + (x - zx) * s, w * s);
			} else {
				g.classList.add("hide");
			}
		}
		zoomed = D[i] === 0 ? null : i;
		unzoomBtn.classList.toggle("hide", zoomed === null);
	}

	function unzoom() {
		if (gs.length)
			zoom(0);
	}

	function toRegExp(term) {
		try {
			return new RegExp(term);
		} catch (e) {
			return new RegExp(term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
		}
	}

	function askSearch() {
		var term = prompt("Search for (regular expression):", "");
		if (term)
			search(term);
	}

	function search(term) {
		if (!term)
			return resetSearch();
		var re = toRegExp(term), hits = [];
		for (var i = 0; i < gs.length; i++) {
			var hit = re.test(names[i]);
			gs[i].children[1].setAttribute("fill", hit ? pa_fg.search_fill : fills[i]);
			if (hit)
				hits.push(i);
		}
		/* the share of the matches, without counting nested ones twice */
		hits.sort(function (a, b) {
			return X[a] - X[b] || W[b] - W[a];
		});
		var sum = 0, end = -1;
		for (var k = 0; k < hits.length; k++) {
			var h = hits[k];
			if (X[h] >= end) {
				sum += W[h];
				end = X[h] + W[h];
			}
		}
		searching = true;
		searchBtn.classList.add("show");
		searchBtn.textContent = "Reset Search";
		matched.textContent = "Matched: " + (pa_fg.total ? (100 * sum / pa_fg.total).toFixed(2) : "0.00") + "%";
		return hits.length;
	}

	function resetSearch() {
		for (var i = 0; i < gs.length; i++)
			gs[i].children[1].setAttribute("fill", fills[i]);
		searching = false;
		searchBtn.classList.remove("show");
		searchBtn.textContent = "Search";
		matched.textContent = " ";
		return 0;
	}

	window.addEventListener("load", init);
})();
