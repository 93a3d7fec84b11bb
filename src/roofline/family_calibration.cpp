#include "roofline/family_calibration.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include "util/csv.h"
#include "util/error.h"

namespace ridge::roofline {
namespace {

// Solves A x = b (small, dense) by Gaussian elimination with partial pivoting.
std::vector<double> solve(std::vector<std::vector<double>> a, std::vector<double> b) {
  size_t n = b.size();
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < n; ++r)
      if (std::fabs(a[r][col]) > std::fabs(a[pivot][col])) pivot = r;
    if (std::fabs(a[pivot][col]) < 1e-300)
      throw Error("calibration: the measurements do not determine the fit (too few distinct nodes)");
    std::swap(a[col], a[pivot]);
    std::swap(b[col], b[pivot]);
    for (size_t r = 0; r < n; ++r) {
      if (r == col) continue;
      double f = a[r][col] / a[col][col];
      for (size_t k = col; k < n; ++k) a[r][k] -= f * a[col][k];
      b[r] -= f * b[col];
    }
  }
  std::vector<double> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = b[i] / a[i][i];
  return x;
}

}  // namespace

namespace {

// A time column's unit, from its name: "seconds", "ms", "time_s", "mean_ms", "median_us", ...
// A name with a time statistic but no unit ("time", "mean") is ambiguous.
struct TimeColumn {
  size_t index = 0;
  std::string name, statistic;  // statistic: mean, median, min, ...; "" for a bare unit ("seconds")
  double scale = 1;             // to seconds
};

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<double> unit_scale(const std::string& unit) {
  static const std::map<std::string, double> kUnits{{"s", 1},
                                                    {"sec", 1},
                                                    {"secs", 1},
                                                    {"seconds", 1},
                                                    {"ms", 1e-3},
                                                    {"msec", 1e-3},
                                                    {"milliseconds", 1e-3},
                                                    {"us", 1e-6},
                                                    {"usec", 1e-6},
                                                    {"microseconds", 1e-6},
                                                    {"ns", 1e-9},
                                                    {"nsec", 1e-9},
                                                    {"nanoseconds", 1e-9}};
  auto it = kUnits.find(unit);
  if (it == kUnits.end()) return std::nullopt;
  return it->second;
}

bool is_time_statistic(const std::string& s) {
  static const std::set<std::string> kStatistics{"time", "mean", "avg", "average", "median",   "min",     "max",
                                                 "p50",  "p90",  "p99", "latency", "duration", "elapsed", "std"};
  return kStatistics.count(s) > 0;
}

// The column the fit uses: the mean (or a plain time) before a median before a minimum. Columns
// of a spread (std) or a tail (max, p90, p99) are never the node's time.
int statistic_rank(const std::string& statistic) {
  if (statistic.empty() || statistic == "time" || statistic == "mean" || statistic == "avg" || statistic == "average" ||
      statistic == "latency" || statistic == "duration" || statistic == "elapsed")
    return 0;
  if (statistic == "median" || statistic == "p50") return 1;
  if (statistic == "min") return 2;
  return -1;
}

}  // namespace

