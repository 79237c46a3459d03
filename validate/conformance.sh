# The MAP_SYNC interface conformance matrix, guest side, sourced after
# vm/guest/lib.sh (as /suite/validate/conformance.sh) by the guest job
# tests/guest/conformance.sh and by make reproduce's guest half.
#   conformance_run OUT   every case of validate/conformance.txt on every
#                         setup, all under one syncorder (whose per-process
#                         NEEDDSYNC counts say whether the stores' faults
#                         were synchronous, and which checks their ordering
#                         on the way); one judged cell per line in OUT:
#     CASE SETUP CLASS VERDICT(pass|fail) MAN(agrees|differs) seen="..." want="..." man="..."
#   conformance_judge_cells CELLS PROCS   the judging alone (host unit test)
#   conformance_names     the KTAP names of the cells, CASE_SETUP with _ for -
# Needs two fsdax namespaces (pmem_expect 2) and the xfs and loop modules
# loaded before (syncorder looks for xfs functions when it starts). In
# native mode (NATIVE_TARGET, vm/guest/lib.sh) the one setup is the target:
# a DAX file on the host's own filesystem, nothing made or mounted.
conformance_table=${conformance_table:-${suite_dir:-/suite}/validate/conformance.txt}
conformance_pages=8

# conformance_rows KIND: the table's KIND rows, fields joined by |.
conformance_rows() {
	if [ "$1" = setup ] && [ -n "${NATIVE_TARGET:-}" ]; then
		echo "native|dax|$NATIVE_FS|native|-"
		return
	fi
	awk -F' *[|] *' -v k="$1" '$0 ~ "^" k " " {
		sub("^" k " +", "", $1); out = $1
		for (i = 2; i <= NF; i++) out = out "|" $i
		print out }' "$conformance_table"
}

conformance_names() {
	conformance_rows case | while IFS='|' read -r c _; do
		conformance_rows setup | while IFS='|' read -r s _; do
			echo "${c}_$s" | tr - _
		done
	done
}

# conformance_mount FS MOUNT DIR: a fresh FS on its device mounted on DIR
# with the options MOUNT; the loop row's image lives in TMPDIR or /tmp.
conformance_mount() {
	mkdir -p "$3"
	case $1:$2 in
	*:native) ;;
	tmpfs:*) mount -t tmpfs -o size=64m none "$3" ;;
	ext4:loop)
		truncate -s 64M "${TMPDIR:-/tmp}/conformance.img" && mkfs.ext4 -F -q "${TMPDIR:-/tmp}/conformance.img" &&
			mount -t ext4 -o loop "${TMPDIR:-/tmp}/conformance.img" "$3" ;;
	*)
		case $1 in ext4) dev=/dev/pmem0 ;; xfs) dev=/dev/pmem1 ;; *) return 1 ;; esac
		fs_mkfs "$1" "$dev" >/dev/null || return 1
		if [ "$2" = - ]; then mount -t "$1" "$dev" "$3"; else mount -t "$1" -o "$2" "$dev" "$3"; fi ;;
	esac
}

# conformance_probe_all CELLS: inside syncorder, every setup's probes; a
# setup that cannot be made leaves "setup=NAME error=WHY" instead.
conformance_probe_all() {
	conformance_rows setup | while IFS='|' read -r setup class fs opts dirflag; do
		mnt=${NATIVE_TARGET:-/mnt}/conformance
		if ! why=$(conformance_mount "$fs" "$opts" "$mnt" 2>&1); then
			echo "setup=$setup error=$(echo "$why" | head -n 1 | tr ' ' _)"
			continue
		fi
		dir=$mnt
		if [ "$dirflag" = flag ]; then
			dir=$mnt/daxdir
			mapconform -c dax-dir -f "$dir" 2>&1 | sed "s/^/setup=$setup error=/; s/ /_/g"
		fi
		conformance_rows case | while IFS='|' read -r case _; do
			out=$(mapconform -c "$case" -n $conformance_pages -f "$dir/probe" 2>&1) ||
				out="error=$(echo "$out" | head -n 1 | tr ' ' _)"
			echo "setup=$setup $out"
		done
		[ "$opts" = native ] || umount "$mnt" || echo "setup=$setup error=umount_failed"
	done >"$1"
}

# conformance_sync PROCS PID STORES: all, none or N/STORES, from syncorder's
# NEEDDSYNC count of process PID (a process with no DAX fault is absent).
conformance_sync() {
	[ "$3" = - ] && { echo -; return; }
	n=$(awk -v p="$2" '$1 == p { print $2 }' "$1")
	n=${n:-0}
	if [ "$n" = "$3" ]; then echo all; elif [ "$n" = 0 ]; then echo none; else echo "$n/$3"; fi
}

# conformance_judge WANT SEEN: the facts of WANT that SEEN contradicts, or
# nothing (both key=value lists).
conformance_judge() {
	for fact in $1; do
		case " $2 " in *" $fact "*) ;; *) printf '%s ' "$fact" ;; esac
	done
}

# conformance_run CELLS: every probe under one syncorder, the cells judged into
# CELLS; its files in TMPDIR (the native runner's output folder), else /tmp.
conformance_run() {
	ct=${TMPDIR:-/tmp}
	syncorder --json-out $ct/conformance.json \
		-c ". $suite_dir/vm/guest/lib.sh; . $suite_dir/validate/conformance.sh; conformance_probe_all $ct/conformance.cells" \
		>$ct/conformance.tap 2>$ct/conformance.err
	echo "$?" >$ct/conformance.rc
	jq -r '.processes[] | "\(.pid) \(.needdsync)"' $ct/conformance.json >$ct/conformance.procs 2>/dev/null ||
		: >$ct/conformance.procs
	conformance_judge_cells $ct/conformance.cells $ct/conformance.procs >"$1"
}

# conformance_judge_cells CELLS PROCS: each case on each setup, judged
# against the table from the probes' lines (CELLS) and the NEEDDSYNC count
# of each process ("PID COUNT" lines, PROCS).
conformance_judge_cells() {
	conformance_rows case | while IFS='|' read -r case want_dax want_nondax want_tmpfs man _; do
		conformance_rows setup | while IFS='|' read -r setup class _; do
			case $class in dax) want=$want_dax ;; nondax) want=$want_nondax ;; *) want=$want_tmpfs ;; esac
			line=$(grep -E "^setup=$setup (case=$case |error=)" "$1" | head -n 1)
			pid=$(echo "$line" | sed -n 's/.* pid=\([0-9]*\).*/\1/p')
			child=$(echo "$line" | sed -n 's/.* child=\([0-9]*\).*/\1/p')
			stores=$(echo "$line" | sed -n 's/.* stores=\([0-9-]*\).*/\1/p')
			seen="$(echo "$line" | sed 's/^setup=[^ ]* //; s/case=[^ ]* //; s/pid=[0-9]* //') sync=$(conformance_sync "$2" "${child:-$pid}" "${stores:--}")"
			bad=$(conformance_judge "$want" "$seen")
			[ -n "$line" ] || bad="no probe line"
			mandiff=agrees
			[ "$man" = - ] || [ -z "$(conformance_judge "$man" "$seen")" ] || mandiff=differs
			echo "$case $setup $class $([ -z "$bad" ] && echo pass || echo fail) $mandiff seen=\"$seen\" want=\"$want\" man=\"$man\"${bad:+ wrong=\"$bad\"}"
		done
	done
}
