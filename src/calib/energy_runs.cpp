#include "calib/energy_runs.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include "analysis/run.h"
#include "calib/bench_evidence.h"
#include "exec/bench_codec.h"
#include "graph/dtype.h"
#include "onnx/model_reader.h"
#include "util/csv.h"
#include "util/error.h"

namespace ridge::calib {
namespace {

namespace fs = std::filesystem;

std::string trimmed(std::string s) {
  auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  s.erase(0, first);
  s.erase(s.find_last_not_of(" \t\r") + 1);
  return s;
}

// A finite number, whole field; `where` and `column` name it in the error.
double parse_number(const std::string& text, const std::string& where, const std::string& column) {
  auto t = trimmed(text);
  try {
    size_t used = 0;
    double v = std::stod(t, &used);
    if (used == t.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw Error(fmt::format("{}: {} '{}' is not a number", where, column, text));
}

// Header name -> index, names trimmed; a name given twice is refused (which one holds the figure?).
std::map<std::string, size_t> header_index(const std::vector<std::string>& header, const std::string& source) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < header.size(); ++i) {
    auto name = trimmed(header[i]);
    if (name.empty()) continue;
    if (!index.emplace(name, i).second) throw Error(fmt::format("{}: column '{}' appears twice", source, name));
  }
  return index;
}

std::string strip_bom(std::string line) {
  if (line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
  return line;
}

// ---- bench runs: one per overall.csv row or JSON run ----

struct BenchRun {
  std::string model, input_size, mode, precision = "fp32";
  int64_t batch = 1;
  bool training = false;
  std::optional<double> mean_ms, energy_j;
  std::string source;                // FILE line N, FILE: runs[i]
  std::vector<fs::path> model_dirs;  // where a relative model path may be, besides the cwd
};

fs::path as_directory(const fs::path& p) {
  auto d = fs::absolute(p).lexically_normal();
  return d.has_filename() ? d : d.parent_path();
}

int64_t parse_batch(const std::string& text, const std::string& where) {
  double v = parse_number(text, where, "batch");
  if (v < 1 || v > 1e9 || v != std::floor(v))
    throw Error(fmt::format("{}: batch '{}' is not a positive integer", where, text));
  return static_cast<int64_t>(v);
}

// An optional figure: empty is "not measured"; anything else must be a number >= 0.
std::optional<double> optional_figure(const std::string& text, const std::string& where, const std::string& column) {
  if (trimmed(text).empty()) return std::nullopt;
  double v = parse_number(text, where, column);
  if (v < 0) throw Error(fmt::format("{}: {} {} is negative", where, column, text));
  return v;
}

void read_overall_csv(std::istream& in, const std::string& source, const fs::path& dir, std::vector<BenchRun>& out) {
  std::string line;
  std::getline(in, line);
  auto header = split_csv_line(strip_bom(line));
  auto index = header_index(header, source);
  auto need = [&](const char* column) {
    auto it = index.find(column);
    if (it == index.end())
      throw Error(fmt::format("'{}' is not a `ridge bench --csv` overall.csv: no '{}' column", source, column));
    return it->second;
  };
  if (!index.count("energy_per_inference_j"))
    throw Error(
        fmt::format("'{}' has no energy_per_inference_j column: measure energy with `ridge bench --power`", source));
  size_t model = need("model"), batch = need("batch"), mean = need("mean_ms"), energy = need("energy_per_inference_j");
  auto optional_column = [&](const char* column) -> std::optional<size_t> {
    auto it = index.find(column);
    if (it == index.end()) return std::nullopt;
    return it->second;
  };
  auto input_size = optional_column("input_size"), mode = optional_column("mode"),
       precision = optional_column("precision"), training = optional_column("training");
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (trimmed(line).empty()) continue;
    auto fields = split_csv_line(line);
    auto where = fmt::format("{} line {}", source, number);
    if (fields.size() != header.size())
      throw Error(fmt::format("{}: {} fields, the header has {}", where, fields.size(), header.size()));
    BenchRun r;
    r.source = where;
    r.model = fields[model];
    if (r.model.empty()) throw Error(fmt::format("{}: the model column is empty", where));
    r.batch = parse_batch(fields[batch], where);
    if (input_size) r.input_size = fields[*input_size];
    if (mode) r.mode = fields[*mode];
    if (precision && !fields[*precision].empty()) r.precision = fields[*precision];
    if (training) {
      const auto& t = fields[*training];
      if (t == "1" || t == "true")
        r.training = true;
      else if (!(t.empty() || t == "0" || t == "false"))
        throw Error(fmt::format("{}: training '{}' is not 0 or 1", where, t));
    }
    r.mean_ms = optional_figure(fields[mean], where, "mean_ms");
    r.energy_j = optional_figure(fields[energy], where, "energy_per_inference_j");
    // A model path recorded relative to where bench ran: usually the directory holding the CSV directory.
    r.model_dirs = {dir.parent_path(), dir};
    out.push_back(std::move(r));
  }
}

// A `ridge bench -f json` file, through the bench codec.
void read_bench_json(const std::string& text, const std::string& source, const fs::path& file,
                     std::vector<BenchRun>& out) {
  auto bench = exec::parse_bench(text, source);
  auto dir = as_directory(file).parent_path();
  for (size_t i = 0; i < bench.runs.size(); ++i) {
    const auto& b = bench.runs[i];
    BenchRun r;
    r.source = fmt::format("{}: runs[{}]", source, i);
    r.model = b.model;
    r.model_dirs = {dir, dir.parent_path()};
    r.batch = b.batch;
    r.input_size = b.input_size;
    r.mode = b.mode;
    r.precision = b.precision;
    r.training = b.training;
    r.mean_ms = b.latency_ms.mean;
    if (b.power.measured) r.energy_j = b.power.energy_per_inference_j;
    out.push_back(std::move(r));
  }
}

// W and Q of one model point, as predict counts them; computed once per (file, batch, size, precision).
struct Work {
  double flops = 0, bytes = 0;
  int uncosted = 0;   // nodes predict gives no figure (unknown ops, unresolved shapes)
  std::string error;  // why the point could not be analysed
};

class WorkCache {
 public:
  WorkCache(const hw::Roofline& roofline, roofline::Traffic traffic) : roofline_(roofline), traffic_(traffic) {}

