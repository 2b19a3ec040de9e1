// Where hardware profiles are found (docs/profiles.md, "Where profiles are
// found"): a path is used as is; a name is NAME.toml in the first directory of
// profile_directories() that has it.
#pragma once

#include <string>
#include <vector>

#include "sim/profile.h"

namespace umsim::sim {

inline constexpr const char* kDefaultProfile = "h200-pcie5";

// Candidate directories, in search order, existing ones only:
// $UMSIM_PROFILE_DIR, runfiles ($RUNFILES_DIR, $TEST_SRCDIR, <exe>.runfiles),
// $BUILD_WORKSPACE_DIRECTORY/profiles, ./profiles, <exe dir>/../share/umsim/profiles.
std::vector<std::string> profile_directories();

// Resolves a name or a path to a file; throws ProfileError listing where it looked.
std::string find_profile(const std::string& name_or_path);

// Loads find_profile(name_or_path).
HardwareProfile load_profile(const std::string& name_or_path);

// Profile files (*.toml) of the first directory that has any, sorted by name.
std::vector<std::string> list_profile_files();

}  // namespace umsim::sim
