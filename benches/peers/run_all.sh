#!/usr/bin/env bash
# Measures the peers (JAX, PyTorch, candle, burn) and minnow on dqn_step and
# az_forward, each group in one quiet period. See README.md.
#
#   bash benches/peers/run_all.sh [OUT_DIR]
#
# Env: PEERS_PY (default $HOME/peers-venv/bin/python), PEER_GROUPS (default
# "dqn_step az_forward"), QUIET_S (30), GIVE_UP_S (1200), RUST_PEERS
# (default "candle burn-ndarray burn-flex"; empty: none), RUST_PEER_THREADS
# (default "1 2").
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PY="${PEERS_PY:-$HOME/peers-venv/bin/python}"
OUT="${1:-$HERE/results/$(date -u +%Y%m%dT%H%M%SZ)}"
QUIET_S="${QUIET_S:-30}"
GIVE_UP_S="${GIVE_UP_S:-1200}"
mkdir -p "$OUT"
LOG="$OUT/log.txt"
export PEERS_BENCH_OWN=1   # marks our own processes so the busy check skips them

log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$LOG" >&2; }

# PIDs of rustc / cargo processes (and xtask binaries run directly, e.g.
# `target/xtask/release/xtask bench`) that are not ours.
busy_pids() {
    local pid
    for pid in $(pgrep -x rustc; pgrep -f "cargo "; pgrep -x xtask); do
        [ "$pid" = "$$" ] && continue
        if { tr '\0' '\n' < "/proc/$pid/environ"; } 2>/dev/null | grep -qx PEERS_BENCH_OWN=1; then
            continue
        fi
        [ -e "/proc/$pid" ] && echo "$pid"
    done
}

# Busy CPU percent (both cores) since the previous call, from /proc/stat.
PREV_TOTAL=0; PREV_IDLE=0; CPU_BUSY=100
cpu_busy() {
    local _ user nice sys idle iowait irq softirq steal total
    read -r _ user nice sys idle iowait irq softirq steal _ < /proc/stat
    total=$((user + nice + sys + idle + iowait + irq + softirq + steal)); idle=$((idle + iowait))
    if [ "$PREV_TOTAL" -gt 0 ] && [ "$total" -gt "$PREV_TOTAL" ]; then
        CPU_BUSY=$(( 100 * ((total - PREV_TOTAL) - (idle - PREV_IDLE)) / (total - PREV_TOTAL) ))
    fi
    PREV_TOTAL=$total; PREV_IDLE=$idle
}

# Waits until no foreign rustc/cargo/xtask has been seen, and the CPUs have
# been under MAX_BUSY percent busy, for QUIET_S seconds (polling every 5 s);
# gives up after GIVE_UP_S.
MAX_BUSY="${MAX_BUSY:-10}"
wait_quiet() {
    local start quiet_since now
    start=$(date +%s); quiet_since=$start
    cpu_busy; CPU_BUSY=100
    while :; do
        now=$(date +%s)
        cpu_busy
        if [ -n "$(busy_pids)" ] || [ "$CPU_BUSY" -gt "$MAX_BUSY" ]; then
            quiet_since=$now
        elif [ $((now - quiet_since)) -ge "$QUIET_S" ]; then
            log "quiet for ${QUIET_S}s (waited $((now - start))s)"
            echo "quiet_wait_s=$((now - start)) gave_up=0" >> "$OUT/quiet.txt"
            return 0
        fi
        if [ $((now - start)) -ge "$GIVE_UP_S" ]; then
            log "GAVE UP waiting for quiet after ${GIVE_UP_S}s; measuring anyway"
            echo "quiet_wait_s=$((now - start)) gave_up=1" >> "$OUT/quiet.txt"
            return 0
        fi
        sleep 5
    done
}

# Background: log every foreign rustc/cargo/xtask, and every other foreign
# running process, seen while measuring (polling every 2 s).
foreign_running() {
    local pid ppid stat comm
    while read -r pid ppid stat comm; do
        case "$stat" in R*) ;; *) continue ;; esac
        [ "$pid" = 2 ] || [ "$ppid" = 2 ] && continue   # kernel threads
        { tr '\0' '\n' < "/proc/$pid/environ"; } 2>/dev/null | grep -qx PEERS_BENCH_OWN=1 && continue
        [ -e "/proc/$pid" ] && echo "$pid:$comm"
    done < <(ps -eo pid=,ppid=,stat=,comm=)
}
monitor() {
    while :; do
        local b r
        b="$(busy_pids | tr '\n' ' ')"; r="$(foreign_running | tr '\n' ' ')"
        [ -n "$b$r" ] && echo "$(date -u +%H:%M:%S) $1 busy: $b running: $r" >> "$OUT/busy_during_measurement.txt"
        sleep 2
    done
}

