#!/usr/bin/env bash
# tmux smoke test of the workbench: build orilab, start `orilab tui` (the
# built-in sample) in a detached 100x30 tmux session, send keys, capture the
# pane and check the text. Exits non-zero on failure; skips (exit 0) without
# tmux. Run from anywhere: bash tui/testdata/tmux_smoke.sh
set -euo pipefail

if ! command -v tmux >/dev/null 2>&1; then
	echo "tmux_smoke: SKIP: tmux is not installed"
	exit 0
fi

root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
session="orilab-smoke-$$"
cleanup() {
	tmux kill-session -t "$session" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

(cd "$root" && go build -o "$work/orilab" ./cmd/orilab)

# Run from an unrelated directory: the sample is embedded.
tmux new-session -d -s "$session" -x 100 -y 30 -c "$work" "TERM=xterm-256color $work/orilab tui; echo orilab-exited-\$?; sleep 30"

capture() { tmux capture-pane -p -t "$session"; }

# expect TEXT: wait up to 10 s for TEXT on the screen.
expect() {
	for _ in $(seq 100); do
		if capture | grep -qF -- "$1"; then
			return 0
		fi
		sleep 0.1
	done
	echo "tmux_smoke: FAIL: never saw '$1'; screen:"
	capture
	exit 1
}

# idle: wait up to 10 s for the status bar to stop saying "compiling N/M":
# a key that starts a job (C, enter in A/B) is refused while a compile
# runs, and on a loaded machine x's recompile can outlast the next key.
idle() {
	for _ in $(seq 100); do
		if ! capture | grep -q "compiling [0-9]"; then
			return 0
		fi
		sleep 0.1
	done
	echo "tmux_smoke: FAIL: still compiling after 10 s; screen:"
	capture
	exit 1
}

expect "phases ran, "
expect "#0 OriCheckInitialProgram [plain]"
tmux send-keys -t "$session" Down
expect "#1 ApplyNvOptRecipes [plain]"
expect "no-op: not built yet"
tmux send-keys -t "$session" v
expect "#1 ApplyNvOptRecipes [diff] no change"
tmux send-keys -t "$session" '?'
expect "Keys (? or esc closes)"
expect "f follow the line's #ID"
tmux send-keys -t "$session" '?'
tmux send-keys -t "$session" r
expect "out: PASS (4 elements)"
tmux send-keys -t "$session" 6 b
expect "the kernel passes at -O3: nothing to bisect"
expect "NO CULPRIT"
tmux send-keys -t "$session" B
expect "the kernel passes at -O3: nothing to disable"
# The SASS of the last phase, then a fault planted after allocation.
tmux send-keys -t "$session" 1 G 3
expect "/*0000*/  MOV R1, c[0x0][0x28] ;"
tmux send-keys -t "$session" 7
expect "No fault planted."
tmux send-keys -t "$session" 1 g
for _ in $(seq 122); do tmux send-keys -t "$session" j; done
expect "#122/158 AllocateRegisters"
tmux send-keys -t "$session" 7 i
expect "Num forced bugs 1"
# Seed 1 renames the result of #27 (SHF.L.U32 R5 -> R8), so #34 reads
# R5 holding another value; s tries seed 2, which makes #34 read R8
# before anything is written there. The reaching-defs verifier catches
# both (orilab inject tui/sample/sample.json --bugspec "1,0,0,0 0 0"
# --seed N -O 3).
expect "caught by the reaching-defs verifier"
expect "SHF.L.U32 R8 = R0, 0x2, RZ"
tmux send-keys -t "$session" s
expect "seed 2"
expect "caught by the reaching-defs verifier"
# A campaign from the Fault pane, then remarks and an A/B comparison.
tmux send-keys -t "$session" x
expect "No fault planted."
idle
tmux send-keys -t "$session" C
expect "bugspec 1,0,0,0 0 0, campaign seed 2, 50 trials"
tmux send-keys -t "$session" 1 g
for _ in $(seq 23); do tmux send-keys -t "$session" j; done
expect "#23/158 OriLoopUnrolling"
expect "(R lists 2 remarks): block_sum: loop BB"
tmux send-keys -t "$session" R
expect "remarks (enter goes to the place, esc closes):"
tmux send-keys -t "$session" Escape
sleep 0.3
tmux send-keys -t "$session" 8 e
expect "B knobs: "
tmux send-keys -t "$session" "DisablePhases=OriBranchOpt" Enter
expect "A→B after #15 OriBranchOpt"
tmux send-keys -t "$session" q
expect "orilab-exited-0"
echo "tmux_smoke: PASS"
