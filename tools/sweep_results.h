// Reading `umsim sweep` output back: JSON Lines with a "sweep" object on each
// line naming the experiment, the point count and the shard, so that shards
// can be joined with nothing missing or doubled (`umsim sweep merge`), a
// resumed sweep can tell its own finished points, and a report never merges
// two different configurations under one label.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace umsim::cli {

struct SweepLine {
  std::string source;  // file the line came from
  std::size_t line = 0;  // 1-based
  nlohmann::ordered_json json;
  std::size_t index() const { return json.at("index").get<std::size_t>(); }
  bool failed() const { return json.contains("error"); }
  std::string where() const { return source + ":" + std::to_string(line); }
};

// Parses one line; throws std::runtime_error ("FILE:LINE: ...") when it is
// not JSON or lacks the fields every sweep line has.
SweepLine parse_sweep_line(const std::string& text, const std::string& source, std::size_t line);

// Every line of the files; an incomplete last line (no '\n') is an error
// naming it. Throws std::runtime_error.
std::vector<SweepLine> read_sweep_files(const std::vector<std::string>& paths);

// Joins the lines of one sweep's shards into index order, checking that they
// come from one sweep (same experiment, point count and umsim build), that no
// point appears twice, and that none is missing (naming the missing points and
// the shards they belong to). Throws std::runtime_error.
std::vector<SweepLine> merge_sweep_lines(std::vector<SweepLine> lines);

// The label of a finished point's line in plots and tables: trace, vendor,
// profile, the resolved policy specs and seed, then the GPU memory in bytes.
std::string point_label(const nlohmann::ordered_json& line);

// Throws std::runtime_error when two finished points have equal labels but
// different configurations ("... would be drawn as one point"): lines merged
// from different sweeps, or points that differ in something no label shows.
// Points that are the same configuration (the same point twice) are allowed.
void check_labels_distinct(const std::vector<SweepLine>& lines);

}  // namespace umsim::cli
