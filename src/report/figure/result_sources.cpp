#include "report/figure/result_sources.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "exec/bench_codec.h"
#include "report/document_codec.h"
#include "report/figure/sources.h"
#include "report/printer.h"
#include "util/error.h"

namespace ridge::report::figure {
namespace {

double number(const Json& object, const char* key) {
  if (!object.is_object()) return 0;
  auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string text(const Json& object, const char* key) {
  if (!object.is_object()) return {};
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A foreign or hand-edited file may hold anything where ridge writes a boolean or a list: these read
// what is there, and fall back (Json::value would throw on a string run or a "yes").
bool flag(const Json& object, const char* key, bool fallback) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  return it != object.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

const Json& list_at(const Json& object, const char* key) {
  static const Json empty = Json::array();
  if (!object.is_object()) return empty;
  auto it = object.find(key);
  return it != object.end() && it->is_array() ? *it : empty;
}

// The words that name a piece of hardware: lower case, without parentheses ("(R)", "(sm_90, 132 SMs)",
// "(measured)"), a "cuda:N" prefix and the words every CPU name has.
std::set<std::string> hardware_words(const std::string& name) {
  std::set<std::string> words;
  std::string word;
  int depth = 0;
  auto flush = [&] {
    if (!word.empty() && word.rfind("cuda:", 0) != 0 && word != "processor" && word != "cpu") words.insert(word);
    word.clear();
  };
  for (char c : name) {
    if (c == '(') ++depth;
    if (depth > 0) {
      if (c == ')') --depth;
      flush();
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c)) || c == ',')
      flush();
    else
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  flush();
  return words;
}

int64_t batch_of(double throughput, double time_s) {
  return throughput > 0 && time_s > 0 ? std::llround(throughput * time_s) : 0;
}

void add_bench(ResultSet& set, const Json& doc, const std::string& source) {
  auto model = text(doc, "model");
  // The hardware that measured: the GPU for a GPU run, else the CPU.
  const Json& env = doc.contains("environment") ? doc["environment"] : Json::object();
  auto device = text(env, "device");
  auto hardware = exec::on_gpu(device) ? device : text(env, "cpu");
  for (const auto& r : list_at(doc, "runs")) {
    MeasuredRun run{.source = source,
                    .model = model,
                    .hardware = hardware,
                    .mode = text(r, "mode"),
                    .precision = text(r, "precision"),
                    .memory_format = text(r, "memory_format"),
                    .conv_algo = text(r, "conv_algo"),
                    .input_size = text(r, "input_size")};
    run.batch = static_cast<int64_t>(number(r, "batch"));
    run.training = flag(r, "training", false);
    const Json& l = r.contains("latency_ms") ? r["latency_ms"] : Json::object();
    run.mean_ms = number(l, "mean"), run.std_ms = number(l, "std");
    run.min_ms = number(l, "min"), run.max_ms = number(l, "max");
    run.throughput = number(r, "throughput");
    if (r.contains("nodes") && r["nodes"].is_array())
      for (const auto& n : r["nodes"]) {
        LayerTime layer{.name = text(n, "name"), .op = text(n, "op"), .algorithm = text(n, "algorithm")};
        layer.time_s = number(n, "mean_ms") / 1000;
        layer.flops = number(n, "predicted_flops");
        run.flops += layer.flops;
        run.layers.push_back(std::move(layer));
      }
    if (run.mean_ms > 0)
      set.measured.push_back(std::move(run));
    else
      set.notes.push_back(source + ": a run without a mean latency is left out");
  }
}

PredictedRun prediction_head(const Json& doc, const std::string& source) {
  PredictedRun p{.source = source,
                 .model = text(doc, "model"),
                 .device = doc.contains("device") ? text(doc["device"], "id") : std::string(),
                 .device_name = doc.contains("device") ? text(doc["device"], "name") : std::string(),
                 .power_mode = text(doc, "mode"),
                 .precision = text(doc, "precision")};
  p.calibrated = flag(doc, "calibrated", false);
  return p;
}

void add_predict(ResultSet& set, const Json& doc, const std::string& source) {
  auto p = prediction_head(doc, source);
  const Json& totals = doc.contains("totals") ? doc["totals"] : Json::object();
  p.time_s = number(totals, "time_s");
  p.throughput = number(totals, "throughput");
  p.batch = batch_of(p.throughput, p.time_s);
  for (const auto& n : list_at(doc, "nodes")) {
    LayerTime layer{.name = text(n, "name"), .op = text(n, "op")};
    layer.time_s = number(n, "time_s");  // "not predicted" is text: 0
    layer.flops = number(n, "flops");
    p.flops += layer.flops;
    p.layers.push_back(std::move(layer));
  }
  set.predicted.push_back(std::move(p));
}

void add_predict_sweep(ResultSet& set, const Json& doc, const std::string& source) {
  for (const auto& point : list_at(doc, "points")) {
    auto p = prediction_head(doc, source);
    p.power_mode = text(point, "mode");
    const Json& totals = point.contains("totals") ? point["totals"] : point;
    p.time_s = number(totals, "time_s");
    p.throughput = number(totals, "throughput");
    p.batch = static_cast<int64_t>(number(point, "batch"));
    if (p.batch == 0) p.batch = batch_of(p.throughput, p.time_s);
    p.calibrated = flag(point, "calibrated", p.calibrated);
    set.predicted.push_back(std::move(p));
  }
}

}  // namespace

bool same_hardware(const std::string& measured_on, const std::string& device_name) {
  auto measured = hardware_words(measured_on);
  if (measured.empty() || device_name.empty()) return false;
  auto device = hardware_words(device_name);
  return std::all_of(measured.begin(), measured.end(), [&](const std::string& w) { return device.count(w) > 0; });
}

void add_document(ResultSet& set, const Json& doc, const std::string& source) {
  auto kind = document_kind(doc);
  if (kind == "bench")
    add_bench(set, doc, source);
  else if (kind == "predict")
    add_predict(set, doc, source);
  else if (kind == "predict-sweep")
    add_predict_sweep(set, doc, source);
  else
    throw Error(source + " is " + (kind.empty() ? std::string("no ridge result") : "a '" + kind + "' document") +
                ": result figures read the JSON of `ridge bench` and `ridge predict`");
}

ResultSet read_results(const std::vector<Json>& documents) {
  ResultSet set;
  for (size_t i = 0; i < documents.size(); ++i) add_document(set, documents[i], "document " + std::to_string(i + 1));
  return set;
}

void add_records(ResultSet& set, const std::vector<store::Record>& records) {
  int failed = 0, other = 0;
  for (const auto& r : records) {
    if (r.document.is_null()) {
      ++failed;
      continue;
    }
    if (r.command != "bench" && r.command != "predict") {
      ++other;
      continue;
    }
    auto doc = to_json(decode_document(r.document));
    if (!doc.contains("model") && !r.params.model.empty()) doc["model"] = r.params.model;
    add_document(set, doc, "result " + std::to_string(r.id));
  }
  if (failed > 0) set.notes.push_back(std::to_string(failed) + " failed stored result(s) have nothing to draw");
  if (other > 0)
    set.notes.push_back(std::to_string(other) +
                        " stored result(s) of other commands than bench and predict are left out");
}

void keep_selected(ResultSet& set, const store::Filter& f) {
  auto model_ok = [&](const std::string& model) {
    return f.model.empty() || model.empty() || model.find(f.model) != std::string::npos;
  };
  auto batch_ok = [&](int64_t batch) { return !f.batch || *f.batch == batch; };
  auto before = set.measured.size() + set.predicted.size();
  std::erase_if(set.measured, [&](const MeasuredRun& r) {
    return !model_ok(r.model) || !batch_ok(r.batch) || (!f.mode.empty() && r.mode != f.mode) ||
           (!f.precision.empty() && r.precision != f.precision);
  });
  std::erase_if(set.predicted, [&](const PredictedRun& p) {
    return !model_ok(p.model) || !batch_ok(p.batch) || (!f.device.empty() && p.device != f.device) ||
           (!f.precision.empty() && p.precision != f.precision);
  });
  auto dropped = before - set.measured.size() - set.predicted.size();
  if (dropped > 0) set.notes.push_back(std::to_string(dropped) + " result(s) not selected by the filters are left out");
}

std::string run_label(const MeasuredRun& run, const std::vector<MeasuredRun>& runs,
                      const std::vector<std::string>& except) {
  auto skip = [&](const char* dim) { return std::find(except.begin(), except.end(), dim) != except.end(); };
  auto varies = [&](auto get) {
    return std::any_of(runs.begin(), runs.end(), [&](const MeasuredRun& r) { return get(r) != get(run); });
  };
  std::string label;
  auto add = [&](const std::string& part) { label += (label.empty() ? "" : " ") + part; };
  if (runs.size() > 1 && varies([](const MeasuredRun& r) { return r.model; })) {
    auto slash = run.model.find_last_of('/');
    add(slash == std::string::npos ? run.model : run.model.substr(slash + 1));
  }
  if (!skip("mode") && varies([](const MeasuredRun& r) { return r.mode; })) add(run.mode);
  if (varies([](const MeasuredRun& r) { return r.precision; })) add(run.precision);
  if (!skip("conv_algo") && varies([](const MeasuredRun& r) { return r.conv_algo; })) add("conv " + run.conv_algo);
  if (varies([](const MeasuredRun& r) { return r.memory_format; })) add(run.memory_format);
  if (!skip("input") && varies([](const MeasuredRun& r) { return input_shape(r); })) add("input " + input_shape(run));
  if (!skip("batch") && varies([](const MeasuredRun& r) { return r.batch; })) add("batch " + std::to_string(run.batch));
  if (varies([](const MeasuredRun& r) { return r.training; })) add(run.training ? "training" : "inference");
  return label.empty() ? "measured" : label;
}

std::string prediction_label(const PredictedRun& run) {
  std::string label = run.device.empty() ? "predicted" : run.device;
  if (!run.power_mode.empty()) label += " " + run.power_mode;
  if (!run.precision.empty()) label += " " + run.precision;
  if (run.calibrated) label += " calibrated";
  return label;
}

std::string input_shape(const MeasuredRun& run) {
  auto prefix = std::to_string(run.batch) + "x";
  return run.input_size.rfind(prefix, 0) == 0 ? run.input_size.substr(prefix.size()) : run.input_size;
}

double input_extent(const std::string& input_size) {
  if (input_size.empty()) return 0;
  auto x = input_size.find_last_of('x');
  auto last = x == std::string::npos ? input_size : input_size.substr(x + 1);
  try {
    size_t used = 0;
    double value = std::stod(last, &used);
    return used > 0 && value > 0 ? value : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

const PredictedRun* first_with_layers(const std::vector<PredictedRun>& predicted) {
  for (const auto& p : predicted)
    if (!p.layers.empty()) return &p;
  return nullptr;
}

}  // namespace ridge::report::figure
