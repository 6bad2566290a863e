#!/usr/bin/env bash
# kill -9 cycles of a running experiment (issue 26; not part of mvn verify).
#
#   nni.bench/crash.sh [local|reuse] [CYCLES] [TRIALS]      e.g. nni.bench/crash.sh reuse 30 120
#   NNI_JAR=/path/to/copy.jar nni.bench/crash.sh ...        another jar than target/nni-osgi.jar
#
# Runs `java -jar target/nni-osgi.jar run config.yml` (local platform, `reuseMode: true` with
# `reuse`, trialConcurrency 4, TRIALS trials that each report 10 intermediate results 0.2 s apart
# and a final one), kills the runtime's JVM and its launcher with SIGKILL (one cycle in three a random
# 0.5-4 s after it started, so while it starts or `resume` takes the trials back; the others a random
# 0-2.5 s after a trial started in that round, while trials start and end), then `resume`s it, CYCLES times;
# a last `resume` runs the experiment to its end. Then checks, from the experiment's SQLite store and
# a log each trial appends its id to when it starts: every trial SUCCEEDED, each started exactly
# once, 10 intermediate and 1 final result each, stored once; no process of the experiment is left.
# Prints the figures and the load average; exits 1 when anything was lost or ran twice.
set -euo pipefail
cd "$(dirname "$0")/.."
jar="${NNI_JAR:-$PWD/target/nni-osgi.jar}"
mode="${1:-local}"
cycles="${2:-30}"
trials="${3:-120}"
work="$(mktemp -d)"
launcher=""
end_runtime() { # SIGKILL of the launcher and its child JVM, by pid
    [ -n "$launcher" ] || return 0
    local children
    children="$(pgrep -P "$launcher" || true)"
    kill -9 "$launcher" $children 2>/dev/null || true
    wait "$launcher" 2>/dev/null || true
    launcher=""
}
trap 'end_runtime; rm -rf "$work"' EXIT

port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
mkdir -p "$work/code" "$work/home" "$work/experiments"
cat > "$work/code/trial.py" <<'PY'
import os, time
import nni
with open('@RUNS@', 'a') as runs:  # one place whatever folder the trial runs in (reuse mode unpacks a copy)
    runs.write(os.environ['NNI_TRIAL_JOB_ID'] + '\n')
params = nni.get_next_parameter()
for step in range(10):
    nni.report_intermediate_result(params['x'] + step)
    time.sleep(0.2)
nni.report_final_result(params['x'])
PY
sed -i "s|@RUNS@|$work/code/runs.log|" "$work/code/trial.py"
reuse=""
[ "$mode" = reuse ] && reuse="  reuseMode: true"
cat > "$work/code/config.yml" <<YAML
searchSpace:
  x: {_type: randint, _value: [0, 1000000]}
trialCommand: python3 trial.py
trialCodeDirectory: .
trialConcurrency: 4
maxTrialNumber: $trials
tuner:
  name: Random
trainingService:
  platform: local
$reuse
YAML

started_trials() { if [ -f "$work/code/runs.log" ]; then wc -l < "$work/code/runs.log"; else echo 0; fi; }

start() { # start ARGS...: the runtime in the background, its console in $work/console.<n>
    java -Dnni.experiments.dir="$work/experiments" -jar "$jar" --port "$port" --host 127.0.0.1 --home "$work/home" "$@" \
        </dev/null >"$work/console.$round" 2>&1 &
    launcher=$!
}

begin=$(date +%s)
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
round=0
start run "$work/code/config.yml"
for _ in $(seq 3000); do
    grep -q 'is being created' "$work/console.0" 2>/dev/null && break
    sleep 0.1
done
id="$(grep -o 'experiment [A-Za-z0-9]\{8\} is being created' "$work/console.0" | cut -d' ' -f2 || true)"
if [ -z "$id" ]; then
    echo "run printed no experiment id within 300 s:"; cat "$work/console.0"; exit 1
fi
# the kills begin once the experiment is stored: one killed while it is created is refused by resume
# ("run its file again"), as it should be, and leaves nothing to check
for _ in $(seq 3000); do
    grep -q "experiment $id started in" "$work/console.0" 2>/dev/null && break
    sleep 0.1
done
kills=0
done_early=""
while [ "$kills" -lt "$cycles" ]; do
    if [ $((kills % 3)) -eq 0 ]; then
        sleep "$(python3 -c 'import random; print(round(random.uniform(0.5, 4), 2))')" # at start-up or while it resumes
    else # once a trial started in this round (at most 120 s), while trials start, report and end
        started="$(started_trials)"
        for _ in $(seq 2400); do
            [ "$(started_trials)" -gt "$started" ] && break
            kill -0 "$launcher" 2>/dev/null || break
            sleep 0.05
        done
        sleep "$(python3 -c 'import random; print(round(random.uniform(0, 2.5), 2))')"
    fi
    if ! kill -0 "$launcher" 2>/dev/null; then
        done_early="the experiment ended after $kills kills"
        echo "$done_early; the last console:"; tail -15 "$work/console.$round"
        break
    fi
    end_runtime
    kills=$((kills + 1))
    round=$((round + 1))
    start resume "$id"
done
# the last resume runs the experiment to its end (at most 15 minutes)
for _ in $(seq 9000); do
    kill -0 "$launcher" 2>/dev/null || break
    sleep 0.1
done
if kill -0 "$launcher" 2>/dev/null; then
    echo "the last resume did not end within 15 minutes; its console:"; tail -20 "$work/console.$round"
    end_runtime
fi
wait "$launcher" 2>/dev/null || true
launcher=""
sleep 2 # keepers leave once their runtime stopped them
seconds=$(( $(date +%s) - begin ))
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
leftover="$(pgrep -f "$work/experiments/$id" | wc -l || true)"

if python3 - "$work/experiments/$id/db/nni.sqlite" "$work/code/runs.log" "$trials" <<'PY'
import collections, sqlite3, sys
db, runs_log, trials = sys.argv[1], sys.argv[2], int(sys.argv[3])
c = sqlite3.connect(db)
last = {}
for trial, event in c.execute("select trialJobId, event from TrialJobEvent where trialJobId != '' order by rowid"):
    if event in ('WAITING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'USER_CANCELED', 'SYS_CANCELED', 'EARLY_STOPPED', 'USER_TO_CANCEL'):
        last[trial] = event
statuses = collections.Counter(last.values())
runs = collections.Counter(open(runs_log).read().split())
twice = sorted(t for t, n in runs.items() if n > 1)
periodical = collections.Counter(t for (t,) in c.execute("select trialJobId from MetricData where type = 'PERIODICAL'"))
final = collections.Counter(t for (t,) in c.execute("select trialJobId from MetricData where type = 'FINAL'"))
short = sorted(t for t in last if periodical[t] != 10 or final[t] != 1)
print(f"trials stored {len(last)} of {trials}; statuses {dict(statuses)}")
print(f"metrics: {sum(periodical.values())} intermediate, {sum(final.values())} final; trials missing some: {len(short)} {short[:5]}")
print(f"trials started more than once: {len(twice)} {twice[:5]}")
ok = len(last) == trials and statuses == {'SUCCEEDED': trials} and not short and not twice
sys.exit(0 if ok else 1)
PY
then verdict=0; else verdict=1; fi
echo "mode $mode: $kills kill -9 cycles ${done_early:+($done_early) }in ${seconds} s; processes of the experiment left: $leftover"
echo "load average before: $load_before; after: $load_after"
exit $verdict
