#include "report/result_import.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>

#include "exec/bench_codec.h"
#include "report/bench_report.h"
#include "report/calibration_report.h"
#include "report/compare_codec.h"
#include "report/document_codec.h"
#include "report/ert_codec.h"
#include "report/ert_report.h"
#include "report/gpu_ert_report.h"
#include "report/ncu_import_codec.h"
#include "report/prediction_report.h"
#include "report/result_codec.h"
#include "report/results_report.h"
#include "report/torch_import_codec.h"
#include "report/tune_report.h"
#include "roofline/prediction_codec.h"
#include "store/store.h"
#include "util/error.h"
#include "util/file.h"
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
  if (r.environment.threads > 0) p.threads = r.environment.threads;  // a GPU run records none
  p.training = r.training;
  if (r.training) p.optimizer = r.optimizer;
  p.device = r.environment.device;
  return p;
}

namespace {

// A prediction file as `ridge predict` stores it: one result for the file (a sweep is one result), its uid from the
// content, the time of the import (predictions do not record when they were made).
ImportedFile import_predictions(const std::vector<roofline::Prediction>& predictions, const std::string& path) {
  ImportedFile out;
  const auto& first = predictions.front();
  auto doc = predictions.size() == 1 ? prediction_document(first) : [&] {
    std::vector<PredictionPoint> points;
    for (const auto& p : predictions) points.push_back({p.mode, p.batch, p});
    return prediction_sweep_document(points);
  }();
  store::Record r;
  TypedResult value{.kind = "predict", .predictions = predictions};
  r.result = encode_typed(value);
  r.uid = content_uid(r.result.dump());
  r.command = "predict";
  r.subject = doc.subject;
  r.params.model = first.model;
  if (predictions.size() == 1) r.params.batch = first.batch;
  r.params.device = first.device_id;
  r.params.precision = first.precision;
  r.params.mode = first.exec_mode;
  if (first.threads > 0) r.params.threads = first.threads;
  r.environment.command_line = fmt::format("ridge predict {} (imported from {})", first.model, path);
  r.environment.created_at = utc_now();
  r.environment.calibration = first.calibration_model.empty() ? first.calibration_source : first.calibration_model;
  r.document = encode_document(doc);
  r.summary = headline(value);
  ++out.untimed;
  out.records.push_back(std::move(r));
  return out;
}

// One stored result of another command's typed value, as that command stores it; its uid from the content and the
// time of the import (imports record no time of their own).
store::Record imported_record(const TypedResult& value, const Document& doc, const std::string& path) {
  store::Record r;
  r.result = encode_typed(value);
  const auto& command = value.kind;
  r.uid = content_uid(r.result.dump());
  r.command = command;
  r.subject = doc.subject;
  r.environment.command_line = fmt::format("ridge {} (imported from {})", command, path);
  r.environment.created_at = utc_now();
  r.document = encode_document(doc);
  r.summary = headline(value);
  return r;
}

}  // namespace

