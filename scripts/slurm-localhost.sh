#!/usr/bin/env bash
# A private single-node SLURM cluster on this machine, for testing `ridge sweep --slurm` end to end.
#
#   scripts/slurm-localhost.sh start    start munged, slurmctld and slurmd (no-op when already up);
#                                       silent on success, waits until the node is idle
#   scripts/slurm-localhost.sh stop     cancel the cluster's jobs, stop the daemons it started
#   scripts/slurm-localhost.sh status   prints "up" (exit 0) or "down" (exit 1)
#   scripts/slurm-localhost.sh env      prints `export SLURM_CONF=...`, for eval
#
# When the cluster cannot be started (not root, packages not installable, a daemon refuses) `start`
# prints ONE line saying why on stderr and exits 77, which ctest's SKIP_RETURN_CODE turns into a
# skipped test.
#
# Environment: RIDGE_SLURM_DIR (default /tmp/ridge-slurm) holds everything: slurm.conf, state,
# spool, logs, pid files, the munge socket. Nothing under /etc is edited, except that a munge key
# is created at /etc/munge/munge.key when there is none. RIDGE_SLURM_PORT (default 16817) is the
# slurmctld port; slurmd listens on the next one. Every slurm command finds the configuration
# through SLURM_CONF (see `env`); the daemons get it the same way.
#
# What was found setting this up (Debian 12, slurm-wlm 22.05.8, munge 0.5.15, root in a container
# without systemd, under gVisor):
# - Packages: slurm-wlm and munge install cleanly with plain apt-get, no systemd needed. Their
#   postinst calls invoke-rc.d to start munge, slurmctld and slurmd, which does nothing here: the
#   image's policy-rc.d denies it, and without that policy-rc.d (tried) invoke-rc.d finds no
#   runlevel and starts nothing either. Where services do start, slurmctld/slurmd do not (systemd's
#   ConditionPathExists=/etc/slurm/slurm.conf, the init scripts' "Not starting", exit 0) and a
#   system munged on /run/munge is harmless: this cluster uses its own socket. So no policy-rc.d
#   fix is needed. The munge postinst creates /etc/munge/munge.key.
# - munged runs as the munge user (it insists the key belongs to the user running it), with its
#   socket, pid, log and seed files in the private directory; slurm is pointed at that socket
#   with AuthInfo=socket=... (used by auth/munge and cred/munge, clients and daemons alike), so a
#   system munged, if any, is neither needed nor disturbed.
# - Hostname: slurmctld only runs on a host named in SlurmctldHost, and slurmd takes its node
#   name from the short hostname. So the configuration names the real short hostname
#   (`hostname -s`) for both, with the address forced to 127.0.0.1
#   (SlurmctldHost=NAME(127.0.0.1), NodeAddr=127.0.0.1), so that the hostname need not resolve,
#   and slurmd is started with -N NAME.
# - Node size: the NodeName line comes from `slurmd -C` (real CPUs, sockets, cores, RealMemory);
#   a configuration bigger than what slurmd detects would drain the node.
# - cgroups: with ProctrackType=proctrack/linuxproc, TaskPlugin=task/none and
#   JobAcctGatherType=jobacct_gather/none slurmd starts without a cgroup.conf; none is written.
# - sacct: with AccountingStorageType=accounting_storage/none (no slurmdbd) plain
#   `sacct -j ID --parsable2 --noheader -o JobID,State` prints nothing on stdout, "Slurm accounting
#   storage is disabled" on stderr, and exits 1. JobCompType=jobcomp/filetxt, set here, writes one
#   line per finished job to $RIDGE_SLURM_DIR/log/jobcomp.log, and `sacct -c` (--completion) reads
#   that file: `sacct -c -j ID --parsable2 --noheader -o JobID,State` prints "ID|COMPLETED", exit 0.
#   Its limits: raw job ids only (an array task is its own id, e.g. 8, not 5_1, and `-j 5` matches
#   only the task whose raw id is 5), one "error: Unknown type ArrayJobId" line per array task on
#   stderr, no steps. For job state, squeue (pending/running) and `scontrol show job ID` (any
#   state, for MinJobAge = 300 s after the end; all tasks of an array) are the dependable tools.
# - Start takes about 0.5 s here, stop well under 1 s.
set -euo pipefail

dir=${RIDGE_SLURM_DIR:-/tmp/ridge-slurm}
port=${RIDGE_SLURM_PORT:-16817}
conf=$dir/etc/slurm.conf
export SLURM_CONF=$conf
name=$(hostname -s 2>/dev/null || hostname)

skip() {
  echo "slurm-localhost: $*" >&2
  exit 77
}

pid_alive() {  # pid_alive FILE: the pid in FILE is a live process
  local pid
  [ -s "$1" ] || return 1
  pid=$(cat "$1" 2>/dev/null) || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && ! is_zombie "$pid"
}

