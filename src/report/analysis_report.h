#pragma once
// Writers of `ridge analyze` results, one per format: table, CSV, JSON, Markdown.
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/run.h"

namespace ridge::report {

enum class Format { kTable, kCsv, kJson, kMarkdown };
Format parse_format(const std::string& text);  // throws ridge::Error

struct ReportOptions {
  bool show_nodes = true;
};

void write_analysis(std::ostream& out, const analysis::Request& request, const analysis::Result& result, Format format,
                    const ReportOptions& options = {});

// JSON document of one analysis (schema in docs/json-schema.md).
nlohmann::json analysis_json(const analysis::Request& request, const analysis::Result& result, bool with_nodes);

struct SweepPoint {
  std::string value;
  analysis::Result result;
};

void write_sweep(std::ostream& out, const analysis::Request& request, const std::string& key,
                 const std::vector<SweepPoint>& points, Format format);

}  // namespace ridge::report
