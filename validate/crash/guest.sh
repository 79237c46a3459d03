#!/bin/sh
# Guest half of the crash test: one boot = check the previous round, then
# write the next one until the crash comes. Runs as /job/run; its stdout is
# the result channel to the host (validate/crash/crash.sh), one record a line:
#   F ROLE TOOL STATUS       fsck of a filesystem after the crash (STATUS a number or a word)
#   f ROLE TEXT              a problem that fsck reported (up to 20 lines)
#   J {json}                 pmverify's verdict on one file of the previous round
#   G N                      the start gate opened for N mapped writers (crash delays count from here)
#   S/P/D/C TAG ...          pmwrite: started, pages done, all done, crashing
#   E TEXT                   an error: the boot did not go as planned
#   @@done                   the last boot checked everything and ends normally
# Parameters come from ./crash.env (written by the host for this boot).
#
# Four NVDIMMs, four filesystems, one role each, fixed by device number and
# checked with a .role file: MAP_SYNC and plain MAP_SHARED writers never
# share a filesystem, hence never a journal (a MAP_SYNC fault's fdatasync
# commits the whole jbd2 transaction, or forces the whole XFS log, and would
# make the control durable too). Each filesystem gets one writer per file
# mode, all of the same mapping kind; xfs one more, on a reflinked file.
. /suite/vm/guest/lib.sh
. ./crash.env
PATH=/job/bin:$PATH

ROLES="0:ext4:sync 1:ext4:shared 2:xfs:sync 3:xfs:shared"

err() { echo "E $*"; }

# The file modes of a filesystem, in -w order (crash.sh's WRITERS lists the
# same): reflink only where FICLONE works; pmdk is pmobjtx's pool of PMDK
# transactions (pmwrite writes the others).
modes_of() {
	case $1 in
	xfs) echo "sparse fallocated grow reflink pmdk" ;;
	*) echo "sparse fallocated grow pmdk" ;;
	esac
}

# fsck_then_mount FS DEV DIR ROLE: the order is the point.
#   ext4: e2fsck -fy first (it replays the journal itself, then checks
#         everything), then mount. Status 0 clean, 1 errors corrected.
#   xfs:  xfs_repair refuses a dirty log and -L would throw it away: mount
#         (the kernel replays the log), umount, xfs_repair -n (check only,
#         status 0 clean, 1 corruption found), mount again for the verifier.
fsck_then_mount() {
	fs=$1 dev=$2 dir=$3 role=$4
	case $fs in
	ext4)
		e2fsck -fy "$dev" >/tmp/fsck.log 2>&1
		st=$?
		tool=e2fsck
		;;
	xfs)
		tool=xfs_repair
		if ! fs_mount xfs "$dev" "$dir" >/tmp/fsck.log 2>&1; then
			st=mount-failed
		elif ! umount "$dir"; then
			st=umount-failed
		else
			xfs_repair -n "$dev" >/tmp/fsck.log 2>&1
			st=$?
		fi
		;;
	esac
	echo "F $role $tool $st"
	# What fsck found: e2fsck prints each problem on the line before its
	# "Fix? yes"; xfs_repair -n says what it "would" do.
	awk -v role="$role" '
		prev != "" && /\? yes$/ { print "f " role " " prev }
		/would|[Ee]rror|[Cc]orrupt/ { print "f " role " " $0 }
		{ prev = $0 }' /tmp/fsck.log | head -n 20
	fs_mount "$fs" "$dev" "$dir"
}

# pmempool_status POOL: what Debian's pmempool check says of a pool after the
# crash, before pmobjtx opens it (the open's recovery would repair it).
pmempool_status() {
	pmempool check -v "$1" >/tmp/pmempool.log 2>&1
	_rc=$?
	if grep -q ': consistent$' /tmp/pmempool.log; then echo consistent
	elif grep -q 'not consistent' /tmp/pmempool.log; then echo not-consistent
	else echo "error-$_rc"; fi
}

# mkfs with a role file that later boots check (device order must not move).
make_fs() {
	fs=$1 dev=$2 dir=$3 role=$4
	fs_mkfs "$fs" "$dev" && fs_mount "$fs" "$dev" "$dir" &&
		echo "$role" >"$dir/.role" && sync
}

pmem_setup || { err "pmem_setup failed"; exit 1; }
for r in $ROLES; do
	udev_wait "/dev/pmem${r%%:*}" || { err "no /dev/pmem${r%%:*}"; exit 1; }
done

