#pragma once
// The one JSON codec of bench results: `ridge bench -f json` writes a file with it, and every reader of
// bench runs (calibration evidence, energy fits, compare) decodes the file with it into the same
// BenchResult the executor produced, environment included (the GPU and host that measured it, not the
// reader's). One file holds one model's runs:
//   {model, environment {cpu, logical_cpus, threads, device, torch_version, backend, ridge_version,
//    ridge_revision}, random_weights, power? {source, idle_power_w, dynamic_only}, runs[], notes[]?}
// and each run {batch, input_size, mode, precision, memory_format, conv_algo, training, optimizer?,
// training_losses?, latency_ms {mean, std, min, median, p90, p99, max, relative_standard_error},
// throughput, samples, power_mean_w?, energy_per_inference_j?, power?, warmup_runs, stop_reason,
// executed_nodes, device_memory?, profile?, nodes[], op_types[]?, notes[], timestamp?} (docs/json-schema.md).
// Files written before a field existed read with the default bench ran then.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "exec/measurement.h"

namespace ridge::exec {

struct BenchFile {
  std::string path;               // where it was read from ("" when decoded from memory)
  std::vector<BenchResult> runs;  // each with the file's model, environment, weights and power source
  std::vector<std::string> notes;
};

// `runs` are one model's, measured in one environment (the first run's is the file's).
nlohmann::ordered_json encode_bench(const std::vector<BenchResult>& runs);

// Throws ridge::Error with one line naming `where` and the field on a document that is not a bench file.
BenchFile decode_bench(const nlohmann::json& doc, const std::string& where);
// The text of a file: text that is no JSON at all is refused naming what else the caller would have read
// (`also`: "'F' is neither a `ridge bench --csv` directory nor `ridge bench -f json` output: ...").
BenchFile parse_bench(std::string_view text, const std::string& where, const std::string& also = "");
BenchFile read_bench_file(const std::string& path, const std::string& also = "");

// The environment object of a bench file: {cpu, logical_cpus, threads, device, torch_version, backend, ridge_version,
// ridge_revision}.
nlohmann::ordered_json encode_environment(const Environment& environment);

// Whether the run was measured on a GPU (its environment's device is "cuda...").
bool on_gpu(const Environment& environment);
bool on_gpu(const std::string& device);

}  // namespace ridge::exec