  const Work& get(const std::string& file, const BenchRun& r) {
    auto key = std::make_tuple(file, r.batch, r.input_size, r.precision);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    Work& w = cache_[key];
    try {
      auto loaded = models_.find(file);
      if (loaded == models_.end()) loaded = models_.emplace(file, onnx::load_model(file)).first;
      analysis::Request request;
      request.model_path = file;
      request.bindings = bindings_for(loaded->second, r.batch, r.input_size);
      if (r.precision != "fp32") {
        auto dtype = graph::parse_dtype(r.precision);
        if (!dtype) throw Error(fmt::format("precision '{}' is not a dtype", r.precision));
        request.options.activation_dtype = request.options.weight_dtype = dtype;
      }
      auto result = analysis::rerun(loaded->second, request);
      roofline::PredictOptions options;
      options.precision = r.precision;
      options.traffic = traffic_;
      options.batch = r.batch;
      auto prediction = roofline::predict(result.cost, roofline_, options);
      // The nodes add_energy charges: those with a roofline time.
      for (const auto& n : prediction.nodes) {
        if (!n.predicted) ++w.uncosted;
        if (!n.predicted || n.bound == roofline::Bound::kNone) continue;
        w.flops += n.flops;
        w.bytes += n.bytes;
      }
    } catch (const Error& e) {
      w.error = e.what();
    }
    return w;
  }

