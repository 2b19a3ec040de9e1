// Kernel names for text output: Itanium-mangled names demangled, others as recorded.
#include "traces/demangle.h"

#include <gtest/gtest.h>

namespace umsim::trace {
namespace {

TEST(Demangle, MangledKernelNamesAreDemangled) {
  EXPECT_EQ(demangled_name("_Z6vecAddPfS_"), "vecAdd(float*, float*)");
  EXPECT_EQ(demangled_name("_Z5saxpyifPfS_"), "saxpy(int, float, float*, float*)");
  EXPECT_EQ(demangled_name("_Z5scaleIfEvPT_i"), "void scale<float>(float*, int)");
}

TEST(Demangle, OtherNamesAreKept) {
  EXPECT_EQ(demangled_name("vecAdd"), "vecAdd");
  EXPECT_EQ(demangled_name("k_fill"), "k_fill");
  EXPECT_EQ(demangled_name(""), "");
  EXPECT_EQ(demangled_name("_Z"), "_Z");             // not a complete mangled name
  EXPECT_EQ(demangled_name("_Znot!valid"), "_Znot!valid");
}

}  // namespace
}  // namespace umsim::trace
