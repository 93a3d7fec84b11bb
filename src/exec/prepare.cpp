#include "exec/prepare.h"

#include <fmt/format.h>

#include <fstream>
#include <limits>
#include <sstream>

#include "exec/op_table.h"
#include "exec/test_data.h"
#include "onnx/model_reader.h"
#include "util/error.h"
#include "util/format.h"

namespace ridge::exec {

namespace {

// Given tensors fix the input shapes the user left open.
void bind_from_tensors(const graph::Model& model, analysis::Request& request, const std::vector<HostTensor>& inputs) {
  const auto& g = model.graph;
  if (inputs.size() != g.inputs.size())
    throw Error(
        fmt::format("the model takes {} inputs but {} input_N.pb files were given", g.inputs.size(), inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& v = g.value(g.inputs[i]);
    if (v.dtype != graph::DType::kUndefined && inputs[i].dtype != v.dtype)
      throw Error(fmt::format("input '{}' must be {}, input_{}.pb holds {}", v.name, graph::dtype_name(v.dtype), i,
                              graph::dtype_name(inputs[i].dtype)));
    if (request.bindings.inputs.count(v.name)) continue;
    // A tensor file is data, not a request to resize the model: it must fit the dims the file fixes
    // (--input NAME=DIMS rebinds them explicitly).
    bool fits = !v.has_shape || v.shape.size() == inputs[i].dims.size();
    for (size_t k = 0; fits && v.has_shape && k < v.shape.size(); ++k)
      fits = !v.shape[k].is_known() || v.shape[k].value == inputs[i].dims[k];
    if (!fits)
      throw Error(fmt::format("input '{}' is {} in the model, input_{}.pb holds {} (--input {}=DIMS rebinds it)",
                              v.name, graph::to_string(v.shape), i, graph::to_string(graph::make_shape(inputs[i].dims)),
                              v.name));
    request.bindings.inputs[v.name] = inputs[i].dims;
  }
  // A whole-shape binding wins over --batch for those inputs: drop the batch so it cannot clash.
  request.bindings.batch.reset();
}

}  // namespace

Prepared prepare(analysis::Request request, const std::string& inputs_dir) {
  request.max_typed_elements = std::numeric_limits<int64_t>::max();
  Prepared p;
  if (!inputs_dir.empty()) {
    p.inputs = read_tensor_dir(inputs_dir, "input");
    onnx::LoadOptions options;
    options.max_typed_elements = request.max_typed_elements;
    auto model = onnx::load_model(request.model_path, options);
    check_tensor_io(model);  // before the input files are read as tensors
    bind_from_tensors(model, request, p.inputs);
    p.analysis = analysis::rerun(std::move(model), request);
  } else {
    p.analysis = analysis::run(request);
  }
  return p;
}

Prepared prepare_again(const graph::Model& pristine, const analysis::Request& request, std::vector<HostTensor> inputs) {
  Prepared p;
  auto bound = request;
  if (!inputs.empty()) bind_from_tensors(pristine, bound, inputs);
  p.analysis = analysis::rerun(pristine, bound);
  p.inputs = std::move(inputs);
  return p;
}

namespace {

void refuse_missing(const std::vector<std::pair<std::string, int>>& missing) {
  if (missing.empty()) return;
  std::string list;
  for (const auto& [op, count] : missing) list += fmt::format("{}{} x{}", list.empty() ? "" : ", ", op, count);
  throw Error("the executor cannot run these ops: " + list + " (see `ridge ops`)");
}

}  // namespace

void check_tensor_io(const graph::Model& model) {
  const auto& g = model.graph;
  for (const auto* ids : {&g.inputs, &g.outputs})
    for (auto id : *ids)
      if (g.value(id).is_sequence)
        throw Error(
            fmt::format("the model's {} '{}' is a sequence: ridge runs models whose inputs and outputs are "
                        "tensors (sequences inside a model run)",
                        ids == &g.inputs ? "input" : "output", g.value(id).name));
}

void check_runnable(const graph::Model& model, const Engine& engine) {
  check_tensor_io(model);
  refuse_missing(missing_ops(model, engine.op_types()));
}

void check_runnable(const graph::Model& model) {
  check_tensor_io(model);
  auto table = OpRegistry::instance().op_types();
  refuse_missing(missing_ops(model, std::vector<std::string>(table.begin(), table.end())));
}

namespace {

int64_t mem_available() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    int64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  return -1;
}

}  // namespace

void check_memory(const cost::ModelCost& cost, bool training, int64_t available) {
  if (available < 0) available = mem_available();
  if (available < 0) return;  // not Linux-like: nothing to compare against
  int64_t weights = cost.totals.weight_bytes, activations = cost.totals.peak_activation_bytes;
  int64_t need = weights + activations;
  std::string extra;
  if (training && cost.training) {
    int64_t train =
        cost.training->saved_activation_bytes + cost.training->gradient_bytes + cost.training->optimizer_state_bytes;
    need += train;
    extra = fmt::format(" + {} saved activations, gradients and optimizer state", si_bytes(train));
  }
  if (need <= available) return;
  throw Error(
      fmt::format("this run needs about {} (weights {} + peak activations {}{}, from the analytical model) "
                  "but {} is available; use a smaller batch or input",
                  si_bytes(need), si_bytes(weights), si_bytes(activations), extra, si_bytes(available)));
}

}  // namespace ridge::exec
