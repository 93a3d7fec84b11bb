#include "report/result_import.h"

#include <fmt/format.h>

#include "exec/bench_codec.h"
#include "report/bench_report.h"
#include "report/document_codec.h"
#include "report/results_report.h"
#include "util/timestamp.h"

namespace ridge::report {
namespace {

// 128 bits of FNV-1a over the run's encoding (two 64-bit passes with different offsets): an identity for
// deduplication, not a defence against anyone, so no hashing library is needed.
std::string content_uid(const std::string& text) {
  auto fnv = [&](uint64_t hash) {
    for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
    return hash;
  };
  return fmt::format("{:016x}{:016x}", fnv(14695981039346656037ull), fnv(0x9e3779b97f4a7c15ull));
}

store::Environment environment_of(const exec::BenchResult& run, const std::string& path) {
  const auto& env = run.environment;
  store::Environment e;
  e.cpu = env.cpu_model;
  if (exec::on_gpu(env)) e.gpu = env.device;
  if (!env.torch_version.empty()) e.versions["torch"] = env.torch_version;
  if (!env.backend_info.empty()) e.versions["backend"] = env.backend_info;
  if (!env.ridge_version.empty()) e.versions["ridge"] = env.ridge_version;
  e.revision = env.ridge_revision;
  e.command_line = fmt::format("ridge bench {} (imported from {})", run.model, path);
  // When the run finished, where the file says; older files do not: the time of the import.
  e.created_at = run.timestamp.empty() ? utc_now() : run.timestamp;
  e.random_weights = run.random_weights;
  return e;
}

}  // namespace

store::Params bench_params(const exec::BenchResult& r) {
  store::Params p;
  p.model = r.model;
  p.batch = r.batch;
  p.input_size = r.input_size;
  p.mode = r.mode;
  p.precision = r.precision;
  p.memory_format = r.memory_format;
  p.conv_algo = r.conv_algo;
  p.threads = r.environment.threads;
  p.training = r.training;
  if (r.training) p.optimizer = r.optimizer;
  p.device = r.environment.device;
  return p;
}

ImportedFile import_records(const std::string& path) {
  auto file = exec::read_bench_file(path);
  ImportedFile out;
  for (const auto& run : file.runs) {
    auto doc = bench_run_document(run, 20);
    store::Record r;
    r.uid = content_uid(exec::encode_bench({run}).dump());
    r.command = "bench";
    r.subject = doc.subject;
    r.params = bench_params(run);
    r.environment = environment_of(run, path);
    r.document = encode_document(doc);
    r.summary = headline(doc);
    out.untimed += run.timestamp.empty();
    out.records.push_back(std::move(r));
  }
  return out;
}

}  // namespace ridge::report
