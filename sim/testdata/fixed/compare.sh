#!/bin/sh
# compare.sh [OLD]: BenchmarkRunFixed (sim/bench_fixed_test.go) of this tree and of commit OLD
# (default 84ebf78) side by side. Both are built as test binaries (the benchmark file copied into
# a temporary worktree of OLD) and run alternately ROUNDS times (default 8), 64 ops each (every
# plan once); it prints each run and the medians, and the ratio OLD / this tree per pair.
# BENCH=BenchmarkRunFixedParallel runs the plans on every core at once (a sweep's throughput);
# PROCS=n sets GOMAXPROCS for both binaries (PROCS=1: one core per replay).
set -eu
old=${1:-84ebf78}
rounds=${ROUNDS:-8}
bench=${BENCH:-BenchmarkRunFixed}
procs=${PROCS:-}
top=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'git -C "$top" worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git -C "$top" worktree add --detach "$tmp/old" "$old" >/dev/null 2>&1
cp "$top/sim/bench_fixed_test.go" "$tmp/old/sim/"
(cd "$tmp/old" && go test -c -o "$tmp/old.test" ./sim)
(cd "$top" && go test -c -o "$tmp/new.test" ./sim)
cd "$top/sim" # (both read testdata/fixed here)
for r in $(seq "$rounds"); do
	for b in old new; do
		env ${procs:+GOMAXPROCS=$procs} "$tmp/$b.test" -test.run '^$' -test.bench "^$bench\$" -test.benchtime 64x -test.benchmem |
			awk -v b="$b" '/^Benchmark/ {print b, $3, $5, $7; fflush()}'
	done
done | tee "$tmp/out"
awk -v old="$old" -v bench="$bench${procs:+ at GOMAXPROCS=$procs}" '
	{ ns[$1] = ns[$1] " " $2; mem[$1] = $3; al[$1] = $4; if ($1 == "old") o = $2; else r = r sprintf(" %.2f", o / $2) }
	function median(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		mo = median(ns["old"]); mn = median(ns["new"])
		printf "%s, median ms/op: %s %.2f, this tree %.2f: %.2fx faster (pairs:%s)\n", bench, old, mo / 1e6, mn / 1e6, mo / mn, r
		printf "memory: %s %.1f MB/op, this tree %.1f MB/op (%.2fx); allocations %d vs %d (%.2fx)\n", old, mem["old"] / 1e6, mem["new"] / 1e6, mem["old"] / mem["new"], al["old"], al["new"], al["old"] / al["new"]
	}' "$tmp/out"
