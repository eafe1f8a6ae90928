# The real gRPC ProfilerService process the capture tests talk to
# (tests/capture/fake_profiler_server.py, Debian's python3-grpcio), sourced
# after lib.sh by the scripts that drive it.
SRV=tests/capture/fake_profiler_server.py
PIDS=""

# start_server FILE ARGS...: a server returning FILE as the captured XSpace
# (ARGS as fake_profiler_server.py takes them); sets PORT and SPID, adds
# SPID to PIDS (the caller kills them on exit). Waits SRV_TRIES tenths of
# a second (default 150) for its port; 1 with a FAIL line if none comes.
start_server() {
	f=$1
	shift
	$PY $SRV --xspace "$f" "$@" >"$TMP/srv.out" 2>"$TMP/srv.err" &
	SPID=$!
	PIDS="$PIDS $SPID"
	PORT=""
	for _ in $(seq 1 "${SRV_TRIES:-150}"); do
		PORT=$(sed -n 's/^PORT //p' "$TMP/srv.out")
		[ -n "$PORT" ] && return 0
		sleep 0.1
	done
	fail "start server" "no port: $(cat "$TMP/srv.err")"
	return 1
}