# ---- check the previous round, or make the filesystems ----
w=0
for r in $ROLES; do
	i=${r%%:*} rest=${r#*:}
	fs=${rest%%:*} map=${rest#*:}
	first=$w
	w=$((w + $(echo $(modes_of "$fs") | wc -w)))
	role=$fs-$map dev=/dev/pmem$i dir=/mnt/$role
	mkdir -p "$dir"
	if [ "$BOOT" = 0 ]; then
		make_fs "$fs" "$dev" "$dir" "$role" || { err "mkfs/mount $fs on $dev failed"; exit 1; }
		continue
	fi
	fsck_then_mount "$fs" "$dev" "$dir" "$role" || { err "mount $fs $dev failed after the crash"; exit 1; }
	got=$(cat "$dir/.role" 2>/dev/null)
	[ "$got" = "$role" ] || { err "$dev holds role '$got', expected '$role' (device order changed?)"; exit 1; }
	[ "$VERIFY_GEN" -gt 0 ] || continue
	w=$first
	for mode in $(modes_of "$fs"); do
		eval rec=\${REC_$w:-0}
		set -- -f "$dir/$mode" -n "$PAGES" -s "$SEED" -g "$VERIFY_GEN" -w "$w" -r "$rec" -j \
			-L fs="$fs" -L map="$map" -L mode="$mode" -L crash="$VERIFY_GEN" \
			-L fsck_tool="$tool" -L fsck_status="$st"
		if [ "$mode" = pmdk ]; then
			j=$(pmobjtx --verify "$@" -L pmempool="$(pmempool_status "$dir/$mode")" 2>/tmp/verify.err)
		else
			j=$(pmverify "$@" 2>/tmp/verify.err)
		fi
		# Exit 10 (EXIT_DATA_LOST) still prints its verdict; anything else is an error.
		case $j in
		{*) echo "J $j" ;;
		*) err "pmverify $role/$mode: $(head -n 1 /tmp/verify.err)" ;;
		esac
		rm -f "$dir/$mode" "$dir/$mode.src"
		w=$((w + 1))
	done
	sync
done

if [ "$WRITE_GEN" = 0 ]; then
	for r in $ROLES; do
		rest=${r#*:}
		umount "/mnt/${rest%%:*}-${rest#*:}" || err "umount /mnt/${rest%%:*}-${rest#*:} failed"
	done
	echo "@@done"
	exit 0
fi

# ---- write the next round and wait for the crash ----
# The writers prepare their files and map them, then wait at a gate: all
# start storing at once, and the crash delay counts from that moment.
gate=/tmp/gate
rm -rf "$gate" && mkdir -p "$gate"
pids=
w=0
for r in $ROLES; do
	i=${r%%:*} rest=${r#*:}
	fs=${rest%%:*} map=${rest#*:}
	role=$fs-$map
	for mode in $(modes_of "$fs"); do
		set -- -f "/mnt/$role/$mode" -n "$PAGES" -s "$SEED" -g "$WRITE_GEN" \
			-w "$w" -t "$role-$mode" --hold --gate "$gate" --replace
		[ "$CRASH_METHOD" = sysrq-page ] && [ "$CRASH_WRITER" = "$w" ] &&
			set -- "$@" --crash-after "$CRASH_PAGE"
		case $mode-$map in
		pmdk-sync) pmobjtx "$@" & ;;
		# The control: MAP_SYNC refused, PMDK told the mapping is pmem: no msync.
		pmdk-shared) PMEM_IS_PMEM_FORCE=1 pmobjtx "$@" --no-map-sync & ;;
		*-sync) pmwrite "$@" -m "$mode" -S & ;;
		*) pmwrite "$@" -m "$mode" & ;;
		esac
		pids="$pids $w:$!"
		w=$((w + 1))
	done
done
t=0
while [ "$(ls "$gate" | wc -l)" -lt $w ] && [ "$t" -lt 300 ]; do
	sleep 0.1
	t=$((t + 1))
done
[ "$(ls "$gate" | wc -l)" -ge $w ] || { err "only $(ls "$gate" | wc -l) of $w writers reached the start gate in 30 s"; exit 1; }
touch "$gate/go"
echo "G $w"
if [ "$CRASH_METHOD" = sysrq-delay ]; then
	ms=$((CRASH_DELAY_MS % 1000))
	(sleep "$((CRASH_DELAY_MS / 1000)).$(printf %03d $ms)" && echo c >/proc/sysrq-trigger) &
fi
# The crash ends this loop. A writer that dies first is an error; so is
# still being alive after HOLD_MAX_S.
t=0
while [ "$t" -lt "$((HOLD_MAX_S * 2))" ]; do
	left=
	for p in $pids; do
		if kill -0 "${p#*:}" 2>/dev/null; then
			left="$left $p"
		else
			wait "${p#*:}"
			err "writer ${p%%:*} exited with status $? before the crash"
		fi
	done
	pids=$left
	sleep 0.5
	t=$((t + 1))
done
err "no crash within ${HOLD_MAX_S}s (method $CRASH_METHOD)"
exit 1
