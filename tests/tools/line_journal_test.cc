#include "tools/line_journal.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace umsim::cli {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) / name).string();
}

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(LineJournal, AppendsWholeLines) {
  const std::string path = temp_path("append.jsonl");
  std::filesystem::remove(path);
  {
    LineJournal j(path);
    j.append("{\"a\":1}");
    j.append("{\"b\":2}");
  }
  EXPECT_EQ(contents(path), "{\"a\":1}\n{\"b\":2}\n");
  LineJournal again(path);
  again.append("c");
  EXPECT_EQ(read_complete_lines(path), (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "c"}));
}

TEST(LineJournal, CutsOffAnIncompleteLastLine) {
  const std::string path = temp_path("cut.jsonl");
  std::ofstream(path, std::ios::binary) << "one\ntwo\nthr";
  EXPECT_EQ(read_complete_lines(path), (std::vector<std::string>{"one", "two"}));
  LineJournal j(path);
  j.append("three");
  EXPECT_EQ(contents(path), "one\ntwo\nthree\n");
}

TEST(LineJournal, MissingFileHasNoLines) {
  EXPECT_TRUE(read_complete_lines(temp_path("none.jsonl")).empty());
  EXPECT_THROW(LineJournal(temp_path("no/such/dir/x.jsonl")), std::runtime_error);
}

}  // namespace
}  // namespace umsim::cli
