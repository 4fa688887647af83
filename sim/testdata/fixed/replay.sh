#!/usr/bin/env bash
# replay.sh [OLD]: the whole-process `simulate replay FILE` of this tree and of commit OLD
# (default 5c680f9) side by side, on every scenario file in DIR (default ../shared/perf-scenarios
# beside the repository: the ten 60-step files of issue 30). Both commits are built as binaries
# (OLD in a temporary worktree); then, ROUNDS times (default 9), every file is replayed by each
# binary in turn, the order alternating from round to round. Each process is timed by bash's
# `time` (wall, user and system seconds, millisecond resolution). It prints, per file and for
# the ten files together, the median wall time of each binary and the ratio OLD / this tree
# of the medians, and the same for CPU (user + system) seconds; exit codes and output
# (stdout) of this tree must be the same in every round, and are checked against OLD's
# only for the exit code (OLD may print fewer invariants). NEW=path uses a prebuilt binary for
# this tree, OLDBIN=path one for OLD.
set -euo pipefail
old=${1:-5c680f9}
rounds=${ROUNDS:-9}
top=$(git rev-parse --show-toplevel)
dir=${DIR:-$top/../shared/perf-scenarios}
tmp=$(mktemp -d)
trap 'git -C "$top" worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
if [ -n "${OLDBIN:-}" ]; then
	cp "$OLDBIN" "$tmp/old.bin"
else
	git -C "$top" worktree add --detach "$tmp/old" "$old" >/dev/null 2>&1
	(cd "$tmp/old" && go build -o "$tmp/old.bin" ./cmd/simulate)
fi
if [ -n "${NEW:-}" ]; then
	cp "$NEW" "$tmp/new.bin"
else
	(cd "$top" && go build -o "$tmp/new.bin" ./cmd/simulate)
fi
files=("$dir"/*.txt)
[ -e "${files[0]}" ] || { echo "replay.sh: no scenario files in $dir" >&2; exit 2; }
TIMEFORMAT='%3R %3U %3S'
one() { # one BIN FILE ROUND: prints "bin file wall user sys"
	local t code
	{ t=$( { time "$tmp/$1.bin" replay "$2" >"$tmp/out.$1" 2>/dev/null; } 2>&1 ); } || true
	code=$( "$tmp/$1.bin" replay "$2" >/dev/null 2>&1; echo $? ) # (exit code, untimed)
	if [ "$1" = new ]; then
		if [ "$3" = 1 ]; then cp "$tmp/out.new" "$tmp/first.$(basename "$2")"
		elif ! cmp -s "$tmp/out.new" "$tmp/first.$(basename "$2")"; then echo "replay.sh: $2: output differs between rounds" >&2; exit 1; fi
	fi
	echo "$1 $(basename "$2") $t $code"
}
for r in $(seq "$rounds"); do
	for f in "${files[@]}"; do
		if [ $((r % 2)) = 1 ]; then one old "$f" "$r"; one new "$f" "$r"
		else one new "$f" "$r"; one old "$f" "$r"; fi
	done
done >"$tmp/times"
awk -v old="$old" -v rounds="$rounds" '
	function median(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{
		k = $1 SUBSEP $2; wall[k] = wall[k] " " $3; cpu[k] = cpu[k] " " ($4 + $5)
		code[k] = $6; if (!($2 in seen)) { seen[$2] = 1; names[++n] = $2 }
		# the ten files together, per round
		round[$1, $2]++; tw[$1, round[$1, $2]] += $3; tc[$1, round[$1, $2]] += $4 + $5
	}
	END {
		printf "%-14s %9s %9s %7s   %9s %9s %7s  %s\n", "file", old " s", "new s", "ratio", "cpu old", "cpu new", "ratio", "exit old/new"
		for (i = 1; i <= n; i++) {
			f = names[i]; mo = median(wall["old" SUBSEP f]); mn = median(wall["new" SUBSEP f])
			co = median(cpu["old" SUBSEP f]); cn = median(cpu["new" SUBSEP f])
			printf "%-14s %9.3f %9.3f %6.2fx   %9.3f %9.3f %6.2fx  %s/%s\n", f, mo, mn, mo / mn, co, cn, co / cn, code["old" SUBSEP f], code["new" SUBSEP f]
			if (mo / mn < minr || minr == "") minr = mo / mn
		}
		for (r = 1; r <= rounds; r++) { so = so " " tw["old", r]; sn = sn " " tw["new", r]; cso = cso " " tc["old", r]; csn = csn " " tc["new", r]; pr = pr sprintf(" %.2f", tw["old", r] / tw["new", r]) }
		mo = median(so); mn = median(sn); co = median(cso); cn = median(csn)
		printf "%-14s %9.3f %9.3f %6.2fx   %9.3f %9.3f %6.2fx\n", "all " n, mo, mn, mo / mn, co, cn, co / cn
		printf "medians of %d rounds, wall and CPU (user + system) seconds of the whole process; smallest per-file wall ratio %.2fx; per-round total ratios:%s\n", rounds, minr, pr
	}' "$tmp/times"
