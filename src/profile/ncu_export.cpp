#include "profile/ncu_export.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>
#include <unordered_map>

#include "profile/nvtx_ranges.h"
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

// Columns that vary between the rows of one launch (details) or kernel (summary): not its identity.
bool varies_per_row(const std::string& c) {
  return c == "Section Name" || c == "Metric Name" || c == "Metric Unit" || c == "Metric Value" || c == "Minimum" ||
         c == "Maximum" || c == "Average" || c.rfind("Rule ", 0) == 0 || c.rfind("Estimated Speedup", 0) == 0;
}

constexpr size_t kNone = static_cast<size_t>(-1);

// A header line, with what every row needs worked out once.
struct Header {
  std::vector<std::string> columns;
  std::unordered_map<std::string, size_t> index;
  NcuLayout layout = NcuLayout::kDetails;
  std::vector<size_t> key_columns;     // the columns that tell launches (kernels, for a summary) apart
  std::vector<size_t> nvtx_columns;    // NVTX ranges
  std::vector<size_t> metric_columns;  // raw page: the metrics
  size_t metric_name = kNone, metric_unit = kNone, value = kNone;

  size_t at(const char* name) const {
    auto it = index.find(name);
    return it == index.end() ? kNone : it->second;
  }
  std::string text(const std::vector<std::string>& row, const char* name) const {
    auto i = at(name);
    return i == kNone || i >= row.size() ? std::string() : row[i];
  }
};

bool header_of(std::string_view line, Header& header) {
  // Cheap test first: every data row starts with a quote too.
  if (line.empty() || line.front() != '"' || line.find("\"Kernel Name\"") == std::string_view::npos) return false;
  std::vector<std::string> columns;
  split_csv_line(line, columns);
  bool kernel = false, id = false;
  for (const auto& c : columns) {
    kernel |= c == "Kernel Name";
    id |= c == "ID" || c == "Process ID";
  }
  if (!kernel || !id) return false;
  header = Header{};
  header.columns = std::move(columns);
  for (size_t i = 0; i < header.columns.size(); ++i) header.index.emplace(header.columns[i], i);
  header.metric_name = header.at("Metric Name");
  header.metric_unit = header.at("Metric Unit");
  if (header.metric_name != kNone && header.at("Metric Value") != kNone) {
    header.layout = NcuLayout::kDetails;
    header.value = header.at("Metric Value");
  } else if (header.metric_name != kNone && header.at("Average") != kNone) {
    header.layout = NcuLayout::kSummary;
    header.value = header.at("Average");
  } else {
    header.layout = NcuLayout::kRaw;
  }
  auto id_column = header.at("ID"), process = header.at("Process ID");
  for (size_t i = 0; i < header.columns.size(); ++i) {
    const auto& c = header.columns[i];
    if (is_nvtx(c)) header.nvtx_columns.push_back(i);
    if (header.layout == NcuLayout::kRaw && !is_identity(c) && !is_nvtx(c)) header.metric_columns.push_back(i);
    // A details page numbers its launches: ID and process tell them apart. A summary row's kernel is
    // every column that does not vary per metric.
    if (header.layout == NcuLayout::kDetails && id_column != kNone) {
      if (i == id_column || i == process) header.key_columns.push_back(i);
    } else if (!varies_per_row(c)) {
      header.key_columns.push_back(i);
    }
  }
  return true;
}

// A count or ID as a whole number; empty when the cell holds none, or one beyond int64's range.
std::optional<int64_t> whole_number(const std::string& text) {
  auto v = parse_metric_number(text);
  if (!v || *v < 0 || *v >= 9.2e18) return std::nullopt;
  return static_cast<int64_t>(*v);
}

void fill_identity(const Header& h, const std::vector<std::string>& row, NcuLaunch& launch) {
  if (auto id = whole_number(h.text(row, "ID"))) launch.id = *id;
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
  for (auto i : h.nvtx_columns)
    if (i < row.size())
      for (auto& name : nvtx_range_names(h.columns[i], row[i])) launch.nvtx_ranges.push_back(std::move(name));
  for (const auto& name : launch.nvtx_ranges) launch.nvtx += (launch.nvtx.empty() ? "" : " > ") + name;
}

void key_of(const Header& h, const std::vector<std::string>& row, std::string& key) {
  key.clear();
  for (auto i : h.key_columns) {
    key += row[i];
    key += '\x1f';
  }
}

