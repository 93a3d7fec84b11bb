#include "profile/ncu_export.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "util/csv.h"
#include "util/error.h"

namespace ridge::profile {
namespace {

// The columns that describe a launch rather than measure it. Everything else on a raw page is a metric.
const char* const kIdentity[] = {"ID",
                                 "Process ID",
                                 "Process Name",
                                 "Host Name",
                                 "Kernel Name",
                                 "Kernel Time",
                                 "Context",
                                 "Stream",
                                 "Block Size",
                                 "Grid Size",
                                 "Device",
                                 "CC",
                                 "Section Name",
                                 "Metric Name",
                                 "Metric Unit",
                                 "Metric Value",
                                 "Rule Name",
                                 "Rule Type",
                                 "Rule Description",
                                 "Estimated Speedup Type",
                                 "Estimated Speedup",
                                 "Invocations",
                                 "Minimum",
                                 "Maximum",
                                 "Average"};

bool is_identity(const std::string& column) {
  return std::find(std::begin(kIdentity), std::end(kIdentity), column) != std::end(kIdentity);
}

// ncu names its NVTX columns after the domain and range kind ("NVTX", "thread domain ... Push/Pop").
bool is_nvtx(const std::string& column) {
  std::string lower(column);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower.find("nvtx") != std::string::npos || lower.find("push/pop") != std::string::npos ||
         lower.find("start/end") != std::string::npos;
}

struct Header {
  std::vector<std::string> columns;
  std::unordered_map<std::string, size_t> index;
  NcuLayout layout = NcuLayout::kDetails;

  const std::string* at(const std::vector<std::string>& row, const char* name) const {
    auto it = index.find(name);
    return it == index.end() || it->second >= row.size() ? nullptr : &row[it->second];
  }
  std::string text(const std::vector<std::string>& row, const char* name) const {
    auto* value = at(row, name);
    return value ? *value : std::string();
  }
};

bool header_of(const std::string& line, Header& header) {
  if (line.empty() || line.front() != '"') return false;
  auto columns = split_csv_line(line);
  bool kernel = false, id = false;
  for (const auto& c : columns) {
    kernel |= c == "Kernel Name";
    id |= c == "ID" || c == "Process ID";
  }
  if (!kernel || !id) return false;
  header.columns = std::move(columns);
  header.index.clear();
  for (size_t i = 0; i < header.columns.size(); ++i) header.index.emplace(header.columns[i], i);
  if (header.index.count("Metric Name") && header.index.count("Metric Value"))
    header.layout = NcuLayout::kDetails;
  else if (header.index.count("Metric Name") && header.index.count("Average"))
    header.layout = NcuLayout::kSummary;
  else
    header.layout = NcuLayout::kRaw;
  return true;
}

void fill_identity(const Header& h, const std::vector<std::string>& row, NcuLaunch& launch) {
  if (auto id = parse_metric_number(h.text(row, "ID"))) launch.id = static_cast<int64_t>(*id);
  launch.process_id = h.text(row, "Process ID");
  launch.process = h.text(row, "Process Name");
  launch.host = h.text(row, "Host Name");
  launch.kernel = h.text(row, "Kernel Name");
  launch.context = h.text(row, "Context");
  launch.stream = h.text(row, "Stream");
  launch.block = h.text(row, "Block Size");
  launch.grid = h.text(row, "Grid Size");
  launch.device = h.text(row, "Device");
  launch.cc = h.text(row, "CC");
  std::string nvtx;
  for (size_t i = 0; i < h.columns.size() && i < row.size(); ++i)
    if (is_nvtx(h.columns[i]) && !row[i].empty()) nvtx += (nvtx.empty() ? "" : "; ") + row[i];
  launch.nvtx = nvtx;
}

// The key that tells launches (details: one per ID and process) or kernels (summary: one per
// identity) apart, within one header's block of rows.
std::string launch_key(const Header& h, const std::vector<std::string>& row) {
  std::string key;
  for (size_t i = 0; i < h.columns.size() && i < row.size(); ++i) {
    const auto& c = h.columns[i];
    if (c == "Section Name" || c == "Metric Name" || c == "Metric Unit" || c == "Metric Value" || c == "Minimum" ||
        c == "Maximum" || c == "Average" || c.rfind("Rule ", 0) == 0 || c.rfind("Estimated Speedup", 0) == 0)
      continue;
    key += row[i];
    key += '\x1f';
  }
  return key;
}

std::vector<std::string> lines_of(std::string_view text) {
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    if (end == text.size()) break;
    start = end + 1;
  }
  return lines;
}

bool is_message(const std::string& line) {
  return line.rfind("==ERROR==", 0) == 0 || line.rfind("==WARNING==", 0) == 0;
}

}  // namespace

