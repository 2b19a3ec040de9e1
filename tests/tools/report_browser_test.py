#!/usr/bin/python3
"""`umsim report` in a real headless browser (Debian's chromium, driven by
chromium-driver over the WebDriver protocol): the page loads from a file with
no console errors and no network, draws every plot (each with marks), sorts
its table on a click and redraws on a metric change. Skips, saying why, only
when chromium or chromedriver is not installed (./bazelw installs both)."""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

umsim = os.path.realpath(sys.argv[1])
tmp = os.environ.get("TEST_TMPDIR") or tempfile.mkdtemp()
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def run(*args):
    subprocess.run([umsim, *args], check=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


chromium = shutil.which("chromium") or "/usr/bin/chromium"
driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
if not (os.path.exists(chromium) and os.path.exists(driver)):
    print("SKIP: chromium and chromium-driver are not installed (./bazelw installs them)")
    sys.exit(0)

run("trace", "gen", "random", "-p", "footprint=8MiB,iterations=2", "-o", f"{tmp}/random.umtb")
run("trace", "gen", "training", "-p", "footprint=16MiB,iterations=2", "-o", f"{tmp}/train.umtb")
run("sweep", f"{tmp}/random.umtb", f"{tmp}/train.umtb", "--prefetch", "tree", "--prefetch", "tree:threshold=25",
    "--evict", "lru", "--evict", "nosuch", "--gpu-mem", "100%", "--gpu-mem", "150%", "--keep-going", "-q",
    "-o", f"{tmp}/sweep.jsonl")
report = f"{tmp}/report.html"
done = subprocess.run([umsim, "report", f"{tmp}/sweep.jsonl", "-o", report], capture_output=True, text=True)
check(done.returncode == 0, f"umsim report failed: {done.stderr}")
rows = [json.loads(line) for line in open(f"{tmp}/sweep.jsonl")]
finished = [r for r in rows if "error" not in r]
# One comparison per (trace, memory size), one curve and one timeline per trace.
expected = len({(r["trace"], r["gpu_mem_spec"]) for r in finished}) + 2 * len({r["trace"] for r in finished})
check(expected == 8, f"expected 8 plots from the sweep, computed {expected}")

# Self-contained: nothing is fetched (no src/href attributes, no URL but the SVG namespace).
html = open(report, encoding="utf-8").read()
check(not re.search(r"\b(src|href)\s*=", html), "the page references an external resource")
check(set(re.findall(r"https?://[^\s\"']+", html)) <= {"http://www.w3.org/2000/svg"}, "the page names a URL")

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
service = subprocess.Popen([driver, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
base = f"http://127.0.0.1:{port}"


def call(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())["value"]


try:
    for _ in range(100):
        try:
            call("GET", "/status")
            break
        except OSError:
            time.sleep(0.1)
    session = call("POST", "/session", {"capabilities": {"alwaysMatch": {
        "browserName": "chrome",
        "goog:chromeOptions": {"binary": chromium,
                               "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                        "--window-size=1300,1000"]},
        "goog:loggingPrefs": {"browser": "ALL"}}}})["sessionId"]
    s = f"/session/{session}"
    call("POST", s + "/url", {"url": "file://" + report})

    def script(code):
        return call("POST", s + "/execute/sync", {"script": code, "args": []})

    state = script("""
      const plots = [...document.querySelectorAll('svg.plot')].map(p => {
        const r = p.getBoundingClientRect();
        return {kind: p.dataset.plot, marks: p.querySelectorAll('.mark').length, w: r.width, h: r.height};
      });
      return {expected: Number(document.body.dataset.plotsExpected), drawn: Number(document.body.dataset.plotsDrawn),
              plots: plots, rows: document.querySelectorAll('#points tbody tr').length,
              failed: document.querySelectorAll('#failed td.error').length};""")
    check(state["expected"] == expected and state["drawn"] == expected and len(state["plots"]) == expected,
          f"plots: page expects {state['expected']}, drew {state['drawn']}, found {len(state['plots'])}; want {expected}")
    kinds = sorted(p["kind"] for p in state["plots"])
    check(kinds == ["comparison"] * 4 + ["curves"] * 2 + ["timeline"] * 2, f"plot kinds {kinds}")
    for p in state["plots"]:
        check(p["marks"] > 0 and p["w"] > 100 and p["h"] > 40, f"an empty or invisible {p['kind']} plot: {p}")
    check(state["rows"] == len(finished), f"table rows {state['rows']}, want {len(finished)}")
    check(state["failed"] == len(rows) - len(finished), f"failed points shown {state['failed']}")

    # Sorting: a click on the time column sorts ascending, a second click descending.
    order = script("""
      const th = [...document.querySelectorAll('#points th')].find(h => h.textContent.startsWith('time ('));
      const column = [...th.parentNode.children].indexOf(th);
      const values = () => [...document.querySelectorAll('#points tbody tr')].map(r => Number(r.children[column].textContent));
      th.click(); const up = values(); th.click(); const down = values();
      return {up: up, down: down};""")
    check(order["up"] == sorted(order["up"]) and order["down"] == sorted(order["down"], reverse=True),
          f"table not sorted by a click: {order}")

    # Another metric redraws every plot.
    redrawn = script("""
      const select = document.getElementById('metric'); select.value = 'evictions';
      select.dispatchEvent(new Event('change'));
      return document.querySelectorAll('svg.plot').length;""")
    check(redrawn == expected, f"after a metric change {redrawn} plots")

    logs = call("POST", s + "/se/log", {"type": "browser"})
    errors = [entry for entry in logs if entry.get("level") in ("SEVERE", "WARNING")]
    check(not errors, f"console errors: {errors}")
    call("DELETE", s)
finally:
    service.terminate()
    service.wait(timeout=10)

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("PASS")
