# The scenario matrix for shell scripts: bench/scenarios.txt, one row per
# scenario. Set suite_lib (as for exitcodes.sh: the repo's lib/ on the host,
# /suite/lib in the guest) before sourcing.
#   scenarios SET          the names of SET's rows, in table order
#   scenario_field NAME F  column F (state load sync size letter sets) of NAME
#   scenario_args NAME     its faultlat flags: -s STATE -l LOAD [--sync]
#                          [--fault-size pmd] (pages and the file are the caller's)
#   scenario_known NAME    true when NAME is a row
scenario_table=${suite_lib:?set suite_lib before sourcing scenarios.sh}/../bench/scenarios.txt

scenarios() {
	awk -v set="$1" '!/^#/ && NF >= 7 && index("," $7 ",", "," set ",") { print $1 }' "$scenario_table"
}

scenario_field() {
	awk -v n="$1" -v f="$2" '
		BEGIN { split("name state load sync size letter sets", c, " "); for (i in c) col[c[i]] = i }
		!/^#/ && $1 == n { print $col[f]; found = 1; exit }
		END { exit !found }' "$scenario_table"
}

scenario_known() {
	scenario_field "$1" name >/dev/null
}

scenario_args() {
	awk -v n="$1" '!/^#/ && $1 == n {
		printf "-s %s -l %s%s%s\n", $2, $3, $4 == "sync" ? " --sync" : "", $5 == "pmd" ? " --fault-size pmd" : ""
		found = 1; exit
	} END { exit !found }' "$scenario_table"
}
