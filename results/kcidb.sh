#!/bin/sh
# One KCIDB document (kernelci/kcidb-io schema v5.3) from the suite's results,
# for a lab that reports to KernelCI's common database (kcidb-submit): checks
# become PASS/FAIL/SKIP/ERROR tests, measurements DONE tests with a number,
# the gate's verdicts PASS/FAIL/ERROR. results/kcidb-v5.schema.json is what
# the document must satisfy; tests/unit/test-kcidb.sh holds it to that.
usage() {
	cat <<EOF
usage: kcidb.sh [--origin NAME] [--checkout-id ID] [--tree NAME]
                [--git-url URL] [--git-commit SHA1] RUN...

RUN, told apart by what it holds:
  a make check folder (.output/check: *.tap)   one test per top-level KTAP
      result, path mapsync.FILE.NAME; kernel from the "# kernel" lines, the
      jobs' console.log ("vm-init: kernel ...") or their meta.txt
  a run folder (results/runs/ID: meta.txt)     make reproduce: FS/SCENARIO.json,
      report-FS.json, extra.json; make gate-run (meta.txt has measure=):
      samples.txt, the gate's per-boot quantiles, median over boots
  a gate output (make gate's GATE_OUT: gate.json)   one test per verdict
  a folder of those (results/baselines/gate-kernels-*): each one inside
Options:
  --origin NAME       the submitting CI system, [a-z0-9_]+ (default mapsync)
  --checkout-id ID    the checkout id after "NAME:" (default: the suite's
                      git revision and the runs' names)
  --tree NAME, --git-url https://..., --git-commit SHA1
                      the tested kernel's tree, when it came from one
Prints the JSON document on stdout. Exit: 0, 2 usage or a RUN that is not
one of the above, 1 unreadable results or no jq.
EOF
}
set -u
here=$(cd "$(dirname "$0")" && pwd)
suite_lib=$here/../lib
. "$suite_lib/exitcodes.sh"
. "$suite_lib/meta.sh"
die_usage() { echo "kcidb: $*" >&2; exit "$EXIT_USAGE"; }
die() { echo "kcidb: $*" >&2; exit "$EXIT_RUNTIME"; }

origin=mapsync checkout_id= tree= git_url= git_commit=
while [ $# -gt 0 ]; do
	case $1 in
	--origin|--checkout-id|--tree|--git-url|--git-commit)
		[ $# -ge 2 ] || die_usage "$1 needs a value"
		case $1 in
		--origin) origin=$2 ;;
		--checkout-id) checkout_id=$2 ;;
		--tree) tree=$2 ;;
		--git-url) git_url=$2 ;;
		--git-commit) git_commit=$2 ;;
		esac
		shift 2 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	-*) die_usage "unknown option '$1' (--help)" ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || die_usage "no RUN given (a make check folder, a results/runs/ID folder or a gate output; --help)"
# The schema's patterns (kcidb-io v5.3): checked here so a bad option is one
# line now, not a document kcidb-submit rejects later.
printf '%s' "$origin" | grep -Eqx '[a-z0-9_]+' || die_usage "--origin '$origin': lower-case letters, digits and _ only"
[ -z "$git_commit" ] || printf '%s' "$git_commit" | grep -Eqx '[0-9a-f]{40}' ||
	die_usage "--git-commit '$git_commit': the full 40-digit sha1"
case $git_url in ''|https://?*) ;; *) die_usage "--git-url '$git_url': an https:// URL" ;; esac
command -v jq >/dev/null 2>&1 || die "jq is needed (make deps)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kcidb.XXXXXX") || die "cannot make a temporary folder"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
rec=$tmp/records
: >"$rec"
json_awk=$(cat "$suite_lib/json.awk") || die "cannot read $suite_lib/json.awk"

# RFC 3339 (UTC) of a file's modification time: the only clock a folder
# without a meta.txt date has.
mtime() { date -u -r "$1" +%Y-%m-%dT%H:%M:%SZ; }

