#!/usr/bin/env bash
# Starts (or stops) a single-node Slurm cluster on this machine, as root, for
# trying tools/slurm/sweep.sbatch without a real cluster. Needs Debian's
# slurmctld, slurmd, slurm-client and munge. State lives in $UMSIM_SLURM_DIR
# (default /tmp/umsim-slurm); clients need SLURM_CONF, which `start` prints.
#
#   eval "$(tools/slurm/local_cluster.sh start)"   # exports SLURM_CONF
#   sbatch --array=0-1 tools/slurm/sweep.sbatch t.umtb -- --evict lru
#   tools/slurm/local_cluster.sh stop
set -euo pipefail
dir=${UMSIM_SLURM_DIR:-/tmp/umsim-slurm}
conf=$dir/slurm.conf

start() {
  for cmd in slurmctld slurmd sinfo munged; do
    command -v "$cmd" >/dev/null || [[ -x /usr/sbin/$cmd ]] ||
      { echo "local_cluster.sh: $cmd missing: apt-get install slurmctld slurmd slurm-client munge" >&2; exit 1; }
  done
  mkdir -p "$dir/state" "$dir/spool" "$dir/log"
  # munge: /run/munge is missing without systemd-tmpfiles; munged refuses to run as root.
  install -d -o munge -g munge -m 0755 /run/munge
  if [[ ! -s /etc/munge/munge.key ]]; then
    mungekey --create >/dev/null 2>&1 || /usr/sbin/mungekey --create
    chown munge:munge /etc/munge/munge.key && chmod 0400 /etc/munge/munge.key
  fi
  [[ -S /run/munge/munge.socket.2 ]] || setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/munged
  local mem
  mem=$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
  cat >"$conf" <<CONF
ClusterName=umsim
SlurmctldHost=localhost
SlurmUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=localhost CPUs=$(nproc) RealMemory=$mem
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$conf
  # Started directly (not in a subshell chain) so that $! is each daemon's pid.
  slurmctld -D -i >"$dir/log/slurmctld.out" 2>&1 &
  echo $! >"$dir/ctld.pid"
  slurmd -D -N localhost >"$dir/log/slurmd.out" 2>&1 &
  echo $! >"$dir/d.pid"
  for _ in $(seq 100); do
    [[ $(sinfo -h -N -o %t 2>/dev/null) == idle ]] && { echo "export SLURM_CONF=$conf"; return; }
    sleep 0.2
  done
  echo "local_cluster.sh: the node did not become idle; see $dir/log" >&2
  stop
  exit 1
}

stop() {
  for f in "$dir/d.pid" "$dir/ctld.pid"; do
    [[ -s $f ]] || continue
    kill "$(cat "$f")" 2>/dev/null || true
    for _ in $(seq 30); do kill -0 "$(cat "$f")" 2>/dev/null || break; sleep 0.1; done
    rm -f "$f"
  done
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
