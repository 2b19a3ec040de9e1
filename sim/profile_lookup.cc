#include "sim/profile_lookup.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace umsim::sim {

namespace fs = std::filesystem;

namespace {
std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}
}  // namespace

std::vector<std::string> profile_directories() {
  std::vector<fs::path> candidates;
  if (!env("UMSIM_PROFILE_DIR").empty()) candidates.emplace_back(env("UMSIM_PROFILE_DIR"));
  if (!env("RUNFILES_DIR").empty()) candidates.push_back(fs::path(env("RUNFILES_DIR")) / "umsim" / "profiles");
  if (!env("TEST_SRCDIR").empty()) candidates.push_back(fs::path(env("TEST_SRCDIR")) / "umsim" / "profiles");
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(fs::path(exe.string() + ".runfiles") / "umsim" / "profiles");
  if (!env("BUILD_WORKSPACE_DIRECTORY").empty())
    candidates.push_back(fs::path(env("BUILD_WORKSPACE_DIRECTORY")) / "profiles");
  candidates.emplace_back("profiles");
  if (!ec) candidates.push_back(exe.parent_path() / ".." / "share" / "umsim" / "profiles");
  std::vector<std::string> out;
  for (const auto& c : candidates)
    if (is_dir(c) && std::find(out.begin(), out.end(), c.string()) == out.end()) out.push_back(c.string());
  return out;
}

std::string find_profile(const std::string& name_or_path) {
  const bool is_path = name_or_path.find('/') != std::string::npos ||
                       (name_or_path.size() > 5 && name_or_path.ends_with(".toml"));
  if (is_path) {
    std::error_code ec;
    if (!fs::is_regular_file(name_or_path, ec)) throw ProfileError(name_or_path + ": no such profile file");
    return name_or_path;
  }
  std::string looked;
  for (const auto& dir : profile_directories()) {
    const fs::path p = fs::path(dir) / (name_or_path + ".toml");
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p.string();
    looked += (looked.empty() ? "" : ", ") + dir;
  }
  std::string known;
  for (const auto& f : list_profile_files()) known += (known.empty() ? "" : ", ") + fs::path(f).stem().string();
  throw ProfileError("unknown profile '" + name_or_path + "' (known: " + (known.empty() ? "none found" : known) +
                     "; searched: " + (looked.empty() ? "no profile directory found" : looked) +
                     "; set UMSIM_PROFILE_DIR or pass a file path)");
}

HardwareProfile load_profile(const std::string& name_or_path) { return load_profile_file(find_profile(name_or_path)); }

std::vector<std::string> list_profile_files() {
  for (const auto& dir : profile_directories()) {
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.path().extension() == ".toml") files.push_back(entry.path().string());
    if (!files.empty()) {
      std::sort(files.begin(), files.end());
      return files;
    }
  }
  return {};
}

}  // namespace umsim::sim
