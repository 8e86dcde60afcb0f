/*
 * flame.js - the script kprof's flame graph (flame_svg.c) embeds, after
 * the behaviour of flamegraph.pl's: a details line for the frame under
 * the mouse, click to zoom, search.  Plain ECMAScript in the SVG, with no
 * external resource; tools/tools.mk compiles it into the tool as a string.
 *
 * Every frame is a <g class="frame"> with data-s (the samples left of it)
 * and data-n (its samples), a <title> "NAME (N samples, P%)", a <rect>
 * and, if the tool's estimate found room for one, a <text>.  All geometry
 * follows from those numbers and the root's rect (x0, W).  Zoomed into Z,
 * the samples [zs, zs + zn) at height zy:
 *   - a frame at Z's level or above it (y <= zy) is shown when its samples
 *     lie inside Z's, at x0 + (s - zs) * W / zn, n * W / zn wide; others
 *     (Z's siblings and their callees) are hidden;
 *   - a frame below Z is shown when it holds all of Z's samples (Z's
 *     callers, down to "all"): the whole width, faded; others hidden.
 * Search tests each frame's name against a regular expression: matches
 * take the highlight colour (the CSS class "match"), and "Matched" is the
 * share of Z's samples under at least one match - the union of the
 * matches' sample ranges, so a function that recurses (a match above a
 * match) counts each sample once.
 * Labels are measured: the name when it fits the frame, else its longest
 * start that fits with "..", else nothing; again after each zoom.
 */
