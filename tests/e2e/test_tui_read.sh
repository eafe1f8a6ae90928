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

# ------------------------------------------------------- the title ----
# A long file name gives way (its ".xplane.pb" first, then its middle) so
# that the figures after it keep their units at 80 columns.
cp "$TMP/t.xplane.pb" "$TMP/a_long_profile_name_from_one_training_run.xplane.pb"
start 80 24 "$XTOP" "$TMP/a_long_profile_name_from_one_training_run.xplane.pb"
wait_for "[timeline]" >/dev/null
check "title at 80 columns: the name elided, the busy figure whole with its unit" \
	'line 1 | grep -q "a_long.*training_run  \[timeline\]  .* busy [0-9.]* [mnu]*s *$" &&
	 ! line 1 | grep -q "one_training\|xplane"' "title cut" 5
$T resize-window -t t -x 60 -y 20
H=20
check "title at 60 columns: whole figures dropped from the right, none cut" \
	'line 1 | grep -q "^ xtop  a_lo.*_run  \[timeline\]  19,121 events  1 host *$"' "title cut" 5
keys q
wait_for "EXIT=" >/dev/null
# Twins whose names differ in the middle (-cb, -nocb) read apart: the
# suffix every profile has gave way last, and both read "jax-h10…cb.xplane.pb.gz".
start 80 24 "$XTOP" tests/fixtures/h100/jax-h100-tfm-nocb.xplane.pb.gz
wait_for "[timeline]" >/dev/null
keys 3
check "title at 80 columns: the -nocb twin is named whole, without .xplane.pb.gz" \
	'line 1 | grep -q "^ xtop  jax-h100-tfm-nocb  \[op profile\]"' "title cut" 5
keys q
wait_for "EXIT=" >/dev/null

if have_fixtures; then
	# The issue's two cases.
	start 80 24 "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys 3
	wait_for "[op profile]" >/dev/null
	keys Enter
	wait_for "longest run of" >/dev/null
	keys w w w w w w w
	check "TPU fixture, 2 Enter then 7x w: ruler labels differ" \
		'[ "$(label)" = "1.82 ms" ] && ruler_distinct 3' "labels repeat"
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
	# Four streams whose names differ only in a number in the middle.
	labels_run "labels 80x24, MI300X streams #7 to #10 (MemcpyOther)" 80 24 \
		"$FIX/jax-rocm-mi300x-conv-legacy"
	start 200 50 "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys End
	check "200x50: whole thread names with their ids (tfrt-dynamic-queue/3118741)" \
		'has "  tfrt-dynamic-queue/3118741 +" && has "  tfrt-dynamic-queue/3124142 "' "names cut"
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip_n 6 "labels on the fixtures" "$NOFIX"
fi

# ------------------------------------------------- nothing cut for good ----
# The details pane scrolls to its last row; its old hint "(more: zoom)" is gone.
start 80 16 "$XTOP" "$TMP/t.xplane.pb"
wait_for "[timeline]" >/dev/null
keys 3
wait_for "[op profile]" >/dev/null
keys Enter
wait_for "longest run of" >/dev/null
keys Enter
check "details at 80x16: a pane too small for the text says so (rows 1-N of M, J K scroll)" \
	'grep -q "^ details  rows 1-[0-9]* of [0-9]*  (J K scroll" "$TMP/screen" && ! has "more: zoom"' \
	"no scroll hint" 5 "details"
total=$(sed -n 's/^ details  rows 1-[0-9]* of \([0-9]*\) .*/\1/p' "$TMP/screen")
keys J
check "details: J scrolls a row (rows 2-...)" 'grep -q "^ details  rows 2-" "$TMP/screen"' \
	"not scrolled" 5 "details"
keys '}' '}' '}' '}'
check "details: } scrolls to the last row (of $total) and the stats' last line shows" \
	'grep -q "^ details  rows [0-9]*-$total of $total " "$TMP/screen" && has "bytes_accessed="' \
	"last row not reached" 5 "details"
keys '{' '{' '{' '{' '{'
check "details: { scrolls back to the first row" 'grep -q "^ details  rows 1-" "$TMP/screen"' \
	"not back" 5 "details"
keys q
wait_for "EXIT=" >/dev/null

# Help at 80x24 and 60x20: descriptions wrap instead of being cut, and the
# help scrolls to its end.
start 60 20 "$XTOP" "$TMP/t.xplane.pb"
wait_for "[timeline]" >/dev/null
keys '?'
wait_for "xtop keys" >/dev/null
keys /
text "longest run (a kernel"
keys Enter
check "help at 60x20: a long description wraps onto the next row, whole" \
	'joined | grep -q "Enter ops: the op'"'"'s longest run (a kernel row: its longest launch; a group: fold it); steps, memory, kernels, devices: jump there; diff: the op" &&
	 ! has "ops: the op'"'"'s longest run (a kernel row: its longest launch; a group: fold it); steps,"' \
	"description cut" 5
keys End
check "help at 60x20: End reaches the end, the op name marks" \
	'has "op profile name marks" && has "?        not in the program'"'"'s HLO"' \
	"not the end" 5
keys Escape
check "help: Esc closes it" '! has "xtop keys" && has "[timeline]"' "still open" 5
# A view's key in help goes to that view (it only closed help).
keys ? 3
check "help: a view's number closes it and opens that view" \
	'! has "xtop keys" && has "[op profile]"' "not switched" 5
keys q
wait_for "EXIT=" >/dev/null

# The prompts take a UTF-8 letter (it was dropped), and the cursor and
# Backspace move by letters, not bytes.
start 80 24 "$XTOP" "$TMP/t.xplane.pb"
wait_for "[timeline]" >/dev/null
keys /
text "aé"
check "search prompt: a UTF-8 letter is typed" 'bottom | grep -q "^search: aé *$"' "$(bottom)" 5
keys BSpace
text "ü"
keys Left
text "x"
check "search prompt: Backspace and Left move by letters" 'bottom | grep -q "^search: axü *$"' \
	"$(bottom)" 5
keys Escape q
wait_for "EXIT=" >/dev/null

# The message log: a message longer than the screen is cut with "m more",
# and m shows it whole (wrapped), newest last.
start 80 24 "$XTOP" "$TMP/t.xplane.pb"
wait_for "[timeline]" >/dev/null
long="no such event $(seq 1 30 | tr '\n' ' ')tail end"
keys /
text "$long"
keys Enter
check "a status message longer than the screen ends with '… m more'" \
	'bottom | grep -q "^no event matches .* m more$"' "not marked as cut" 5
keys m
check "m lists the messages: the long one whole, wrapped" \
	'has "messages, newest last" && joined | grep -q "'"'"'no such event 1 2 3 .* 29 30 tail end'"'"' in the whole profile"' \
	"not in full" 5
keys m
check "m again closes the log" '! has "messages, newest last"' "still open" 5
keys q
wait_for "EXIT=" >/dev/null

# A capture error (nothing listens) is longer than 80 columns: m shows all of it.
start 80 24 "$XTOP" --attach 127.0.0.1:1 --duration 200 --logdir "$TMP/caplog"
wait_for "attached to 127.0.0.1:1" >/dev/null
keys c
if wait_until 'bottom | grep -q "m more$"' 20; then
	keys m
	check "capture error cut at 80 columns: m shows it whole (... connection refused ...)" \
		'has "messages, newest last" && grep -qi "refused" "$TMP/screen"' "not in full" 5
else
	fail "capture error cut at 80 columns" "no cut error in the status line: $(bottom)"
fi
keys q
wait_for "EXIT=" >/dev/null