const char* layout_name(NcuLayout layout) {
  switch (layout) {
    case NcuLayout::kDetails:
      return "details";
    case NcuLayout::kRaw:
      return "raw";
    case NcuLayout::kSummary:
      return "summary";
  }
  return "details";
}

bool NcuLaunch::failed() const {
  if (metrics.empty()) return false;
  return std::none_of(metrics.begin(), metrics.end(), [](const auto& m) { return m.second.value.has_value(); });
}

bool is_ncu_export(std::string_view text) {
  Header header;
  for (const auto& line : lines_of(text))
    if (header_of(line, header)) return true;
  return false;
}

NcuExport parse_ncu_export(std::string_view text, const std::string& path) {
  NcuExport out;
  out.path = path;
  auto lines = lines_of(text);
  Header header;
  bool have_header = false, have_layout = false;
  std::vector<std::string> units;  // a raw page's unit row
  std::unordered_map<std::string, size_t> by_key;
  size_t block = 0;
  for (size_t n = 0; n < lines.size(); ++n) {
    const auto& line = lines[n];
    if (is_message(line)) {
      out.messages.push_back(line);
      continue;
    }
    if (line.empty() || line.front() != '"') continue;  // program output, ==PROF== lines
    Header next;
    if (header_of(line, next)) {
      if (have_layout && next.layout != out.layout)
        throw Error(fmt::format("{}:{}: a {} header after {} rows: one export holds one layout", path, n + 1,
                                layout_name(next.layout), layout_name(out.layout)));
      header = std::move(next);
      out.layout = header.layout;
      have_header = have_layout = true;
      units.clear();
      ++block;
      continue;
    }
    if (!have_header) continue;
    auto row = split_csv_line(line);
    if (row.size() != header.columns.size()) {
      if (out.skipped_rows++ == 0) out.first_skipped_line = n + 1;
      continue;
    }
    if (header.layout == NcuLayout::kRaw) {
      // The unit row: no launch ID, units under the metric columns.
      if (units.empty() && header.text(row, "ID").empty() && header.text(row, "Kernel Name").empty()) {
        units = row;
        continue;
      }
      NcuLaunch launch;
      fill_identity(header, row, launch);
      launch.line = n + 1;
      for (size_t i = 0; i < header.columns.size(); ++i) {
        const auto& c = header.columns[i];
        if (is_identity(c) || is_nvtx(c)) continue;
        launch.metrics[c] = parse_metric_value(row[i], units.empty() ? std::string() : units[i]);
      }
      out.launches.push_back(std::move(launch));
      continue;
    }
    auto key = std::to_string(block) + '\x1e' + launch_key(header, row);
    auto [it, inserted] = by_key.emplace(key, out.launches.size());
    if (inserted) {
      NcuLaunch launch;
      fill_identity(header, row, launch);
      launch.line = n + 1;
      if (header.layout == NcuLayout::kSummary) {
        auto count = parse_metric_number(header.text(row, "Invocations"));
        launch.invocations = count && *count >= 1 ? static_cast<int64_t>(*count) : 1;
      }
      out.launches.push_back(std::move(launch));
    }
    auto& launch = out.launches[it->second];
    auto name = header.text(row, "Metric Name");
    if (name.empty()) continue;  // a rule's row without a metric
    auto value = header.layout == NcuLayout::kSummary ? header.text(row, "Average") : header.text(row, "Metric Value");
    // The same metric in two sections of one launch is one measurement: the first row stands.
    launch.metrics.emplace(name, parse_metric_value(value, header.text(row, "Metric Unit")));
  }
  if (!have_header) {
    if (!out.messages.empty()) throw Error(fmt::format("{}: ncu wrote no results: {}", path, out.messages.front()));
    throw Error(fmt::format(
        "{}: not an Nsight Compute CSV export (no header line with \"ID\", \"Process ID\" and \"Kernel Name\")", path));
  }
  if (out.launches.empty())
    throw Error(fmt::format("{}: the ncu export has a header but no profiled kernels{}", path,
                            out.messages.empty() ? "" : ": " + out.messages.front()));
  return out;
}

NcuExport read_ncu_export(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot read '{}'", path));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_ncu_export(text.str(), path);
}

}  // namespace ridge::profile
