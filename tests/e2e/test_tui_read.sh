#!/bin/sh
# The viewer stays readable at every zoom and every width: the time ruler,
# track labels, text that does not fit (details, help, messages), the search
# prompt, and where jumps land. The real binary in tmux, as in test_tui.sh.
. tests/e2e/lib.sh
. tests/e2e/tui_lib.sh

$GEN --kind tpu --events 20000 --seed 5 -o "$TMP/t.xplane.pb" >/dev/null 2>&1 ||
	fail "generate tpu" "xtop-gen failed"

# ------------------------------------------------------- the time ruler ----
# Zooming in step by step down to the smallest window: at every step the
# tick labels differ (once they all read the same time).
start 80 24 "$XTOP" "$TMP/t.xplane.pb"
wait_for "[timeline]" >/dev/null
keys j j .
bad="" steps=0
for i in $(seq 1 40); do
	before=$(line 2)
	keys w
	# At the smallest window (10 ps) w changes nothing: done.
	wait_until '[ "$(line 2)" != "$before" ]' 2 >/dev/null || break
	steps=$((steps + 1))
	ruler_distinct 2 || bad="$bad [$(label): $(ruler_labels | tr '\n' '|')]"
done
if [ -z "$bad" ]; then
	ok "ruler: labels differ at each of $steps zoom steps down to $(label) ($(ruler_labels | head -n 2 | tr '\n' ' '))"
else
	fail "ruler: labels differ at every zoom" "$bad"
fi
$T resize-window -t t -x 200 -y 50
H=50
check "ruler at 200x50, deepest zoom: labels differ" 'ruler_distinct 4' "labels repeat" 5 "^ "
keys q
wait_for "EXIT=" >/dev/null

if have_fixtures; then
	# The two cases.
	start 80 24 "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys 2
	wait_for "[op profile]" >/dev/null
	keys Enter
	wait_for "longest run of" >/dev/null
	keys w w w w w w w
	check "TPU fixture, 2 Enter then 7x w: ruler labels differ" \
		'[ "$(label)" = "3.68 ms" ] && ruler_distinct 3' "labels repeat"
	keys q
	wait_for "EXIT=" >/dev/null
	for size in "80 24" "200 50"; do
		start $size "$XTOP" "$FIX/tf-gpu-v100-2host"
		wait_for "[timeline]" >/dev/null
		keys Down . f
		check "tf-gpu-v100 at ${size% *}x${size#* }, Down . f: ruler labels differ" \
			'bottom | grep -q "^q Quit" && ruler_distinct 3' "labels repeat"
		keys q
		wait_for "EXIT=" >/dev/null
	done
else
	skip_n 3 "ruler on the fixtures" "$NOFIX"
fi

# ------------------------------------------------------- track labels ----
# Unique labels (names shortened in the middle keep their distinguishing
# tail), a separator before the events, a wider column on wide screens.
labels_run() { # NAME COLS ROWS PATH [KEYS...]: prints the separator column
	name=$1 cols=$2 rows=$3 path=$4
	shift 4
	start "$cols" "$rows" "$XTOP" "$path"
	wait_for "[timeline]" >/dev/null
	[ $# -gt 0 ] && keys "$@"
	if wait_until 'track_labels | grep -q "^SEP="' 5; then
		ok "$name: unique labels, separator in column $(track_labels | cut -d= -f2)"
	else
		fail "$name" "$(track_labels); screen: $(shot)"
	fi
	sep=$(track_labels | sed -n 's/^SEP=//p')
	keys q
	wait_for "EXIT=" >/dev/null
}
labels_run "labels 80x24 (generated TPU)" 80 24 "$TMP/t.xplane.pb"
if have_fixtures; then
	labels_run "labels 80x24, tf-gpu-v100 host threads" 80 24 "$FIX/tf-gpu-v100-2host"
	s80=$sep
	labels_run "labels 200x50, tf-gpu-v100 host threads" 200 50 "$FIX/tf-gpu-v100-2host"
	s200=$sep
	if [ -n "$s80" ] && [ -n "$s200" ] && [ "$s200" -gt "$s80" ]; then
		ok "the label column widens on a wide screen (separator at $s80 at 80 columns, $s200 at 200)"
	else
		fail "the label column widens on a wide screen" "separator at '$s80' and '$s200'"
	fi
	labels_run "labels 80x24, TPU host's 122 threads (End)" 80 24 \
		"$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb" End
	start 200 50 "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys End
	check "200x50: whole thread names with their ids (tfrt-dynamic-queue/3118741)" \
		'has "  tfrt-dynamic-queue/3118741 +" && has "  tfrt-dynamic-queue/3124142 "' "names cut"
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip_n 5 "labels on the fixtures" "$NOFIX"
fi
