#!/bin/sh
# flamegraph-browser-check.sh: render perfstitch's flame graphs of
# testdata/demo (the SVG and the HTML page) in headless Chromium, take
# screenshots, and check in the page's DOM that the script ran without
# errors and that a click zooms (and, in the HTML page, that reset, the
# icicle view and the pid filter work).
#
# Usage: scripts/flamegraph-browser-check.sh [OUTDIR]   (default: ./flamegraph-check)
# Needs: go, and chromium (Debian: apt-get install chromium).
# Writes OUTDIR/demo.svg, demo.html, the screenshots svg.png, html.png,
# svg-zoomed.png, html-icicle.png, and the DOM results *-result.txt.
# Exits 1 when a check fails.
set -eu

cd "$(dirname "$0")/.."
out=${1:-flamegraph-check}
mkdir -p "$out"
out=$(cd "$out" && pwd)

chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chrome" ]; then
	echo "chromium not found (Debian: apt-get install chromium)" >&2
	exit 2
fi

demo="--symfs testdata/demo/symfs --kallsyms testdata/demo/kallsyms testdata/demo/perf.data"
# shellcheck disable=SC2086
go run . script --format flamegraph -o "$out/demo.svg" $demo
# shellcheck disable=SC2086
go run . script --format flamegraph-html -o "$out/demo.html" $demo

# Root needs --no-sandbox; a fresh profile keeps the runs independent.
run() {
	"$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$out/profile" --allow-file-access-from-files \
		--enable-logging=stderr --v=0 --virtual-time-budget=3000 "$@"
}

shot() { # shot PNG WIDTHxHEIGHT URL
	run --screenshot="$1" --window-size="$2" "$3" 2>>"$out/chromium.log" >/dev/null
}

# check.html loads a graph in an iframe (same origin thanks to
# --allow-file-access-from-files), clicks like a user would, and writes
# what the graph's DOM says into #result, which --dump-dom prints.
cat >"$out/check.html" <<'EOF'
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>flame graph check</title>
<style>body{margin:0} iframe{border:0;width:1200px;height:620px;display:block}</style></head>
<body>
<iframe id="g"></iframe>
<pre id="result">not run</pre>
<script>
var params = new URLSearchParams(location.search);
var frame = document.getElementById('g');
var out = [];
function ok(name, cond, detail) { out.push((cond ? 'ok   ' : 'FAIL ') + name + (detail ? ': ' + detail : '')); }
function click(el) { el.dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true, view: el.ownerDocument.defaultView})); }
frame.onload = function () {
	try {
		var doc = frame.contentDocument;
		var svg = doc.querySelector('svg.flamegraph');
		ok('graph loaded', !!svg);
		ok('script ran without errors', svg.getAttribute('data-ready') === 'true', 'data-ready=' + svg.getAttribute('data-ready'));
		var gs = Array.prototype.slice.call(doc.querySelectorAll('#fg-frames > g'));
		var named = function (n) { return gs.filter(function (g) { return g.querySelector('title').textContent.indexOf(n + ' (') === 0; })[0]; };
		var target = named(params.get('click') || 'run_phase');
		ok('frame to click found', !!target);
		var before = target.querySelector('rect').getAttribute('width');
		click(target.querySelector('rect'));
		var after = target.querySelector('rect').getAttribute('width');
		var full = (parseFloat(svg.getAttribute('width')) - 20).toFixed(2);
		ok('click zooms: data-zoomed', svg.getAttribute('data-zoomed') === 'true');
		ok('click zooms: clicked frame spans the width', after === full, before + ' -> ' + after + ' (want ' + full + ')');
		var hidden = gs.filter(function (g) { return g.classList.contains('fg-hide'); }).length;
		ok('click zooms: frames outside it hidden', hidden > 0, hidden + ' of ' + gs.length + ' hidden');
		ok('click zooms: Reset Zoom shown', !doc.getElementById('fg-unzoom').classList.contains('fg-hide'));
		var root = gs[0].querySelector('rect');
		if (params.get('mode') === 'html') {
			click(doc.getElementById('fg-unzoom'));
			ok('reset zoom', svg.getAttribute('data-zoomed') === 'false' && target.querySelector('rect').getAttribute('width') === before);
			click(doc.getElementById('fg-icicle'));
			ok('icicle view: root on top', svg.getAttribute('data-view') === 'icicle' && root.getAttribute('y') === svg.getAttribute('data-ypad1'), 'root y=' + root.getAttribute('y'));
			var pid = doc.getElementById('fg-pid');
			ok('pid filter has pids', pid.options.length > 1, pid.options.length - 1 + ' pids');
			pid.value = pid.options[1].value;
			pid.dispatchEvent(new Event('change'));
			ok('pid filter applied', svg.getAttribute('data-filter') === '*/' + pid.value, svg.getAttribute('data-filter'));
		}
	} catch (e) {
		ok('check script', false, String(e));
	}
	document.getElementById('result').textContent = out.join('\n');
};
frame.src = params.get('src');
</script>
</body></html>
EOF

shot "$out/svg.png" 1200,620 "file://$out/demo.svg"
shot "$out/html.png" 1200,660 "file://$out/demo.html"

status=0
for mode in svg html; do
	url="file://$out/check.html?mode=$mode&src=demo.$mode"
	run --dump-dom "$url" 2>>"$out/chromium.log" |
		sed -n '/<pre id="result">/,/<\/pre>/p' |
		sed -e 's/<[^>]*>//g' -e 's/&gt;/>/g' -e 's/&lt;/</g' -e 's/&amp;/\&/g' >"$out/$mode-result.txt"
	echo "== $mode"
	cat "$out/$mode-result.txt"
	if ! grep -q '^ok ' "$out/$mode-result.txt" || grep -q '^FAIL' "$out/$mode-result.txt"; then
		status=1
	fi
done
# The state after the clicks, as the check page shows it.
shot "$out/svg-zoomed.png" 1200,620 "file://$out/check.html?mode=svg&src=demo.svg"
shot "$out/html-icicle.png" 1200,620 "file://$out/check.html?mode=html&src=demo.html"

# Uncaught exceptions reach Chromium's log as console messages.
if grep -E 'Uncaught|SyntaxError|ReferenceError|TypeError' "$out/chromium.log" >&2; then
	echo "script errors in the pages (see $out/chromium.log)" >&2
	status=1
fi
echo "screenshots: $out/svg.png $out/html.png $out/svg-zoomed.png $out/html-icicle.png"
exit $status
