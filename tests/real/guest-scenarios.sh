# guest-scenarios.sh: the guest side the QEMU tiers share (tests/real-v2/guest-init.sh, PID 1
# of a busybox guest; tests/real-systemd/guest-run.sh, a unit under systemd): the setup
# status and running the scenarios. Sourced (POSIX sh, busybox ash) from /mcg/src/tests/real;
# the caller defines log.

status=ok
# fail_setup REASON: no scenario runs; the guest reports the first REASON
fail_setup() {
	log "setup failed: $*"
	[ "$status" = ok ] && status="setup-failed: $*"
}

# guest_run_scenarios DATA RESULTS TIMEOUT SCENARIO...: each scenario in turn, in its own
# DATA/NAME (removed after it), with its own MCG_PREFIX, killed after TIMEOUT seconds. Its
# stdout, stderr, exit status and wall seconds go to RESULTS/s/NAME/{out,err,rc,secs}, what
# it leaves in $MCG_ARTIFACTS to RESULTS/s/NAME/artifacts. scenario_done RC (the caller's,
# if it defines one) runs after each.
scenario_done() { :; }
guest_run_scenarios() {
	gs_data=$1 gs_res=$2 gs_timeout=$3
	shift 3
	gs_n=0
	for gs_path; do
		gs_n=$((gs_n + 1))
		gs_name=${gs_path##*/}
		gs_name=${gs_name%.sh}
		gs_dir=$gs_res/s/$gs_name
		mkdir -p "$gs_dir/artifacts" "$gs_data/$gs_name"
		log "scenario $gs_name: start"
		gs_t0=$(date +%s)
		(
			cd "$gs_data/$gs_name" || exit 125
			export MCG_PREFIX="memcgctl-test-$gs_n-$$"
			export MCG_SCENARIO_INDEX=$gs_n
			export MCG_DATADIR="$gs_data/$gs_name"
			export MCG_ARTIFACTS="$gs_dir/artifacts"
			exec timeout -s KILL "$gs_timeout" sh "$gs_path"
		) >"$gs_dir/out" 2>"$gs_dir/err" </dev/null
		gs_rc=$?
		gs_t1=$(date +%s)
		echo "$gs_rc" >"$gs_dir/rc"
		echo $((gs_t1 - gs_t0)) >"$gs_dir/secs"
		scenario_done "$gs_rc"
		rm -rf "${gs_data:?}/$gs_name"
		log "scenario $gs_name: exit $gs_rc after $((gs_t1 - gs_t0)) s"
	done
}