std::vector<MeasuredNode> parse_node_times(std::istream& in, const std::string& source, RunSelection* selection) {
  std::string line;
  if (!std::getline(in, line)) throw Error("measurements '" + source + "' are empty");
  if (line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // a UTF-8 byte-order mark (spreadsheet exports)
  auto header = split_csv_line(line);
  std::optional<size_t> name_col;
  std::vector<TimeColumn> times;
  for (size_t i = 0; i < header.size(); ++i) {
    auto h = lower(header[i]);
    h.erase(0, h.find_first_not_of(' '));
    h.erase(h.find_last_not_of(' ') + 1);
    if (h == "node" || h == "name" || h == "layer" || h == "node_name") {
      if (name_col)
        throw Error(fmt::format("measurements '{}': two node-name columns ('{}' and '{}')", source, header[*name_col],
                                header[i]));
      name_col = i;
      continue;
    }
    if (auto scale = unit_scale(h)) {  // a bare unit: "seconds", "ms"
      times.push_back({i, header[i], "", *scale});
      continue;
    }
    auto underscore = h.rfind('_');
    if (underscore != std::string::npos) {
      auto statistic = h.substr(0, underscore);
      auto scale = unit_scale(h.substr(underscore + 1));
      if (scale && is_time_statistic(statistic)) {
        times.push_back({i, header[i], statistic, *scale});
        continue;
      }
    }
    if (is_time_statistic(h))
      throw Error(
          fmt::format("measurements '{}': column '{}' has no unit in its name (name it {}_s, {}_ms, {}_us or {}_ns)",
                      source, header[i], h, h, h, h));
  }
  std::vector<TimeColumn> usable;
  for (const auto& t : times)
    if (statistic_rank(t.statistic) >= 0) usable.push_back(t);
  if (!name_col || usable.empty())
    throw Error(fmt::format(
        "measurements '{}': the header needs a node column (node/name) and a time column whose name carries its unit "
        "(seconds, time_s, mean_ms, median_us, ...)",
        source));
  std::stable_sort(usable.begin(), usable.end(), [](const TimeColumn& a, const TimeColumn& b) {
    return statistic_rank(a.statistic) < statistic_rank(b.statistic);
  });
  // The best-ranked statistic is the time; other columns of that statistic (the same mean in
  // another unit) must agree with it row by row.
  const TimeColumn primary = usable.front();
  std::vector<TimeColumn> same;
  for (size_t k = 1; k < usable.size(); ++k)
    if (statistic_rank(usable[k].statistic) == statistic_rank(primary.statistic)) same.push_back(usable[k]);
  size_t needed = *name_col;
  for (const auto& t : usable) needed = std::max(needed, t.index);

  auto parse_time = [&](const std::vector<std::string>& fields, const TimeColumn& c, int line_number) {
    const auto& text = fields[c.index];
    double value = 0;
    try {
      size_t used = 0;
      value = std::stod(text, &used);
      if (used != text.size()) throw std::invalid_argument("trailing text");
    } catch (const std::exception&) {
      throw Error(fmt::format("measurements '{}' line {}: '{}' is not a time", source, line_number, text));
    }
    double seconds = value * c.scale;
    if (!(seconds > 0) || !std::isfinite(seconds))
      throw Error(fmt::format("measurements '{}' line {}: time must be positive", source, line_number));
    return seconds;
  };

  // `ridge bench --csv` appends every run to one file, each row naming its run: the file is
  // calibrated on its last run, never on a mix of batch sizes or modes.
  std::vector<size_t> run_columns;
  for (size_t i = 0; i < header.size(); ++i)
    for (const char* key : {"model", "algorithm", "input_size", "batch", "mode", "precision", "memory_format",
                            "threads", "training", "optimizer", "ridge_revision", "timestamp"})
      if (lower(header[i]) == key) run_columns.push_back(i);
  struct Row {
    std::string run, name;
    double seconds;
    int line;
  };
  std::vector<Row> rows;
  int line_number = 1;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty() || line == "\r") continue;
    auto fields = split_csv_line(line);
    if (fields.size() <= needed)
      throw Error(fmt::format("measurements '{}' line {}: too few fields", source, line_number));
    double seconds = parse_time(fields, primary, line_number);
    for (const auto& other : same) {
      double s = parse_time(fields, other, line_number);
      // Agreement up to the rounding of the printed figures (1 ns) and 0.1%.
      if (std::fabs(s - seconds) > 1e-3 * std::max(s, seconds) + 1e-9)
        throw Error(fmt::format(
            "measurements '{}' line {}: columns '{}' and '{}' disagree ({:.6g} s vs {:.6g} s): which is the time?",
            source, line_number, primary.name, other.name, seconds, s));
    }
    std::string run;
    for (auto c : run_columns)
      if (c < fields.size() && !fields[c].empty()) run += (run.empty() ? "" : ", ") + header[c] + " " + fields[c];
    rows.push_back({std::move(run), fields[*name_col], seconds, line_number});
  }
  std::vector<std::string> runs;
  for (const auto& r : rows)
    if (std::find(runs.begin(), runs.end(), r.run) == runs.end()) runs.push_back(r.run);
  if (selection) {
    selection->runs = static_cast<int>(runs.size());
    selection->chosen = runs.empty() ? "" : rows.back().run;
  }
  std::vector<MeasuredNode> nodes;
  std::unordered_map<std::string, int> first_line;  // node -> the line it was measured on
  for (const auto& r : rows) {
    if (r.run != rows.back().run) continue;
    auto [previous, inserted] = first_line.emplace(r.name, r.line);
    if (!inserted)
      throw Error(fmt::format("measurements '{}' line {}: node '{}' was measured on line {} already in the same run",
                              source, r.line, r.name, previous->second));
    nodes.push_back({r.name, r.seconds});
  }
  if (nodes.empty()) throw Error("measurements '" + source + "' have no rows");
  return nodes;
}

std::vector<MeasuredNode> read_node_times(const std::string& path, RunSelection* selection) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read measurements '" + path + "'");
  return parse_node_times(in, path, selection);
}

