// Flame graph interaction for perfstitch: click a frame to zoom into it,
// Reset Zoom (or Escape) to go back, Search (or Ctrl-F) to highlight the
// frames whose names match a regular expression. In the HTML page also an
// icicle view toggle and comm/pid filters. The frames carry their sample
// range (data-s, data-n) and depth (data-d); every view is laid out again
// from those, so zooming and filtering never accumulate rounding.
(function () {
	'use strict';
	var doc = document;
	var svg = doc.documentElement.localName === 'svg' ? doc.documentElement : doc.querySelector('svg.flamegraph');
	if (!svg) {
		return;
	}
	function num(name) { return parseFloat(svg.getAttribute('data-' + name)); }
	var width = parseFloat(svg.getAttribute('width'));
	var height = parseFloat(svg.getAttribute('height'));
	var xpad = num('xpad'), fh = num('frameheight'), fontsize = num('fontsize'), fontwidth = num('fontwidth');
	var ypad1 = num('ypad1'), ypad2 = num('ypad2');
	var highlight = 'rgb(230,0,230)';

	var byId = function (id) { return doc.getElementById(id); };
	var details = byId('fg-details'), unzoomBtn = byId('fg-unzoom'), searchBtn = byId('fg-search'), matchedText = byId('fg-matched');

	// The model: one entry per frame, in document (depth-first) order.
	var frames = [];
	var proc = null;
	Array.prototype.forEach.call(byId('fg-frames').children, function (g) {
		var f = {
			g: g,
			rect: g.querySelector('rect'),
			text: g.querySelector('text'),
			title: g.querySelector('title'),
			s: parseFloat(g.getAttribute('data-s')),
			n: parseFloat(g.getAttribute('data-n')),
			d: parseInt(g.getAttribute('data-d'), 10),
			comm: g.getAttribute('data-comm'),
			pid: g.getAttribute('data-pid')
		};
		var t = f.title.textContent;
		f.name = t.substring(0, t.lastIndexOf(' ('));
		f.fill = f.rect.getAttribute('fill');
		if (f.d === 1) {
			proc = f;
		}
		f.proc = f.d >= 1 ? proc : null;
		g.__fg = f;
		frames.push(f);
	});
	var root = frames[0];

	var state = { zoom: null, keep: null, icicle: false, re: null };

	function groupThousands(n) {
		return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
	}

	function label(name, w) {
		var chars = Math.floor(w / (fontsize * fontwidth));
		if (chars < 3) {
			return '';
		}
		if (name.length <= chars) {
			return name;
		}
		return name.substring(0, chars - 2) + '..';
	}

	// layout places every frame for the current filter, zoom and view.
	function layout() {
		// Filter: the kept process frames, side by side.
		var total = root.n;
		var offset = null;
		if (state.keep) {
			offset = new Map();
			total = 0;
			frames.forEach(function (f) {
				if (f.d === 1 && state.keep(f)) {
					offset.set(f, total);
					total += f.n;
				}
			});
		}
		frames.forEach(function (f) {
			f.visible = true;
			f.fs = f.s;
			f.fn = f.n;
			if (f.d === 0) {
				f.fn = total;
			} else if (offset) {
				if (!offset.has(f.proc)) {
					f.visible = false;
				} else {
					f.fs = f.s - f.proc.s + offset.get(f.proc);
				}
			}
		});
		var z = state.zoom;
		if (z && !z.visible) {
			z = state.zoom = null;
		}
		var zs = z ? z.fs : 0, zn = z ? z.fn : total, zd = z ? z.d : 0;
		var scale = zn > 0 ? (width - 2 * xpad) / zn : 0;
		frames.forEach(function (f) {
			var parent = false;
			if (f.visible && z) {
				if (f.d < zd) {
					parent = f.fs <= zs && f.fs + f.fn >= zs + zn;
					f.visible = parent;
				} else {
					f.visible = f.fs >= zs && f.fs + f.fn <= zs + zn;
				}
			}
			f.g.classList.toggle('fg-hide', !f.visible);
			f.g.classList.toggle('fg-parent', parent);
			if (!f.visible) {
				return;
			}
			var x = parent ? xpad : xpad + (f.fs - zs) * scale;
			var w = parent ? width - 2 * xpad : f.fn * scale;
			var y = state.icicle ? ypad1 + f.d * fh : height - ypad2 - (f.d + 1) * fh;
			f.rect.setAttribute('x', x.toFixed(2));
			f.rect.setAttribute('width', w.toFixed(2));
			f.rect.setAttribute('y', y);
			f.text.setAttribute('x', (x + 3).toFixed(2));
			f.text.setAttribute('y', (y + 10.5).toFixed(2));
			f.text.textContent = label(f.name, w);
			var pct = f.d === 0 ? '100' : (total > 0 ? (100 * f.fn / total).toFixed(2) : '0.00');
			f.title.textContent = f.name + ' (' + groupThousands(f.fn) + ' samples, ' + pct + '%)';
		});
		unzoomBtn.classList.toggle('fg-hide', !z);
		svg.setAttribute('data-zoomed', z ? 'true' : 'false');
		search(state.re);
	}

	function zoom(f) {
		state.zoom = f.d === 0 ? null : f;
		layout();
	}

	function unzoom() {
		state.zoom = null;
		layout();
	}

	// search highlights the frames matching re (null clears) and prints
	// the share of the visible samples they cover.
	function search(re) {
		state.re = re;
		var covered = 0, total = root.fn || root.n, end = -1;
		frames.forEach(function (f) {
			var hit = re !== null && f.visible !== false && re.test(f.name);
			f.rect.setAttribute('fill', hit ? highlight : f.fill);
			// Count a match once, not again for matches nested in it.
			if (hit && f.fs >= end) {
				covered += f.fn;
				end = f.fs + f.fn;
			}
		});
		if (re === null) {
			searchBtn.classList.remove('fg-show');
			searchBtn.textContent = 'Search';
			matchedText.textContent = ' ';
			return;
		}
		searchBtn.classList.add('fg-show');
		searchBtn.textContent = 'Reset Search';
		var visible = state.zoom ? state.zoom.fn : total;
		matchedText.textContent = 'Matched: ' + (visible > 0 ? (100 * Math.min(covered, visible) / visible).toFixed(1) : '0.0') + '%';
	}

	function askSearch() {
		if (state.re !== null) {
			search(null);
			return;
		}
		var term = window.prompt('Enter a search term (regexp allowed, eg: ^ext4_)', '');
		if (term) {
			try {
				search(new RegExp(term));
			} catch (e) {
				matchedText.textContent = 'bad regexp';
			}
		}
	}

	byId('fg-frames').addEventListener('click', function (e) {
		var g = e.target.closest ? e.target.closest('g') : e.target.parentNode;
		if (g && g.__fg) {
			zoom(g.__fg);
		}
	});
	byId('fg-frames').addEventListener('mouseover', function (e) {
		var g = e.target.closest ? e.target.closest('g') : e.target.parentNode;
		if (g && g.__fg) {
			details.textContent = 'Function: ' + g.__fg.title.textContent;
		}
	});
	byId('fg-frames').addEventListener('mouseout', function () { details.textContent = ' '; });
	unzoomBtn.addEventListener('click', unzoom);
	searchBtn.addEventListener('click', askSearch);
	window.addEventListener('keydown', function (e) {
		if (e.key === 'Escape') {
			search(null);
			unzoom();
		} else if ((e.ctrlKey || e.metaKey) && e.key === 'f') {
			e.preventDefault();
			askSearch();
		}
	});

	// The HTML page's controls.
	var icicleBtn = byId('fg-icicle'), commSel = byId('fg-comm'), pidSel = byId('fg-pid');
	if (icicleBtn) {
		icicleBtn.addEventListener('click', function () {
			state.icicle = !state.icicle;
			icicleBtn.textContent = state.icicle ? 'Flame view' : 'Icicle view';
			svg.setAttribute('data-view', state.icicle ? 'icicle' : 'flame');
			layout();
		});
	}
	function filter() {
		var c = commSel ? commSel.value : '', p = pidSel ? pidSel.value : '';
		state.keep = c === '' && p === '' ? null : function (f) {
			return (c === '' || f.comm === c) && (p === '' || f.pid === p);
		};
		svg.setAttribute('data-filter', (c || '*') + '/' + (p || '*'));
		layout();
	}
	if (commSel) {
		commSel.addEventListener('change', filter);
	}
	if (pidSel) {
		pidSel.addEventListener('change', filter);
	}

	// ?s=regexp searches on load, as flamegraph.pl's graphs do.
	var m = /[?&]s=([^&]*)/.exec(window.location.search || '');
	layout();
	if (m) {
		try {
			search(new RegExp(decodeURIComponent(m[1])));
		} catch (e) {
			matchedText.textContent = 'bad regexp';
		}
	}
	svg.setAttribute('data-ready', 'true');
}());
