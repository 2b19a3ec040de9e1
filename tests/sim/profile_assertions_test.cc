// The profile loader compiled with assertions on (no NDEBUG, as a debug or a
// fuzzing build has them; BUILD compiles sim/profile.cc into this test): a
// table header whose key does not start with a key character is a parse error
// with its line. toml++ 3.3 assumes it cannot happen, an assertion failure
// (abort) here without third_party/toml.h. Found by the import fuzzer
// (tools/fuzz/run_fuzzers.sh import; inputs in tools/fuzz/corpus/import/found/).
#include <gtest/gtest.h>

#include <string>

#include "sim/profile.h"
#include "tests/sim/profile_error_of.h"

#ifdef NDEBUG
#error "this test checks the loader with assertions on"
#endif

namespace umsim::sim {
namespace {

using testing::error_of;

TEST(ProfileAssertions, TableHeaderWithoutAKeyIsAParseError) {
  const std::string expected =
      "p.toml:2: Error while parsing key: expected bare key starting character or string delimiter, saw ";
  EXPECT_EQ(error_of("name = \"x\"\n[# a comment]\n"), expected + "'#'");
  EXPECT_EQ(error_of("name = \"x\"\n[\x18" "a]\nb = 1\n"), expected + "'\\u0018'");
  EXPECT_EQ(error_of("name = \"x\"\n[[ =a]]\n"), expected + "'='");
}

}  // namespace
}  // namespace umsim::sim