CalibrationFit fit_calibration(const Prediction& prediction, const std::vector<MeasuredNode>& measured,
                               const std::string& source) {
  std::unordered_map<std::string, const NodePrediction*> by_name;
  for (const auto& n : prediction.nodes) by_name[n.name] = &n;
  struct Row {
    size_t family;
    double roofline_s, kernels, measured_s;
  };
  std::map<std::string, size_t> families;
  std::vector<std::string> family_names;
  std::vector<Row> rows;
  CalibrationFit fit;
  for (const auto& m : measured) {
    auto it = by_name.find(m.name);
    if (it == by_name.end()) {
      ++fit.unmatched;
      continue;
    }
    const auto& n = *it->second;
    if (!n.predicted || n.bound == Bound::kNone) {  // a node of the model, but no roofline time to fit (a view)
      ++fit.without_work;
      continue;
    }
    auto [f, inserted] = families.emplace(n.family, family_names.size());
    if (inserted) family_names.push_back(n.family);
    rows.push_back({f->second, std::max(n.compute_s, n.memory_s), static_cast<double>(n.kernels), m.seconds});
  }
  if (rows.empty())
    throw Error(
        fmt::format("calibration: none of the measured node names are nodes of the model ({} rows)", measured.size()));
  // Unknowns: one slope per family (1 / efficiency), then the overhead per kernel.
  size_t f_count = family_names.size(), n = f_count + 1;
  std::vector<std::vector<double>> ata(n, std::vector<double>(n, 0));
  std::vector<double> atb(n, 0);
  for (const auto& r : rows) {
    std::vector<double> x(n, 0);
    x[r.family] = r.roofline_s;
    x[f_count] = r.kernels;
    for (size_t i = 0; i < n; ++i) {
      atb[i] += x[i] * r.measured_s;
      for (size_t j = 0; j < n; ++j) ata[i][j] += x[i] * x[j];
    }
  }
  auto solution = solve(ata, atb);
  fit.calibration.overhead_s = std::max(0.0, solution[f_count]);
  fit.calibration.fitted_from = source;
  fit.calibration.nodes = static_cast<int>(rows.size());
  for (size_t f = 0; f < f_count; ++f) {
    if (solution[f] <= 0) {
      fit.dropped.push_back(family_names[f]);
      continue;
    }
    fit.calibration.efficiency[family_names[f]] = std::min(1.0, 1.0 / solution[f]);
  }
  return fit;
}

YAML::Node device_yaml_root(const std::string& device_file) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(device_file);
  } catch (const YAML::BadFile&) {
    throw Error("cannot read device file '" + device_file + "'");
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("device file '{}': {}", device_file, e.msg));
  }
  if (!root.IsMap()) throw Error("device file '" + device_file + "' is not a YAML map");
  return root;
}

std::string calibrated_device_yaml(const std::string& device_file, const hw::Calibration& c) {
  auto root = device_yaml_root(device_file);
  // Every figure is written back as its text (full precision for the fitted ones), so the copy
  // loads back to the same device with the calibration added.
  auto number = [](double v) { return fmt::format("{:.17g}", v); };
  YAML::Node calibration(YAML::NodeType::Map);
  calibration["fitted_from"] = c.fitted_from;
  calibration["nodes"] = c.nodes;
  calibration["overhead_s"] = number(c.overhead_s);
  if (!c.model_file.empty()) {
    calibration["model"] = c.model_file;
    if (c.validation) {
      YAML::Node v(YAML::NodeType::Map);
      v["points"] = c.validation->points;
      v["median_abs_error"] = number(c.validation->median_abs);
      v["p90_abs_error"] = number(c.validation->p90_abs);
      v["within_10"] = number(c.validation->within_10);
      calibration["validation"] = v;
    }
  }
  if (c.model_file.empty() || !c.efficiency.empty()) {
    YAML::Node efficiency(YAML::NodeType::Map);
    for (const auto& [family, value] : c.efficiency) efficiency[family] = number(value);
    calibration["efficiency"] = efficiency;
  }
  root.remove("calibration");
  root["calibration"] = calibration;
  YAML::Emitter e;
  e << YAML::Comment(fmt::format("{} with the calibration fitted by `ridge calibrate` from {} ({} nodes).\n"
                                 "Every figure and source of the original is kept; its comments are in that file.",
                                 device_file, c.fitted_from, c.nodes))
    << YAML::Newline << root;
  if (!e.good()) throw Error("calibrate: cannot write the device file: " + e.GetLastError());
  return std::string(e.c_str()) + "\n";
}

}  // namespace ridge::roofline
