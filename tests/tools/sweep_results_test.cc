#include "tools/sweep_results.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

namespace umsim::cli {
namespace {

// A finished line of a 6-point sweep in shards of 3.
SweepLine line(std::size_t index, const std::string& file = "s.jsonl", const std::string& experiment = "e",
               const std::string& profile = "p") {
  const std::string text = fmt::format(
      R"({{"index":{},"trace":"t","vendor":"nvidia","profile":"x","prefetch":"tree:threshold=51","evict":"lru","migrate":"m","thrashing":"d","gpu_mem_bytes":{},"result":{{"config":{{"profile":"{}"}}}},"sweep":{{"points":6,"shard":"{}/3","experiment":"{}","umsim":{{"commit":"c"}}}}}})",
      index, index, profile, index % 3, experiment);
  return parse_sweep_line(text, file, index + 1);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SweepResults, MergeOrdersTheShardsByIndex) {
  std::vector<SweepLine> lines;
  for (std::size_t i : {2, 5, 0, 3, 1, 4}) lines.push_back(line(i));
  const auto merged = merge_sweep_lines(lines);
  ASSERT_EQ(merged.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(merged[i].index(), i);
}

TEST(SweepResults, MergeNamesTheMissingPointsAndTheirShards) {
  std::vector<SweepLine> lines;
  for (std::size_t i : {1, 2, 4, 5}) lines.push_back(line(i));
  EXPECT_EQ(error_of([&] { merge_sweep_lines(lines); }), "sweep merge: 2 of 6 points missing (shard 0/3): index 0, 3");
}

TEST(SweepResults, MergeRefusesDoubledPointsAndOtherSweeps) {
  std::vector<SweepLine> lines;
  for (std::size_t i = 0; i < 6; ++i) lines.push_back(line(i));
  lines.push_back(line(4, "again.jsonl"));
  EXPECT_EQ(error_of([&] { merge_sweep_lines(lines); }), "again.jsonl:5: point 4 is also in s.jsonl:5");
  lines.back() = line(4, "other.jsonl", "f");
  EXPECT_EQ(error_of([&] { merge_sweep_lines(lines); }),
            "other.jsonl:5: from a different sweep than s.jsonl:1 (sweep.experiment differs at experiment)");
}

TEST(SweepResults, EqualLabelsNeedEqualConfigurations) {
  std::vector<SweepLine> lines{line(0), line(1), line(0, "b.jsonl")};
  EXPECT_NO_THROW(check_labels_distinct(lines));  // the same point twice
  lines.push_back(line(1, "c.jsonl", "e", "other"));
  EXPECT_EQ(error_of([&] { check_labels_distinct(lines); }),
            "c.jsonl:2: same label as s.jsonl:2 (t / nvidia / x / tree:threshold=51 / lru / m / d @ 1 B) but a "
            "different configuration (config.profile differs): the two would be drawn as one point");
}

TEST(SweepResults, BadLinesNameFileAndLine) {
  EXPECT_EQ(error_of([] { parse_sweep_line("{", "f", 3); }).substr(0, 21), "f:3: not a JSON line ");
  EXPECT_EQ(error_of([] { parse_sweep_line(R"({"index":1,"trace":"t"})", "f", 1); }),
            "f:1: missing field 'sweep' (is this `umsim sweep` output?)");
  EXPECT_EQ(error_of([] {
              parse_sweep_line(R"({"index":7,"trace":"t","sweep":{"points":6,"experiment":1},"result":{}})", "f", 2);
            }),
            "f:2: index 7 is outside the sweep's 6 points");
}

}  // namespace
}  // namespace umsim::cli