# Right before each timed program: the CPUs idle (under MAX_BUSY percent)
# for a whole second and no foreign rustc/cargo/xtask, so that a colleague's
# benchmark that started meanwhile is waited out rather than collided with
# (for at most IDLE_GIVE_UP_S, default 120 s).
IDLE_GIVE_UP_S="${IDLE_GIVE_UP_S:-120}"
idle_gate() {
    local start waited=0; start=$(date +%s)
    cpu_busy
    while :; do
        sleep 1; cpu_busy
        [ "$CPU_BUSY" -le "$MAX_BUSY" ] && [ -z "$(busy_pids)" ] && break
        waited=1
        if [ $(( $(date +%s) - start )) -ge "$IDLE_GIVE_UP_S" ]; then
            log "GAVE UP waiting for an idle CPU before $1 after ${IDLE_GIVE_UP_S}s"; echo "idle_gate $1 gave_up=1" >> "$OUT/quiet.txt"; return
        fi
    done
    [ "$waited" = 1 ] && { log "waited $(( $(date +%s) - start ))s for an idle CPU before $1"; echo "idle_gate $1 waited_s=$(( $(date +%s) - start ))" >> "$OUT/quiet.txt"; }
}

minnow() {   # $1 group, $2 tag
    idle_gate "minnow $1 $2"
    if [ "$MINNOW_DIRECT" = 1 ]; then
        log "minnow: $XTASK_BIN bench $1 ($2) (cargo cannot load the workspace now)"
        (cd "$ROOT" && "$XTASK_BIN" bench "$1") > "$OUT/minnow-$1-$2.txt" 2>&1 \
            || log "minnow bench $1 FAILED (see minnow-$1-$2.txt)"
        echo "run directly as $XTASK_BIN (workspace manifest broken at the time)" >> "$OUT/minnow-$1-$2.txt"
    else
        log "minnow: cargo xtask bench $1 ($2)"
        if ! (cd "$ROOT" && cargo xtask bench "$1") > "$OUT/minnow-$1-$2.txt" 2>&1; then
            if grep -q "failed to load manifest" "$OUT/minnow-$1-$2.txt" && [ -x "$XTASK_BIN" ]; then
                log "minnow: cargo cannot load the workspace now; $XTASK_BIN bench $1 ($2)"
                (cd "$ROOT" && "$XTASK_BIN" bench "$1") > "$OUT/minnow-$1-$2.txt" 2>&1 \
                    || log "minnow bench $1 FAILED (see minnow-$1-$2.txt)"
                echo "run directly as $XTASK_BIN (workspace manifest broken at the time)" >> "$OUT/minnow-$1-$2.txt"
            else
                log "minnow bench $1 FAILED (see minnow-$1-$2.txt)"
            fi
        fi
    fi
    cp "$ROOT/target/bench/latest.json" "$OUT/minnow-$1-$2.json" 2>/dev/null
}

XTASK_BIN="$ROOT/target/xtask/release/xtask"
MINNOW_DIRECT=0
RUST_DIR="$HERE/rust"
RUST_BIN="$RUST_DIR/target/release/minnow-rust-peers"
RUST_PEERS="${RUST_PEERS-candle burn-ndarray burn-flex}"
RUST_PEER_THREADS="${RUST_PEER_THREADS:-1 2}"
ONE_THREAD_XLA="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
peer() {   # $1 script, $2 framework, $3 threads
    idle_gate "$1 $2 $3"
    log "peer: $1 --framework $2 --threads $3"
    if [ "$3" = 1 ]; then
        XLA_FLAGS="$ONE_THREAD_XLA" OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 \
            taskset -c 0 "$PY" "$HERE/$1" --framework "$2" --threads 1 \
            >> "$OUT/peers.jsonl" 2>> "$OUT/peers-stderr.txt"
    else
        env -u XLA_FLAGS OMP_NUM_THREADS="$3" MKL_NUM_THREADS="$3" \
            "$PY" "$HERE/$1" --framework "$2" --threads "$3" \
            >> "$OUT/peers.jsonl" 2>> "$OUT/peers-stderr.txt"
    fi || log "peer $1 $2 $3 FAILED (see peers-stderr.txt)"
}

