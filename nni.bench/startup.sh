#!/usr/bin/env bash
# Start-up and idle memory of the runnable jar (issue 19; not part of mvn verify).
#
#   nni.bench/startup.sh [RUNS] [JAVA OPTIONS...]      e.g. nni.bench/startup.sh 5
#   NNI_OSGI_JAVA_OPTIONS=same nni.bench/startup.sh 3  the jar in the JVM `java` starts, no child JVM
#   BENCH_MODE=run nni.bench/startup.sh 3              `run config.yml` until its first trial is RUNNING
#   BENCH_MODE=small nni.bench/startup.sh 5            `help`, `--help` and `version` (no framework starts),
#                                                      beside `java -version` (the JVM's own start)
#   BENCH_START=script nni.bench/startup.sh 5          started by bin/nni-osgi (no waiting parent JVM)
#
# Per start: `java [JAVA OPTIONS] -jar target/nni-osgi.jar --home H --port P`, the first run on a
# new home (cold), the others on the same home (warm). Prints the time to the first HTTP 200 of
# /api/v1/nni/check-status, to /api/v1/nni/platforms listing as many platforms as it lists in the
# end, the RSS and PSS of the runtime's processes (launcher and child JVM together) 5 s after the
# first 200, the CPU seconds (user + sys) the runtime's processes used to the first 200 (the figure
# a loaded machine changes least), and the 1-minute load average. Routes are polled every 10 ms with curl.
set -euo pipefail
cd "$(dirname "$0")/.."
jar="$PWD/target/nni-osgi.jar"
runs="${1:-3}"
shift || true
mode="${BENCH_MODE:-serve}"
work="$(mktemp -d)"
runtime=""
trap '[ -n "$runtime" ] && kill "$runtime" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

now() { date +%s%N; }
ms() { echo $(( ($2 - $1) / 1000000 )); }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
tree() { echo "$1"; pgrep -P "$1" | while read -r child; do tree "$child"; done; }
memory() { # RSS and PSS in MB of a process and its descendants
    local rss=0 pss=0 pid
    for pid in $(tree "$1"); do
        [ -r "/proc/$pid/smaps_rollup" ] || continue
        rss=$((rss + $(awk '/^Rss:/ {print $2}' "/proc/$pid/smaps_rollup")))
        pss=$((pss + $(awk '/^Pss:/ {print $2}' "/proc/$pid/smaps_rollup")))
    done
    echo "$((rss / 1024)) $((pss / 1024))"
}
cpu_ms() { # user + sys CPU in ms of a process and its descendants, those alive
    local ticks=0 pid
    for pid in $(tree "$1"); do
        [ -r "/proc/$pid/stat" ] || continue
        ticks=$((ticks + $(sed 's/.*) //' "/proc/$pid/stat" | awk '{print $12 + $13}')))
    done
    echo $((ticks * 1000 / $(getconf CLK_TCK)))
}
count_platforms() { curl -s "http://127.0.0.1:$1/api/v1/nni/platforms" | grep -o '"name"' | wc -l; }

cat > "$work/config.yml" <<'YAML'
searchSpace: {x: {_type: choice, _value: [1]}}
trialCommand: sleep 2
trialCodeDirectory: .
trialConcurrency: 1
maxTrialNumber: 1
tuner: {name: Random}
trainingService: {platform: local}
YAML

home="$work/home"
if [ "$mode" = small ]; then
    # wall and CPU (user + sys) of the commands answered without the framework; the home stays unmade
    printf '%-14s %-8s %-8s %s\n' command "wall ms" "CPU ms" load
    TIMEFORMAT='%R %U %S'
    for i in $(seq 1 "$runs"); do
        for command in "-version" "help" "--help" "version"; do
            if [ "$command" = -version ]; then
                timing="$( { time java "$@" -version >/dev/null 2>&1; } 2>&1 )"
                label="java -version"
            else
                timing="$( { time HOME="$work" java "$@" -jar "$jar" --home "$home" "$command" >/dev/null 2>&1; } 2>&1 )"
                label="$command"
            fi
            read -r real user sys <<<"$timing"
            printf '%-14s %-8s %-8s %s\n' "$label" "$(awk -v r="$real" 'BEGIN {printf "%d", r * 1000}')" \
                "$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%d", (u + s) * 1000}')" "$(cut -d' ' -f1 /proc/loadavg)"
        done
    done
    [ ! -e "$home" ] || { echo "the home was made: a small command started the runtime"; exit 1; }
    exit 0
fi
if [ "$mode" = run ]; then
    printf '%-5s %-12s %s\n' start "trial ms" load
else
    printf '%-5s %-10s %-8s %-14s %-8s %-8s %s\n' start "first 200" "CPU ms" "platforms ms" "RSS MB" "PSS MB" load
fi
for i in $(seq 1 "$runs"); do
    kind=warm; [ "$i" = 1 ] && kind=cold
    port="$(free_port)"
    begin="$(now)"
    if [ "$mode" = run ]; then
        (cd "$work" && HOME="$work" exec java "$@" -jar "$jar" --home "$home" --port "$port" run config.yml >"$work/out.txt" 2>&1) &
        runtime=$!
        for _ in $(seq 1 3000); do
            curl -s "http://127.0.0.1:$port/api/v1/nni/trial-jobs" 2>/dev/null | grep -q '"RUNNING"' && break
            sleep 0.01
        done
        running="$(now)"
        wait "$runtime" || true
        runtime=""
        printf '%-5s %-12s %s\n' "$kind" "$(ms "$begin" "$running")" "$(cut -d' ' -f1 /proc/loadavg)"
        continue
    fi
    if [ "${BENCH_START:-}" = script ]; then
        HOME="$work" NNI_OSGI_JAR="$jar" bin/nni-osgi --home "$home" --port "$port" >"$work/out.txt" 2>&1 </dev/null &
    else
        HOME="$work" java "$@" -jar "$jar" --home "$home" --port "$port" >"$work/out.txt" 2>&1 </dev/null &
    fi
    runtime=$!
    first=""
    for _ in $(seq 1 3000); do
        if curl -sf -o /dev/null "http://127.0.0.1:$port/api/v1/nni/check-status"; then first="$(now)"; cpu="$(cpu_ms "$runtime")"; break; fi
        sleep 0.01
    done
    [ -n "$first" ] || { echo "no answer; output:"; cat "$work/out.txt"; exit 1; }
    times=()
    for _ in $(seq 1 500); do
        times+=("$(now) $(count_platforms "$port")")
        sleep 0.01
        [ "$(( ($(now) - first) / 1000000 ))" -ge 5000 ] && break
    done
    read -r rss pss <<<"$(memory "$runtime")"
    final="$(count_platforms "$port")"
    listed=""
    for entry in "${times[@]}"; do
        read -r at count <<<"$entry"
        if [ "$count" -ge "$final" ]; then listed="$at"; break; fi
    done
    kill "$runtime"
    wait "$runtime" 2>/dev/null || true
    runtime=""
    printf '%-5s %-10s %-8s %-14s %-8s %-8s %s\n' "$kind" "$(ms "$begin" "$first")" "$cpu" "$(ms "$begin" "${listed:-$first}") ($final)" \
        "$rss" "$pss" "$(cut -d' ' -f1 /proc/loadavg)"
done
