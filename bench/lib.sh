# bench/lib.sh — sourced by the bench scripts that run a tracer in the background
# (run.sh, metrics.sh, progcost.sh): stop_bg stops the one whose pid is in BG_PID (SIGINT,
# up to 10 s to end, then SIGKILL) and clears BG_PID.
stop_bg() {
	[[ -n "$BG_PID" ]] || return 0
	kill -INT "$BG_PID" 2>/dev/null
	for _ in $(seq 100); do kill -0 "$BG_PID" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$BG_PID" 2>/dev/null
	wait "$BG_PID" 2>/dev/null
	BG_PID=""
}
