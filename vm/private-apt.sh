# Sourced: apt on Debian suites the machine does not list, without touching
# /etc/apt. apt reads a private source list and keeps private package lists
# and its cache under a folder of ours; downloads are made as root (apt's sandbox user
# cannot write to our tree).
#   papt_init DIR SUITE...   write DIR/sources.list, update DIR/lists
#   papt get|cache ARGS...   apt-get / apt-cache on those suites

# The Debian mirror this machine already uses (.../debian).
papt_mirror() {
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
		sed -n 's|^deb \(\[[^]]*\] \)\{0,1\}\(https\{0,1\}://[^ ]*/debian\)/\{0,1\} .*|\2|p; s|^URIs: *\(https\{0,1\}://[^ ]*/debian\)/\{0,1\}$|\1|p' |
		head -n 1
}

papt_init() {
	PAPT_DIR=$1; shift
	mirror=$(papt_mirror)
	[ -n "$mirror" ] || { echo "private-apt: no Debian mirror found in /etc/apt" >&2; return 1; }
	mkdir -p "$PAPT_DIR/lists/partial" "$PAPT_DIR/cache/archives/partial" || return 1
	PAPT_DIR=$(cd "$PAPT_DIR" && pwd)	# apt takes relative Dir:: paths as relative to its own
	key=/usr/share/keyrings/debian-archive-keyring.gpg
	for s; do
		# Security updates live in their own archive next to the mirror's.
		case $s in *-security) echo "deb [signed-by=$key] $mirror-security $s main" ;;
		*) echo "deb [signed-by=$key] $mirror $s main" ;; esac
	done >"$PAPT_DIR/sources.list"
	papt get update >/dev/null || { echo "private-apt: apt-get update of $* failed" >&2; return 1; }
}

papt() {
	tool=apt-$1; shift
	"$tool" -q -o Dir::Etc::SourceList="$PAPT_DIR/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$PAPT_DIR/lists" -o Dir::Cache="$PAPT_DIR/cache" \
		-o APT::Sandbox::User=root "$@"
}
