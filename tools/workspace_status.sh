#!/usr/bin/env bash
# Bazel's workspace status command (.bazelrc): the git commit umsim is built
# from, stamped into tools/build_info (umsim --version, every sweep result).
# Keys starting with STABLE_ rebuild the stamped files when they change.
commit=$(git rev-parse HEAD 2>/dev/null) || commit=unknown
if [[ $commit != unknown ]] && ! git diff --quiet HEAD -- 2>/dev/null; then
  commit+=-dirty
fi
echo "STABLE_UMSIM_GIT_COMMIT $commit"
