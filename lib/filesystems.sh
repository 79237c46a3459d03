# The filesystem table for shell scripts: vm/guest/filesystems.txt, one row
# per filesystem (its comment says what the columns mean). Set suite_lib
# (the repo's lib/ on the host, /suite/lib in the guest) before sourcing.
#   fs_list               the filesystems, in table order
#   fs_field TYPE COLUMN  one cell of TYPE's row (module metadata fsck_ok commits states mkfs)
#   fs_has_state TYPE STATE  true when TYPE can give a file in STATE (faultlat -s)
fs_table=${suite_lib:?set suite_lib before sourcing filesystems.sh}/../vm/guest/filesystems.txt

fs_list() {
	awk -F' *[|] *' '!/^#/ && NF >= 7 { print $1 }' "$fs_table"
}

fs_field() {
	awk -F' *[|] *' -v fs="$1" -v c="$2" '
		BEGIN { split("fs module metadata fsck_ok commits states mkfs", n, " "); for (i in n) col[n[i]] = i }
		!/^#/ && $1 == fs { print $col[c]; found = 1; exit } END { exit !found }' "$fs_table"
}

fs_has_state() {
	case " $(fs_field "$1" states) " in *" $2 "*) return 0 ;; esac
	return 1
}
