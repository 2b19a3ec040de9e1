// RFC 4180 records for the CSV importer: fields separated by a delimiter and
// optionally enclosed in double quotes; inside quotes, a doubled quote is one
// quote and delimiters and line breaks are part of the field (so a kernel
// column may hold "vecAdd(float*, float*)"). Unquoted fields are trimmed of
// spaces and tabs (exporters pad columns); blank lines and lines starting
// with '#' between records are skipped.
#pragma once

#include <string>
#include <vector>

#include "traces/importers/line_source.h"

namespace umsim::import {

class CsvRecords {
 public:
  CsvRecords(LineSource& src, char delimiter) : src_(src), delimiter_(delimiter) {}

  // The next record's fields; false at the end of the input. Throws TraceError
  // (file:line) for a quote inside an unquoted field, text after a closing
  // quote, or a quoted field still open at the end of the input.
  bool next(std::vector<std::string>& fields) {
    std::string line;
    do {
      if (!src_.next(line)) return false;
    } while (line.empty() || line[0] == '#');
    fields.clear();
    std::size_t i = 0;
    for (;;) {
      std::string field;
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t') && line[i] != delimiter_) ++i;
      if (i < line.size() && line[i] == '"') {
        const std::uint64_t opened = src_.line();
        ++i;
        for (;;) {
          if (i == line.size()) {  // a line break inside quotes is data
            std::string more;
            if (!src_.next(more))
              src_.fail("quoted field " + std::to_string(fields.size() + 1) + " opened on line " + std::to_string(opened) +
                        " is not closed by the end of the input");
            field += '\n';
            line = std::move(more);
            i = 0;
            continue;
          }
          if (line[i] == '"') {
            if (i + 1 < line.size() && line[i + 1] == '"') {
              field += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          field += line[i++];
        }
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t') && line[i] != delimiter_) ++i;
        if (i < line.size() && line[i] != delimiter_)
          src_.fail("field " + std::to_string(fields.size() + 1) + ": unexpected '" + std::string(1, line[i]) +
                    "' after a closing quote (expected the delimiter or the end of the line)");
      } else {
        const std::size_t start = i;
        while (i < line.size() && line[i] != delimiter_) {
          if (line[i] == '"')
            src_.fail("field " + std::to_string(fields.size() + 1) +
                      ": a quote inside an unquoted field (enclose the field in quotes and double the quote)");
          ++i;
        }
        std::size_t end = i;
        while (end > start && (line[end - 1] == ' ' || line[end - 1] == '\t')) --end;
        field.assign(line, start, end - start);
      }
      fields.push_back(std::move(field));
      if (i >= line.size()) return true;
      ++i;  // the delimiter
    }
  }

 private:
  LineSource& src_;
  char delimiter_;
};

}  // namespace umsim::import
