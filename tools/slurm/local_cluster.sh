#!/usr/bin/env bash
# Starts (or stops) a single-node Slurm cluster on this machine, as root, for
# trying tools/slurm/sweep.sbatch without a real cluster. Needs Debian's
# slurmctld, slurmd, slurm-client and munge. Every instance has its own state
# directory, its own munged (own key and socket) and its own ports, so two
# users (or two instances: UMSIM_SLURM_DIR) on one machine do not collide and
# `stop` ends everything `start` started. Clients need SLURM_CONF, which
# `start` prints.
#
#   eval "$(tools/slurm/local_cluster.sh start)"   # exports SLURM_CONF
#   sbatch --array=0-1 tools/slurm/sweep.sbatch t.umtb -- --evict lru
#   tools/slurm/local_cluster.sh stop
#
# UMSIM_SLURM_DIR: state directory (default /tmp/umsim-slurm-USER).
# UMSIM_SLURM_PORT: slurmctld's port; slurmd uses the next one (default:
#   derived from the state directory, in 20000-39998).
set -euo pipefail
user=${SUDO_USER:-$(id -un)}
dir=${UMSIM_SLURM_DIR:-/tmp/umsim-slurm-$user}
conf=$dir/slurm.conf
munge_dir=$dir/munge
port=${UMSIM_SLURM_PORT:-$(( 20000 + 2 * ($(printf '%s' "$dir" | cksum | cut -d' ' -f1) % 10000) ))}

start() {
  for cmd in slurmctld slurmd sinfo munged mungekey; do
    command -v "$cmd" >/dev/null || [[ -x /usr/sbin/$cmd ]] ||
      { echo "local_cluster.sh: $cmd missing: apt-get install slurmctld slurmd slurm-client munge" >&2; exit 1; }
  done
  [[ $(id -u) -eq 0 ]] || { echo "local_cluster.sh: run as root (slurmd starts jobs as their users)" >&2; exit 1; }
  if [[ -s $dir/ctld.pid ]] && kill -0 "$(cat "$dir/ctld.pid")" 2>/dev/null; then
    echo "local_cluster.sh: already running in $dir (stop it first)" >&2
    exit 1
  fi
  mkdir -p "$dir/state" "$dir/spool" "$dir/log"
  # This instance's own munged, run as the munge user (munged refuses root):
  # its key, socket, pid and log live in $dir/munge.
  install -d -o munge -g munge -m 0700 "$munge_dir"
  if [[ ! -s $munge_dir/munge.key ]]; then
    PATH=$PATH:/usr/sbin mungekey --create --keyfile="$munge_dir/munge.key"
    chown munge:munge "$munge_dir/munge.key" && chmod 0400 "$munge_dir/munge.key"
  fi
  setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/munged --force \
    --key-file="$munge_dir/munge.key" --socket="$munge_dir/munge.socket" --pid-file="$munge_dir/munged.pid" \
    --log-file="$munge_dir/munged.log" --seed-file="$munge_dir/munged.seed"
  local mem
  mem=$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
  cat >"$conf" <<CONF
ClusterName=umsim
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
AuthInfo=socket=$munge_dir/munge.socket
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

# Ends the process whose pid is in file $1 (if it still runs) and waits up to 3 s.
end_pid_file() {
  [[ -s $1 ]] || return 0
  local pid
  pid=$(cat "$1")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  rm -f "$1"
}

stop() {
  end_pid_file "$dir/d.pid"
  end_pid_file "$dir/ctld.pid"
  end_pid_file "$munge_dir/munged.pid"
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
