#!/usr/bin/env python3
"""Files one GPU-machine call's results.tgz (hip_backend/device_run.sh) where the
repository keeps every call, so that later calls can be judged against it
(docs/hip_backend.md, "After a GPU-machine call"):

  hw/*.json, probe/, hw_host/, host_modes/, host_cpus/ and the machine's logs
      -> hip_backend/results/GPU/sessionN/ (probe/, host/, host_modes/, host_cpus/, machine.txt, dev-nodes.txt,
         probe.log, lscpu.txt)
  raw/ (a calibration)
      -> profiles/raw/GPU/later/sessionN/ (calibration.json, the calibration's trace
         runs, its fitted profile as calibrated.toml, calibrate.log, nvidia-smi.txt,
         uvm-params.txt, machine.txt)
  diag/ (with --diag NAME)
      -> hip_backend/results/GPU/diag_NAME/ (every run and record, machine.txt), and
         hip_backend/pending_diagnostics/NAME/ moves to its traces/

GPU is the profile family of the machine's GPU (logs/machine.txt's `gpu=`):
GPU_DIRS below, or --gpu DIR for another. Nothing is overwritten: a session
or diagnostic folder that exists already is refused before anything is
written, and the files are unpacked into a temporary folder first, so a bad
archive leaves the repository as it was. A two-GPU call's hw2/ results are
not filed here (the two-GPU suite has its own folder, docs/validation.md).

usage: install_call.py [--root DIR] [--gpu DIR] [--diag NAME] RESULTS.tgz SESSION
SESSION is the call's number (sessionN). --root is the repository (default:
this script's). Prints what it wrote, one folder per line.
"""
import argparse
import os
import shutil
import sys
import tarfile
import tempfile

GPU_DIRS = {
    "NVIDIA H200": "h200-pcie5",
    "NVIDIA H100 80GB HBM3": "h100-hbm3",
}
MACHINE_LOGS = ["machine.txt", "dev-nodes.txt", "probe.log", "lscpu.txt"]  # beside the suite's results (lscpu.txt: host_cpus)
CALIBRATION_LOGS = ["calibrate.log", "nvidia-smi.txt", "uvm-params.txt", "machine.txt"]


def fail(message):
    sys.exit(f"install_call.py: {message}")


def unpack(archive, into):
    """The archive's results/ folder, unpacked under `into`."""
    try:
        with tarfile.open(archive) as tar:
            for member in tar.getmembers():
                name = os.path.normpath(member.name)
                if name.startswith("..") or os.path.isabs(name) or not (member.isfile() or member.isdir()):
                    fail(f"{archive}: member '{member.name}' is not a plain file or folder inside the archive")
            tar.extractall(into)
    except (OSError, tarfile.TarError) as e:
        fail(f"{archive}: not a readable results archive ({type(e).__name__}: {e})")
    results = os.path.join(into, "results")
    if not os.path.isfile(os.path.join(results, "logs", "machine.txt")):
        fail(f"{archive}: no results/logs/machine.txt (not a hip_backend/device_run.sh results.tgz)")
    return results


def machine_gpu(results, archive):
    with open(os.path.join(results, "logs", "machine.txt")) as f:
        for number, line in enumerate(f, 1):
            if line.startswith("gpu="):
                gpu = line[4:].strip()
                if not gpu:
                    fail(f"{archive}: results/logs/machine.txt line {number}: `gpu=` is empty (no GPU seen)")
                return gpu
    fail(f"{archive}: results/logs/machine.txt has no `gpu=` line")


def files(folder, suffix=""):
    if not os.path.isdir(folder):
        return []
    return sorted(os.path.join(folder, n) for n in os.listdir(folder)
                  if n.endswith(suffix) and os.path.isfile(os.path.join(folder, n)))


