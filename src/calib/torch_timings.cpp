#include "calib/torch_timings.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "util/error.h"

namespace ridge::calib {
namespace {

namespace fs = std::filesystem;

struct Config {
  std::string precision;
  bool benchmark = false, graph = false;
};

// "fp32", "fp32-cudnn-benchmark", "fp32-cuda-graph", "tf32-cuda-graph", ...; throws on anything else.
Config parse_config(const std::string& text, const std::string& where) {
  Config c;
  auto rest = text;
  auto take = [&](const std::string& suffix) {
    if (rest.size() > suffix.size() && rest.compare(rest.size() - suffix.size(), suffix.size(), suffix) == 0) {
      rest.resize(rest.size() - suffix.size());
      return true;
    }
    return false;
  };
  c.graph = take("-cuda-graph");
  c.benchmark = take("-cudnn-benchmark");
  if (rest != "fp32" && rest != "tf32" && rest != "fp16" && rest != "bf16")
    throw Error(fmt::format("{}: config '{}' is not PRECISION[-cudnn-benchmark][-cuda-graph] (fp32, tf32, fp16, bf16)",
                            where, text));
  c.precision = rest;
  return c;
}

}  // namespace

bool is_torch_timings(const std::string& path) { return fs::path(path).extension() == ".jsonl"; }

std::vector<exec::LoadedRun> read_torch_timings(const std::string& path, std::vector<std::string>& notes) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("cannot read '{}'", path));
  return read_torch_timings(in, path, notes);
}

std::vector<exec::LoadedRun> read_torch_timings(std::istream& in, const std::string& path,
                                                std::vector<std::string>& notes) {
  std::vector<exec::LoadedRun> runs;
  std::string line;
  int number = 0, failed = 0;
  std::string first_failure;
  std::error_code ec;
  auto dir = fs::absolute(fs::path(path), ec).parent_path();
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto where = fmt::format("{} line {}", path, number);
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw Error(where + ": not a JSON object");
    try {
      if (j.contains("error")) {
        if (failed++ == 0)
          first_failure =
              fmt::format("{} at batch {} ({})", j.value("model", "?"), j.value("batch", 0), j.value("config", "?"));
        continue;
      }
      exec::LoadedRun r;
      r.path = path;
      r.where = where;
      r.framework = "pytorch";
      r.model_dirs = {dir, dir.parent_path()};
      auto& run = r.run;
      run.model = j.at("model").get<std::string>();
      if (run.model.empty()) throw Error(where + ": empty model");
      if (!j.at("batch").is_number_integer()) throw Error(where + ": batch must be a whole number");
      auto batch = j.at("batch").get<int64_t>();
      if (batch < 1) throw Error(fmt::format("{}: batch {} must be at least 1", where, batch));
      run.batch = batch;
      auto config = parse_config(j.at("config").get<std::string>(), where);
      run.precision = config.precision;
      run.mode = config.graph ? "cuda-graph" : "eager";
      run.conv_algo = config.benchmark ? "benchmark" : "heuristic";
      run.memory_format = "nchw";
      double median = j.at("median_ms").get<double>();
      if (!(median > 0) || !std::isfinite(median))
        throw Error(fmt::format("{}: median_ms must be a positive number", where));
      run.latency_ms.median = median;
      run.latency_ms.mean = j.contains("mean_ms") ? j.at("mean_ms").get<double>() : median;
      run.input_size = j.value("input_size", "");
      run.environment.device = "cuda";
      run.environment.threads = 0;
      run.environment.torch_version = j.value("torch", "");
      runs.push_back(std::move(r));
    } catch (const nlohmann::json::exception& e) {
      throw Error(fmt::format("{}: {}", where, e.what()));
    }
  }
  if (failed > 0)
    notes.push_back(
        fmt::format("{}: {} configuration(s) recorded as failed, not used (first: {})", path, failed, first_failure));
  if (runs.empty() && failed == 0) throw Error(fmt::format("'{}' holds no timing", path));
  return runs;
}

}  // namespace ridge::calib
