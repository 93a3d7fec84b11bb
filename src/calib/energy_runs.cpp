#include "calib/energy_runs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include "analysis/run.h"
#include "calib/bench_evidence.h"
#include "exec/bench_csv.h"
#include "graph/dtype.h"
#include "onnx/model_reader.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/file.h"

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

// W and Q of one model point, as predict counts them; computed once per (file, batch, size, precision).
struct Work {
  double flops = 0, bytes = 0;
  int uncosted = 0;   // nodes predict gives no figure (unknown ops, unresolved shapes)
  std::string error;  // why the point could not be analysed
};

class WorkCache {
 public:
  WorkCache(const hw::Roofline& roofline, roofline::Traffic traffic) : roofline_(roofline), traffic_(traffic) {}

  const Work& get(const std::string& file, const exec::BenchResult& r) {
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

std::string label_of(const exec::BenchResult& r) {
  return fmt::format("{} batch {} ({}{}{})", r.model, r.batch, r.mode.empty() ? "" : r.mode + ", ", r.precision,
                     r.input_size.empty() ? "" : ", input " + r.input_size);
}

void use_bench_runs(const std::vector<exec::LoadedRun>& runs, WorkCache& cache, EnergyRuns& out) {
  for (const auto& loaded : runs) {
    const auto& r = loaded.run;
    auto skip = [&](const std::string& why) {
      out.skipped.push_back(fmt::format("{}: {}: {}", loaded.where, label_of(r), why));
    };
    if (!r.power.measured) {
      skip("no energy_per_inference_j (run without --power)");
      continue;
    }
    if (!(r.power.energy_per_inference_j > 0)) {
      skip("energy_per_inference_j is 0");
      continue;
    }
    if (!(r.latency_ms.mean > 0)) {
      skip("no mean latency");
      continue;
    }
    if (r.training) {
      skip("a training step (the fit covers inference)");
      continue;
    }
    auto file = find_bench_model(r.model, loaded.model_dirs);
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
    out.runs.push_back(
        {label_of(r), loaded.where, work.flops, work.bytes, r.latency_ms.mean / 1e3, r.power.energy_per_inference_j});
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
    auto text = read_file(file.string());
    auto source = file.string();
    auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) throw Error(fmt::format("'{}' is empty", source));
    if (text[first] == '{') {
      use_bench_runs(exec::read_bench_runs(path, ""), cache, out);
      continue;
    }
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
    // A bench --csv overall.csv: its directory, read as every reader of bench runs reads it.
    auto runs = exec::read_bench_csv(exec::as_directory(file).parent_path(), path);
    use_bench_runs(runs, cache, out);
  }
  return out;
}

}  // namespace ridge::calib