def plan(results, root, gpu_dir, session, diag):
    """[(source, destination)] of every file, and the folders they create."""
    copies, folders = [], []
    logs = os.path.join(results, "logs")
    suite = files(os.path.join(results, "hw"), ".json")
    probe = files(os.path.join(results, "probe"), ".json")
    host_modes = files(os.path.join(results, "host_modes"), ".json")  # device_run.sh host_modes
    host_cpus = files(os.path.join(results, "host_cpus"), ".json")  # device_run.sh host_cpus
    if suite or probe or host_modes or host_cpus:
        dest = os.path.join(root, "hip_backend", "results", gpu_dir, f"session{session}")
        folders.append(dest)
        copies += [(f, os.path.join(dest, os.path.basename(f))) for f in suite]
        copies += [(f, os.path.join(dest, "probe", os.path.basename(f))) for f in probe]
        copies += [(f, os.path.join(dest, "host", os.path.basename(f))) for f in files(os.path.join(results, "hw_host"))]
        copies += [(f, os.path.join(dest, "host_modes", os.path.basename(f))) for f in host_modes]
        copies += [(f, os.path.join(dest, "host_cpus", os.path.basename(f))) for f in host_cpus]
        copies += [(os.path.join(logs, n), os.path.join(dest, n)) for n in MACHINE_LOGS
                   if os.path.isfile(os.path.join(logs, n))]
    raw = os.path.join(results, "raw")
    if os.path.isfile(os.path.join(raw, "calibration.json")):
        dest = os.path.join(root, "profiles", "raw", gpu_dir, "later", f"session{session}")
        folders.append(dest)
        copies += [(f, os.path.join(dest, os.path.basename(f))) for f in files(raw, ".json")]
        fitted = [f for f in files(raw, ".toml") if not f.endswith(".before.toml")]
        if len(fitted) != 1:
            fail(f"{raw}: expected one fitted profile (*.toml other than *.before.toml), found {len(fitted)}")
        copies.append((fitted[0], os.path.join(dest, "calibrated.toml")))
        copies += [(os.path.join(logs, n), os.path.join(dest, n)) for n in CALIBRATION_LOGS
                   if os.path.isfile(os.path.join(logs, n))]
    diag_runs = files(os.path.join(results, "diag"))
    if diag_runs and not diag:
        fail("the archive holds a diagnostic's runs (diag/): name it with --diag NAME")
    traces = None
    if diag:
        if not diag_runs:
            fail(f"--diag {diag}: the archive holds no diagnostic runs (diag/)")
        traces = os.path.join(root, "hip_backend", "pending_diagnostics", diag)
        if not os.path.isdir(traces):
            fail(f"--diag {diag}: no folder {traces} (the diagnostic's traces)")
        dest = os.path.join(root, "hip_backend", "results", gpu_dir, f"diag_{diag}")
        folders.append(dest)
        copies += [(f, os.path.join(dest, os.path.basename(f))) for f in diag_runs]
        copies.append((os.path.join(logs, "machine.txt"), os.path.join(dest, "machine.txt")))
    if not folders:
        fail("the archive holds no suite, probe, calibration or diagnostic results")
    return copies, folders, traces


def main():
    parser = argparse.ArgumentParser(add_help=True, usage=__doc__.split("usage: ")[1].split("\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--gpu")
    parser.add_argument("--diag")
    parser.add_argument("archive")
    parser.add_argument("session")
    args = parser.parse_args()
    if not args.session.isdigit():
        fail(f"SESSION must be a number (the call's sessionN), got '{args.session}'")
    if args.diag is not None and (not args.diag or "/" in args.diag or args.diag.startswith(".")):
        fail(f"--diag must name a folder of hip_backend/pending_diagnostics, got '{args.diag}'")
    if not os.path.isdir(os.path.join(args.root, "hip_backend")):
        fail(f"--root {args.root}: not the repository (no hip_backend/)")
    with tempfile.TemporaryDirectory(prefix="install_call.") as tmp:
        results = unpack(args.archive, tmp)
        if files(os.path.join(results, "hw2")):
            fail(f"{args.archive}: a two-GPU call (hw2/): file it by hand beside the two-GPU suite's results")
        gpu = machine_gpu(results, args.archive)
        gpu_dir = args.gpu or GPU_DIRS.get(gpu)
        if not gpu_dir:
            fail(f"{args.archive}: no profile family for GPU '{gpu}' (known: {', '.join(GPU_DIRS)}): name one with --gpu DIR")
        copies, folders, traces = plan(results, args.root, gpu_dir, args.session, args.diag)
        taken = [p for f in folders for p in (f, f + ".installing") if os.path.exists(p)]
        if taken:
            fail(f"{taken[0]} exists already: nothing written (a call is filed once)")
        # Copy into each folder's temporary twin, then rename: an error part-way leaves no half-filled folder.
        staged = {f: f + ".installing" for f in folders}
        try:
            for source, dest in copies:
                folder = next(f for f in folders if dest.startswith(f + os.sep))
                target = staged[folder] + dest[len(folder):]
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copyfile(source, target)
            if traces:
                diag_folder = folders[-1]
                shutil.copytree(traces, os.path.join(staged[diag_folder], "traces"))
            for folder, twin in staged.items():
                os.rename(twin, folder)
        except OSError as e:
            for twin in staged.values():
                shutil.rmtree(twin, ignore_errors=True)
            fail(f"could not write the results ({type(e).__name__}: {e}); nothing filed")
        if traces:
            shutil.rmtree(traces)  # now kept beside its results
    for folder in folders:
        print(os.path.relpath(folder, args.root))


if __name__ == "__main__":
    main()
