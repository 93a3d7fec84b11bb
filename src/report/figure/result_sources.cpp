#include "report/figure/result_sources.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "exec/bench_codec.h"
#include "report/figure/sources.h"
#include "report/result_codec.h"
#include "roofline/prediction_codec.h"
#include "util/error.h"

namespace ridge::report::figure {
namespace {

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

}  // namespace

bool same_hardware(const std::string& measured_on, const std::string& device_name) {
  auto measured = hardware_words(measured_on);
  if (measured.empty() || device_name.empty()) return false;
  auto device = hardware_words(device_name);
  return std::all_of(measured.begin(), measured.end(), [&](const std::string& w) { return device.count(w) > 0; });
}

void add_runs(ResultSet& set, const std::vector<exec::BenchResult>& runs, const std::string& source) {
  for (const auto& run : runs) {
    if (run.latency_ms.mean > 0)
      set.measured.push_back({source, run});
    else
      set.notes.push_back(source + ": a run without a mean latency is left out");
  }
}

namespace {

void add_predictions(ResultSet& set, const std::vector<roofline::Prediction>& predictions, const std::string& source,
                     const std::string& model) {
  for (auto p : predictions) {
    if (p.model.empty()) p.model = model;
    set.predicted.push_back({source, std::move(p)});
  }
}

}  // namespace

void add_document(ResultSet& set, const Json& doc, const std::string& source) {
  auto kind = document_kind(doc);
  if (kind == "bench")
    add_runs(set, exec::decode_bench(doc, source).runs, source);
  else if (kind == "predict")
    add_predictions(set, roofline::decode_predictions(doc, source), source, "");
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
  int failed = 0, other = 0, untyped = 0;
  for (const auto& r : records) {
    if (r.status != "ok") {
      ++failed;
      continue;
    }
    if (r.command != "bench" && r.command != "predict") {
      ++other;
      continue;
    }
    auto typed = typed_result(r);
    if (!typed) {
      ++untyped;
      continue;
    }
    auto source = "result " + std::to_string(r.id);
    add_runs(set, typed->runs, source);
    add_predictions(set, typed->predictions, source, r.params.model);
  }
  if (failed > 0) set.notes.push_back(std::to_string(failed) + " failed stored result(s) have nothing to draw");
  if (other > 0)
    set.notes.push_back(std::to_string(other) +
                        " stored result(s) of other commands than bench and predict are left out");
  if (untyped > 0)
    set.notes.push_back(std::to_string(untyped) +
                        " stored result(s) saved before ridge kept typed results are left out: run them again, or "
                        "`ridge results import` their JSON");
}

std::string hardware(const exec::BenchResult& run) {
  return exec::on_gpu(run.environment) ? run.environment.device : run.environment.cpu_model;
}

std::vector<LayerTime> layers(const exec::BenchResult& run) {
  std::vector<LayerTime> out;
  for (const auto& n : run.nodes)
    out.push_back({.name = n.name,
                   .op = n.op_type,
                   .algorithm = n.algorithm,
                   .time_s = n.mean_ms / 1000,
                   .flops = n.predicted_flops > 0 ? static_cast<double>(n.predicted_flops) : 0.0});
  return out;
}

std::vector<LayerTime> layers(const roofline::Prediction& prediction) {
  std::vector<LayerTime> out;
  for (const auto& n : prediction.nodes)
    out.push_back({.name = n.name, .op = n.op, .time_s = n.predicted ? n.time_s : 0, .flops = n.flops});
  return out;
}

double work_flops(const exec::BenchResult& run) {
  double flops = 0;
  for (const auto& n : run.nodes)
    if (n.predicted_flops > 0) flops += static_cast<double>(n.predicted_flops);
  return flops;
}

double work_flops(const roofline::Prediction& prediction) {
  double flops = 0;
  for (const auto& n : prediction.nodes) flops += n.flops;
  return flops;
}

void keep_selected(ResultSet& set, const store::Filter& f) {
  auto model_ok = [&](const std::string& model) {
    return f.model.empty() || model.empty() || model.find(f.model) != std::string::npos;
  };
  auto batch_ok = [&](int64_t batch) { return !f.batch || *f.batch == batch; };
  auto before = set.measured.size() + set.predicted.size();
  std::erase_if(set.measured, [&](const Measured& m) {
    const auto& r = m.run;
    return !model_ok(r.model) || !batch_ok(r.batch) || (!f.mode.empty() && r.mode != f.mode) ||
           (!f.precision.empty() && r.precision != f.precision);
  });
  std::erase_if(set.predicted, [&](const Predicted& x) {
    const auto& p = x.prediction;
    return !model_ok(p.model) || !batch_ok(p.batch) || (!f.device.empty() && p.device_id != f.device) ||
           (!f.precision.empty() && p.precision != f.precision);
  });
  auto dropped = before - set.measured.size() - set.predicted.size();
  if (dropped > 0) set.notes.push_back(std::to_string(dropped) + " result(s) not selected by the filters are left out");
}

std::string run_label(const exec::BenchResult& run, const std::vector<Measured>& runs,
                      const std::vector<std::string>& except) {
  auto skip = [&](const char* dim) { return std::find(except.begin(), except.end(), dim) != except.end(); };
  auto varies = [&](auto get) {
    return std::any_of(runs.begin(), runs.end(), [&](const Measured& m) { return get(m.run) != get(run); });
  };
  std::string label;
  auto add = [&](const std::string& part) { label += (label.empty() ? "" : " ") + part; };
  if (runs.size() > 1 && varies([](const exec::BenchResult& r) { return r.model; })) {
    auto slash = run.model.find_last_of('/');
    add(slash == std::string::npos ? run.model : run.model.substr(slash + 1));
  }
  if (!skip("mode") && varies([](const exec::BenchResult& r) { return r.mode; })) add(run.mode);
  if (varies([](const exec::BenchResult& r) { return r.precision; })) add(run.precision);
  if (!skip("conv_algo") && varies([](const exec::BenchResult& r) { return r.conv_algo; }))
    add("conv " + run.conv_algo);
  if (varies([](const exec::BenchResult& r) { return r.memory_format; })) add(run.memory_format);
  if (!skip("input") && varies([](const exec::BenchResult& r) { return input_shape(r); }))
    add("input " + input_shape(run));
  if (!skip("batch") && varies([](const exec::BenchResult& r) { return r.batch; }))
    add("batch " + std::to_string(run.batch));
  if (varies([](const exec::BenchResult& r) { return r.training; })) add(run.training ? "training" : "inference");
  return label.empty() ? "measured" : label;
}

std::string prediction_label(const roofline::Prediction& run) {
  std::string label = run.device_id.empty() ? "predicted" : run.device_id;
  if (!run.mode.empty()) label += " " + run.mode;
  if (!run.precision.empty()) label += " " + run.precision;
  if (run.calibrated) label += " calibrated";
  return label;
}

std::string input_shape(const exec::BenchResult& run) {
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

const Predicted* first_with_layers(const std::vector<Predicted>& predicted) {
  for (const auto& p : predicted)
    if (!p.prediction.nodes.empty()) return &p;
  return nullptr;
}

}  // namespace ridge::report::figure