// The lines of `text` as views (no copy), without a UTF-8 byte-order mark or CR line ends.
class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") text_.remove_prefix(3);
  }
  bool next(std::string_view& line) {
    if (done_) return false;
    auto end = text_.find('\n', start_);
    if (end == std::string_view::npos) {
      end = text_.size();
      done_ = true;
    }
    line = text_.substr(start_, end - start_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    start_ = end + 1;
    ++number_;
    return true;
  }
  size_t number() const { return number_; }

 private:
  std::string_view text_;
  size_t start_ = 0, number_ = 0;
  bool done_ = false;
};

bool is_message(std::string_view line) {
  return line.substr(0, 9) == "==ERROR==" || line.substr(0, 11) == "==WARNING==";
}

// Unit strings repeat on every row: each is understood once.
const UnitScale& scale_of(std::unordered_map<std::string, UnitScale>& cache, const std::string& unit) {
  auto it = cache.find(unit);
  if (it == cache.end()) it = cache.emplace(unit, unit_scale(unit)).first;
  return it->second;
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
  Lines lines(text);
  for (std::string_view line; lines.next(line);)
    if (header_of(line, header)) return true;
  return false;
}

NcuExport parse_ncu_export(std::string_view text, const std::string& path) {
  NcuExport out;
  out.path = path;
  Lines lines(text);
  Header header;
  bool have_header = false;
  std::vector<std::string> units;  // a raw page's unit row
  std::unordered_map<std::string, size_t> by_key;
  std::unordered_map<std::string, UnitScale> scales;
  std::vector<std::string> row;
  std::string key, last_key;
  size_t last_launch = 0, block = 0;
  for (std::string_view line; lines.next(line);) {
    size_t n = lines.number();
    if (is_message(line)) {
      out.messages.emplace_back(line);
      continue;
    }
    if (line.empty() || line.front() != '"') continue;  // program output, ==PROF== lines
    Header next;
    if (header_of(line, next)) {
      if (have_header && next.layout != out.layout)
        throw Error(fmt::format("{}:{}: a {} header after {} rows: one export holds one layout", path, n,
                                layout_name(next.layout), layout_name(out.layout)));
      header = std::move(next);
      out.layout = header.layout;
      have_header = true;
      units.clear();
      last_key.clear();
      ++block;
      continue;
    }
    if (!have_header) continue;
    split_csv_line(line, row);
    if (row.size() != header.columns.size()) {
      if (out.skipped_rows++ == 0) out.first_skipped_line = n;
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
      launch.line = n;
      for (auto i : header.metric_columns)
        launch.metrics[header.columns[i]] = scaled_value(row[i], scale_of(scales, units.empty() ? "" : units[i]));
      out.launches.push_back(std::move(launch));
      continue;
    }
    // Details and summary: the rows of one launch (kernel) come together, so the last key is checked first.
    key_of(header, row, key);
    key += '\x1e' + std::to_string(block);
    if (key != last_key) {
      auto [it, inserted] = by_key.emplace(key, out.launches.size());
      if (inserted) {
        NcuLaunch launch;
        fill_identity(header, row, launch);
        launch.line = n;
        if (header.layout == NcuLayout::kSummary) {
          auto count = whole_number(header.text(row, "Invocations"));
          launch.invocations = count && *count >= 1 ? *count : 1;
        }
        out.launches.push_back(std::move(launch));
      }
      last_launch = it->second;
      last_key = key;
    }
    const auto& name = row[header.metric_name];
    if (name.empty()) continue;  // a rule's row without a metric
    const auto& unit = header.metric_unit == kNone ? std::string() : row[header.metric_unit];
    // The same metric in two sections of one launch is one measurement: the first row stands.
    auto& metrics = out.launches[last_launch].metrics;
    if (metrics.find(name) == metrics.end())
      metrics.emplace(name, scaled_value(row[header.value], scale_of(scales, unit)));
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
  // One read into a string of the file's size: exports run to hundreds of MB.
  std::string text;
  in.seekg(0, std::ios::end);
  auto size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (size > 0) {
    text.resize(static_cast<size_t>(size));
    in.read(text.data(), size);
    text.resize(static_cast<size_t>(in.gcount()));
  }
  return parse_ncu_export(text, path);
}

}  // namespace ridge::profile
