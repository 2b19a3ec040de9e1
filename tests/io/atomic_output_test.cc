// io::AtomicOutput and io::refuse_output_naming_input: a named path is replaced
// whole or left as it was, devices are written in place, and nothing but our own
// temporary file is ever removed.
#include "io/atomic_output.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "io/same_file.h"

namespace umsim::io {
namespace {

namespace fs = std::filesystem;

class AtomicOutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           (std::string("atomic_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string read(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  static void put(const std::string& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  fs::path dir_;
};

TEST_F(AtomicOutputTest, CommitPutsTheWholeFileInPlace) {
  AtomicOutput out(path("a.txt"));
  out.write("one ");
  out.stream() << "two " << 3;
  EXPECT_FALSE(fs::exists(path("a.txt")));  // nothing under the final name before commit
  out.commit();
  EXPECT_EQ(read(path("a.txt")), "one two 3");
  EXPECT_EQ(entries(), std::vector<std::string>{"a.txt"});
}

TEST_F(AtomicOutputTest, WithoutCommitTheExistingFileIsUntouchedAndNoTemporaryRemains) {
  put(path("a.txt"), "previous result");
  {
    AtomicOutput out(path("a.txt"));
    out.write("half a resu");
  }
  EXPECT_EQ(read(path("a.txt")), "previous result");
  EXPECT_EQ(entries(), std::vector<std::string>{"a.txt"});
}

TEST_F(AtomicOutputTest, WithoutCommitANewPathIsNeverCreated) {
  { AtomicOutput out(path("new.txt")); }
  EXPECT_TRUE(entries().empty());
}

TEST_F(AtomicOutputTest, KeepsTheModeOfTheFileItReplaces) {
  put(path("a.sh"), "old");
  ASSERT_EQ(::chmod(path("a.sh").c_str(), 0751), 0);
  write_file_atomically(path("a.sh"), "new");
  struct stat st {};
  ASSERT_EQ(::stat(path("a.sh").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0751u);
  EXPECT_EQ(read(path("a.sh")), "new");
}

TEST_F(AtomicOutputTest, ReplacesTheTargetOfASymbolicLinkAndKeepsTheLink) {
  put(path("target.txt"), "old");
  fs::create_symlink("target.txt", path("link.txt"));
  write_file_atomically(path("link.txt"), "new");
  EXPECT_TRUE(fs::is_symlink(path("link.txt")));
  EXPECT_EQ(read(path("target.txt")), "new");
}

TEST_F(AtomicOutputTest, WritesCharacterDevicesInPlaceAndNeverRemovesThem) {
  write_file_atomically("/dev/null", "discarded");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  {
    AtomicOutput out("/dev/null");
    out.write("abandoned");
  }
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST_F(AtomicOutputTest, AFullDeviceIsAWriteErrorNamingThePath) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  AtomicOutput out("/dev/full");
  out.stream() << std::string(1 << 17, 'x');  // more than the stream's buffer
  try {
    out.commit();
    FAIL() << "commit succeeded on /dev/full";
  } catch (const OutputError& e) {
    EXPECT_EQ(std::string(e.what()), "/dev/full: write error: No space left on device");
  }
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

TEST_F(AtomicOutputTest, RefusesDirectoriesAndMissingDirectories) {
  try {
    AtomicOutput out(dir_.string());
    FAIL();
  } catch (const OutputError& e) {
    EXPECT_EQ(std::string(e.what()), dir_.string() + ": cannot create: is a directory");
  }
  try {
    AtomicOutput out(path("missing/a.txt"));
    FAIL();
  } catch (const OutputError& e) {
    EXPECT_EQ(std::string(e.what()), path("missing/a.txt") + ": cannot create: No such file or directory");
  }
  EXPECT_TRUE(entries().empty());
}

TEST_F(AtomicOutputTest, CommitTwiceIsAnError) {
  AtomicOutput out(path("a.txt"));
  out.commit();
  EXPECT_THROW(out.commit(), OutputError);
  EXPECT_EQ(read(path("a.txt")), "");
}

TEST(SameFile, ComparesByDeviceAndInodeNotBySpelling) {
  const fs::path dir = fs::path(::testing::TempDir()) / "same_file";
  fs::remove_all(dir);
  fs::create_directories(dir / "sub");
  const std::string a = (dir / "a").string();
  std::ofstream(a) << "x";
  fs::create_hard_link(a, dir / "hard");
  fs::create_symlink("a", dir / "soft");
  std::ofstream((dir / "b").string()) << "x";
  EXPECT_TRUE(same_file(a, (dir / "sub" / ".." / "a").string()));
  EXPECT_TRUE(same_file(a, (dir / "hard").string()));
  EXPECT_TRUE(same_file(a, (dir / "soft").string()));
  EXPECT_FALSE(same_file(a, (dir / "b").string()));
  EXPECT_FALSE(same_file(a, (dir / "missing").string()));
}

TEST(SameFile, RefusesAnOutputNamingAnInput) {
  const fs::path dir = fs::path(::testing::TempDir()) / "refuse";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string in = (dir / "in.umt").string();
  std::ofstream(in) << "umsim-trace 1\n";
  fs::create_hard_link(in, dir / "alias.umt");
  try {
    refuse_output_naming_input((dir / "alias.umt").string(), {"", (dir / "other").string(), in});
    FAIL();
  } catch (const OutputError& e) {
    EXPECT_EQ(std::string(e.what()),
              (dir / "alias.umt").string() + ": refusing to write the output over the input " + in + " (the same file)");
  }
  EXPECT_NO_THROW(refuse_output_naming_input((dir / "out.umt").string(), {in}));
  EXPECT_NO_THROW(refuse_output_naming_input("", {in}));
}

}  // namespace
}  // namespace umsim::io