# The views' notes wrap at 80 columns, never between a figure and its unit,
# instead of being cut (the memory peak's last part read "unattributed 0").
# unit_split: some row of the screen starts with a unit, cut from its figure.
unit_split() { grep -Eq '^ +(ps|ns|us|ms|s|B|KiB|MiB|GiB)( |,|;|\)|$)' "$TMP/screen"; }
if have_fixtures; then
	start 80 24 "$XTOP" "$FIX/jax-rocm-mi300x-jax08_gemm/tw003.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys 4
	check "steps at 80x24: the note on inferred steps wraps, whole" \
		'has "[steps]" && ! unit_split && joined | grep -qF "inferred: runs of jit_dot, each step from a run'"'"'s start to the next run'"'"'s (no step markers; mark steps with jax.profiler.StepTraceAnnotation)"' \
		"note cut" 5
	keys 5
	check "memory at 80x24: the peak's parts whole, each figure with its unit" \
		'has "[memory]" && ! unit_split &&
		 joined | grep -qF "peak 460.00 MiB = 5 largest live 460.00 MiB + 0 other live 0 B + unattributed 0 B" &&
		 joined | grep -qF "unattributed = in use with no allocation event in the profile"' "cut" 5
	keys q
	wait_for "EXIT=" >/dev/null
	# The TPU's reserved program stacks are no allocation made before the
	# profile: the peak's parts name them apart, as the report does.
	start 80 24 "$XTOP" --view memory "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[memory]" >/dev/null
	check "memory at 80x24: the TPU's program stacks reserved, not unattributed" \
		'joined | grep -qF "+ reserved 20.02 GiB (program stacks) + unattributed 0 B"' "not apart" 5
	# i on a TPU: a figure longer than its room ("TPU v6 Lite") does not
	# run into what it means, and SMALL/KERN's '-' says why.
	keys 7
	wait_for "[devices]" >/dev/null
	keys i
	check "devices: i on a TPU, MODEL's figure apart from its meaning, SMALL/KERN's '-' explained" \
		'grep -q "^  MODEL  *TPU v6 Lite *\$" "$TMP/screen" &&
		 joined | grep -qF "of all its kernels ('"'"'-'"'"': no GPU, or no events from it)"' "run together" 5
	keys q
	wait_for "EXIT=" >/dev/null
	start 80 24 "$XTOP" --view kernels "$FIX/jax-rocm-mi300x-jax08_gemm/tw003.xplane.pb"
	wait_for "[kernels]" >/dev/null
	check "kernels at 80x24: the selected kernel's figures, grid and block before its long name" \
		'has "[kernels]" && line $((H - 1)) | grep -Eq "^ min [0-9.]+ [mnu]?s, max [0-9.]+ [mnu]?s, grid 32,37,1, block 256,1,1: Cijk_"' \
		"figures cut" 5
	# Rows of one kernel and op name (wrapped_broadcast.kd, of nine
	# programs: jit_broadcast_in_dim compiled for nine shapes) read apart by
	# their programs' ids at 80 columns, where the columns ROCm leaves empty
	# (REGS, OCC%: '-' on every row) went first; the footer names the
	# selected row's grid.
	check "kernels at 80x24: rows of one kernel in nine programs read apart" \
		'! has "OCC%" && ! has "REGS" &&
		 [ "$(grep -c "B wrapped" "$TMP/screen")" -ge 8 ] &&
		 [ "$(grep "B wrapped" "$TMP/screen" | sed "s/^.* B //" | sort -u | wc -l)" = "$(grep -c "B wrapped" "$TMP/screen")" ]' \
		"rows alike" 5
	keys Down Down Down Down Down Down
	check "kernels at 80x24: the selected row names its grid in the footer" \
		'line $((H - 1)) | grep -q "^ min 14.68 us, max 14.92 us, grid 16384,1,1, block 256,1,1: wrapped_broadcast.kd"' \
		"no grid" 5
	keys Home
	keys 3 Space
	check "op profile: kernel rows opened under an op are not counted as ops" \
		'has "17 shown of 17 ops" && has "launches"' "rows counted as ops" 5
	keys Down
	check "op profile: a kernel row's figures before its name" \
		'{ line $((H - 3)); line $((H - 2)); } | grep -Eq "^ [0-9,]+ launches, [0-9.]+ [mnu]?s: kernel( |$)"' "figures cut" 5
	keys 8
	check "diff at 80x24: how to compare, whole" \
		'has "[diff]" && ! unit_split && joined | grep -qF "nothing to compare: one profile is open (xtop --diff BASE NEW, or capture another)"' \
		"cut" 5
	keys q
	wait_for "EXIT=" >/dev/null
	# Two hosts whose names share their start (34.83.195.179_6003 and
	# .180_6003): each device row still says which host it is on.
	start 80 24 "$XTOP" "$FIX/tf-gpu-v100-2host"
	wait_for "[timeline]" >/dev/null
	keys 7
	check "devices at 80x24, two hosts: 16 rows, each host and device told apart" \
		'has "[devices]" &&
		 [ "$(grep -c "/device:GPU:[0-7]$" "$TMP/screen")" -eq 16 ] &&
		 [ "$(grep -o "[^ ]* /device:GPU:[0-7]$" "$TMP/screen" | sort -u | wc -l)" -eq 16 ]' \
		"rows alike" 5
	# The memory view's live allocations keep their shapes in sight (the op
	# name gives way), and the selected step's shares stay whole.
	keys 5
	check "memory at 80x24: a live allocation's long op name elided, its shape shown" \
		'has "[memory]" && grep -q "self_attention_mask/ones \[4,384,1\] *$" "$TMP/screen"' \
		"shape cut" 5
	keys 4
	check "steps at 80x24: the selected step's shares whole, the smallest left out with a mark" \
		'has "[steps]" && line $((H - 1)) | grep -Eq "^ step 0, 21.31 ms:( [a-z>-]+ [0-9.]+%)+ … *$" &&
		 line $((H - 1)) | grep -q "idle 2.2%"' "share cut" 5
	# Its overview is taller than 24 rows: the last says what is below,
	# and Down reaches the findings.
	keys 1
	check "overview at 80x24, taller than the screen: the last row says how many lines are below" \
		'has "[overview]" && line $((H - 1)) | grep -Eq "^ . [0-9]+ more lines? below \(Down\)"' \
		"no hint" 5
	check "overview at 80x24: top ops' long names elided in the middle, their tails told apart" \
		'grep -q "  replica_4/bert_span.*/word_embeddings/GatherV2/Cast\$" "$TMP/screen" &&
		 grep -q "  replica_6/bert_span.*/word_embeddings/GatherV2/Cast\$" "$TMP/screen"' \
		"names cut at their ends" 5
	# Both hosts have a GPU:6: the finding names its host too.
	keys Down Down Down Down Down Down Down Down Down Down Down Down
	check "overview: Down reaches the findings, each figure beside its unit" \
		'has "Findings" && ! unit_split &&
		 joined | grep -qF "! 34.83.195.179_6003 /device:GPU:6 is idle 475.4 ms, 96.9% of its 490.5 ms span; the longest gap is 368.3 ms at 2.11 s, 9 gaps last 1 ms or more, and the host was working during 11.07 ms of the idle time"' \
		"findings not reached" 5
	keys q
	wait_for "EXIT=" >/dev/null
	# TPU ops at 80x24: a footer too long for the row ends in a mark, and
	# names too long for the column keep their tails (.1 and .2 told apart).
	start 80 24 "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys 3
	check "op profile at 80x24: the key hints are whole entries ('p Gro' was cut)" \
		'bottom | grep -q "\\\\ Filter *\$" && ! bottom | grep -q "p Gro"' "cut" 5
	# With a row free under the list, the note wraps over two, whole.
	check "op profile at 80x24: a long note wraps over a free row, a host offload's way first" \
		'line $((H - 3)) | grep -q "^ copy-done.4 in jit_f; host offload from host memory (H2D in steps); rates: *$" &&
		 line $((H - 2)) | grep -q "^ async done: it waits for a transfer timed on its start; FLOPs from the profile *$"' "cut" 5
	keys p
	check "op profile, grouped: long names keep their tails, .1 and .2 told apart" \
		'grep -q "…add_fusion.1 *$" "$TMP/screen" && grep -q "…add_fusion.2 *$" "$TMP/screen"' \
		"names alike" 5
	# The devices at 80x24: each row names its device (the model, in a
	# column of its own, gives way first; the footer names it).
	keys 7
	check "devices at 80x24: four rows, four devices told apart, the model in the footer" \
		'has "[devices]" && [ "$(grep -Ec " /device:TPU:[0-3] *$" "$TMP/screen")" -eq 4 ] &&
		 [ "$(grep -Eo "/device:TPU:[0-3] *$" "$TMP/screen" | sort -u | wc -l)" -eq 4 ] &&
		 line $((H - 1)) | grep -q "^ /device:TPU:0 (TPU v6 Lite): peak known"' "rows alike" 5
	keys q
	wait_for "EXIT=" >/dev/null
	# Wide: the model and the peaks in three figures (1.64 TB/s, not 2).
	start 140 24 "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys 7
	check "devices at 140 columns: the model column, peaks in three figures" \
		'has "[devices]" && [ "$(grep -Ec " 918TF/s 1.64TB/s /device:TPU:[0-3] +TPU v6 Lite *$" "$TMP/screen")" -eq 4 ]' \
		"model or peaks wrong" 5
	keys q
	wait_for "EXIT=" >/dev/null
	# No device names its model (V100): no column of dashes for it.
	start 140 24 "$XTOP" "$FIX/tf-gpu-v100-2host/34.83.195.179_6003.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys 7
	check "devices at 140 columns, no model in the profile: no MODEL column" \
		'has "[devices]" && grep -q " PEAK HBM DEVICE *$" "$TMP/screen" && ! has "MODEL"' \
		"a column of dashes" 5
	keys q
	wait_for "EXIT=" >/dev/null
	# Two hosts at 60 columns: the overview's device rows keep the part of
	# the host that differs and the device, not a host name cut at its end.
	start 60 24 "$XTOP" "$FIX/tf-gpu-v100-2host"
	wait_for "[timeline]" >/dev/null
	keys 1
	check "overview at 60 columns, two hosts: each device row tells host and device apart" \
		'has "[overview]" &&
		 [ "$(grep -Ec "…179_.*device:GPU:[146]\$" "$TMP/screen")" -eq 3 ] &&
		 [ "$(grep -Ec "…180_.*device:GPU:[146]\$" "$TMP/screen")" -eq 3 ]' \
		"devices cut off" 5
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip_n 19 "notes at 80 columns on the fixtures" "$NOFIX"
fi

# An overview with no findings, taller than the screen: End selects the
# last op and brings the lines after it ("Findings: none") on screen.
$GEN --kind tpu --events 200000 --seed 7 -o "$TMP/demo.xplane.pb" >/dev/null 2>&1
start 80 18 "$XTOP" "$TMP/demo.xplane.pb"
wait_for "[timeline]" >/dev/null
keys 1
wait_for "[overview]" >/dev/null
check "overview at 80x18: the hint says lines are below" 'has "more lines below (Down)"' "no hint" 5
keys End
check "overview: End reaches 'Findings: none' and the hint goes" \
	'has "Findings: none" && ! has "more lines below"' "not reached" 5
keys q
wait_for "EXIT=" >/dev/null

# A finding that names an op with accented letters wraps where the row is
# full in columns, not in bytes (each letter is two bytes): "communicate
# less" still fits on the name's row at 80 columns.
if ! $PY -c 'import google.protobuf' 2>/dev/null; then
	skip_n 2 "overview: multibyte names" "python3-protobuf missing (scripts/deps.sh installs it)"
elif $GEN --kind gpu --events 3000 --seed 2 -o "$TMP/mb0.xplane.pb" >/dev/null 2>&1 &&
	$PY tests/fixtures/rename_stat.py "$TMP/mb0.xplane.pb" "$TMP/mb.xplane.pb" all-reduce.13 \
		"all-reduce.13.äöüßéèêëïîôû"; then
	start 80 24 "$XTOP" "$TMP/mb.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys 1
	wait_for "[overview]" >/dev/null
	keys End
	check "overview: a finding with multibyte letters wraps by columns, not bytes" \
		'sed "s/ *\$//" "$TMP/screen" | grep -qxF "   all-reduce.13.äöüßéèêëïîôû): overlap them with compute, or communicate less"' \
		"wrapped early" 5
	keys q
	wait_for "EXIT=" >/dev/null
	# An op name of 600 bytes keeps its tail in the top ops, whole
	# characters up to the mark (it was cut to a buffer before eliding).
	long=$($PY -c 'print("\u00e9" * 300)')
	if $PY tests/fixtures/rename_stat.py "$TMP/mb0.xplane.pb" "$TMP/long.xplane.pb" all-reduce.13 \
		"$long/all-reduce.13"; then
		start 120 24 "$XTOP" "$TMP/long.xplane.pb"
		wait_for "[timeline]" >/dev/null
		keys 1
		check "overview: a 600-byte op name keeps its tail, no broken character" \
			'has "[overview]" && grep "  jit_train_step/.*….*/all-reduce.13 *\$" "$TMP/screen" |
			 grep -vq "?"' "tail lost" 5
		keys q
		wait_for "EXIT=" >/dev/null
	else
		fail "overview: a 600-byte op name" "could not edit the profile"
	fi
else
	fail "overview: a finding with multibyte letters" "could not edit the profile"
fi

# ------------------------------------------------------ search prompt ----
start 80 24 "$XTOP" "$TMP/t.xplane.pb"
wait_for "[timeline]" >/dev/null
keys /
text fusion
keys Enter
wait_until 'bottom | grep -q "fusion"' 5 >/dev/null
keys /
check "search: the prompt opens empty" 'bottom | grep -q "^search: *$"' "not empty: $(bottom)" 5
text while
keys Enter
check "search: /fusion then /while searches 'while', not 'fusionwhile'" \
	'bottom | grep -q "for '"'"'while'"'"'"' "wrong query" 5
keys /
keys Up
check "search: Up recalls the last query (while)" 'bottom | grep -q "^search: while *$"' \
	"no history" 5
keys Up
check "search: Up again, the one before (fusion)" 'bottom | grep -q "^search: fusion *$"' \
	"no older entry" 5
keys Down Down
check "search: Down past the newest brings back what was typed (empty)" \
	'bottom | grep -q "^search: *$"' "not back to the typed line" 5
text conv
keys Left Left Left Home
text "%"
keys End
text ".11"
keys BSpace Enter
check "search: editing keys (Left, Home, End, Backspace) make '%conv.1'" \
	'bottom | grep -q "'"'"'%conv.1'"'"'"' "edited wrongly" 5
keys Escape Escape q
wait_for "EXIT=" >/dev/null

# ---------------------------------------------- jumps and first window ----
if have_fixtures; then
	# Device work is 28 ms of an 8 s profile: the first window fits it.
	start 100 30 "$XTOP" "$FIX/jax-rocm-mi300x-conv-legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb"
	wait_for "[timeline]" >/dev/null
	check "first window: the devices' busy span (28 ms of 7.97 s), with a small margin" \
		'[ "$(label)" = "28.98 ms" ]' "window not the busy span" 5
	keys 0
	check "0 still shows the whole profile (7.97 s)" '[ "$(label)" = "7.97 s" ]' "not whole" 5
	keys q
	wait_for "EXIT=" >/dev/null
	# Memory Enter on the TPU profile: the allocation's host thread comes
	# into view under the cursor, the peak is marked.
	start 120 40 "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys 5
	wait_for "[memory]" >/dev/null
	keys Enter
	check "memory Enter (TPU fixture): the peak marked, its host thread on screen under the cursor" \
		'line 2 | grep -q "▼" && bottom | grep -q "peak at the mark, on " &&
		 thr=$(bottom | sed -n "s/.* peak at the mark, on //p" | cut -c 1-12) && [ -n "$thr" ] &&
		 grep -q "^  $thr" "$TMP/screen"' "thread not shown" 5
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip_n 3 "first window and memory jump on the fixtures" "$NOFIX"
fi
# Every jump is marked: a search match and the op profile's longest run.
start 80 24 "$XTOP" "$TMP/t.xplane.pb"
wait_for "[timeline]" >/dev/null
keys /
text tpu::System::Execute
keys Enter
check "search jump: the match is marked on the ruler" 'line 2 | grep -q "▼" && bottom | grep -q "^match 1 of"' \
	"no mark" 5
keys Escape
check "Esc clears the selection and the mark" '! line 2 | grep -q "▼"' "mark still there" 5
keys 3
wait_for "[op profile]" >/dev/null
keys Enter
check "op profile jump: the longest run is marked" 'line 2 | grep -q "▼" && bottom | grep -q "^longest run of"' \
	"no mark" 5
keys q
wait_for "EXIT=" >/dev/null

# ------------------------------------------- lists on the generic panel ----
# Steps and memory keep their selection by key when sorted or filtered.
start 80 24 "$XTOP" "$TMP/t.xplane.pb"
wait_for "[timeline]" >/dev/null
keys 4
wait_for "[steps]" >/dev/null
keys j j j j j
check "steps: the selected step is 105 (the line under the list)" \
	'line $((H - 1)) | grep -q "^ step 105,"' "not 105" 5
keys '>' '>'
check "steps: sorted by DURATION, step 105 stays selected wherever its row went" \
	'line 3 | grep -q "DURATIONv" && line $((H - 1)) | grep -q "^ step 105," &&
	 [ "$(sed -n "5p" "$TMP/screen" | awk "{ print \$1 }")" != 100 ]' "selection lost" 5
keys '\'
text 6.11
keys Enter
check "steps: \\ 6.11 keeps only step 108 (its start, 6.11 ms from the profile start), selected" \
	'[ "$(grep -Ec "^ +1[0-9][0-9] " "$TMP/screen")" -eq 1 ] && grep -Eq "^ +108 " "$TMP/screen" &&
	 line $((H - 1)) | grep -q "^ step 108,"' "filter wrong" 5
keys Escape
check "steps: Esc clears the filter, step 108 still selected" \
	'[ "$(grep -Ec "^ +1[0-9][0-9] " "$TMP/screen")" -eq 10 ] && line $((H - 1)) | grep -q "^ step 108,"' \
	"filter still on" 5
keys q
wait_for "EXIT=" >/dev/null
if have_fixtures; then
	# NO_COLOR: the selected row is the one in reverse video.
	start 120 30 NO_COLOR=1 "$XTOP" "$FIX/tf-gpu-v100-2host"
	wait_for "[timeline]" >/dev/null
	keys 5
	wait_for "[memory]" >/dev/null
	keys j j j
	check "memory: the 4th allocator (34.83.195.179_6003 host pinned, gpu_host_bfc) is selected" \
		'selected_line | grep -q "^ 34.83.195.179_6003 host pinned "' "$(selected_line)" 5
	at=$(selected_at)
	keys '>' '>'
	check "memory: sorted by PEAK, host pinned moves (from row $at) and stays selected" \
		'line 2 | grep -q "PEAKv" && selected_line | grep -q "^ 34.83.195.179_6003 host pinned " &&
		 [ "$(selected_at)" != "$at" ]' "selection lost" 5
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip_n 2 "memory selection across a sort" "$NOFIX"
fi
# The op profile's figures fit their columns whole: 127,300 occurrences
# read 127K, an op with all the time 100% (they were cut to "127,30" and
# "100.0", which read as other numbers).
if $PY -c 'import google.protobuf' 2>/dev/null &&
	$PY tests/fixtures/many_ops.py "$TMP/occ.xplane.pb" 127300; then
	start 80 24 "$XTOP" "$TMP/occ.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys 3
	check "ops: 127,300 occurrences read 127K, all the time 100%, never cut" \
		'grep -Eq "^ *127\.3 ms +100% +127\.3 ms +1\.00 us +127K fusion\.1 *\$" "$TMP/screen" &&
		 ! grep -q "#" "$TMP/screen"' "cut" 5
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip "ops: wide counts" "python3-protobuf missing (scripts/deps.sh installs it)"
fi
# A step's breakdown bar gives its cells to the largest shares: step 0 of
# the H100 transformer (compute 89.9 %, host 9.1 %, idle 1.0 %) in 19
# cells (the categories 0 in every step have no column) is 17 C and two H
# (idle took every cell left over, so nine cells read eight C and a '.',
# and the host's 9 % was not drawn).
start 80 24 NO_COLOR=1 "$XTOP" tests/fixtures/h100/jax-h100-tfm-cb.xplane.pb.gz
wait_for "[timeline]" >/dev/null
keys 4
check "steps: the breakdown bar draws the host's 40 % and the idle's 11 %" \
	'grep -Eq "^ +0 +17\.72 ms +1\.59 ms .* CCCCCCCCCHHHHHHHH\.\. *\$" "$TMP/screen"' "bar wrong" 5
keys q
wait_for "EXIT=" >/dev/null
# A kernel's op stays at the end of its row however long the kernel's name:
# the V100 profile's Eigen kernels run to 919 bytes, and the row showed the
# middle of the op's name ("…rmer/layer_17/self_at"); a 5,000-byte name.
if have_fixtures; then
	start 80 24 "$XTOP" "$FIX/tf-gpu-v100-2host"
	wait_for "[timeline]" >/dev/null
	keys 6
	check "kernels: a 919-byte Eigen kernel's row ends with its op" \
		'[ "$(grep -c "void Ei.* (replica_.*Cast) *\$" "$TMP/screen")" -eq 2 ] &&
		 ! grep -q "self_at *\$" "$TMP/screen"' "op lost" 5
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip "kernels: long kernel names" "$NOFIX"
fi
long=$($PY -c 'print("void cutlass::Kernel<" + "T" * 5000 + ">")')
if $PY -c 'import google.protobuf' 2>/dev/null &&
	$GEN --kind gpu --events 3000 --seed 2 -o "$TMP/k0.xplane.pb" >/dev/null 2>&1 &&
	$PY tests/fixtures/rename_stat.py --names "$TMP/k0.xplane.pb" "$TMP/k.xplane.pb" \
		ncclDevKernel_AllReduce_Sum_f32_RING_LL "$long"; then
	start 80 24 "$XTOP" "$TMP/k.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys 6
	check "kernels: a 5,000-byte kernel name keeps its op at the row's end" \
		'grep -q "void .*TT> (all-reduce.13) *\$" "$TMP/screen"' "op lost" 5
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip "kernels: a 5,000-byte kernel name" "python3-protobuf missing (scripts/deps.sh installs it)"
fi
# A kernel's op stays whole, "(" and all, where the row is cut: XLA shares
# one kernel between two ops (loop_add_fusion_2 runs loop_add_fusion.2 and
# .3), and the middle cut of "kernel (op)" showed the two as one kernel
# ("loop_conve…rt_multiply_fusion.1)"). An op too long for its room is
# elided inside its parentheses, the kernel's name cut at its end.
start 80 24 "$XTOP" --view kernels tests/fixtures/h100/jax-h100-tfm-cb.xplane.pb.gz
wait_for "[kernels]" >/dev/null
check "kernels at 80x24: a shared kernel's rows keep their ops whole, '(' and all" \
	'grep -q " loo.*_2 (loop_add_fusion\.2) *\$" "$TMP/screen" &&
	 grep -q " loo.*_2 (loop_add_fusion\.3) *\$" "$TMP/screen" &&
	 grep -q " loop_co… (loop_c…tiply_fusion\.1) *\$" "$TMP/screen" &&
	 grep -q " loop_co… (loop_c…ultiply_fusion) *\$" "$TMP/screen" &&
	 [ "$(grep -c "% .* (.*) *\$" "$TMP/screen")" -ge 18 ]' "op cut" 5
# / finds a kernel in a command buffer by its op: its hlo_op is the graph's
# command_buffer_1, the op is the one the analysis gives it (the details'
# "op profile:" line); it said "no event is named", where without command
# buffers it found 12 runs.
keys 2 /
text gemm_fusion_dot.18
keys Enter
check "search: a kernel in a command buffer found by its op (12 runs of gemm_fusion_dot.18)" \
	'bottom | grep -q "^match 1 of 12 for '"'"'gemm_fusion_dot.18'"'"'"' "not found" 5
# and by its graph's name still: all 1,176 of its events on the GPU
keys /
keys -N 30 BSpace
text command_buffer_1
keys Enter
check "search: kernels in a command buffer found by the graph's name too" \
	'bottom | grep -Eq "^match 1 of [0-9]{3,} for '"'"'command_buffer_1'"'"'"' "not found" 5
keys q
wait_for "EXIT=" >/dev/null
# '.' steps through kernels that share one column of the timeline (a dense
# cell) with nothing on screen changing: the status line names each one.
start 80 24 "$XTOP" --view timeline tests/fixtures/h100/jax-h100-tfm-cb.xplane.pb.gz
wait_for "[timeline]" >/dev/null
keys g . . .
check "timeline: '.' says which event it selected (a dense column shows no change)" \
	'bottom | grep -Eq "^nvjet_sm90_tst_128x128_64x6_2x1_v_bz_NNT at 17\.79 ms, 11\.26 us \(Enter: details\)"' \
	"not said" 5
keys q
wait_for "EXIT=" >/dev/null
# The details show a kernel's raw kernel_details, and say what xtop makes
# of it: TensorFlow's shm:0 is the static part alone.
if have_fixtures; then
	start 100 45 "$XTOP" "$FIX/tf-gpu-v100-2host"
	wait_for "[timeline]" >/dev/null
	keys /
	text FillPhiloxRandomKernelLaunch
	keys Enter
	wait_until 'bottom | grep -q "^match 1 of"' >/dev/null
	# match 1: its launch on a host thread, whose kernel_details is garbage
	keys Enter
	check "details: a launch's garbage kernel_details beside what it is (impossible)" \
		'joined | grep -qF "kernel_details=regs:17179869185 shm:7" &&
		 joined | grep -qF "kernel_details: registers: impossible in its kernel_details"' \
		"not said" 5
	# match 3: the kernel on GPU:4
	keys Enter n n Enter
	check "details: TensorFlow's shm:0 beside what it is (the static part alone)" \
		'joined | grep -qF "kernel_details=regs:38 shm:0" &&
		 joined | grep -qF "kernel_details: shared memory: one part of it in its kernel_details, not the whole (TensorFlow'"'"'s shm is the static part alone)"' \
		"not said" 5
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip "details: TensorFlow's shm:0" "$NOFIX"
fi
# A group row's rates are '-', and i says why (it said nothing).
start 80 24 "$XTOP" --view ops tests/fixtures/h100/jax-h100-scan-cb.xplane.pb.gz
wait_for "[op profile]" >/dev/null
keys p g i
check "op profile grouped: i on a group says why its rates are '-'" \
	'has "GROUP       jit_train_step" && joined | grep -qF "NOTE a group'"'"'s rates and bound are absent"' \
	"no reason" 5
