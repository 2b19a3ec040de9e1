// fit_profile RAW.json PROFILE.toml: re-fits the profile's calibrated values from
// the raw measurements `umsim-hip calibrate` stored (no GPU needed), keeping
// every key and comment of PROFILE.toml.
#include <fstream>
#include <iostream>
#include <sstream>

#include "hip_backend/calibration_fit.h"
#include "io/atomic_output.h"

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: fit_profile RAW.json PROFILE.toml\n";
    return 2;
  }
  try {
    const auto values = umsim::hip::fit_profile(nlohmann::json::parse(slurp(argv[1])));
    const std::string updated = umsim::hip::update_toml_values(slurp(argv[2]), values);
    umsim::io::write_file_atomically(argv[2], updated);
    for (const auto& [k, v] : values) std::cout << k << " = " << v << "\n";
  } catch (const std::exception& e) {
    std::cerr << "fit_profile: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
