// Which umsim produced a result: the version, and the git commit the binary
// was built from. The commit comes from tools/workspace_status.sh through
// Bazel's stamping (no network, no git needed at run time); a build outside a
// git checkout says "unknown", and uncommitted changes add "-dirty".
#pragma once

namespace umsim::cli {

inline constexpr const char* kUmsimVersion = "0.1";

const char* umsim_git_commit();

}  // namespace umsim::cli