 private:
  const hw::Roofline& roofline_;
  roofline::Traffic traffic_;
  std::map<std::string, graph::Model> models_;
  std::map<std::tuple<std::string, int64_t, std::string, std::string>, Work> cache_;
};

std::string label_of(const BenchRun& r) {
  return fmt::format("{} batch {} ({}{}{})", r.model, r.batch, r.mode.empty() ? "" : r.mode + ", ", r.precision,
                     r.input_size.empty() ? "" : ", input " + r.input_size);
}

void use_bench_runs(const std::vector<BenchRun>& runs, WorkCache& cache, EnergyRuns& out) {
  for (const auto& r : runs) {
    auto skip = [&](const std::string& why) {
      out.skipped.push_back(fmt::format("{}: {}: {}", r.source, label_of(r), why));
    };
    if (!r.energy_j) {
      skip("no energy_per_inference_j (run without --power)");
      continue;
    }
    if (!(*r.energy_j > 0)) {
      skip("energy_per_inference_j is 0");
      continue;
    }
    if (!r.mean_ms || !(*r.mean_ms > 0)) {
      skip("no mean latency");
      continue;
    }
    if (r.training) {
      skip("a training step (the fit covers inference)");
      continue;
    }
    auto file = find_bench_model(r.model, r.model_dirs);
    if (!file) {
      skip(fmt::format("model '{}' not found (as given, nor next to the results)", r.model));
      continue;
    }
    const auto& work = cache.get(*file, r);
    if (!work.error.empty()) {
      skip(work.error);
      continue;
    }
    if (work.uncosted > 0) {
      auto note =
          fmt::format("{} at batch {} ({}): {} node(s) without a cost (unknown op or shape) are left out of W and Q",
                      r.model, r.batch, r.precision, work.uncosted);
      if (std::find(out.notes.begin(), out.notes.end(), note) == out.notes.end()) out.notes.push_back(note);
    }
    out.runs.push_back({label_of(r), r.source, work.flops, work.bytes, *r.mean_ms / 1e3, *r.energy_j});
  }
}

}  // namespace

std::vector<roofline::EnergyRun> parse_energy_csv(std::istream& in, const std::string& source,
                                                  std::vector<std::string>* skipped) {
  std::string line;
  if (!std::getline(in, line)) throw Error(fmt::format("'{}' is empty", source));
  auto header = split_csv_line(strip_bom(line));
  auto index = header_index(header, source);
  for (const char* c : {"flops", "bytes", "time_s", "energy_j"})
    if (!index.count(c))
      throw Error(
          fmt::format("energy CSV '{}': no '{}' column (the header needs flops, bytes, time_s, energy_j)", source, c));
  size_t flops = index["flops"], bytes = index["bytes"], time = index["time_s"], energy = index["energy_j"];
  std::optional<size_t> label;
  if (index.count("label")) label = index["label"];
  std::vector<roofline::EnergyRun> runs;
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (trimmed(line).empty()) continue;
    auto fields = split_csv_line(line);
    auto where = fmt::format("{} line {}", source, number);
    if (fields.size() != header.size())
      throw Error(fmt::format("{}: {} fields, the header has {}", where, fields.size(), header.size()));
    roofline::EnergyRun r;
    r.source = where;
    r.label = label && !trimmed(fields[*label]).empty() ? trimmed(fields[*label]) : fmt::format("line {}", number);
    r.flops = parse_number(fields[flops], where, "flops");
    r.bytes = parse_number(fields[bytes], where, "bytes");
    r.time_s = parse_number(fields[time], where, "time_s");
    if (r.flops < 0 || r.bytes < 0) throw Error(fmt::format("{}: flops and bytes must be >= 0", where));
    if (!(r.time_s > 0)) throw Error(fmt::format("{}: time_s must be positive", where));
    if (trimmed(fields[energy]).empty()) {
      if (skipped) skipped->push_back(fmt::format("{}: {}: no energy_j", where, r.label));
      continue;
    }
    r.energy_j = parse_number(fields[energy], where, "energy_j");
    if (!(r.energy_j > 0)) throw Error(fmt::format("{}: energy_j must be positive", where));
    runs.push_back(std::move(r));
  }
  return runs;
}

EnergyRuns read_energy_runs(const std::vector<std::string>& paths, const hw::Roofline& roofline,
                            roofline::Traffic traffic) {
  EnergyRuns out;
  WorkCache cache(roofline, traffic);
  for (const auto& path : paths) {
    std::error_code ec;
    fs::path file(path);
    if (fs::is_directory(file, ec)) file /= "overall.csv";
    if (!fs::is_regular_file(file, ec)) {
      throw Error(fs::is_directory(path, ec)
                      ? fmt::format("'{}' has no overall.csv: not a directory written by `ridge bench --csv`", path)
                      : fmt::format("'{}': no such file or directory", path));
    }
    std::ifstream in(file, std::ios::binary);
    if (!in) throw Error(fmt::format("cannot read '{}'", file.string()));
    std::stringstream buffer;
    buffer << in.rdbuf();
    auto text = buffer.str();
    auto source = file.string();
    auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) throw Error(fmt::format("'{}' is empty", source));
    std::vector<BenchRun> bench;
    if (text[first] == '{') {
      read_bench_json(text, source, file, bench);
    } else {
      std::istringstream csv(text);
      std::string line;
      std::getline(csv, line);
      auto index = header_index(split_csv_line(strip_bom(line)), source);
      csv.clear();
      csv.seekg(0);
      if (index.count("energy_j") || index.count("flops")) {
        std::vector<std::string> skipped;
        auto runs = parse_energy_csv(csv, source, &skipped);
        out.runs.insert(out.runs.end(), runs.begin(), runs.end());
        out.skipped.insert(out.skipped.end(), skipped.begin(), skipped.end());
        continue;
      }
      if (!index.count("model") || !index.count("mean_ms"))
        throw Error(fmt::format(
            "'{}' is neither an energy CSV (flops, bytes, time_s, energy_j), a bench overall.csv nor `ridge bench -f "
            "json` output",
            source));
      if (index.count("node") || index.count("layer"))
        throw Error(fmt::format("'{}' holds node times: give the overall.csv beside it (or its directory)", source));
      read_overall_csv(csv, source, as_directory(file).parent_path(), bench);
    }
    use_bench_runs(bench, cache, out);
  }
  return out;
}

}  // namespace ridge::calib