# bad_json FILE: the one line for a results file jq cannot read (its error
# went to $tmp/jqerr).
bad_json() { die "$1 does not parse: $(head -n 1 "$tmp/jqerr")"; }

# meta_json FILE: meta.txt as one JSON object of strings (the run's label:
# QEMU, accelerator, CPUs, measure mode, parameters), minus what the build
# and checkout carry.
meta_json() {
	awk "$json_awk"'
		/^[A-Za-z_][A-Za-z0-9_]*=/ {
			k = substr($0, 1, index($0, "=") - 1); v = substr($0, index($0, "=") + 1)
			if (k ~ /^(kernel|guest_kernel|kernel_package|git_revision|date)$/) next
			if (v ~ /^'"'"'.*'"'"'$/) v = substr(v, 2, length(v) - 2)
			sub(/ +$/, "", v)
			out = out (n++ ? "," : "") "\"" esc(k) "\":\"" esc(v) "\""
		}
		END { print "{" out "}" }' "$1"
}

# run_record KEY KIND SOURCE REVISION START ENV_JSON: the run's own record.
run_record() {
	jq -nc --arg key "$1" --arg kind "$2" --arg src "$3" --arg rev "$4" --arg start "$5" --argjson env "$6" \
		'{t: "run", run: $key, kind: $kind, source: $src, revision: (if $rev == "" then null else $rev end),
		  start: $start, env: $env}' >>"$rec"
}

# build_record KERNEL [PACKAGE [CONFIG_CHECK [ACCELERATOR]]]
build_record() {
	jq -nc --arg k "$1" --arg p "${2:-}" --arg c "${3:-}" --arg a "${4:-}" \
		'{t: "build", kernel: $k, package: (if $p == "" then null else $p end),
		  config_check: (if $c == "" then null else $c end), native: ($a == "native")}' >>"$rec"
}

# ---- a make check folder --------------------------------------------------------
# kernel_near DIR: the guest kernel a job folder booted, from its console
# (vm/guest/init says "vm-init: kernel RELEASE") or a run's meta.txt.
kernel_near() {
	[ -d "$1" ] || return 1
	k=$(grep -rhos -m 1 'vm-init: kernel [^ ,]*' "$1" --include=console.log | head -n 1)
	[ -n "$k" ] && { echo "${k#vm-init: kernel }"; return 0; }
	for m in $(find "$1" -name meta.txt 2>/dev/null | sort); do
		k=$(meta_get "$m" guest_kernel)
		[ -n "$k" ] || k=$(meta_get "$m" kernel)
		[ -n "$k" ] && { echo "$k"; return 0; }
	done
	return 1
}

# tap_kernel RUN STEM: the kernel STEM.tap ran on: its "# kernel RELEASE"
# line (conformance, smoke, persist; native-check's "# native: DIR (FS),
# kernel RELEASE"), else the folders its job left (guest.sh: guest-NAME/,
# crash: crash-run/, the runner: runner-MODE/, the short gate: gate/);
# smoke-K-config.tap is smoke-K's kernel. Empty when none says.
tap_kernel() {
	k=
	[ -f "$1/$2.tap" ] && k=$(sed -n 's/^# \(.* \)\{0,1\}kernel \([0-9][^ ,]*\).*/\2/p' "$1/$2.tap" | head -n 1)
	[ -n "$k" ] && { echo "$k"; return; }
	for d in "$1/$2" "$1/guest-$2" "$1/$2"-*; do
		kernel_near "$d" && return
	done
	case $2 in *-config) [ -f "$1/${2%-config}.tap" ] && tap_kernel "$1" "${2%-config}" ;; esac
}

