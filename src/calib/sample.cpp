#include "calib/sample.h"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <map>
#include <optional>

#include "util/csv.h"
#include "util/error.h"
#include "util/format.h"

namespace ridge::calib {
namespace {

// The numeric features, by column name: one table for writing and reading.
struct NumberColumn {
  const char* name;
  double LayerFeatures::*member;
};
constexpr NumberColumn kNumbers[] = {
    {"flops", &LayerFeatures::flops},
    {"bytes", &LayerFeatures::bytes},
    {"batch", &LayerFeatures::batch},
    {"in_channels", &LayerFeatures::in_channels},
    {"out_channels", &LayerFeatures::out_channels},
    {"kernel", &LayerFeatures::kernel},
    {"stride", &LayerFeatures::stride},
    {"groups", &LayerFeatures::groups},
    {"in_spatial", &LayerFeatures::in_spatial},
    {"out_spatial", &LayerFeatures::out_spatial},
    {"m", &LayerFeatures::m},
    {"n", &LayerFeatures::n},
    {"k", &LayerFeatures::k},
    {"out_elements", &LayerFeatures::out_elements},
    {"fused_ops", &LayerFeatures::fused_ops},
    {"threads", &LayerFeatures::threads},
};
// Environment columns every sample file has (empty where unknown), so files concatenate.
// framework: who ran a run timed whole ("PyTorch 2.11.0+cu130"); empty for ridge's own executors.
constexpr const char* kEnvironment[] = {"cpu", "torch", "ridge_revision", "timestamp", "framework"};

std::string number(double v) { return fmt::format("{:.17g}", v); }

// A header read by name: required columns must be there, the rest may be missing.
class Columns {
 public:
  Columns(const std::string& header, const std::string& source) : source_(source) {
    auto names = split_csv_line(header);
    for (size_t i = 0; i < names.size(); ++i) index_[names[i]] = i;
  }
  size_t need(const std::string& name) const {
    auto it = index_.find(name);
    if (it == index_.end()) throw Error(fmt::format("'{}' is not a ridge sample file: no '{}' column", source_, name));
    return it->second;
  }
  std::optional<size_t> find(const std::string& name) const {
    auto it = index_.find(name);
    if (it == index_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::string source_;
  std::map<std::string, size_t> index_;
};

double parse_number(const std::string& text, const std::string& source, int line, const std::string& column) {
  try {
    size_t used = 0;
    double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw Error(fmt::format("{} line {}: {} '{}' is not a number", source, line, column, text));
}

// Reads rows, calling `row(fields, line)`; every row must have the header's field count.
void for_each_row(std::istream& in, const std::string& source, const std::function<void(const std::string&)>& header,
                  const std::function<void(const std::vector<std::string>&, int)>& row) {
  std::string line;
  if (!std::getline(in, line)) throw Error(fmt::format("'{}' is empty", source));
  header(line);
  auto width = split_csv_line(line).size();
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line == "\r") continue;
    auto fields = split_csv_line(line);
    if (fields.size() != width)
      throw Error(fmt::format("{} line {}: {} fields, the header has {}", source, number, fields.size(), width));
    row(fields, number);
  }
}

}  // namespace

double node_time_anchor(double node_sum_s, double run_median_s, bool gpu) {
  return !gpu && run_median_s > 0 && node_sum_s > run_median_s ? run_median_s / node_sum_s : 1.0;
}

std::string executor_of(const Sample& sample) {
  if (sample.environment.count("framework")) return "pytorch";
  return sample.features.threads == 0 ? "cuda" : "cpu";
}

std::string executor_name(const std::string& executor) {
  return executor == "cuda" ? "the GPU executor" : executor == "pytorch" ? "PyTorch" : "the CPU executor";
}

void write_samples_csv(std::ostream& out, const std::vector<Sample>& samples) {
  out << "source,label,mode,kind,op,family";
  for (const auto& c : kNumbers) out << ',' << c.name;
  out << ",measured_s";
  for (const char* e : kEnvironment) out << ',' << e;
  out << ",run\n";
  for (const auto& s : samples) {
    const auto& f = s.features;
    out << csv_field(s.source) << ',' << csv_field(s.label) << ',' << s.mode << ',' << name(f.kind) << ',' << f.op
        << ',' << f.family;
    for (const auto& c : kNumbers) out << ',' << number(f.*c.member);
    out << ',' << number(s.measured_s);
    for (const char* e : kEnvironment) {
      auto it = s.environment.find(e);
      out << ',' << (it == s.environment.end() ? "" : csv_field(it->second));
    }
    out << ',' << csv_field(s.run) << '\n';
  }
}

std::vector<Sample> read_samples_csv(std::istream& in, const std::string& source) {
  std::optional<Columns> columns;
  std::vector<Sample> samples;
  for_each_row(
      in, source, [&](const std::string& header) { columns.emplace(header, source); },
      [&](const std::vector<std::string>& fields, int line) {
        Sample s;
        s.source = fields[columns->need("source")];
        s.label = fields[columns->need("label")];
        s.mode = fields[columns->need("mode")];
        try {
          s.features.kind = parse_kind(fields[columns->need("kind")]);
        } catch (const Error& e) {
          throw Error(fmt::format("{} line {}: {}", source, line, e.what()));
        }
        s.features.op = fields[columns->need("op")];
        s.features.family = fields[columns->need("family")];
        for (const auto& c : kNumbers)
          s.features.*c.member = parse_number(fields[columns->need(c.name)], source, line, c.name);
        s.measured_s = parse_number(fields[columns->need("measured_s")], source, line, "measured_s");
        // 0: a layer of a run timed only whole (PyTorch's timings); its run's time is the evidence.
        if (!(s.measured_s >= 0)) throw Error(fmt::format("{} line {}: measured_s must not be negative", source, line));
        for (const char* e : kEnvironment)
          if (auto i = columns->find(e); i && !fields[*i].empty()) s.environment[e] = fields[*i];
        if (auto i = columns->find("run")) s.run = fields[*i];  // files written before runs were named lack it
        samples.push_back(std::move(s));
      });
  return samples;
}

void write_overhead_csv(std::ostream& out, const std::vector<OverheadSample>& samples) {
  out << "source,mode,threads,nodes,node_sum_s,run_s,run\n";
  for (const auto& s : samples)
    out << csv_field(s.source) << ',' << s.mode << ',' << s.threads << ',' << s.nodes << ',' << number(s.node_sum_s)
        << ',' << number(s.run_s) << ',' << csv_field(s.run) << '\n';
}

std::vector<OverheadSample> read_overhead_csv(std::istream& in, const std::string& source) {
  std::optional<Columns> columns;
  std::vector<OverheadSample> samples;
  for_each_row(
      in, source, [&](const std::string& header) { columns.emplace(header, source); },
      [&](const std::vector<std::string>& fields, int line) {
        OverheadSample s;
        s.source = fields[columns->need("source")];
        s.mode = fields[columns->need("mode")];
        // Counts are whole and fit an int (a cast of 1e20 would be undefined).
        auto count = [&](const char* key, double least) {
          double v = parse_number(fields[columns->need(key)], source, line, key);
          if (!(v >= least && v <= 1e9) || v != std::floor(v))
            throw Error(fmt::format("{} line {}: {} must be a whole number from {}", source, line, key, least));
          return static_cast<int>(v);
        };
        s.threads = count("threads", 0);  // 0: the GPU executor (no CPU threads)
        s.nodes = count("nodes", 1);
        s.node_sum_s = parse_number(fields[columns->need("node_sum_s")], source, line, "node_sum_s");
        s.run_s = parse_number(fields[columns->need("run_s")], source, line, "run_s");
        if (!(s.run_s > 0)) throw Error(fmt::format("{} line {}: run_s must be positive", source, line));
        if (auto i = columns->find("run")) s.run = fields[*i];
        samples.push_back(std::move(s));
      });
  return samples;
}

}  // namespace ridge::calib
