// Generators: registry, parameters, hand-computed small cases, golden
// statistics at fixed seeds, determinism and decodability of the output.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "traces/generators/generator_registry.h"
#include "traces/generators/page_touch_set.h"
#include "traces/generators/trace_summary.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace umsim::gen {
namespace {

std::string generate_text(const std::string& name, const std::string& params) {
  std::string text;
  auto writer = trace::create_trace_writer_to_string(&text, trace::Encoding::kText,
                                                     umsim::gen::generator_format_version(name, params));
  umsim::gen::generate_trace(name, params, *writer);
  writer->finish();
  return text;
}

TraceSummary summarize(const std::string& name, const std::string& params) {
  SummaryWriter s;
  umsim::gen::generate_trace(name, params, s);
  return s.summary();
}

TEST(GeneratorRegistry, ListsEveryGenerator) {
  const std::set<std::string> expected = {"bfs",       "data_parallel", "gemm",      "hashjoin",  "llm_decode",
                                          "pipeline",  "random",        "stencil2d", "stencil3d", "streaming",
                                          "strided",   "training"};
  std::set<std::string> names;
  for (const auto& [name, info] : GeneratorRegistry::instance().entries()) {
    names.insert(name);
    EXPECT_FALSE(info.doc.empty()) << name;
    EXPECT_FALSE(info.params.empty()) << name;
  }
  EXPECT_EQ(names, expected);
  const std::string listing = list_generators();
  for (const auto& n : expected) EXPECT_NE(listing.find(n + "\n"), std::string::npos) << n;
  EXPECT_NE(listing.find("footprint"), std::string::npos);
}

TEST(GeneratorRegistry, BadNamesAndParametersFailWithTheirLists) {
  try {
    summarize("nope", "");
    FAIL();
  } catch (const GeneratorError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown generator 'nope' (known: bfs, data_parallel"), std::string::npos)
        << e.what();
  }
  try {
    summarize("streaming", "chunkz=3");
    FAIL();
  } catch (const GeneratorError& e) {
    EXPECT_NE(std::string(e.what()).find("generator 'streaming': unknown parameter 'chunkz' (parameters: footprint"),
              std::string::npos)
        << e.what();
  }
  try {
    summarize("training", "hints=sometimes");
    FAIL();
  } catch (const GeneratorError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown value 'sometimes' (expected one of: none, prefetch, accessed_by"),
              std::string::npos)
        << e.what();
  }
  try {
    summarize("streaming", "gpus=0");
    FAIL();
  } catch (const GeneratorError& e) {
    EXPECT_NE(std::string(e.what()).find("parameter 'gpus': 0 is out of range (expected 1..64)"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(summarize("streaming", "footprint=12XB"), GeneratorError);
  EXPECT_THROW(summarize("gemm", "footprint=64KiB"), GeneratorError);  // too small for one tile
}

// streaming, 64 KiB (two 32 KiB arrays = 8 pages each), 2 chunks, 1 iteration:
// init writes in (8 pages), two kernels each read 4 and write 4, readback reads 8.
TEST(Streaming, HandComputedSmallCase) {
  const TraceSummary s = summarize("streaming", "footprint=64KiB,iterations=1,chunks=2");
  EXPECT_EQ(s.footprint, 65536u);
  EXPECT_EQ(s.kernels, 2u);
  EXPECT_EQ(s.distinct_pages, 16u);
  EXPECT_EQ(s.page_touches, 8u + 2 * (4 + 4) + 8u);
  // 2 allocs, 3 phases, init write, 2 x (begin, r, w, end), sync, readback, 2 frees.
  EXPECT_EQ(s.events, 2u + 3 + 1 + 8 + 1 + 1 + 2);
  const std::string text = generate_text("streaming", "footprint=64KiB,iterations=1,chunks=2");
  EXPECT_NE(text.find("kernel stream_copy gpu=0 stream=1 compute=50us\n  r in+16KiB len=16KiB\n  w out+16KiB len=16KiB\nend"),
            std::string::npos)
      << text;
}

TEST(Strided, TouchesOnePagePerStride) {
  // 1 MiB, stride 64 KiB: 16 pages per kernel, shifted by one page per iteration.
  const TraceSummary s = summarize("strided", "footprint=1MiB,stride=64KiB,iterations=3");
  EXPECT_EQ(s.kernels, 3u);
  EXPECT_EQ(s.page_touches, 256u + 3 * 16);  // init touches all 256 pages
  const std::string text = generate_text("strided", "footprint=1MiB,stride=64KiB,iterations=2");
  EXPECT_NE(text.find("r matrix+4KiB len=1020KiB stride=64KiB"), std::string::npos) << text;
}

TEST(PageTouchSet, CoalescesRunsPerAllocationAndType) {
  std::string text;
  auto writer = trace::create_trace_writer_to_string(&text, trace::Encoding::kText);
  TraceEmitter emit(*writer);
  emit.alloc("x", 10 * 4096 + 100);
  PageTouchSet set;
  const auto x = set.add("x", 10 * 4096 + 100);
  set.touch(x, 0, 1, AccessType::kRead);
  set.touch(x, 4096, 8192, AccessType::kRead);        // pages 1, 2
  set.touch(x, 5 * 4096 + 10, 1, AccessType::kRead);  // page 5
  set.touch(x, 10 * 4096, 100, AccessType::kWrite);   // the partial last page
  set.touch(x, 70 * 4096, 4, AccessType::kWrite);     // beyond the end: ignored
  EXPECT_EQ(set.pages_collected(), 5u);
  emit.kernel_begin("k", 0, 0, 0);
  set.flush(emit);
  emit.kernel_end();
  EXPECT_TRUE(set.empty());
  writer->finish();
  EXPECT_NE(text.find("  r x len=12KiB\n  r x+20KiB len=4KiB\n  w x+40KiB len=100B\n"), std::string::npos) << text;
}

struct Golden {
  const char* name;
  const char* params;
  std::uint64_t events, footprint, distinct_pages, page_touches, kernels;
};

// Regenerate with: umsim trace gen NAME -p PARAMS -o /tmp/x.umt (the summary line).
const Golden kGoldens[] = {
    {"streaming", "footprint=1MiB,iterations=2,chunks=4", 42, 1048576, 256, 768, 8},
    {"random", "footprint=1MiB,iterations=2,accesses=200,seed=7", 213, 1048576, 256, 574, 2},
    {"strided", "footprint=1MiB,stride=64KiB,iterations=3", 15, 1048576, 256, 304, 3},
    {"stencil2d", "footprint=1MiB,iterations=2,tiles=2,gpus=2,hints=advise", 59, 1048352, 256, 786, 8},
    {"stencil3d", "footprint=2MiB,iterations=2,tiles=2,hints=prefetch", 35, 2000376, 490, 1490, 4},
    {"gemm", "footprint=3MiB,tile=64,gpus=2,hints=advise", 1303, 3145728, 768, 37632, 64},
    {"bfs", "footprint=1MiB,iterations=1,seed=3", 182, 1063384, 249, 1249, 8},
    {"hashjoin", "footprint=1MiB,chunks=4,seed=5,gpus=2,hints=prefetch", 65, 1048432, 212, 715, 8},
    {"training", "footprint=4MiB,layers=3,iterations=2,hints=all", 200, 4247552, 1037, 6368, 18},
    {"llm_decode", "footprint=2MiB,layers=2,iterations=4,prompt=16,batch=2,hints=advise", 159, 3055616, 746, 4648, 15},
    {"pipeline", "footprint=256KiB,iterations=5,slots=2,hints=prefetch", 68, 786432, 192, 960, 5},
    {"data_parallel", "footprint=4MiB,gpus=2,layers=2,iterations=1,hints=advise", 102, 4235264, 1034, 3478, 12},
};

class GoldenStatistics : public ::testing::TestWithParam<Golden> {};

TEST_P(GoldenStatistics, MatchAtFixedSeed) {
  const Golden& g = GetParam();
  const TraceSummary s = summarize(g.name, g.params);
  EXPECT_EQ(s.events, g.events);
  EXPECT_EQ(s.footprint, g.footprint);
  EXPECT_EQ(s.distinct_pages, g.distinct_pages);
  EXPECT_EQ(s.page_touches, g.page_touches);
  EXPECT_EQ(s.kernels, g.kernels);
}

TEST_P(GoldenStatistics, DeterministicAndDecodable) {
  const Golden& g = GetParam();
  const std::string a = generate_text(g.name, g.params), b = generate_text(g.name, g.params);
  EXPECT_EQ(a, b);
  // The text decodes to as many events as were written, through the real reader.
  auto reader = trace::open_trace_from_memory(a, g.name);
  std::vector<trace::Event> batch(256);
  std::uint64_t events = 0;
  while (const std::size_t n = reader->read(batch)) events += n;
  EXPECT_EQ(events, g.events);
}

INSTANTIATE_TEST_SUITE_P(Generators, GoldenStatistics, ::testing::ValuesIn(kGoldens),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Seeds, DifferentSeedsGiveDifferentIrregularTraces) {
  for (const char* name : {"random", "bfs", "hashjoin"}) {
    const std::string small = std::string("footprint=1MiB,iterations=1,seed=");
    EXPECT_NE(generate_text(name, small + "1"), generate_text(name, small + "2")) << name;
  }
}

TEST(HintVariants, EveryVariantGeneratesAndDiffers) {
  for (const auto& [name, info] : GeneratorRegistry::instance().entries()) {
    // "hint variant: none | prefetch (...) | advise (...)": the first word of each alternative.
    std::vector<std::string> variants;
    for (const auto& p : info.params) {
      if (p.name != "hints") continue;
      std::string doc = p.doc.substr(p.doc.find(": ") + 2);
      for (std::size_t at = 0; at != std::string::npos;) {
        const std::size_t bar = doc.find(" | ", at);
        std::string alt = doc.substr(at, bar == std::string::npos ? std::string::npos : bar - at);
        variants.push_back(alt.substr(0, alt.find(' ')));
        at = bar == std::string::npos ? bar : bar + 3;
      }
    }
    ASSERT_GE(variants.size(), 3u) << name << " has too few hint variants";
    EXPECT_EQ(variants[0], "none") << name;
    const std::string base = "footprint=4MiB,iterations=1";
    const std::string none = generate_text(name, base + ",hints=none");
    for (std::size_t i = 1; i < variants.size(); ++i)
      EXPECT_NE(generate_text(name, base + ",hints=" + variants[i]), none) << name << " " << variants[i];
  }
}

}  // namespace
}  // namespace umsim::gen