is_zombie() {  # a killed daemon stays a zombie until pid 1 reaps it, and kill -0 still finds it
  [ "$(awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null)" = Z ]
}

is_up() {  # the three daemons run and the node answers in a usable state
  pid_alive "$dir/run/munged.pid" && pid_alive "$dir/run/slurmctld.pid" &&
    pid_alive "$dir/run/slurmd.pid" && [ -f "$conf" ] &&
    timeout 10 sinfo -h -N -n "$name" -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated|completing)'
}

install_packages() {
  local missing=() p
  for p in slurm-wlm munge; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null || skip "packages ${missing[*]} missing and no apt-get to install them"
  export DEBIAN_FRONTEND=noninteractive
  local ok=1
  apt-get update -qq >/dev/null 2>&1 || true
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 || ok=0
  [ $ok -eq 1 ] || skip "apt-get could not install ${missing[*]}"
}

write_config() {
  mkdir -p "$dir"/{etc,state,spool,log,run,munge}
  chmod 755 "$dir" "$dir/etc" "$dir/log" "$dir/run"
  rm -f "$dir"/log/*.log  # each start's logs alone, for the tests' diagnostics
  local node
  # slurmd -C prints "NodeName=HOST CPUs=.. Boards=.. SocketsPerBoard=.. CoresPerSocket=..
  # ThreadsPerCore=.. RealMemory=..": the machine as slurmd will see it.
  node=$(slurmd -C 2>/dev/null | head -n1 | sed -n 's/^NodeName=[^ ]* //p')
  if [ -z "$node" ]; then
    local mem
    mem=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
    node="CPUs=$(nproc) RealMemory=$mem"
  fi
  cat >"$conf" <<EOF
# Written by scripts/slurm-localhost.sh; regenerated at each start.
ClusterName=ridge-localhost
SlurmctldHost=$name(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
MpiDefault=none
SwitchType=switch/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.log
SchedulerType=sched/backfill
# batch_sched_delay=0: a job freed by another one's end starts within ~1 s, not 3 s
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=300
KillWait=5
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=60
NodeName=$name NodeAddr=127.0.0.1 NodeHostname=$name $node State=UNKNOWN
PartitionName=debug Nodes=$name Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munged() {
  local key=/etc/munge/munge.key
  id munge >/dev/null 2>&1 || skip "no munge user (is the munge package installed properly?)"
  if [ ! -s "$key" ]; then
    mkdir -p /etc/munge
    chown munge:munge /etc/munge && chmod 700 /etc/munge
    runuser -u munge -- mungekey -c -k "$key" >/dev/null 2>&1 ||
      skip "could not create the munge key $key"
  fi
  chown munge:munge "$key" && chmod 400 "$key"
  chown munge:munge "$dir/munge" && chmod 755 "$dir/munge"  # munged wants a+x on the socket dir
  rm -f "$dir/munge/munge.socket" "$dir/munge/munge.socket.lock"
  # munged puts its pid file where asked; it must be writable by munge.
  runuser -u munge -- munged 9>&- \
    --socket="$dir/munge/munge.socket" --key-file="$key" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
    --seed-file="$dir/munge/munged.seed" >"$dir/log/munged.out" 2>&1 ||
    skip "munged refused to start: $(tail -n1 "$dir/log/munged.out" 2>/dev/null)"
  local i
  for i in $(seq 50); do
    [ -s "$dir/munge/munged.pid" ] && [ -S "$dir/munge/munge.socket" ] && break
    sleep 0.1
  done
  cp "$dir/munge/munged.pid" "$dir/run/munged.pid" 2>/dev/null ||
    skip "munged did not start: $(tail -n1 "$dir/munge/munged.log" 2>/dev/null)"
  munge -n --socket="$dir/munge/munge.socket" | unmunge --socket="$dir/munge/munge.socket" \
    >/dev/null 2>&1 || skip "munged does not answer on $dir/munge/munge.socket"
}

stop_pids() {  # stop_pids FILE...: TERM the pids in the FILEs, KILL those left after 10 s
  local f pid pids=() i
  for f in "$@"; do
    pid=$(cat "$f" 2>/dev/null || true)
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && ! is_zombie "$pid"; then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
  done
  [ ${#pids[@]} -gt 0 ] || { rm -f "$@"; return 0; }
  for i in $(seq 100); do
    pid=""
    for pid in "${pids[@]}"; do
      kill -0 "$pid" 2>/dev/null && ! is_zombie "$pid" && break
      pid=""
    done
    [ -z "${pid:-}" ] && break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do
    if kill -0 "$pid" 2>/dev/null && ! is_zombie "$pid"; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  rm -f "$@"
}

stop_all() {
  # Cancel the cluster's jobs first (while munged is there to sign the request).
  if [ -f "$conf" ] && pid_alive "$dir/run/slurmctld.pid" && pid_alive "$dir/run/munged.pid"; then
    local jobs
    jobs=$(timeout 5 squeue -h -o %A 2>/dev/null || true)
    if [ -n "$jobs" ]; then
      # shellcheck disable=SC2086
      timeout 5 scancel $jobs >/dev/null 2>&1 || true
      sleep 1
    fi
  fi
  stop_pids "$dir/run/slurmd.pid" "$dir/run/slurmctld.pid"
  stop_pids "$dir/run/munged.pid"
  rm -f "$dir/munge/munged.pid"
}

last_log_error() {  # the last error line of a daemon log, for the one-line reason
  # (the mpi/pmix errors are noise: slurm loads every MPI plugin, and there is no PMIx library)
  grep -iE 'error|fatal' "$1" 2>/dev/null | grep -viE 'pmix|MPI:' | tail -n1 | cut -c1-200
}

start() {
  [ "$(id -u)" -eq 0 ] || skip "must run as root to start slurmctld/slurmd (uid $(id -u))"
  install_packages
  for b in munged munge slurmctld slurmd sinfo sbatch squeue scontrol; do
    command -v "$b" >/dev/null || skip "$b not found after installing slurm-wlm and munge"
  done
  if is_up; then
    return 0
  fi
  stop_all  # whatever is left of an earlier, half-started cluster
  write_config
  start_munged
  : >"$dir/log/slurmctld.out"
  : >"$dir/log/slurmd.out"
  # -c: start with no jobs from an earlier run; -i: ignore unreadable state files.
  slurmctld -c -i -f "$conf" 9>&- >"$dir/log/slurmctld.out" 2>&1 ||
    { stop_all; skip "slurmctld refused to start: $(tail -n1 "$dir/log/slurmctld.out")"; }
  # slurmctld forks before it binds its port: it can still die (port taken, bad configuration),
  # so stop waiting as soon as the daemon is gone (it writes its pid file right after the fork).
  local i up=0
  for i in $(seq 100); do
    if [ -s "$dir/run/slurmctld.pid" ]; then
      pid_alive "$dir/run/slurmctld.pid" || break
    elif [ "$i" -gt 25 ]; then
      break
    fi
    timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP' && { up=1; break; }
    sleep 0.2
  done
  [ $up -eq 1 ] || {
    local why
    why=$(last_log_error "$dir/log/slurmctld.log")
    stop_all
    skip "slurmctld did not come up: ${why:-see $dir/log/slurmctld.log}"
  }
  slurmd -N "$name" -f "$conf" 9>&- >"$dir/log/slurmd.out" 2>&1 ||
    { stop_all; skip "slurmd refused to start: $(tail -n1 "$dir/log/slurmd.out")"; }
  local state="" t0=$SECONDS
  for i in $(seq 150); do
    state=$(timeout 5 sinfo -h -N -n "$name" -o %T 2>/dev/null || true)
    [ "$state" = idle ] && return 0
    if [ -s "$dir/run/slurmd.pid" ]; then
      pid_alive "$dir/run/slurmd.pid" || { state="$state, slurmd exited"; break; }
    fi
    # (with its port taken slurmd stays, retrying the bind)
    grep -qE 'fatal:|Unable to bind' "$dir/log/slurmd.log" 2>/dev/null && break
    sleep 0.2
  done
  local why
  why=$(last_log_error "$dir/log/slurmd.log")
  [ -n "$why" ] || why=$(last_log_error "$dir/log/slurmctld.log")
  stop_all
  skip "node $name not idle after $((SECONDS - t0)) s (state '${state}'): ${why:-see $dir/log}"
}

lock() {  # one start or stop at a time
  case $dir in *[[:space:]]*) skip "RIDGE_SLURM_DIR '$dir' has a space: slurm.conf cannot take it" ;; esac
  mkdir -p "$dir" 2>/dev/null || skip "cannot create $dir"
  exec 9>"$dir/.lock" || skip "cannot write $dir/.lock"
  flock -w 120 9 || skip "another slurm-localhost.sh holds $dir/.lock"
}

case "${1:-}" in
  start)
    [ "$(id -u)" -eq 0 ] || skip "must run as root to start slurmctld/slurmd (uid $(id -u))"
    lock
    start
    ;;
  stop)
    [ -d "$dir" ] || exit 0
    lock
    stop_all
    ;;
  status)
    if is_up; then echo up; else echo down; exit 1; fi
    ;;
  env) printf 'export SLURM_CONF=%q\n' "$conf" ;;
  *)
    echo "usage: $0 start|stop|status|env" >&2
    exit 2
    ;;
esac
