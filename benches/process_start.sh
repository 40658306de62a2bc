#!/usr/bin/env bash
# benches/process_start.sh: whole processes side by side, as a person or an
# agent runs them: `sandkeep run --backend local -c SCRIPT` against
# `bash -c SCRIPT` (host bash and GNU tools), for the cases C1-C7 of the
# README's benchmark table. Unlike `cargo bench -p sandkeep-shell --bench
# shell` (one process, sandboxes made in it), each sample here starts a
# process: exec, dynamic loading, argument parsing, runtime and sandbox
# set-up are all counted. Cases with a setup step (C3, C5) run it inside
# the timed script on both sides, since an ephemeral run keeps nothing.
#
# Usage: benches/process_start.sh [SANDKEEP_BIN] [CASE...]
#   SANDKEEP_BIN defaults to target/release/sandkeep; CASE names (C1 ... C7)
#   select cases. RUNS (default 100 for hyperfine's minimum) and WARMUP
#   (default 20) tune the sampling.
#
# With hyperfine installed it runs `hyperfine -N --warmup $WARMUP` per case
# and prints its means; without it, a plain loop runs the two commands
# alternately RUNS times and prints their medians. Each side shows its mean
# wall time and its mean CPU time (user + system, which a busy machine
# disturbs less); the ratios are sandkeep's over bash's (below 1.0:
# sandkeep is faster).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/target/release/sandkeep}
shift || true
[[ -x $bin ]] || { echo "no sandkeep binary at $bin (cargo build --release)" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
runs=${RUNS:-100}
warmup=${WARMUP:-20}

declare -A scripts=(
  [C1]='echo hi'
  [C2]='for i in $(seq 1 10000); do x=$((x+i)); done; echo $x'
  [C3]='seq 1 1388000 > big.txt; grep -c 7 big.txt'
  [C4]='seq 1 100000 | sort -rn | head -3'
  [C5]='mkdir -p ws && cd ws && for i in $(seq 1 1000); do echo "file $i" > f$i.txt; done && tar czf ../ws.tgz -C . . && tar tzf ../ws.tgz | wc -l'
  [C6]='printf '"'"'{"a":[1,2,3]}'"'"' | jq '"'"'.a | add'"'"''
  [C7]='f(){ if [ $1 -le 1 ]; then echo 1; else echo $(( $1 * $(f $(( $1 - 1 ))) )); fi; }; f 10'
)
cases=("$@")
[[ ${#cases[@]} -gt 0 ]] || cases=(C1 C2 C3 C4 C5 C6 C7)

# bash writes its files (C3, C5) in a scratch directory; sandkeep's
# ephemeral sandbox starts empty each time. Nothing is kept under --data.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir data
# The binary as `cargo install` (or any package) puts it: copied. A file
# the linker has just written is mapped from small page-cache pages and
# faults more at each start (0.3 ms of C1 here) than a copy written
# sequentially, like bash's.
cp "$bin" "$work/sandkeep"
bin=$work/sandkeep

# The mean wall and CPU (user + system) time of one command in ms, by hyperfine.
hyperfine_mean() {
  local json=$work/h.json
  hyperfine -N --warmup "$warmup" --runs "$runs" --export-json "$json" "$@" >/dev/null 2>&1
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.3f %.3f" % (r["mean"]*1e3, (r["user"]+r["system"])*1e3))' "$json"
}

# Median wall and CPU times in ms of two commands, run alternately by a
# plain loop: "wall1 cpu1 wall2 cpu2". Medians, because on a shared VM a
# few runs in a hundred take several times as long.
loop_means() {
  python3 - "$runs" "$warmup" "$@" <<'EOF'
import os, statistics, subprocess, sys, time
runs, warmup, a, b = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:5], sys.argv[5:7]
cmds = [["bash", "-c", a[1]] if a[0] == "bash" else [a[0], "--data", "data", "run", "--backend", "local", "-c", a[1]],
        ["bash", "-c", b[1]] if b[0] == "bash" else [b[0], "--data", "data", "run", "--backend", "local", "-c", b[1]]]
def once(c):
    """Wall and CPU (user + system of the child alone) seconds of one run."""
    t = time.perf_counter()
    p = subprocess.Popen(c, stdout=subprocess.DEVNULL)
    _, _, usage = os.wait4(p.pid, 0)
    p.returncode = 0  # reaped here, not by Popen
    return time.perf_counter() - t, usage.ru_utime + usage.ru_stime
for _ in range(warmup):
    for c in cmds:
        once(c)
wall, used = [[], []], [[], []]
for _ in range(runs):
    for i, c in enumerate(cmds):
        w, u = once(c)
        wall[i].append(w)
        used[i].append(u)
med = statistics.median
print(" ".join("%.3f %.3f" % (med(wall[i]) * 1e3, med(used[i]) * 1e3) for i in (0, 1)))
EOF
}

echo "| case | script | sandkeep wall (ms) | bash wall (ms) | wall ratio | sandkeep CPU (ms) | bash CPU (ms) | CPU ratio |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for c in "${cases[@]}"; do
  s=${scripts[$c]:?unknown case $c}
  if command -v hyperfine >/dev/null; then
    quoted=${s//\'/\'\\\'\'}
    read -r ours ours_cpu < <(hyperfine_mean "$bin --data data run --backend local -c '$quoted'")
    read -r theirs theirs_cpu < <(hyperfine_mean "bash -c '$quoted'")
  else
    read -r ours ours_cpu theirs theirs_cpu < <(loop_means "$bin" "$s" bash "$s")
  fi
  ratios=$(python3 -c "print('%.2f | %s | %s | %.2f' % ($ours / $theirs, '$ours_cpu', '$theirs_cpu', $ours_cpu / $theirs_cpu))")
  shown=${s//|/\\|}
  echo "| $c | \`$shown\` | $ours | $theirs | $ratios |"
done