(function () {
	"use strict";
	var PAD = 3;        /* label inset from the frame's left edge, px */
	var BASELINE = 3.5; /* label baseline above the frame's bottom, px */
	var MIN_ROOM = 10;  /* px: no two characters and ".." fit in less  */
	var HINT = "Click a frame to zoom into it; Ctrl-F or Search to find functions";
	var details = document.getElementById("details");
	var matchedText = document.getElementById("matched");
	var unzoomButton = document.getElementById("unzoom");
	var searchButton = document.getElementById("search");
	var frames = [], root = null, zoomed = null, pattern = null;

	function kindOf(g) {
		var kinds = ["root", "process", "thread"];
		for (var i = 0; i < kinds.length; i++)
			if (g.classList.contains(kinds[i]))
				return kinds[i];
		return "function";
	}

	/* The frames' numbers, read once. */
	function readFrames() {
		var gs = document.querySelectorAll("#frames > g.frame");
		for (var i = 0; i < gs.length; i++) {
			var g = gs[i], rect = g.querySelector("rect"), title = g.querySelector("title").textContent;
			var f = { g: g, rect: rect, text: g.querySelector("text"), kind: kindOf(g),
				  name: title.slice(0, title.lastIndexOf(" (")),
				  s: Number(g.getAttribute("data-s")), n: Number(g.getAttribute("data-n")),
				  y: Number(rect.getAttribute("y")) };
			g.kprofFrame = f;
			frames.push(f);
			if (f.kind === "root")
				root = f;
		}
		root.x0 = Number(root.rect.getAttribute("x"));
		root.w = Number(root.rect.getAttribute("width"));
	}

	function percent(part, whole) {
		return (100 * part / whole).toFixed(2) + "%";
	}

	function setButtonLabel(button, label) {
		button.lastChild.nodeValue = label; /* after its <title> */
	}

	/* ---------------------------------------------------------- labels */

	/* f is shown (a hidden text measures 0). */
	function fitLabel(f, x, w) {
		var room = w - 2 * PAD, text = f.text;
		if (room < MIN_ROOM) {
			if (text)
				text.textContent = "";
			return;
		}
		if (!text) {
			text = f.text = document.createElementNS("http://www.w3.org/2000/svg", "text");
			text.setAttribute("y", (f.y + Number(f.rect.getAttribute("height")) - BASELINE).toFixed(2));
			f.g.appendChild(text);
		}
		text.setAttribute("x", (x + PAD).toFixed(2));
		text.textContent = f.name;
		if (f.width === undefined)
			f.width = text.getComputedTextLength(); /* the whole name's, once */
		if (f.width <= room)
			return;
		/* the longest start that fits with "..", at least two characters:
		 * each candidate measured as it would be drawn (kerning and all) */
		var lo = 1, hi = f.name.length - 1;
		while (lo < hi) {
			var mid = (lo + hi + 1) >> 1;
			text.textContent = f.name.slice(0, mid) + "..";
			if (text.getComputedTextLength() <= room)
				lo = mid;
			else
				hi = mid - 1;
		}
		text.textContent = lo >= 2 ? f.name.slice(0, lo) + ".." : "";
	}

	/* ---------------------------------------------------------- zoom */

	function place(f, x, w, parent) {
		f.g.classList.remove("hide");
		f.g.classList.toggle("parent", parent);
		f.rect.setAttribute("x", x.toFixed(2));
		f.rect.setAttribute("width", w.toFixed(2));
		fitLabel(f, x, w);
	}

	function zoom(z) {
		var scale = root.w / z.n;
		zoomed = z;
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i];
			if (f.y <= z.y && f.s >= z.s && f.s + f.n <= z.s + z.n)
				place(f, root.x0 + (f.s - z.s) * scale, f.n * scale, false);
			else if (f.y > z.y && f.s <= z.s && f.s + f.n >= z.s + z.n)
				place(f, root.x0, root.w, true);
			else
				f.g.classList.add("hide");
		}
		unzoomButton.classList.toggle("hide", z === root);
		showMatched();
	}

	/* ---------------------------------------------------------- details */

	function describe(f) {
		var what = { root: "", process: "Process: ", thread: "Thread: ", "function": "Function: " }[f.kind];
		var text = what + f.name + " (" + f.n + " samples, " + percent(f.n, root.n) + " of all";
		if (zoomed !== root && f.y <= zoomed.y)
			text += ", " + percent(f.n, zoomed.n) + " of " + zoomed.name;
		return text + ")";
	}

	function frameOf(event) {
		var g = event.target.closest ? event.target.closest("g.frame") : null;
		return g ? g.kprofFrame : null;
	}

	/* ---------------------------------------------------------- search */

	/* Samples of Z under at least one match, each counted once. */
	function matchedSamples() {
		var spans = [], covered = 0, end = -1;
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i];
			if (!f.g.classList.contains("match"))
				continue;
			var a = Math.max(f.s, zoomed.s), b = Math.min(f.s + f.n, zoomed.s + zoomed.n);
			if (b > a)
				spans.push([a, b]);
		}
		spans.sort(function (p, q) { return p[0] - q[0]; });
		for (var j = 0; j < spans.length; j++) {
			var from = Math.max(spans[j][0], end);
			if (spans[j][1] > from)
				covered += spans[j][1] - from;
			end = Math.max(end, spans[j][1]);
		}
		return covered;
	}

	function showMatched() {
		if (!pattern) {
			matchedText.textContent = " ";
			return;
		}
		var m = matchedSamples();
		matchedText.textContent = "Matched: " + percent(m, zoomed.n) + " (" + m + " of " + zoomed.n + " samples)";
	}

	function resetSearch() {
		pattern = null;
		for (var i = 0; i < frames.length; i++)
			frames[i].g.classList.remove("match");
		setButtonLabel(searchButton, "Search");
		showMatched();
	}

	function search(term) {
		var re;
		if (!term) {
			resetSearch();
			return;
		}
		try {
			re = new RegExp(term);
		} catch (e) {
			matchedText.textContent = "Search: not a regular expression: " + term;
			return;
		}
		pattern = term;
		for (var i = 0; i < frames.length; i++)
			frames[i].g.classList.toggle("match", re.test(frames[i].name));
		setButtonLabel(searchButton, "Reset Search");
		showMatched();
	}

	/* The prompt, the current pattern offered for editing; an empty
	 * answer clears the search, Cancel leaves it. */
	function askSearch() {
		var term = window.prompt("Search for frames whose name matches (a regular expression):", pattern || "");
		if (term !== null)
			search(term);
	}

	/* The button: Search, or Reset Search while one is shown. */
	function searchButtonClicked() {
		if (pattern)
			resetSearch();
		else
			askSearch();
	}

	/* ---------------------------------------------------------- events */

	function listen() {
		var group = document.getElementById("frames");
		group.addEventListener("mouseover", function (e) {
			var f = frameOf(e);
			if (f)
				details.textContent = describe(f);
		});
		group.addEventListener("mouseout", function () { details.textContent = HINT; });
		group.addEventListener("click", function (e) {
			var f = frameOf(e);
			if (f)
				zoom(f);
		});
		unzoomButton.addEventListener("click", function () { zoom(root); });
		searchButton.addEventListener("click", searchButtonClicked);
		window.addEventListener("keydown", function (e) {
			var key = e.key || "";
			if (((e.ctrlKey || e.metaKey) && key.toLowerCase() === "f") || key === "F3") {
				e.preventDefault();
				askSearch();
			} else if (key === "Escape") {
				resetSearch();
			} else if ((key === "Enter" || key === " ") && (e.target === unzoomButton || e.target === searchButton)) {
				e.preventDefault();
				e.target.dispatchEvent(new MouseEvent("click"));
			}
		});
	}

	readFrames();
	zoom(root);
	details.textContent = HINT;
	listen();
})();