keys q
wait_for "EXIT=" >/dev/null
# Names alike at both ends read apart in the viewer's lists too: the V100
# profile's dropout ops (op profile) and their kernels (kernels view) show
# their layers at 80 columns (OCC%, '-' on every row there, gives its room
# to the names).
if have_fixtures; then
	start 80 24 "$XTOP" "$FIX/tf-gpu-v100-2host"
	wait_for "[timeline]" >/dev/null
	keys 3
	check "ops: ops alike at both ends show their layers, each row apart" \
		'[ "$(grep -c "Uniform *\$" "$TMP/screen")" -eq 15 ] &&
		 [ "$(grep "Uniform *\$" "$TMP/screen" | awk "{print \$NF}" | sort -u | wc -l)" -eq 15 ] &&
		 has "replica_6/be…layer_17/self_at…Uniform"' "names alike" 5
	keys 6
	check "kernels: kernels of ops alike at both ends read apart, replicas too" \
		'has "void te… (replica_…r_17/self_a…iform)" && has "void te… (replica_…r_22/self_a…iform)" &&
		 [ "$(grep -c "void te.*form) *\$" "$TMP/screen")" -eq 18 ] &&
		 [ "$(grep "void te" "$TMP/screen" | awk "{print \$NF}" | sort -u | wc -l)" -eq 18 ]' \
		"names alike" 5
	# What the rows cut, i shows whole: the first kernel's 500-byte
	# Eigen name and its op, every column under its header, MIN and the
	# NOTE on the '-' before the name's dozen rows.
	keys i
	check "kernels: i shows the selected row in full, its name and op whole" \
		'has "kernels: the selected row in full" && has "GRID        160,1,1" &&
		 has "OCC%        -" && has "KERNEL (OP) void Eigen::internal::EigenMetaKernel" &&
		 has "MIN         246.8 us" && has "NOTE        shared memory: one part of it"' \
		"row cut" 5
	keys End
	# (Spaces left out: rows break after a space, a '/' or a '::'.)
	check "kernels: ... its end a scroll away" \
		'joined | tr -d " " |
		 grep -qF "Eigen::GpuDevice>,long)(replica_4/bert_span_labeler/bert_encoder_1/word_embeddings/Gather"' \
		"end cut" 5
	keys i
	check "kernels: i again closes it" 'has "TOTALv" && ! has "the selected row in full"' "still open" 5
	# No row (a filter that keeps none): i leaves the help that was open
	# as it was (it had emptied it).
	keys '\'
	text zzzz
	keys Enter '?'
	wait_for "xtop keys" >/dev/null
	keys i
	check "kernels: i with no row selected leaves the open help whole" \
		'has "xtop keys" && has "everywhere" && has "show or hide this help"' \
		"help blanked" 5
	keys Escape Escape
	# The op profile's footer note, cut at 80 columns (it says where it
	# is whole), whole; the words first, then each figure with what it
	# means, then the kernels.
	keys 3
	check "ops: a note cut under a full list says i shows it whole" \
		'line $((H - 2)) | grep -q "^ MemcpyH2D; rates: a copy: no FLOPs.*…  i: whole\$"' "no hint" 5
	keys Down i
	check "ops: i shows the op's name, its note and figures whole" \
		'has "op profile: the selected row in full" && has "NAME        replica_4/bert_span_labeler" &&
		 joined | grep -qF "rates: no FLOPs or bytes: the profile counts none for TensorFlow ops; 1 kernel (Space)" &&
		 has "SELF        493.6 us   self time: total minus direct children" &&
		 has "kernels it launched (1)"' "note cut" 5
	keys Escape
	check "ops: Esc closes it" 'has "SELFv" && ! has "the selected row in full"' "still open" 5
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip_n 9 "lists: names apart, rows in full" "$NOFIX"
fi
# An op's kernels opened under it (Space), their long names alike for 60
# characters (CUB's radix sort on an H200: three kernels of 300-odd bytes):
# each elided in its middle and told apart, as in the kernels view, never
# cut at the edge.
start 120 24 "$XTOP" tests/fixtures/h200/jax-h200-sort-nocb.xplane.pb.gz
wait_for "[timeline]" >/dev/null
keys 3
wait_for "custom-call.1" >/dev/null
keys Space
check "ops: an op's kernel rows end with their names' tails, each row apart" \
	'[ "$(grep -c "launches  ↳ kernel void cub::.*….*)\$" "$TMP/screen")" -eq 3 ] &&
	 [ "$(grep "launches  ↳ kernel void cub" "$TMP/screen" | sed "s/^.*kernel //" | sort -u | wc -l)" -eq 3 ]' \
	"kernel names cut" 5
keys q
wait_for "EXIT=" >/dev/null
# One op name in several programs (jit_add's, jit_sin's loop_convert_fusion,
# jit_add's of two shapes, programs 11 and 28): without the PROGRAM column,
# each row names its program. A taller window
# shows the list's first rows again, not blank lines under its last.
if have_fixtures; then
	start 80 24 "$XTOP" "$FIX/jax-rocm-mi300x-jax08_elementwise/tw003.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys 3
	check "ops: a name in several programs shows its program, each row apart" \
		'has "jit_multiply/loop_convert_fusion" && has "jit_add(11)/loop_convert_fusion" &&
		 has "jit_add(28)/loop_convert_fusion" &&
		 [ "$(grep -Ec "(convert_fusion|/loop_c…usion) *\$" "$TMP/screen")" -eq 9 ] &&
		 [ "$(grep -E "(convert_fusion|/loop_c…usion) *\$" "$TMP/screen" | awk "{print \$NF}" | sort -u | wc -l)" -eq 9 ]' \
		"names alike" 5
	keys End
	$T resize-window -t t -x 80 -y 10
	sleep 0.3
	$T resize-window -t t -x 120 -y 40
	H=40
	check "ops: a taller window shows the first rows again" \
		'has " 583.4 us " && has "input_reduce_fusion.1"' "top rows off screen" 5
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip_n 2 "ops: a name in several programs" "$NOFIX"
fi
# A directory given with its trailing slash still names the profile in the
# title; ASCII's step bars keep their shape (several levels, not one '.');
# a narrow steps table gives up a category that is 0 in every step (the
# V100's collectives) before one that says something (its copies), and
# the START column before a category that holds time (its 12.13 us of
# D2H were hidden).
if have_fixtures; then
	start 80 24 "$XTOP" "$FIX/tf-gpu-v100-2host"
	wait_for "[timeline]" >/dev/null
	keys 4
	check "steps at 80 columns: COLLECT (0 in every step) and START give way to D2H and H2D" \
		'line 3 | grep -q "DURATION  *COMPUTE  *D2H  *H2D  *HOST  *IDLE" && ! line 3 | grep -q COLLECT' \
		"columns: $(line 3)" 5
	keys q
	wait_for "EXIT=" >/dev/null
	start 80 24 "$XTOP" "$FIX/jax-rocm-mi300x-conv-legacy/"
	wait_for "[timeline]" >/dev/null
	check "title: a directory with its trailing slash is named" \
		'line 1 | grep -q "^ xtop  jax-roc.*conv-legacy  \[timeline\]"' "no name" 5
	keys q
	wait_for "EXIT=" >/dev/null
	start 80 24 "$XTOP" --ascii "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys 1
	check "overview, ASCII: the step bars show several levels" \
		'[ "$(line 4 | tr -d " \n" | fold -w1 | sort -u | wc -l)" -ge 3 ]' "flat bars" 5
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip_n 3 "steps columns, title with a slash, ASCII bars" "$NOFIX"
fi
# A search jump keeps the window within the profile: no time before its
# start, none after its end (the whole profile fit the window already).
if have_fixtures; then
	start 80 24 "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys / ; text "all-reduce"; keys Enter
	check "search: the first match's jump shows no time before the profile" \
		'has "match 1 of" && ! line 2 | grep -q "│-"' "window before the start" 5
	keys / ; text "broadcast_add_fusion"; keys Enter N
	check "search: the last match's jump shows no time after the profile" \
		'bottom | grep -q "match 2701 of 2701" && ! line 2 | grep -q "│1[0-9][0-9] s"' \
		"window after the end" 5
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip_n 2 "search jumps within the profile" "$NOFIX"
fi
# The op profile keeps its selected op through a sort, a filter and the
# filter's clearing (not the row number, which then points at another op).
# sel_op: the selected op, as the line above the footer names it.
sel_op() { cap; line $((H - 2)) | awk '{print $1}'; }
if have_fixtures; then
	start 80 24 NO_COLOR=1 "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys 3
	wait_for "[op profile]" >/dev/null
	keys Down Down Down Down Down Down
	sleep 0.3
	want=$(sel_op)
	keys '<'
	sleep 0.3
	after_sort=$(sel_op)
	keys '\' ; text "fusion"; keys Enter
	wait_for "shown of 17 ops" >/dev/null
	sleep 0.3
	after_filter=$(sel_op)
	keys Escape
	sleep 0.3
	after_clear=$(sel_op)
	if [ "${want#*fusion}" != "$want" ] && [ "$after_sort" = "$want" ] &&
		[ "$after_filter" = "$want" ] && [ "$after_clear" = "$want" ]; then
		ok "ops: the selected op stays selected through sort, filter and clear ($want)"
	else
		fail "ops: selection kept" "$want -> sort $after_sort -> filter $after_filter -> clear $after_clear"
	fi
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip "ops: selection kept" "$NOFIX"
fi
# With 8 colours, no event is drawn in the selection's yellow or the search
# match's magenta: only the selected track's label is yellow.
if have_fixtures; then
	ENVV_SAVE=$ENVV
	ENVV="TZ=UTC LC_ALL=C.UTF-8 TERM=screen XTOP_VIEW=timeline"
	start 80 24 "$XTOP" "$FIX/jax-rocm-mi300x-conv-legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb"
	wait_for "[timeline]" >/dev/null
	sleep 0.3
	$T capture-pane -t t -p -e | sed -n "2,$((H - 1))p" >"$TMP/c8"
	y=$(grep -o "$ESC\[43m" "$TMP/c8" | wc -l)
	m=$(grep -o "$ESC\[45m" "$TMP/c8" | wc -l)
	if [ "$y" -le 1 ] && [ "$m" -eq 0 ] && grep -q "$ESC\[4[2467]m" "$TMP/c8"; then
		ok "8 colours: events in other hues than the selection's and the match's"
	else
		fail "8 colours: events apart from selection and match" "$y yellow, $m magenta cells"
	fi
	keys q
	wait_for "EXIT=" >/dev/null
	ENVV=$ENVV_SAVE
else
	skip "8 colours: event hues" "$NOFIX"
fi
# At 40 columns every row keeps what names it (the device, the memory), and
# no figure is drawn cut ("72" of "72.83 s").
if have_fixtures; then
	start 40 14 "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys 1
	check "overview at 40 columns: each device row names its device" \
		'has "/device:TPU:0" && has "/device:TPU:3"' "device names dropped" 5
	keys 5
	check "memory at 40 columns: each row names its memory, its peak time whole" \
		'has "TPU:0 HBM" && has "72.83 s" && ! grep -q " 72 *\$" "$TMP/screen"' "cut" 5
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip_n 2 "40 columns" "$NOFIX"
fi
# The lists too: after End in a short window, a tall one shows the first rows.
start 80 10 "$XTOP" tests/fixtures/h100/jax-h100-mlp-cb.xplane.pb.gz
wait_for "[timeline]" >/dev/null
keys 6
wait_for "[kernels]" >/dev/null
keys End
sleep 0.3
$T resize-window -t t -x 120 -y 40
H=40
check "kernels: a taller window shows the first rows again" \
	'has "870.6 us" && has "gemm_fusion_dot_1 (gemm_fusion_dot.1)"' "top rows off screen" 5
keys q
wait_for "EXIT=" >/dev/null
# Self time is less the time the children cover: on the H100 host lines a
# thunk and the TraceMe inside it end 100 ns apart (siblings that overlap),
# and counting both made jit_train_step's module self -60.45 us.
H100=tests/fixtures/h100
start 120 40 "$XTOP" "$H100/jax-h100-tfm-nocb.xplane.pb.gz"
wait_for "[timeline]" >/dev/null
keys Enter / ; text "XLA GPU module"; keys Enter
check "details: self time of a parent whose children overlap is the time they leave" \
	'has "jit_train_step:XLA GPU module" && has "self 38.586 us"' "wrong self time" 5 details
# i takes a child inside the selection.
keys i
check "i: the first child, inside the selection" \
	'has "Thunks::Prepare" && has "depth 9"' "no child taken" 5 details
keys q
wait_for "EXIT=" >/dev/null
if have_fixtures; then
	# i on an event with no children says so: it does not take an earlier
	# event of the next level that ended before it began.
	start 120 40 "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys Enter / ; text "MapDmaBuffer"; keys Enter
	n=0
	while [ $n -lt 35 ]; do keys n; n=$((n + 1)); done
	wait_for "match 36 of 525" >/dev/null
	keys i
	check "i: an event without children says 'no child'" \
		'bottom | grep -q "^no child" && has "MapDmaBuffer"' "took another event" 5
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip "i without children" "$NOFIX"
fi
# w with a long selection partly on screen zooms around that part, not
# around the selection's middle far off screen (start_trace, 0-18.4 ms).
start 120 40 "$XTOP" "$H100/jax-h100-mlp-nocb.xplane.pb.gz"
wait_for "[timeline]" >/dev/null
keys Enter End 0 . w w w d d d d d d
wait_until 'has "start_trace"' 5
keys w
check "w: a long selection partly in view stays in view" \
	'ruler_labels | grep -q "^18.0 ms" && has "start_trace"' "the view left the selection" 5
keys q
wait_for "EXIT=" >/dev/null
# , with nothing selected takes the last event that starts in the view or
# before it: Host Threads/1177 has none before step 0's window (its events
# are at 24 ms), so none, rather than one 5 ms later.
start 120 40 "$XTOP" --view steps "$H100/jax-h100-mlp-nocb.xplane.pb.gz"
wait_for "[steps]" >/dev/null
keys Home Enter
wait_for "[timeline]" >/dev/null
keys Escape Home Down Down Down ,
check ", from the view: no previous event when none starts before the view's end" \
	'bottom | grep -q "^no previous event on this track"' "took a later event" 5
keys . Enter
check ". from the view: the first event that starts in or after the view" \
	'has "BUFFER_FLUSH" && has "start 24.02"' "no next event" 5 details
keys q
wait_for "EXIT=" >/dev/null
# n visits every match, those that start together on one track too (the
# V100's nested name scopes: match 4 starts with match 3, and was skipped).
if have_fixtures; then
	start 120 40 "$XTOP" "$FIX/tf-gpu-v100-2host/34.83.195.179_6003.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys Enter / ; text "dropout"; keys Enter
	wait_for "match 1 of" >/dev/null
	keys n n n
	check "search: n visits a match that starts with the one before on its track" \
		'bottom | grep -q "^match 4 of 2922"' "skipped a match" 5
	keys N
	check "search: N goes back to it in turn" 'bottom | grep -q "^match 3 of 2922"' "skipped" 5
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip_n 2 "search through matches that start together" "$NOFIX"
fi
# An op's name finds its kernels: a GPU's kernels are named after
# themselves (nvjet_…, Memset 3), their op only in hlo_op. It found the 12
# host thunks alone.
start 120 40 "$XTOP" "$H100/jax-h100-tfm-nocb.xplane.pb.gz"
wait_for "[timeline]" >/dev/null
keys / ; text "custom-call.10"; keys Enter
wait_for "match 1 of" >/dev/null
check "search: an op's name finds its GPU kernels too (12 host thunks, 24 device events)" \
	'bottom | grep -q "^match 1 of 36 for"' "kernels not found" 5
keys n Enter
check "search: its second match is on the GPU, the op in its hlo_op" \
	'has "/device:GPU:0" && has "hlo_op=custom-call.10"' "not a device event" 5 details
keys q
wait_for "EXIT=" >/dev/null
# With 8 colours compute and host share a hue: the steps' breakdown bars
# keep their letters there (CCCHHH), as without colour, and the legend says
# which is which; with 256 they are colours alone.
ENVV_SAVE=$ENVV
ENVV="TZ=UTC LC_ALL=C.UTF-8 TERM=screen XTOP_VIEW=steps"
start 120 24 "$XTOP" "$H100/jax-h100-mlp-nocb.xplane.pb.gz"
check "8 colours: the steps' bars tell compute from host by letter" \
	'has "C compute" && has "H host" && grep -Eq " C+H+\.+ *$" "$TMP/screen"' "no letters" 5
keys q
wait_for "EXIT=" >/dev/null
ENVV="TZ=UTC LC_ALL=C.UTF-8 TERM=screen-256color XTOP_VIEW=steps"
start 120 24 "$XTOP" "$H100/jax-h100-mlp-nocb.xplane.pb.gz"
check "256 colours: the steps' bars are colours alone" \
	'has "legend:" && ! grep -Eq " C+H+\.+ *$" "$TMP/screen"' "letters" 5
# At 60 columns the legend's words are short, and none is cut; the
# categories 0 in every step are named apart (they have no colour in any
# bar, nor a column).
$T resize-window -t t -x 60 -y 24
check "steps legend at 60 columns: every category, in short words" \
	'line 2 | grep -q "^ legend:   comp   host   idle   0 in all: d2h, coll, h2d *$" &&
	 ! line 3 | grep -q "H2D"' "legend cut" 5
keys q
wait_for "EXIT=" >/dev/null
# At 80 columns the scan's dynamic update slices say so: their plain
# elisions ("loop_dy…e_slice_fusion.3" beside a dynamic slice's
# "loop_dy…c_slice_fusion.4") differed by a letter.
ENVV="TZ=UTC LC_ALL=C.UTF-8 TERM=screen-256color XTOP_VIEW=timeline"
start 80 24 "$XTOP" "$H100/jax-h100-scan-nocb.xplane.pb.gz"
wait_for "[timeline]" >/dev/null
keys 3
check "ops at 80 columns: a dynamic update slice's row says update" \
	'[ "$(grep -c "loop_dy…ic_update_…ion\.[0-9]" "$TMP/screen")" -ge 4 ] &&
	 grep -q "loop_dy…c_slice_fusion.4" "$TMP/screen"' "kinds hidden" 5
keys q
wait_for "EXIT=" >/dev/null
# Enter on a copies finding opens the steps, whose figures it quotes (it
# opened the op profile at the host offload it names), as help says.
if have_fixtures; then
	ENVV="TZ=UTC LC_ALL=C.UTF-8 TERM=screen-256color XTOP_VIEW=overview"
	start 80 40 "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[overview]" >/dev/null
	keys End Up Enter
	check "overview: Enter on the D2H finding opens the steps" 'has "[steps]"' "elsewhere" 5
	keys q
	wait_for "EXIT=" >/dev/null
fi
# PgDn/PgUp page through the overview's items; they acted as End/Home,
# so the devices and ops between the first and the last could not be
# reached a page at a time.
if have_fixtures; then
	ENVV="TZ=UTC LC_ALL=C.UTF-8 TERM=screen NO_COLOR=1 XTOP_VIEW=overview"
	start 80 24 "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[overview]" >/dev/null
	# The selection, drawn in reverse (ncurses may write it as 0;7).
	sel_row() {
		$T capture-pane -t t -p -e | sed -n "2,$((H - 1))p" | grep -E "$ESC\[(0;)?7m" |
			head -n 1 | sed "s/$ESC\[[0-9;]*m//g"
	}
	keys NPage
	sleep 0.3
	p1=$(sel_row)
	keys NPage
	sleep 0.3
	p2=$(sel_row)
	keys PPage
	sleep 0.3
	p3=$(sel_row)
	check "overview: PgDn selects the item a page down, then the last" \
		'printf "%s\n" "$p1" | grep -q "^ ! device-to-host" &&
		 printf "%s\n" "$p2" | grep -q "^ ! XLA compiled"' "PgDn: '$p1' then '$p2'" 1
	check "overview: PgUp goes back a page, to a top op, not to the first row" \
		'printf "%s\n" "$p3" | grep -q "jit_f/copy-done"' "PgUp: '$p3'" 1
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip_n 2 "overview: PgDn/PgUp" "$NOFIX"
fi
# The steps' average row is the average of the steps the filter keeps: it
# stayed the average of all 100 (850.2 ms) beside the one step kept.
if have_fixtures; then
	ENVV="TZ=UTC LC_ALL=C.UTF-8 TERM=screen NO_COLOR=1 XTOP_VIEW=steps"
	start 100 24 "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[steps]" >/dev/null
	keys '\'
	text "982.1"
	keys Enter
	check "steps: with a filter, the average row averages the steps kept" \
		'grep -Eq "^ +avg 1 +982\.1 ms +31\.96 ms" "$TMP/screen" && ! has "850.2 ms"' \
		"average of all" 5
	# What the filter reads is what the rows show: at 80 columns "79" kept
	# steps 45 and 93 too, by their START (54.79 s, 91.79 s), not shown.
	keys q
	wait_for "EXIT=" >/dev/null
	start 80 24 "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[steps]" >/dev/null
	keys '\'
	text "79"
	keys Enter
	check "steps at 80 columns: the filter reads the columns shown" \
		'grep -Eq "^ +79 " "$TMP/screen" && ! grep -Eq "^ +(45|93) " "$TMP/screen" && ! has "START"' \
		"$(grep -E "^ +[0-9]+ " "$TMP/screen" | head -3)" 5
	keys '\'
	text "zzz"
	keys Enter
	check "steps: a filter that keeps no step leaves no average figures" \
		'has "no step matches the filter" && ! grep -Eq "avg|average|[0-9] ms" "$TMP/screen"' \
		"figures of no step" 5
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip_n 3 "steps: the average row under a filter, what the filter reads" "$NOFIX"
fi
# A stream's track label too wide for its column takes a form of its own:
# elided, "Stream #63(MemcpyH2D)" read "Strea…#63(Mem…2D", where H2D and
# D2D look alike.
if have_fixtures; then
	ENVV="TZ=UTC LC_ALL=C.UTF-8 TERM=screen NO_COLOR=1 XTOP_VIEW=timeline"
	for cw in 80:"#63 MemcpyH2D" 40:"#63 H2D"; do
		start "${cw%%:*}" 120 "$XTOP" "$FIX/tf-gpu-v100-2host/34.83.195.179_6003.xplane.pb"
		wait_for "[timeline]" >/dev/null
		check "timeline at ${cw%%:*} columns: a copy stream's label names its direction" \
			'grep -q "^  ${cw#*:} *│" "$TMP/screen" && grep -q "^  #136 \(Memcpy\)\{0,1\}D2H *│" "$TMP/screen" &&
			 ! has "Strea…"' "labels elided" 5
		keys q
		wait_for "EXIT=" >/dev/null
	done
else
	skip_n 2 "timeline: stream labels" "$NOFIX"
fi
# At 30 columns the ops' summary line was cut unmarked ("17 shown of 17
# ops   sorted b"): the key hint and the sort give way first.
if have_fixtures; then
	ENVV="TZ=UTC LC_ALL=C.UTF-8 TERM=screen NO_COLOR=1 XTOP_VIEW=ops"
	start 30 16 "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[ops]" >/dev/null
	check "ops at 30 columns: the summary line keeps whole words" \
		'[ "$(line $((H - 1)) | sed "s/ *\$//")" = " 17 shown of 17 ops" ]' \
		"'$(line $((H - 1)))'" 5
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip_n 1 "ops at 30 columns: the summary line" "$NOFIX"
fi
# A live allocation whose event names no op says so: a bare '-' under no
# header read as a figure left out.
if have_fixtures; then
	ENVV="TZ=UTC LC_ALL=C.UTF-8 TERM=screen NO_COLOR=1 XTOP_VIEW=memory"
	start 80 24 "$XTOP" "$FIX/jax-rocm-mi300x-jax08_attention/tw003.xplane.pb"
	wait_for "live at the peak" >/dev/null
	check "memory: a live allocation with no op in its event says so" \
		'grep -Eq "^ +240\.00 MiB +[0-9.]+ ms +\(no op named\)" "$TMP/screen"' "not said" 5
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip_n 1 "memory: no op named" "$NOFIX"
fi
# Under TERM=xterm-256color, which claims back colour erase, tmux erased a
# bar's trailing run of coloured blanks in the default colour: the TPU's
# H2D (colour 216), half of every step, was missing. Its cells are drawn.
if have_fixtures; then
	ENVV="TZ=UTC LC_ALL=C.UTF-8 TERM=xterm-256color XTOP_VIEW=steps"
	start 80 24 "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	check "xterm-256color in tmux: the steps' bars keep their last colour" \
		'cap -e -N; grep -F "913.7 ms" "$TMP/screen" | grep -q "48;5;216m#"' "H2D erased" 5
	keys q
	wait_for "EXIT=" >/dev/null
fi
ENVV=$ENVV_SAVE
# The memory view's peak split is whole at 40 columns: its terms add up to
# the peak only when none is cut (unattributed was).
start 40 20 "$XTOP" --view memory "$H100/jax-h100-mlp-nocb.xplane.pb.gz"
check "memory at 40 columns: the peak's split is whole" \
	'has "peak 194.01 MiB = 10 largest live" && has "unattributed 8.00 MiB"' "cut" 5
keys q
wait_for "EXIT=" >/dev/null
# Command buffers: XLA launches fusion.153's kernel for its twin fusion.148,
# and the op profile names such kernels by their place in the run. Enter on
# those ops, the details of their launches and Enter on their kernel rows
# follow the same naming: before, Enter on fusion.148 (the top op) found
# "no run", the details named fusion.153 for all 24 launches, and both
# kernel rows jumped to fusion.153's longest launch.
start 140 40 "$XTOP" --view ops tests/fixtures/h100/jax-h100-tfm-cb.xplane.pb.gz
wait_for "[op profile]" >/dev/null
keys Enter
check "command buffers: Enter on fusion.148 (named by its place) finds its longest run" \
	'bottom | grep -q "^longest run of fusion.148: 23.55 us"' "$(bottom)" 5
keys Enter
check "command buffers: the run's details name fusion.148's row" \
	'has "op profile: fusion.148 [custom fusion]"' "$(grep "op profile" "$TMP/screen")" 5
keys 6
wait_for "[kernels]" >/dev/null
keys Enter
check "command buffers: Enter on fusion_153 (fusion.148) shows that row's longest launch" \
	'bottom | grep -q "^longest launch of fusion_153: 23.55 us"' "$(bottom)" 5
keys 6
wait_for "[kernels]" >/dev/null
keys j Enter
check "command buffers: Enter on fusion_153 (fusion.153) shows that row's longest launch" \
	'bottom | grep -q "^longest launch of fusion_153: 23.68 us"' "$(bottom)" 5
# Every one of the first 30 ops (custom-calls named by their place among
# them) has a run Enter finds.
keys 3
wait_for "[op profile]" >/dev/null
keys g
missed=""
for i in $(seq 1 30); do
	keys Enter
	wait_for "run of" 5 >/dev/null
	has "no run of" && missed="$missed $(bottom | sed 's/.*no run of \([^ ]*\).*/\1/')"
	keys 3
	wait_for "[op profile]" >/dev/null
	keys j
done
[ -z "$missed" ] && ok "command buffers: Enter finds a run for each of the first 30 ops" ||
	fail "command buffers: ops Enter cannot find" "$missed"
keys q
wait_for "EXIT=" >/dev/null
# The details pane wraps between words, never between a figure and its
# unit: at 80 columns the TPU's async copy read "self 189.172518" with
# "ms" starting the next row.
if have_fixtures; then
	start 80 24 "$XTOP" --view timeline "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys Down Down .
	sleep 0.3
	keys Enter
	check "details at 80 columns: a figure and its unit on one row" \
		'has "189.172518 ms   depth 0" &&
		 ! awk "/[0-9]\$/ { prev = 1; next } prev && /^ *(ps|ns|us|ms|s|B|KiB|MiB|GiB)( |\$)/ { bad = 1 } { prev = 0 } END { exit !bad }" "$TMP/screen"' \
		"$(grep -A1 "duration" "$TMP/screen")" 5
	keys q
	wait_for "EXIT=" >/dev/null
	# Every allocator in the list at 80x24 (GPU:7, the one that ran the
	# kernels, was the one hidden, with no sign of it); where the list
	# cannot hold them all it says so; a line too long for the screen
	# never ends in a cut figure ("peak 1.61 GiB at 1.6").
	start 80 24 "$XTOP" --view memory "$FIX/jax-rocm-mi300x-conv-legacy"
	wait_for "[memory]" >/dev/null
	check "memory at 80x24: all eight allocators listed" \
		'has "GPU:0 HBM" && has "GPU:7 HBM"' "$(grep -c HBM "$TMP/screen") rows" 5
	keys q
	wait_for "EXIT=" >/dev/null
	start 60 16 "$XTOP" --view memory "$FIX/jax-rocm-mi300x-conv-legacy"
	wait_for "[memory]" >/dev/null
	check "memory at 60x16: the list counts what it hides, the peak line keeps its figures" \
		'grep -q "^ [0-9] of 8 allocators shown (Up/Down); peak 1.61 GiB at 1.67 s" "$TMP/screen" ||
		 grep -q "^ peak 1.61 GiB at 1.67 s ▲" "$TMP/screen"' "$(grep -n "peak" "$TMP/screen" | head -2)" 5
	keys q
	wait_for "EXIT=" >/dev/null
	# Enter on a kernel row under its op (Space shows them) goes to that
	# kernel's longest launch: it folded them and went back to the op.
	start 100 30 "$XTOP" --view ops "$FIX/jax-rocm-mi300x-jax08_gemm"
	wait_for "[op profile]" >/dev/null
	keys Space Down Enter
	check "op profile: Enter on a kernel row shows its longest launch" \
		'has "[timeline]" && bottom | grep -q "^longest launch of Cijk_"' "$(bottom)" 5
	keys q
	wait_for "EXIT=" >/dev/null
	# A search for an op the analysis names, no event's (MemcpyH2D, from the
	# host's copy calls), says where it is rather than that nothing matched.
	start 120 30 "$XTOP" "$FIX/jax-rocm-mi300x-jax08_gemm"
	wait_for "[overview]" >/dev/null
	keys /
	text "MemcpyH2D"
	keys Enter
	check "search: an op's name that no event has points at the op profile" \
		'bottom | grep -q "^no event is named .MemcpyH2D.: MemcpyH2D is an op (3, the op profile"' \
		"$(bottom)" 5
	keys q
	wait_for "EXIT=" >/dev/null
	# A sorted column's mark takes its name's last letter where both do not
	# fit ("REGv"; eliding read "R…Sv").
	start 80 30 "$XTOP" --view kernels "$FIX/jax-rocm-mi300x-jax08_gemm"
	wait_for "[kernels]" >/dev/null
	keys '>' '>' '>' '>'
	check "kernels at 80 columns: the sorted REGS column's header reads REGv" \
		'line 2 | grep -q " REGv " && ! line 2 | grep -q "…"' "$(line 2)" 5
	keys q
	wait_for "EXIT=" >/dev/null
	# The op profile's own header does the same: FLOP/s sorted read
	# "FLOP/…" ("FLOP/sv" in its six columns).
	start 140 30 "$XTOP" --view ops "$FIX/jax-rocm-mi300x-jax08_attention"
	wait_for "[op profile]" >/dev/null
	keys '>' '>' '>' '>' '>'
	check "op profile: the sorted FLOP/s column's header reads FLOP/v" \
		'line 2 | grep -q " FLOP/v " && ! line 2 | grep -q "…"' "$(line 2)" 5
	keys q
	wait_for "EXIT=" >/dev/null
	# The details name the event's host where there are several (both V100
	# hosts have a thread of that name), and a stat of several lines, the
	# TPU's source_stack, shows a frame a row (each newline read '?').
	start 120 40 "$XTOP" "$FIX/tf-gpu-v100-2host"
	wait_for "[timeline]" >/dev/null
	keys /
	text "GatherV2"
	keys Enter
	wait_for "match 1 of" >/dev/null
	keys Enter
	check "details of two hosts: the event's host named" \
		'grep -Eq "depth [0-9]+   34\.83\.195\.1(79|80)_6003 /host:CPU /" "$TMP/screen"' \
		"$(grep -n "depth" "$TMP/screen" | head -2)" 5
	keys q
	wait_for "EXIT=" >/dev/null
	start 100 50 "$XTOP" --view ops "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[op profile]" >/dev/null
	keys Down Down Down Down Enter
	wait_for "longest run of" >/dev/null
	keys Enter
	check "details: source_stack a frame a row, no '?'" \
		'has "source_stack=" && grep -q "^    <embedded module .*:153:2 *\$" "$TMP/screen" &&
		 ! grep -q "source_stack=.*?" "$TMP/screen"' "$(grep -n -A2 "source_stack" "$TMP/screen" | head -3)" 5
	keys q
	wait_for "EXIT=" >/dev/null
	# The memory view's live list says how many it cannot show: at 80x24 the
	# MI300X conv profile's GPU:7 lists 1 of its 4 largest (the list above shows
	# all eight allocators).
	start 80 24 "$XTOP" --view memory "$FIX/jax-rocm-mi300x-conv-legacy"
	wait_for "[memory]" >/dev/null
	keys End
	check "memory at 80x24: the live rows that do not fit are counted" \
		'has "4 largest live" && line $((H - 1)) | grep -q "^  … 3 more live at the peak (a taller terminal shows them)"' \
		"$(line $((H - 1)))" 5
	keys q
	wait_for "EXIT=" >/dev/null
	# Enter on a kernel row shows that row's own longest launch: rows of one
	# kernel and op differ by launch shape (the MI300X attention profile's
	# loop_convert_fusion has four), and each row's MAX is what Enter finds.
	start 200 40 "$XTOP" --view kernels "$FIX/jax-rocm-mi300x-jax08_attention/tw003.xplane.pb"
	wait_for "[kernels]" >/dev/null
	bad="" checked=0
	for i in $(seq 1 12); do
		keys 6
		wait_for "[kernels]" >/dev/null
		keys Home
		[ "$i" -gt 1 ] && for j in $(seq 2 "$i"); do keys j; done
		sleep 0.2
		cap
		row=$(sed -n "$((i + 2))p" "$TMP/screen")
		max=$(echo "$row" | awk '{ print $6, $7 }')
		keys Enter
		wait_for "longest launch of" 5 >/dev/null
		# a name too long for the status line (rocBLAS's run to 900
		# bytes) leaves no figure to read: such rows are not counted
		bottom | grep -q " more *\$" && continue
		got=$(bottom | sed -n 's/^longest launch of .*: \([0-9.]* [a-z]*s\).*/\1/p')
		[ "$got" = "$max" ] || bad="$bad [row $i: max $max, Enter $got]"
		checked=$((checked + 1))
	done
	[ -z "$bad" ] && [ "$checked" -ge 6 ] &&
		ok "kernels: Enter on each of $checked rows shows that row's longest launch" ||
		fail "kernels: Enter shows another row's launch" "$bad"
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip_n 11 "details: a figure and its unit, hosts, stacks; kernel rows, REGv, FLOP/v, op search; memory: allocators, live rows counted; kernels: Enter per row" \
		"$NOFIX"
fi
# The title reads the same in every view (the view's name counts at the
# longest one's width: the TPU file lost ".xplane.pb" in some views only);
# the timeline's u says why it did nothing; the devices view's i names the
# host whole (its DEVICE column names it by the part that differs).
if have_fixtures; then
	start 80 24 "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[timeline]" >/dev/null
	titles=""
	for v in 1 2 3 4 5 6 7; do
		keys "$v"
		sleep 0.3
		cap
		titles="$titles$(line 1 | sed 's/\[[^]]*\]//')
"
	done
	[ "$(printf '%s' "$titles" | sort -u | wc -l)" -eq 1 ] &&
		ok "title: the same in all seven views ($(printf '%s' "$titles" | head -1 | cut -c1-40))" ||
		fail "title: differs between views" "$(printf '%s' "$titles" | sort -u | tr '\n' '|')"
	keys 2 u
	check "timeline: u with nothing selected says so" \
		'bottom | grep -q "no event selected"' "silent" 5
	keys . u
	check "timeline: u on a top-level event says it has no parent" \
		'bottom | grep -q "no parent: a top-level event"' "silent" 5
	# Pan and zoom stay on the profile (a fiftieth of margin): "a" from
	# the whole profile reached "-20 s", then "-40 s".
	keys 0 a a a s s s
	check "timeline: pan and zoom out stop at the profile's edges" \
		'line 2 | grep -q "│0 s" && ! line 2 | grep -q "│-" &&
		 [ "$(line 2 | awk "{ print (\$1 <= 102.2 && \$2 == \"s\") }")" = 1 ]' \
		"past the edge" 5
	keys q
	wait_for "EXIT=" >/dev/null
	start 120 40 "$XTOP" "$FIX/tf-gpu-v100-2host"
	wait_for "[timeline]" >/dev/null
	keys 7 j i
	check "devices: i names the device's host whole, and says what each figure is" \
		'has "devices: the selected row in full" && grep -Eq "^  HOST +34\.83\.195\.1(79|80)_6003\$" "$TMP/screen" &&
		 grep -Eq "^  HOST-BND +(-|[0-9.]+ [munp]?s) +host-bound: idle while its host worked \('"'"'-'"'"': no host activity\)\$" "$TMP/screen"' \
		"host cut" 5
	keys q
	wait_for "EXIT=" >/dev/null
	# A device with no events: i says why its figures are '-', as the
	# view's last line does (HOST-BND's help names another reason). The
	# two keys typed at once: the devices view is drawn before i is
	# handled ("no row is selected" when the loop handled both first).
	start 80 24 "$XTOP" "$FIX/tf-gpu-v100-2host/34.83.195.179_6003.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys 7 i
	check "devices: i on a device with no events says why its figures are '-'" \
		'has "DEVICE      /device:GPU:0" &&
		 has "NOTE        no events from it in the profile: idle, or not traced"' "no note"
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip_n 6 "title, u, devices i, pan" "$NOFIX"
fi
# An op name in several programs (jit_dot's five GEMMs; TPU:1's jit_f
# retagged 777): Enter on one program's row jumps to its own longest run,
# and the details' op profile line names that row, not the first of the
# name's (it named jit_dot(49) for a jit_dot(79) kernel).
if have_fixtures; then
	start 160 50 "$XTOP" "$FIX/jax-rocm-mi300x-jax08_gemm/tw003.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys 3 Down Enter
	wait_for "longest run of" >/dev/null
	keys Enter
	check "split programs, GPU: the details of jit_dot(79)'s run name its row" \
		'has "op profile: custom-call.1 [gemm] jit_dot(79) self 553.0 us"' "another program's row" 5
	keys q
	wait_for "EXIT=" >/dev/null
	$PY tests/fixtures/split_program.py "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb" \
		"$TMP/split.xplane.pb" /device:TPU:1 jit_f 777 >/dev/null
	start 160 50 "$XTOP" "$TMP/split.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys 3
	wait_for "jit_f(777)/copy-done.4" >/dev/null
	keys Down Down Down Down Enter
	wait_for "longest run of" >/dev/null
	keys Enter
	check "split programs, TPU: Enter on jit_f(777)'s row goes to TPU:1, whose details name it" \
		'has "/device:TPU:1 / XLA Ops" && has "program_id=777" &&
		 has "op profile: copy-done.4 [copy-done] jit_f(777) self 19.44 s"' "another program's event" 5
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip_n 2 "split programs: jumps and details" "$NOFIX"
fi
# After a re-sort that keeps the selection (at the list's end), the first
# row shown is not the order's first: the header says how many are above,
# in the op profile and in the panel lists alike; at the top it says none.
start 80 24 "$XTOP" tests/fixtures/h100/jax-h100-tfm-nocb.xplane.pb.gz
wait_for "[timeline]" >/dev/null
keys 3
wait_for "SELFv" >/dev/null
check "op profile at its top: no rows above" '! line 2 | grep -q "above"' "marked" 5
keys End
sleep 0.3
keys '>' '>' '>'
check "op profile after End and a re-sort: the header says how many rows are above" \
	'line 2 | grep -q "AVGv" && line 2 | grep -Eq "(▲|\^) [0-9]+ above *$"' "no mark" 5
keys 6
wait_for "[kernels]" >/dev/null
keys End
check "kernels after End: the header says how many rows are above" \
	'line 2 | grep -Eq "(▲|\^) [0-9]+ above *$"' "no mark" 5
keys q
wait_for "EXIT=" >/dev/null
# The steps' bar reaches the right edge at 80 columns: the mark takes the
# place of its header (BREAKDOWN) instead of being left out.
if have_fixtures; then
	start 80 24 "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	wait_for "[timeline]" >/dev/null
	keys 4
	wait_for "BREAKDOWN" >/dev/null
	keys End
	sleep 0.3
	keys '>' '>'
	check "steps at 80 columns after End and a re-sort: the bar's header says how many rows are above" \
		'grep -Eq "DURATIONv .* IDLE (▲|\^) [0-9]+ above *$" "$TMP/screen"' "no mark" 5
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip "steps: rows above at 80 columns" "$NOFIX"
fi