# The Rust peers (benches/peers/rust): $1 group, $2 framework, $3 threads;
# pinned to CPU 0 with one thread, as the Python peers are.
rust_peer() {
    idle_gate "$1 (rust) $2 $3"
    log "peer: $1 (rust) --framework $2 --threads $3"
    if [ "$3" = 1 ]; then
        taskset -c 0 "$RUST_BIN" --framework "$2" --workload "$1" --threads 1 \
            >> "$OUT/peers.jsonl" 2>> "$OUT/peers-stderr.txt"
    else
        "$RUST_BIN" --framework "$2" --workload "$1" --threads "$3" \
            >> "$OUT/peers.jsonl" 2>> "$OUT/peers-stderr.txt"
    fi || log "peer $1 (rust) $2 $3 FAILED (see peers-stderr.txt)"
}

{
    date -u
    lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|L2|L3"
    "$PY" -c "import jax, jaxlib, optax, numpy; print('jax', jax.__version__, 'jaxlib', jaxlib.__version__, 'optax', optax.__version__, 'numpy', numpy.__version__)"
    "$PY" -c "import torch; print('torch', torch.__version__); print(torch.__config__.show())" 2>/dev/null || echo "torch: not installed"
    "$PY" --version
    (cd "$ROOT" && git rev-parse HEAD && git status --short | wc -l | sed 's/$/ files modified in the work tree/')
} > "$OUT/env.txt" 2>&1

HAVE_TORCH=0; "$PY" -c "import torch" 2>/dev/null && HAVE_TORCH=1

# The Rust peers are their own cargo workspace (outside minnow's): build
# them now, our own compile, before any quiet wait (compiles only if stale).
HAVE_RUST_PEERS=0
if [ -n "$RUST_PEERS" ]; then
    log "building the Rust peers (compiles only if stale; the first build takes minutes)"
    t0=$(date +%s)
    if (cd "$RUST_DIR" && cargo build --release) > "$OUT/rust-peers-build.txt" 2>&1 && [ -x "$RUST_BIN" ]; then
        HAVE_RUST_PEERS=1
        log "Rust peers ready ($(( $(date +%s) - t0 ))s)"
        awk '/^name = /{n=$3} /^version = /{if (n ~ /^"(candle-core|candle-nn|burn|burn-core|burn-ndarray|burn-flex|gemm)"$/) print n, $3; n=""}' \
            "$RUST_DIR/Cargo.lock" | tr -d '"' >> "$OUT/env.txt"
    else
        log "the Rust peers do not build (see rust-peers-build.txt); they will not be measured"
    fi
fi

for group in ${PEER_GROUPS:-dqn_step az_forward}; do
    script="$group.py"
    # Build the xtask binary first if it is stale (our own compile), then wait.
    # The work tree is shared: if it does not build right now (someone is
    # mid-edit), wait for quiet and try again, for up to GIVE_UP_S.
    tries_start=$(date +%s); MINNOW_DIRECT=0
    while :; do
        log "checking the xtask build (compiles only if stale)"
        t0=$(date +%s)
        if (cd "$ROOT" && cargo xtask bench --list) > "$OUT/xtask-list-$group.txt" 2>&1; then
            log "xtask ready ($(( $(date +%s) - t0 ))s)"
            break
        fi
        log "xtask does not build now: $(grep -m1 -i error "$OUT/xtask-list-$group.txt")"
        if grep -q "failed to load manifest" "$OUT/xtask-list-$group.txt" && [ -x "$XTASK_BIN" ]; then
            # A colleague's half-added crate breaks the workspace manifest:
            # cargo cannot even start, but the last-built binary is intact.
            log "using the last-built $XTASK_BIN for $group"
            MINNOW_DIRECT=1
            break
        fi
        if [ $(( $(date +%s) - tries_start )) -ge "$GIVE_UP_S" ]; then
            log "GAVE UP on building xtask; minnow will not be measured for $group"
            break
        fi
        sleep 30
        wait_quiet
    done
    wait_quiet
    monitor "$group" & MON=$!
    minnow "$group" before
    peer "$script" jax 1
    peer "$script" jax 2
    if [ "$HAVE_TORCH" = 1 ]; then
        peer "$script" torch 1
        [ "$group" = dqn_step ] && peer "$script" torch-fused 1
        peer "$script" torch-compile 1
    fi
    if [ "$HAVE_RUST_PEERS" = 1 ]; then
        for t in $RUST_PEER_THREADS; do
            for f in $RUST_PEERS; do
                rust_peer "$group" "$f" "$t"
            done
        done
    fi
    minnow "$group" after
    kill "$MON" 2>/dev/null; wait "$MON" 2>/dev/null
done
log "done: $OUT"