# ktap_records FILE STEM KEY KERNEL: one record per top-level result.
# Status: ok PASS; not ok FAIL; "# SKIP" SKIP. "ok ... # XFAIL" is a known
# kernel bug that showed as validate/known-bugs.txt says: the suite counts it
# passed, but the tested kernel is faulty, which is KCIDB's FAIL (the
# directive stays in misc.ktap_directive for triage). "# XPASS" (the bug did
# not show) and "ok ... # TODO" are PASS; "not ok ... # TODO" FAIL, like
# XFAIL. A "not ok" that tests/salvage.awk wrote for the test in flight when
# the guest died ("... (vm exit N ...)") is ERROR: the test never completed
# and the KTAP cannot tell the kernel's fault from the VM's. A test the job
# declared and never ran (lib/ktap.sh: "never reported") is MISS, and so is
# the job when its plan is larger than its results (it stopped reporting).
# A file with no plan and no result (empty, or bytes that are not KTAP) is
# one ERROR test of the job: it ran, or began to, and what it left cannot
# be evaluated; without it the job's tests would vanish unseen.
ktap_records() {
	awk -v stem="$2" -v key="$3" -v kernel="$4" -v bytes="$(wc -c <"$1")" -v file="$1" "$json_awk"'
		function rec(name, status, directive, lg, extra) {
			if (length(lg) > 4000) lg = "..." substr(lg, length(lg) - 3996)
			printf "{\"t\":\"test\",\"run\":\"%s\",\"kernel\":\"%s\",\"path\":[\"%s\"%s],\"status\":\"%s\",\"log\":\"%s\",\"misc\":{\"ktap_file\":\"%s\"%s%s}}\n",
				esc(key), esc(kernel), esc(stem), name == "" ? "" : ",\"" esc(name) "\"", status,
				status == "PASS" ? "" : esc(lg), esc(stem ".tap"),
				directive == "" ? "" : ",\"ktap_directive\":\"" esc(directive) "\"", extra
		}
		/^1\.\.[0-9]+$/ { plan = substr($0, 4) + 0; next }
		/^(not )?ok [0-9]+/ {
			seen++
			ok = $0 ~ /^ok /
			rest = $0; sub(/^(not )?ok [0-9]+ */, "", rest)
			name = rest; directive = ""
			if ((i = index(rest, " # ")) > 0) { name = substr(rest, 1, i - 1); directive = substr(rest, i + 3) }
			else if (rest ~ /^#/) { name = ""; directive = substr(rest, 2) }
			sub(/^ +/, "", directive)
			d = toupper(directive)
			if (d ~ /^SKIP/) st = "SKIP"
			else if (d ~ /^XFAIL/) st = "FAIL"
			else if (d ~ /^XPASS/) st = "PASS"
			else if (d ~ /^TODO/) st = ok ? "PASS" : "FAIL"
			else if (!ok && directive ~ /^never reported/) st = "MISS"
			else if (!ok && directive ~ /\(vm exit [0-9]+( after [0-9]+s)?\)$/) st = "ERROR"
			else st = ok ? "PASS" : "FAIL"
			if (name == "") name = "test_" seen
			rec(name, st, directive, lg $0, "")
			lg = ""
			next
		}
		/^# begin / || /^# Totals:/ || /^KTAP version/ { next }
		/^[^ \t]/ { lg = lg $0 "\n" }
		END {
			if (plan == "" && !seen) {
				why = bytes + 0 ? bytes " bytes with no KTAP plan (1..N) and no result (ok N / not ok N)" : "empty"
				rec("", "ERROR", "", stem ".tap: " why ": the results of the job could not be evaluated",
				    ",\"bytes\":" bytes + 0)
				printf "kcidb: note: %s: %s: reported as one ERROR test\n", file, why >"/dev/stderr"
			} else if (plan > seen)
				rec("", "MISS", "", lg,
				    ",\"planned\":" plan ",\"reported\":" seen + 0)
		}' "$1" >>"$rec"
}

check_folder() { # RUN
	key=check-$(cat "$1"/*.tap | sha256sum | cut -c 1-12)
	start=$(for f in "$1"/*.tap; do mtime "$f"; done | sort | head -n 1)
	rev=$(grep -rhs -m 1 '^git_revision=' "$1" --include=meta.txt | head -n 1)
	run_record "$key" check "$1" "${rev#git_revision=}" "$start" null
	# Host unit tests and the config checks name no kernel: they count for
	# the kernel the folder's guest jobs ran, guest-check's first.
	default=$(tap_kernel "$1" guest-check)
	for f in "$1"/*.tap; do
		[ -n "$default" ] && break
		default=$(tap_kernel "$1" "$(basename "$f" .tap)")
	done
	: "${default:=unknown}"
	for f in "$1"/*.tap; do
		stem=$(basename "$f" .tap)
		k=$(tap_kernel "$1" "$stem")
		: "${k:=$default}"
		cc=
		case $stem in *config) cc=$(sed -n 's/^# \(check-config: .*\)/\1/p' "$f" | tail -n 1) ;; esac
		build_record "$k" "" "$cc"
		ktap_records "$f" "$stem" "$key" "$k"
	done
}

# ---- a reproduce or gate run folder -------------------------------------------
# faultlat's JSON per filesystem and scenario (ns): p50, p99, avg, max.
faultlat_records() { # RUN KEY KERNEL
	ls "$1"/*/*.json >/dev/null 2>&1 || return 0
	jq -c --arg key "$2" --arg k "$3" '
		select(type == "object" and .tool == "faultlat") |
		(input_filename | split("/")) as $f | ($f[-1] | rtrimstr(".json")) as $scen | . as $r |
		(["p50", .median], ["p99", .p99], ["avg", .avg], ["max", .max]) | select(.[1] != null) |
		{t: "test", run: $key, kernel: $k, path: ["reproduce", $f[-2], $scen, .[0]], status: "DONE",
		 number: {value: .[1], unit: $r.unit}, comment: ($r.label | rtrimstr(":")),
		 misc: {faults: $r.faults, reps: $r.reps, pages: $r.pages, fault_size: $r.fault_size,
		        map_sync: $r.map_sync, state: $r.state, load: $r.load}}' "$1"/*/*.json >>"$rec" 2>"$tmp/jqerr" ||
		bad_json "a scenario JSON of $1"
}

# report.sh's JSON per filesystem: whether the tables add up (a check) and
# the MAP_SYNC / no-MAP_SYNC ratios (dimensionless measurements).
report_records() { # RUN KEY KERNEL
	for f in "$1"/report-*.json; do
		[ -f "$f" ] || continue
		fs=$(basename "$f" .json); fs=${fs#report-}
		jq -c --arg key "$2" --arg k "$3" --arg fs "$fs" '
			{t: "test", run: $key, kernel: $k, path: ["reproduce", $fs, "report"],
			 status: (if .ok then "PASS" else "FAIL" end), log: ((.problems // []) | map(tostring) | join("\n")),
			 misc: {reference: .reference}},
			(.ratios[]? | .pair as $p | . as $r | (["avg", .ours_avg], ["median", .ours_median]) |
			 select(.[1] != null) |
			 {t: "test", run: $key, kernel: $k, path: ["reproduce", $fs, "ratio", $p, .[0]], status: "DONE",
			  number: {value: .[1]}, comment: "MAP_SYNC / no MAP_SYNC, \($p) files, ratio of \(.[0])s",
			  misc: {seed_avg: $r.seed_avg, ours_over_seed: $r.ours_over_seed}})' "$f" >>"$rec" 2>"$tmp/jqerr" || bad_json "$f"
	done
}

# extra-tables.sh's JSON: persist cost and the concurrency tail (ns,
# measurements), the conformance matrix (checks).
extra_records() { # RUN KEY KERNEL
	[ -f "$1/extra.json" ] || return 0
	jq -c --arg key "$2" --arg k "$3" '
		def t($p; $v; $u; $m): select($v != null) |
			{t: "test", run: $key, kernel: $k, path: (["reproduce"] + $p), status: "DONE",
			 number: ({value: $v} + (if $u == "" then {} else {unit: $u} end)), misc: $m};
		(.persist[]? | . as $r | [.fs, "persist", .state, .pattern, (.size | tostring), .method] as $p |
			t($p + ["p50"]; .median_ns; "ns"; {ratio_vs_mapsync: $r.ratio_vs_mapsync}),
			t($p + ["p99_9"]; .p999_ns; "ns"; {})),
		(.tail[]? | . as $r |
			[.fs, "tail", (if .map_sync then "sync" else "nosync" end), "w\(.writers)", .layout] as $p |
			t($p + ["p50"]; .median_ns; "ns"; {faults: $r.faults}),
			t($p + ["p99"]; .p99_ns; "ns"; {}), t($p + ["p99_9"]; .p999_ns; "ns"; {}),
			t($p + ["max"]; .max_ns; "ns"; {}),
			t($p + ["metadata_sync"]; .metadata_sync_pct; "%"; {}),
			t($p + ["commits_per_fault"];
			  (if (.needdsync // 0) > 0 and .commits != null then .commits / .needdsync else null end); "";
			  {commits: $r.commits, needdsync: $r.needdsync})),
		(.conformance[]? |
			{t: "test", run: $key, kernel: $k, path: ["reproduce", "conformance", .case, .setup],
			 status: ({pass: "PASS", fail: "FAIL"}[.verdict] // "ERROR"), log: .seen,
			 misc: {class: .class, man_page: .man_page, seen: .seen}})' "$1/extra.json" >>"$rec" 2>"$tmp/jqerr" || bad_json "$1/extra.json"
}

# A gate run's samples.txt ("BOOT FS SCENARIO ROUND NS..."): per filesystem,
# scenario (and in-kernel phase: SCENARIO:PHASE) and metric, the median over
# boots of each boot's quantile of all its faults, the gate's own reading
# (results/gate_core.c), with its interpolation (results/stats.c).
samples_records() { # RUN KEY KERNEL
	[ -f "$1/samples.txt" ] || return 0
	awk '{ for (i = 5; i <= NF; i++) print $2, $3, $1, $i }' "$1/samples.txt" |
		LC_ALL=C sort -k1,1 -k2,2 -k3,3n -k4,4n |
		awk -v key="$2" -v kernel="$3" "$json_awk"'
		function q(a, n, p,    h, i) {
			if (!n) return 0
			h = (n - 1) * p; i = int(h)
			return i + 1 < n ? a[i + 1] + (h - i) * (a[i + 2] - a[i + 1]) : a[n]
		}
		function sortn(a, n,    i, j, x) {
			for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		}
		function boot_end() {
			if (!nv) return
			nb++; m50[nb] = q(v, nv, 0.5); m90[nb] = q(v, nv, 0.9); m99[nb] = q(v, nv, 0.99); faults += nv
			nv = 0
		}
		function one(name, a,    p, ph) {
			sortn(a, nb)
			split(scen, p, ":")
			ph = (2 in p) ? ",\"" esc(p[2]) "\"" : ""
			printf "{\"t\":\"test\",\"run\":\"%s\",\"kernel\":\"%s\",\"path\":[\"gate-run\",\"%s\",\"%s\"%s,\"%s\"],\"status\":\"DONE\",\"number\":{\"value\":%.17g,\"unit\":\"ns\"},\"misc\":{\"boots\":%d,\"faults\":%d,\"statistic\":\"median over boots of each boot'"'"'s %s\"}}\n",
				esc(key), esc(kernel), esc(fs), esc(p[1]), ph, name, q(a, nb, 0.5), nb, faults, name
		}
		function group_end() {
			boot_end()
			if (nb) { one("p50", m50); one("p90", m90); one("p99", m99) }
			nb = 0; faults = 0
		}
		{
			if ($1 != fs || $2 != scen) { group_end(); fs = $1; scen = $2; boot = $3 }
			else if ($3 != boot) { boot_end(); boot = $3 }
			v[++nv] = $4
		}
		END { group_end() }' >>"$rec"
}

run_folder() { # RUN
	m=$1/meta.txt
	key=$(basename "$1")
	k=$(meta_get "$m" guest_kernel); [ -n "$k" ] || k=$(meta_get "$m" kernel); : "${k:=unknown}"
	start=$(meta_get "$m" date); [ -n "$start" ] || start=$(mtime "$m")
	env=$(meta_json "$m") || die "$m: unreadable"
	kind=reproduce; [ -n "$(meta_get "$m" measure)" ] && kind=gate-run
	run_record "$key" "$kind" "$1" "$(meta_get "$m" git_revision)" "$start" "$env"
	build_record "$k" "$(meta_get "$m" kernel_package)" "" "$(meta_get "$m" accelerator)"
	before=$(wc -l <"$rec")
	if [ "$kind" = gate-run ]; then
		samples_records "$1" "$key" "$k"
	else
		faultlat_records "$1" "$key" "$k"
		report_records "$1" "$key" "$k"
		extra_records "$1" "$key" "$k"
	fi
	[ "$(wc -l <"$rec")" -gt "$before" ] ||
		die_usage "$1: a run folder with no results kcidb knows (FS/SCENARIO.json, report-FS.json, extra.json, or a gate run's samples.txt)"
}

# ---- a gate output -----------------------------------------------------------
# Each verdict: same and better PASS, worse FAIL, unknown ERROR (the gate
# could not decide: not a pass, exit 17, and the kernel's status unknown);
# number: the change of the metric, in percent. The kernel is NEW's.
gate_folder() { # RUN
	key=$(basename "$1")
	if [ ! -f "$1/gate.json" ]; then
		# make gate writes gate.txt alone when it refused the runs (exit 18,
		# not comparable) or failed: nothing was judged.
		run_record "$key" gate "$1" "" "$(mtime "$1/gate.txt")" null
		build_record unknown
		jq -nc --arg key "$key" '{t: "test", run: $key, kernel: "unknown", path: ["gate"], status: "SKIP",
			comment: "no gate.json: the gate refused the runs (not comparable) or did not finish"}' >>"$rec"
		return
	fi
	new=$(jq -r '.new // empty' "$1/gate.json" 2>"$tmp/jqerr") || bad_json "$1/gate.json"
	base=$(jq -r '.base // empty' "$1/gate.json")
	nm=
	for d in "$new" "$(dirname "$1")/$(basename "$new")"; do
		[ -n "$new" ] && [ -f "$d/meta.txt" ] && { nm=$d/meta.txt; break; }
	done
	bm=
	for d in "$base" "$(dirname "$1")/$(basename "$base")"; do
		[ -n "$base" ] && [ -f "$d/meta.txt" ] && { bm=$d/meta.txt; break; }
	done
	if [ -n "$nm" ]; then
		k=$(meta_get "$nm" guest_kernel); [ -n "$k" ] || k=$(meta_get "$nm" kernel)
		env=$(meta_json "$nm"); rev=$(meta_get "$nm" git_revision); pkg=$(meta_get "$nm" kernel_package)
	else
		k= env=null rev= pkg=
	fi
	: "${k:=unknown}"
	bk=
	[ -n "$bm" ] && { bk=$(meta_get "$bm" guest_kernel); [ -n "$bk" ] || bk=$(meta_get "$bm" kernel); }
	run_record "$key" gate "$1" "$rev" "$(mtime "$1/gate.json")" "$env"
	build_record "$k" "$pkg" "" "$(meta_get "$nm" accelerator)"
	jq -c --arg key "$key" --arg k "$k" --arg bk "$bk" '
		def pct: . * 10000 | round / 100 | if . >= 0 then "+\(.)%" else "\(.)%" end;
		.base as $base | .new as $new | .rows[]? |
		(.scenario | split(":")) as $s |
		{t: "test", run: $key, kernel: $k,
		 path: (["gate", .fs] + $s + [(if .metric == "median" then "p50" else .metric end)]),
		 status: ({same: "PASS", better: "PASS", worse: "FAIL"}[.verdict] // "ERROR"),
		 number: (if .change == null then null else {value: (.change * 100), unit: "%"} end),
		 comment: ("\(.verdict) \(.change // "?" | if type == "number" then pct else . end) (p \(.p),"
		          + " interval \(.ci_lo | pct)..\(.ci_hi | pct), floor \(.floor * 10000 | round / 100)%)"),
		 misc: {verdict, change, p, p_mann_whitney, p_ks, ci_lo, ci_hi, floor, noise_floor,
		        reference_floor, reference_boots, base_median_ns: .base.median_ns, new_median_ns: .new.median_ns,
		        base_boots: .base.boots, new_boots: .new.boots, base_run: $base, new_run: $new,
		        base_kernel: (if $bk == "" then null else $bk end)}}' "$1/gate.json" >>"$rec" 2>"$tmp/jqerr" || bad_json "$1/gate.json"
}

# ---- which kind a folder is ---------------------------------------------------
# given NAME: a RUN as named on the command line, for the checkout id (a folder
# of runs by its own name, a run by its key).
given() { jq -nc --arg n "$1" '{t: "given", name: $n}' >>"$rec"; }

kind_of() { # DIR
	if [ -f "$1/gate.json" ] || { [ -f "$1/gate.txt" ] && [ ! -f "$1/meta.txt" ]; }; then echo gate
	elif [ -f "$1/meta.txt" ]; then echo run
	elif ls "$1"/*.tap >/dev/null 2>&1; then echo check
	fi
}
one_run() { # DIR KIND
	case $2 in
	gate) gate_folder "$1" ;;
	run) run_folder "$1" ;;
	check) check_folder "$1" ;;
	esac
}

for run; do
	[ -e "$run" ] || die_usage "RUN '$run': no such folder"
	[ -d "$run" ] || die_usage "RUN '$run': not a folder"
	run=${run%/}
	kind=$(kind_of "$run")
	if [ -n "$kind" ]; then
		one_run "$run" "$kind"
		given "$key"
		continue
	fi
	found=
	for d in "$run"/*/; do
		d=${d%/}
		kind=$(kind_of "$d")
		[ -n "$kind" ] || continue
		one_run "$d" "$kind"
		found=1
	done
	[ -n "$found" ] ||
		die_usage "RUN '$run': not a make check folder (*.tap), a run folder (meta.txt) or a gate output (gate.json), nor a folder of them"
	given "$(basename "$run")"
done

# ---- the document --------------------------------------------------------------
# IDs: ORIGIN:CHECKOUT, then :KERNEL for a build, :PATH for a test (:RUN:PATH
# when the document holds several runs; #N on a repeated one): unique per
# submission, and the same again for the same results, so a resubmission
# updates rather than duplicates. Paths: mapsync. and the components with
# anything outside KCIDB's [A-Za-z0-9_-] made "_". Times in ns become
# seconds with a metric prefix (KCIDB scales them for display: 412 us); a
# ratio has no unit. Architecture: from the kernel release (-amd64, -arm64),
# else x86_64, the only guest QEMU boots here; none for a native run
# (TARGET=) of a kernel that does not say. The build status is PASS: the
# image booted and ran the tests (Debian built it, or make kernel);
# config_name is the fragment its config was checked against
# (kernel-config/mapsync.config).
jq -s --arg origin "$origin" --arg cid "$checkout_id" --arg tree "$tree" --arg url "$git_url" \
	--arg commit "$git_commit" '
	def clean: tostring | gsub("[^A-Za-z0-9_-]"; "_") | if . == "" then "_" else . end;
	def nonull: with_entries(select(.value != null));
	def num: if .unit == "ns" then {value: (.value / 1e9), unit: "s", prefix: "metric"}
		elif .unit == "us" then {value: (.value / 1e6), unit: "s", prefix: "metric"} else . end;
	def uniq_ids: reduce .[] as $x ({seen: {}, out: []};
		(.seen[$x.id] // 0) as $n | .seen[$x.id] = $n + 1 |
		.out += [if $n == 0 then $x else $x + {id: "\($x.id)#\($n + 1)"} end]) | .out;
	map(select(.t == "run")) as $runs |
	([$runs[].revision | select(. != null)] | first(.[]) // null) as $rev |
	($origin + ":" + (if $cid != "" then $cid else "\($rev // "norev"):\([.[] | select(.t == "given") | .name] | join("+"))" end)) as $co |
	([$runs[].start] | min) as $start |
	(reduce (map(select(.t == "build"))[]) as $b ({};
		if has($b.kernel) then .[$b.kernel] |= (.package //= $b.package | .config_check //= $b.config_check | .native = (.native or $b.native))
		else .[$b.kernel] = ($b + {n: length}) end) | [.[]] | sort_by(.n)) as $builds |
	(reduce $runs[] as $r ({}; .[$r.run] = $r)) as $runof |
	($runs | length) as $nruns |
	{
	  version: {major: 5, minor: 3},
	  checkouts: [{
	    id: $co, origin: $origin, start_time: $start,
	    tree_name: (if $tree == "" then null else $tree end),
	    git_repository_url: (if $url == "" then null else $url end),
	    git_commit_hash: (if $commit == "" then null else $commit end),
	    comment: "mapsync-bench \($rev // "(revision unknown)"): MAP_SYNC synchronous DAX page faults",
	    misc: {suite: "mapsync-bench", suite_revision: $rev,
	           runs: [$runs[] | {name: .run, kind, source, revision, start_time: .start} | nonull]} | nonull
	  } | nonull],
	  builds: [$builds[] | {
	    id: "\($co):\(.kernel)", checkout_id: $co, origin: $origin,
	    architecture: (.native as $native | .kernel | if test("-(amd64|x86_64)$") then "x86_64" elif test("-(arm64|aarch64)$") then "arm64"
	                   elif $native then null else "x86_64" end),
	    config_name: (if .native then null else "mapsync.config" end),
	    comment: (if .kernel == "unknown" then "no guest kernel named in these results (host tests only)"
	              else "Linux \(.kernel)\(if .package then " (\(.package))" else "" end)" end),
	    status: (if .kernel == "unknown" then null else "PASS" end),
	    misc: ({kernel_release: .kernel, kernel_package: .package,
	            config_fragment: "kernel-config/mapsync.config", config_check: .config_check} | nonull)
	  } | nonull],
	  tests: ([.[] | select(.t == "test") | . as $t | $runof[$t.run] as $r | {
	    id: "\($co):\(if $nruns > 1 then "\($t.run):" else "" end)mapsync.\($t.path | map(clean) | join("."))",
	    build_id: "\($co):\($t.kernel)", origin: $origin,
	    path: "mapsync.\($t.path | map(clean) | join("."))",
	    status: $t.status,
	    number: (if $t.number then ($t.number | num) else null end),
	    comment: $t.comment,
	    log_excerpt: (if ($t.log // "") == "" then null else $t.log[-16384:] end),
	    start_time: $r.start,
	    environment: (if ($r.env // {}) == {} then null else
	      {comment: ([$r.env.qemu, $r.env.accelerator, (if $r.env.host_cpu then "host \($r.env.host_cpu)" else null end),
	                  (if $r.env.guest_cpus then "\($r.env.guest_cpus) vCPUs" else null end),
	                  (if $r.env.measure then "measure \($r.env.measure)" else null end)]
	                 | map(select(. != null)) | join(", ")),
	       misc: $r.env} end),
	    misc: ((($t.misc // {}) | nonull) + {run: $t.run, run_kind: $r.kind})
	  } | nonull] | uniq_ids)
	}' "$rec" 2>"$tmp/jqerr" || die "could not assemble the document: $(head -n 1 "$tmp/jqerr")"
