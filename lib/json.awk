# JSON for the suite's awk programs (kernel-config/check-config.sh,
# results/report.sh): the awk side of lib/json.c. A script reads this file
# and puts it in front of its own program:
#	json_awk=$(cat "$here/../lib/json.awk") || exit 2
#	awk "$json_awk"'
#	... esc(s) ...' FILE
#
# esc(s): s as the inside of a JSON string. Character by character: gsub
# replacements treat backslashes differently in mawk, gawk and busybox awk.
function esc(s,    i, c, out, n) {
	if (!_esc_init) {
		_esc_init = 1
		for (n = 1; n < 32; n++) _ESC[sprintf("%c", n)] = sprintf("\\u%04x", n)
		_ESC["\t"] = "\\t"; _ESC["\n"] = "\\n"; _ESC["\r"] = "\\r"
		_ESC["\\"] = "\\\\"; _ESC["\""] = "\\\""
	}
	out = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		out = out ((c in _ESC) ? _ESC[c] : c)
	}
	return out
}