ImportedFile import_records(const std::string& path) {
  const std::string text = read_file(path);
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_discarded() && is_tuning(doc)) {
    auto value = decode_tuning(doc, "'" + path + "'");
    ImportedFile out;
    auto r = imported_record({.kind = "tune", .tuning = value}, tune_document(value), path);
    r.params.model = value.context.model;
    r.params.device = value.device_id;
    r.params.precision = value.context.precision;
    if (value.context.batches.size() == 1) r.params.batch = value.context.batches.front();
    out.records.push_back(std::move(r));
    ++out.untimed;
    return out;
  }
  if (!doc.is_discarded() && is_ert(doc)) {
    auto value = decode_ert(doc, "'" + path + "'");
    ImportedFile out;
    auto r = imported_record({.kind = "ert", .ert = value},
                             std::visit(
                                 [](const auto& e) {
                                   if constexpr (std::is_same_v<std::decay_t<decltype(e)>, hw::ert::ErtResult>)
                                     return ert_document(e);
                                   else
                                     return gpu_ert_document(e);
                                 },
                                 value),
                             path);
    // As `ridge ert` stores them: a GPU by its name, the CPU as "host" with the threads it ran.
    // The environment is the measuring machine's, as far as the measurement says (no host name, no revision).
    if (const auto* gpu = std::get_if<hw::ert::GpuErtResult>(&value)) {
      r.params.device = "cuda:" + gpu->gpu.name;
      r.environment.gpu = fmt::format("cuda:{} {}", gpu->gpu.index, gpu->gpu.name);
      if (!gpu->gpu.versions.empty()) r.environment.versions["backend"] = gpu->gpu.versions;
    } else {
      const auto& cpu = std::get<hw::ert::ErtResult>(value);
      r.params.device = "host";
      r.params.threads = cpu.threads;
      r.environment.cpu = cpu.cpu.model;
    }
    out.records.push_back(std::move(r));
    ++out.untimed;
    return out;
  }
  // An ert document printed before `ridge ert -f json` carried its typed record: its figures are a printer's
  // table, which is never read back as a result.
  if (!doc.is_discarded() && doc.is_object() && doc.contains("fma") && doc.contains("bandwidth_points") &&
      !doc.contains("ert"))
    throw Error(fmt::format(
        "'{}' is `ridge ert -f json` output of a revision before results carried their typed record (\"ert\"): "
        "its figures cannot be read back; run `ridge ert` again to import them",
        path));
  // A comparison holds a device and totals too: told apart first.
  if (!doc.is_discarded() && is_comparison(doc)) {
    auto value = decode_comparison(doc, "'" + path + "'");
    ImportedFile out;
    auto r = imported_record({.kind = "compare", .comparison = value}, compare_document(value, 20), path);
    r.params.model = value.model;
    r.params.device = value.prediction.device_id;
    r.params.batch = value.measured.batch;
    if (!value.measured.mode.empty()) r.params.mode = value.measured.mode;
    out.records.push_back(std::move(r));
    ++out.untimed;
    return out;
  }
  if (!doc.is_discarded() && roofline::is_prediction(doc))
    return import_predictions(roofline::decode_predictions(doc, "'" + path + "'"), path);
  if (!doc.is_discarded() && is_ncu_import(doc)) {
    // One result per run, as `ridge import ncu` stores them (a sweep's runs are found by their batch).
    auto decoded = decode_ncu_import(doc, "'" + path + "'");
    if (!decoded.missing_device.empty()) throw Error(fmt::format("'{}': {}", path, decoded.missing_device));
    ImportedFile out;
    for (const auto& run : decoded.import.runs) {
      profile::NcuImport one{.runs = {run}, .roofline = decoded.import.roofline, .model = decoded.import.model};
      auto r = imported_record({.kind = "import ncu", .ncu = one}, ncu_import_document(one), path);
      if (one.roofline) r.params.device = one.roofline->device_id;
      if (!one.model.empty()) r.params.model = one.model.begin()->second.path;
      if (run.batch > 0) r.params.batch = run.batch;
      out.records.push_back(std::move(r));
      ++out.untimed;
    }
    return out;
  }
  if (!doc.is_discarded() && is_torch_import(doc)) {
    auto value = decode_torch_imports(doc, "'" + path + "'");
    ImportedFile out;
    auto r = imported_record({.kind = "import torch", .torch = value},
                             torch_trace_document(value.imports, value.model_path), path);
    r.params.model = value.model_path;
    out.records.push_back(std::move(r));
    ++out.untimed;
    return out;
  }
  if (!doc.is_discarded() && is_calibration(doc)) {
    auto value = decode_calibration(doc, "'" + path + "'");
    ImportedFile out;
    auto r = imported_record({.kind = "calibrate", .calibration = value}, calibration_document(value), path);
    r.params.device = r.subject;
    out.records.push_back(std::move(r));
    ++out.untimed;
    return out;
  }
  // Bench output, decoded from the JSON already parsed; text that is no JSON at all, refused by the bench codec in one
  // line naming both kinds.
  auto file =
      doc.is_discarded() ? exec::parse_bench(text, path, "`ridge predict -f json`") : exec::decode_bench(doc, path);
  ImportedFile out;
  for (const auto& run : file.runs) {
    auto doc = bench_run_document(run, 20);
    store::Record r;
    TypedResult value{.kind = "bench", .runs = {run}};
    r.result = encode_typed(value);
    r.uid = content_uid(exec::encode_bench({run}).dump());
    r.command = "bench";
    r.subject = doc.subject;
    r.params = bench_params(run);
    r.environment = environment_of(run, path);
    r.document = encode_document(doc);
    r.summary = headline(value);
    out.untimed += run.timestamp.empty();
    out.records.push_back(std::move(r));
  }
  return out;
}

StoreImport import_files(const std::vector<std::string>& paths, const std::string& store_path) {
  std::vector<ImportedFile> read;
  for (const auto& path : paths) read.push_back(import_records(path));
  store::Store store(store_path);
  StoreImport out;
  for (size_t i = 0; i < paths.size(); ++i) {
    FileImport f{.path = paths[i], .results = read[i].records.size(), .untimed = read[i].untimed};
    if (!read[i].records.empty()) f.command = read[i].records.front().command;
    for (auto& record : read[i].records) f.added += store.save_new(record);
    out.files.push_back(std::move(f));
  }
  out.held = store.count();
  return out;
}

std::string import_line(const FileImport& f, const std::string& store_path) {
  std::string note;
  if (f.untimed > 0 && f.results > 0) {
    static const std::map<std::string, std::string> kWhat = {{"predict", "a prediction"},
                                                             {"calibrate", "a calibration"},
                                                             {"compare", "a comparison"},
                                                             {"ert", "a roofline measurement"}};
    auto it = kWhat.find(f.command);
    note = f.command == "bench" ? " (the file records no run times: stored with the import's)"
                                : fmt::format(" ({} records no time: stored with the import's)",
                                              it == kWhat.end() ? "an import" : it->second);
  }
  return fmt::format("{}: {} result{}, {} added, {} already in {}{}", f.path, f.results, f.results == 1 ? "" : "s",
                     f.added, static_cast<int64_t>(f.results) - f.added, store_path, note);
}

void import_into_store(const std::vector<std::string>& paths, const std::string& store_path,
                       const std::function<void(const std::string&)>& line) {
  auto imported = import_files(paths, store_path);
  int64_t total = 0;
  for (const auto& file : imported.files) {
    line(import_line(file, store_path));
    total += file.added;
  }
  line(holds_line(store_path, imported.held, total));
}

}  // namespace ridge::report
