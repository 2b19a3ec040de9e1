#!/usr/bin/env python3
"""Counts test cases from Bazel's test.xml files and prints 'N passed, N failed'.

Usage: count_results.py TESTLOGS [LOG] [TESTLOGS LOG ...]
Each TESTLOGS LOG pair is one `bazel test` run (its bazel-testlogs directory and
its console output); the line printed covers every run given, so .ci/run can end
with one line for the sanitized run and the plain run together.

A test target whose XML is missing or unreadable while Bazel reported it as failed
counts as one failed case, so a crash can never be reported as a pass.
Exit status: 0 when nothing failed, 1 otherwise.
"""
import pathlib
import re
import sys
import xml.etree.ElementTree as ET


def count_run(testlogs: pathlib.Path, log_text: str) -> tuple[int, int]:
    """(passed, failed) test cases of one `bazel test` run."""
    passed = failed = 0
    # Targets Bazel reported, e.g. "//tests:foo   PASSED in 0.2s" / "FAILED" / "TIMEOUT" / "NO STATUS".
    # Cached results read "//tests:foo   (cached) PASSED in 0.2s".
    reported = dict(re.findall(r"^(//\S+)\s+(?:\(cached\)\s+)?(PASSED|FAILED|TIMEOUT|NO STATUS|FLAKY|INCOMPLETE)",
                               log_text, re.M))
    seen = set()
    for xml in sorted(testlogs.glob("**/test.xml")) if testlogs.exists() else []:
        pkg, _, name = str(xml.parent.relative_to(testlogs)).rpartition("/")
        label = f"//{pkg}:{name}"
        if reported and label not in reported:
            continue  # stale result from an earlier run
        seen.add(label)
        try:
            root = ET.parse(xml).getroot()
        except ET.ParseError:
            failed += 1
            continue
        target_passed = target_failed = 0
        for case in root.iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                target_failed += 1
            else:
                target_passed += 1  # a skipped case (e.g. no GPU) ran and said why
        bazel_failed = reported.get(label, "PASSED") not in ("PASSED", "FLAKY")
        if bazel_failed and target_failed == 0:
            target_failed = 1  # failed outside any test case (crash, timeout)
        if target_passed + target_failed == 0:
            target_passed = 1  # a plain test binary without cases that passed
        passed += target_passed
        failed += target_failed
    for label, status in reported.items():
        if label not in seen and status != "PASSED":
            failed += 1
    if not reported and passed == 0:
        failed += 1  # the build itself failed: no test ran
    return passed, failed


def main() -> int:
    args = sys.argv[1:]
    if not args or (len(args) > 2 and len(args) % 2):
        print("usage: count_results.py TESTLOGS [LOG] [TESTLOGS LOG ...]", file=sys.stderr)
        return 2
    passed = failed = 0
    for i in range(0, len(args), 2):
        log_text = pathlib.Path(args[i + 1]).read_text(errors="replace") if i + 1 < len(args) else ""
        p, f = count_run(pathlib.Path(args[i]), log_text)
        passed += p
        failed += f
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
