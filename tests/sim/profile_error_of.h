// The loader's error message for a profile text ("" when it loads): shared by
// profile_test and profile_assertions_test (which compiles the loader itself,
// with assertions on).
#pragma once

#include <string>

#include "sim/profile.h"

namespace umsim::sim::testing {

inline std::string error_of(const std::string& text) {
  try {
    parse_profile(text, "p.toml");
  } catch (const ProfileError& e) {
    return e.what();
  }
  return "";
}

}  // namespace umsim::sim::testing
