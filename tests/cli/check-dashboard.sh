#!/bin/sh
# check-dashboard.sh: contrib's Grafana dashboard asks only for what memcgctl exports and keeps
# hosts apart: every metric a panel, annotation or variable query names is a family `export`
# prints on the fixture trees (v1, v2) or one memcgctl-export(8) names (those printed only by
# --listen or where reclaimd runs); every aggregation keeps `instance` (by (..., instance) or
# without (...) not dropping it; topk/bottomk keep every label); every legend and annotation
# text shows {{instance}}; every selector of a panel filters instance=~"$instance".
# With MCG_MK_STORE (tests/cli/dump/mk-store): the opt-in family store, exported from a store
# it writes, is a family too, and every memcgctl_store_* the dashboard names must be printed
# there (not only documented); each type="..." an annotation asks for is one it counts or one
# memcgctl-export(8) names.
# usage: check-dashboard.sh MEMCGCTL SRCDIR [DASHBOARD]
set -eu
bin=$1 src=$2
dash=${3:-$src/contrib/grafana/memcgctl-dashboard.json}
fix=$src/tests/cli/fixtures
command -v jq >/dev/null || { echo "check-dashboard: jq is missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
bad() { echo "check-dashboard: $*"; rc=1; }

# the families: what export prints on the fixtures, and what its man page names
for v in v1 v2; do
	"$bin" --root "$fix/$v/cgroup" export >"$tmp/$v.prom" 2>/dev/null || true
	[ -s "$tmp/$v.prom" ] || { echo "check-dashboard: export printed nothing on $v"; exit 1; }
done
: >"$tmp/store.prom"
if [ -n "${MCG_MK_STORE:-}" ]; then
	"$MCG_MK_STORE" "$tmp/store" || { echo "check-dashboard: mk-store failed"; exit 1; }
	"$bin" --root "$fix/v1/cgroup" export --families store --store "$tmp/store" >"$tmp/store.prom" ||
		{ echo "check-dashboard: export --families store failed"; exit 1; }
	grep -q '^memcgctl_store_events_total{' "$tmp/store.prom" ||
		{ echo "check-dashboard: export --families store printed no event"; exit 1; }
fi
awk '$1 == "#" && $2 == "TYPE" { print $3 }' "$tmp/v1.prom" "$tmp/v2.prom" "$tmp/store.prom" >"$tmp/fams"
sed 's/\\f[BIRP]//g; s/\\-/-/g' "$src/man/memcgctl-export.8" | grep -o 'memcgctl_[a-z0-9_]*[a-z0-9]' >>"$tmp/fams"
sort -u -o "$tmp/fams" "$tmp/fams"

jq -e . "$dash" >/dev/null || { echo "check-dashboard: $dash is not JSON"; exit 1; }
# one query a line: panels' targets, annotations, variables
jq -r '(.panels[].targets[]?.expr), (.annotations.list[]? | select(.expr) | .expr),
	(.templating.list[]? | select(.definition) | .definition)' "$dash" >"$tmp/exprs"
n=$(wc -l <"$tmp/exprs")
[ "$n" -ge 10 ] || bad "only $n queries found"
while IFS= read -r e; do
	for m in $(printf '%s\n' "$e" | grep -o 'memcgctl_[a-z0-9_]*[a-z0-9]' | sort -u); do
		grep -qx "$m" "$tmp/fams" || bad "'$e' names $m, which export does not print or document"
	done
	# aggregations: by (...) must name instance, without (...) must not
	printf '%s\n' "$e" | grep -oE '(sum|count|avg|min|max|group|stddev|stdvar|quantile|count_values)[[:space:]]*(by|without)[[:space:]]*\([^)]*\)' |
		while IFS= read -r a; do
			case $a in
			*without*) case $a in *instance*) echo "drops instance: $a" ;; esac ;;
			*) case $a in *instance*) ;; *) echo "aggregates across hosts: $a" ;; esac ;;
			esac
		done >"$tmp/agg"
	[ ! -s "$tmp/agg" ] || bad "'$e': $(cat "$tmp/agg")"
	# an aggregation without a by or without: across every host (postfix "by" is not used here)
	if printf '%s\n' "$e" | grep -qE '(^|[^a-z_])(sum|count|avg|min|max|group|stddev|stdvar|quantile|count_values)[[:space:]]*\('; then
		bad "'$e' aggregates without by (instance, ...)"
	fi
done <"$tmp/exprs"

# panels: legends with the instance, every selector filtered by the host variable
jq -r '.panels[] | .title as $t | .targets[]? | [$t, .legendFormat // "", .expr] | @tsv' "$dash" >"$tmp/targets"
while IFS="$(printf '\t')" read -r t l e; do
	case $l in *'{{instance}}'*) ;; *) bad "panel '$t': legend '$l' has no {{instance}}" ;; esac
	for s in $(printf '%s\n' "$e" | grep -oE 'memcgctl_[a-z0-9_]+(\{[^}]*\})?' | tr ' ' '_'); do
		case $s in *'instance=~"$instance"'*) ;; *) bad "panel '$t': '$s' is not filtered by \$instance" ;; esac
	done
done <"$tmp/targets"
jq -r '.annotations.list[]? | select(.expr) | [.name, .textFormat // ""] | @tsv' "$dash" |
	while IFS="$(printf '\t')" read -r a t; do
		case $t in *'{{instance}}'*) ;; *) echo "annotation '$a': text '$t' has no {{instance}}" ;; esac
	done >"$tmp/ann"
[ ! -s "$tmp/ann" ] || bad "$(cat "$tmp/ann")"
# the store's events: printed by export --families store, of a type it counts or documents
if [ -s "$tmp/store.prom" ]; then
	ns=0
	while IFS= read -r e; do
		for m in $(printf '%s\n' "$e" | grep -o 'memcgctl_store_[a-z0-9_]*[a-z0-9]' | sort -u); do
			ns=$((ns + 1))
			grep -q "^# TYPE $m " "$tmp/store.prom" || bad "'$e' names $m, which export --families store does not print"
		done
		for t in $(printf '%s\n' "$e" | grep 'memcgctl_store_' | grep -o 'type="[a-z0-9_]*"' | sort -u); do
			grep -qF "$t" "$tmp/store.prom" ||
				sed 's/\\f[BIRP]//g; s/\\-/-/g' "$src/man/memcgctl-export.8" | grep -qF "$t" ||
				bad "'$e' asks for $t, which the store family neither counts on mk-store's store nor documents"
		done
	done <"$tmp/exprs"
	[ "$ns" -ge 3 ] || bad "only $ns queries on the store's events (set-limit, empty, OOM)"
fi
[ $rc = 0 ] && echo "check-dashboard: $n queries name exported families and keep instance"
exit $rc
