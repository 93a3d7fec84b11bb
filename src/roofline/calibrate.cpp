#include "roofline/calibrate.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "util/error.h"

namespace ridge::roofline {
namespace {

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
        field += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        field += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(field);
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  fields.push_back(field);
  return fields;
}

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

std::vector<MeasuredNode> read_node_times(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read measurements '" + path + "'");
  std::string line;
  if (!std::getline(in, line)) throw Error("measurements '" + path + "' are empty");
  auto header = split_csv_line(line);
  int name_col = -1, time_col = -1;
  double scale = 1;
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "node" || header[i] == "name" || header[i] == "layer") name_col = static_cast<int>(i);
    if (header[i] == "seconds" || header[i] == "time_s") time_col = static_cast<int>(i);
    if (header[i] == "mean_ms") time_col = static_cast<int>(i), scale = 1e-3;
  }
  if (name_col < 0 || time_col < 0)
    throw Error(fmt::format(
        "measurements '{}': the header needs a node column (node/name) and a time column (seconds/time_s/mean_ms)",
        path));
  std::vector<MeasuredNode> nodes;
  int line_number = 1;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty()) continue;
    auto fields = split_csv_line(line);
    if (static_cast<int>(fields.size()) <= std::max(name_col, time_col))
      throw Error(fmt::format("measurements '{}' line {}: too few fields", path, line_number));
    double seconds = 0;
    try {
      size_t used = 0;
      seconds = std::stod(fields[static_cast<size_t>(time_col)], &used) * scale;
      if (used != fields[static_cast<size_t>(time_col)].size()) throw std::invalid_argument("trailing text");
    } catch (const std::exception&) {
      throw Error(fmt::format("measurements '{}' line {}: '{}' is not a time", path, line_number,
                              fields[static_cast<size_t>(time_col)]));
    }
    if (!(seconds > 0) || !std::isfinite(seconds))
      throw Error(fmt::format("measurements '{}' line {}: time must be positive", path, line_number));
    nodes.push_back({fields[static_cast<size_t>(name_col)], seconds});
  }
  if (nodes.empty()) throw Error("measurements '" + path + "' have no rows");
  return nodes;
}

CalibrationFit fit_calibration(const Prediction& prediction, const std::vector<MeasuredNode>& measured,
                               const std::string& source) {
  std::unordered_map<std::string, const NodePrediction*> by_name;
  for (const auto& n : prediction.nodes)
    if (n.predicted && n.bound != Bound::kNone) by_name[n.name] = &n;
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

std::string calibrated_device_yaml(const std::string& device_file, const hw::Calibration& c) {
  std::ifstream in(device_file);
  if (!in) throw Error("cannot read device file '" + device_file + "'");
  std::string text, line;
  bool skipping = false;
  while (std::getline(in, line)) {
    if (line.rfind("calibration:", 0) == 0) {
      skipping = true;
      continue;
    }
    if (skipping && !line.empty() && line[0] != ' ' && line[0] != '#') skipping = false;
    if (!skipping) text += line + "\n";
  }
  text += fmt::format(
      "calibration:  # fitted by `ridge calibrate`\n  fitted_from: \"{}\"\n  nodes: {}\n  overhead_s: {:.6g}\n  "
      "efficiency:\n",
      c.fitted_from, c.nodes, c.overhead_s);
  for (const auto& [family, value] : c.efficiency) text += fmt::format("    {}: {:.6g}\n", family, value);
  return text;
}

}  // namespace ridge::roofline
