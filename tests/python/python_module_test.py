#!/usr/bin/python3
"""The `umsim` Python module: replay() returns exactly `umsim replay --json`'s
result, sweep() exactly `umsim sweep`'s lines, frame() a DataFrame of them;
Python policies that mirror built-in ones (LRU, sequential 64 KiB) give the
built-in policies' results; errors in a Python policy reach the caller; the
example script runs."""
import json
import os
import subprocess
import sys
import tempfile

umsim_cli, module, example = (os.path.realpath(a) for a in sys.argv[1:4])
tmp = os.environ.get("TEST_TMPDIR") or tempfile.mkdtemp()
sys.path.insert(0, os.path.dirname(module))
import umsim  # noqa: E402

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def cli(*args):
    subprocess.run([umsim_cli, *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


trace = f"{tmp}/random.umtb"
cli("trace", "gen", "random", "-p", "footprint=8MiB,iterations=2", "-o", trace)

# replay() is `umsim replay --json`.
cli("replay", trace, "--evict", "lru", "--gpu-mem", "6MiB", "--json", f"{tmp}/lru.json")
lru = umsim.replay(trace, evict="lru", gpu_mem="6MiB")
check(lru == json.load(open(f"{tmp}/lru.json")), "replay() differs from umsim replay --json")
check(lru["total"]["evictions"] > 0, "6 MiB for an 8 MiB footprint must evict")

# sweep() is `umsim sweep`, line for line.
axes = dict(prefetch=["none", "tree:threshold=25"], evict=["fifo", "random"], gpu_mem=["100%", "150%"], seeds=[1, 2])
lines = umsim.sweep([trace], **axes)
cli("sweep", trace, "--prefetch", "none", "--prefetch", "tree:threshold=25", "--evict", "fifo", "--evict", "random",
    "--gpu-mem", "100%", "--gpu-mem", "150%", "--seed", "1", "--seed", "2", "-q", "-o", f"{tmp}/sweep.jsonl")
check(lines == [json.loads(l) for l in open(f"{tmp}/sweep.jsonl")], "sweep() differs from umsim sweep")
frame = umsim.frame(lines)
check(len(frame) == 12 and "result.total.time_ns" in frame.columns and "evict" in frame.columns,
      f"frame: {len(frame)} rows, columns {list(frame.columns)[:8]}")
check(sorted(set(frame["evict"])) == ["fifo:unused_first=true,granularity=2MiB", "random:seed=1,granularity=2MiB",
                                      "random:seed=2,granularity=2MiB"], f"frame specs {set(frame['evict'])}")

# Python policies that mirror built-in ones give the same results.
sys.argv = [example, trace]
namespace = {"__name__": "example"}
exec(compile(open(example).read(), example, "exec"), namespace)  # also runs the example end to end
mine = umsim.replay(trace, evict=namespace["PythonLru"](), gpu_mem="6MiB")
check(mine["total"] == lru["total"], f"PythonLru {mine['total']} != lru {lru['total']}")
check(mine["config"]["policies"]["evict"]["name"] == "python:PythonLru", mine["config"]["policies"]["evict"])
seq = umsim.replay(trace, prefetch=namespace["Sequential64K"](), gpu_mem="6MiB")["total"]
builtin = umsim.replay(trace, prefetch="sequential", gpu_mem="6MiB")["total"]
check(seq == builtin and seq["bytes_prefetched"] > 0, f"Sequential64K {seq} != sequential {builtin}")


class Broken:
    def prefetch(self, request):
        raise ValueError("broken on purpose")


try:
    umsim.replay(trace, prefetch=Broken())
    check(False, "a failing Python policy did not raise")
except ValueError as e:
    check("broken on purpose" in str(e), f"error: {e}")
try:
    umsim.replay(trace, evict="nosuch")
    check(False, "an unknown policy did not raise")
except Exception as e:
    check("unknown evict policy 'nosuch'" in str(e), f"error: {e}")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("PASS")
