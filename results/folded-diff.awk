# Which waits grew: daxlat --folded files of two sides, one filesystem's
# stacks ("[FS metadata sync];SLEEPER...;--;WAKER... NS"), the time per
# fault of each stack pair (results/gate-explain.sh).
# Usage: awk -v fs=ext4 -v nbase=N -v nnew=N -f folded-diff.awk side=base FILE... side=new FILE...
# Prints "change_ns base_ns new_ns STACK" per stack pair.
index($0, "[" fs " metadata sync];") == 1 {
	v = $NF
	$NF = ""
	sub(/ $/, "")
	t[side, $0] += v
	seen[$0] = 1
}
END {
	for (s in seen) {
		b = nbase ? t["base", s] / nbase : 0
		w = nnew ? t["new", s] / nnew : 0
		printf "%.0f %.0f %.0f %s\n", w - b, b, w, s
	}
}
