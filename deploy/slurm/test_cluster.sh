#!/usr/bin/env bash
# The cluster test of issue 25: starts a private one-node Slurm cluster,
# submits deploy/slurm/fuzz.sbatch and inject.sbatch as 4-task job arrays,
# waits for them, merges each with `orilab merge`, and compares the merged
# reports with single-process runs of the same seeds and trials (all but
# the line with the timings). With --throughput it also times fuzz through
# Slurm with 1, 2 and 4 shards.
#
# It needs root (slurmd runs the jobs) and Slurm and MUNGE installed
# (Debian: apt-get install slurm-wlm munge); .ci/run installs them. The
# cluster uses its own ports, spool directories and configuration file, so
# it does not disturb a Slurm already running on the machine, and it stops
# its daemons on exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
throughput=0
[ "${1:-}" = "--throughput" ] && throughput=1

for c in sbatch slurmctld slurmd munged; do
	if ! command -v $c >/dev/null; then
		echo "slurm test: $c not found (apt-get install slurm-wlm munge)" >&2
		exit 1
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "slurm test: must run as root (slurmd starts the jobs)" >&2
	exit 1
fi

work=$(mktemp -d /tmp/orilab-slurm.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	sleep 1
	rm -rf "$work"
}
trap cleanup EXIT

# MUNGE: reuse a running munged, or start one with the package's key.
if ! munge -n </dev/null >/dev/null 2>&1; then
	if [ ! -s /etc/munge/munge.key ]; then
		mkdir -p /etc/munge
		dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
	fi
	mkdir -p /run/munge /var/lib/munge /var/log/munge
	chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge 2>/dev/null || true
	chmod 0700 /etc/munge
	chmod 0400 /etc/munge/munge.key
	if id munge >/dev/null 2>&1; then
		runuser -u munge -- munged --force
	else
		munged --force
	fi
	for _ in $(seq 50); do munge -n </dev/null >/dev/null 2>&1 && break; sleep 0.1; done
fi

host=$(hostname -s)
mkdir -p "$work/ctld" "$work/d" "$work/log"
export SLURM_CONF="$work/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=orilabtest
SlurmctldHost=$host
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/ctld
SlurmdSpoolDir=$work/d
SlurmctldPidFile=$work/ctld.pid
SlurmdPidFile=$work/d.pid
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
MpiDefault=none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
slurmctld -D -f "$SLURM_CONF" >/dev/null 2>&1 &
pids+=($!)
slurmd -D -N "$host" -f "$SLURM_CONF" >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 100); do
	if sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then break; fi
	sleep 0.2
done
if ! sinfo -h -o %T | grep -qE '^(idle|mixed|allocated)'; then
	echo "slurm test: the node did not come up:" >&2
	sinfo >&2 || true
	tail -20 "$work/log/slurmctld.log" "$work/log/slurmd.log" >&2 || true
	exit 1
fi
echo "slurm test: one-node cluster up ($(sinfo -V))"

go build -o "$work/orilab" ./cmd/orilab
export ORILAB="$work/orilab"
cd "$work"
pass=0
fail=0
check() { # name merged whole prefix-of-timing-line
	if diff <(grep -v "^$4" "$2") <(grep -v "^$4" "$3") >"$work/diff"; then
		echo "slurm test: $1: merged shards = single run"
		pass=$((pass + 1))
	else
		echo "slurm test: $1: the merged shards differ from the single run:" >&2
		cat "$work/diff" >&2
		fail=$((fail + 1))
	fi
}

# Fuzz: 4 shards of 16 programs at -O0 and -O3.
fuzzargs="-O 0,3 --coverage"
SEED=777000 COUNT=16 RESULTS=$work/fuzz FUZZ_ARGS="$fuzzargs" \
	sbatch --wait --array=0-3 -o "$work/fuzz-%a.log" "$OLDPWD/deploy/slurm/fuzz.sbatch" >/dev/null || true
ls "$work/fuzz"
"$ORILAB" merge "$work/fuzz" >"$work/fuzz-merged.txt" || [ $? = 1 ]
"$ORILAB" fuzz --seed 777000 --count 16 --jobs 1 --random-knobs --findings "$work/fuzz-single-findings" $fuzzargs >"$work/fuzz-single.txt" 2>/dev/null || [ $? = 1 ]
check fuzz "$work/fuzz-merged.txt" "$work/fuzz-single.txt" "fuzz: "

# A fault campaign: 4 shards of 24 trials on two kernels.
specs="$OLDPWD/testdata/kernels/iadd.json $OLDPWD/testdata/sample/sample.json"
SEED=4242 SPECS="$specs" TRIALS=24 BUGSPEC="1,1,1,0 0 0" RESULTS=$work/inject \
	sbatch --wait --array=0-3 -o "$work/inject-%a.log" "$OLDPWD/deploy/slurm/inject.sbatch" >/dev/null || true
ls "$work/inject"
"$ORILAB" merge "$work/inject" >"$work/inject-merged.txt"
# shellcheck disable=SC2086
"$ORILAB" inject $specs --bugspec "1,1,1,0 0 0" --trials 24 --seed 4242 --jobs 1 >"$work/inject-single.txt"
check inject "$work/inject-merged.txt" "$work/inject-single.txt" "48 trials in "

if [ $throughput = 1 ]; then
	# The rate is taken from the merged report (the longest shard's own
	# time): sbatch --wait polls the controller every few seconds, so the
	# wall time of the submission measures Slurm's polling as much as the
	# shards.
	for n in 1 2 4; do
		start=$(date +%s.%N)
		SEED=888000 COUNT=48 RESULTS=$work/tp$n FUZZ_ARGS="--findings $work/tp$n-f" \
			sbatch --wait --array=0-$((n - 1)) -o "$work/tp$n-%a.log" "$OLDPWD/deploy/slurm/fuzz.sbatch" >/dev/null || true
		end=$(date +%s.%N)
		line=$("$ORILAB" merge "$work/tp$n" 2>/dev/null | head -1 || true)
		awk -v n="$n" -v s="$start" -v e="$end" -v l="$line" 'BEGIN { printf "slurm throughput: %d shards: %s; submission to completion %.1f s\n", n, l, e - s }'
	done
fi
echo "slurm test: $pass passed, $fail failed"
[ $fail = 0 ]
