# Reading a run's label, meta.txt (KEY=VALUE lines, vm/label.sh and the run
# scripts write them): the one reader for shell scripts.
#   meta_get FILE KEY    KEY's first value, its shell quotes removed
meta_get() {
	sed -n "s/^$2=//p" "$1" 2>/dev/null | head -n 1 | sed "s/^'\(.*\)'\$/\1/"
}
