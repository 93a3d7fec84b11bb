#include "report/run_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "onnx/tensor_decode.h"

namespace ridge::report {
namespace {

// min / max / mean and the first values of an output.
struct Description {
  Value min, max, mean;
  std::string first;
};

Description describe(const exec::HostTensor& t) {
  graph::TensorRef header;
  header.name = t.name;
  header.dtype = t.dtype;
  header.dims = t.dims;
  auto decoded = onnx::decode_values(header, t.bytes);
  if (!decoded) return {{}, {}, {}, "(values not shown for this type)"};
  std::vector<double> values;
  for (size_t i = 0; i < static_cast<size_t>(decoded->size()); ++i) values.push_back(decoded->as_real(i));
  if (values.empty()) return {};
  double lo = values[0], hi = values[0], sum = 0;
  for (double v : values) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  std::string first;
  for (size_t i = 0; i < std::min<size_t>(4, values.size()); ++i)
    first += fmt::format("{}{:.5g}", i ? " " : "", values[i]);
  if (values.size() > 4) first += " ...";
  return {lo, hi, sum / static_cast<double>(values.size()), first};
}

Column statistic(const char* key) { return {.key = key, .style = Style::kGeneral, .decimals = 5}; }

}  // namespace

Document run_document(const exec::RunRequest& request, const exec::ModelRun& run) {
  const auto& model = request.model.model_path;
  const auto& inputs_dir = request.exec.inputs_dir;
  Document doc;
  doc.command = "run";
  doc.subject = model;
  doc.field("model", "model", model, model);
  nlohmann::ordered_json inputs = nlohmann::ordered_json::object();
  for (const auto& [name, shape] : run.inputs) {
    doc.field("", "input " + name, shape, {}, kHuman);
    inputs[name] = shape;
  }
  doc.field("inputs", "", "", inputs, kJson);
  doc.field("inputs_from", "inputs", run.given_inputs ? inputs_dir : "generated (seeded)",
            run.given_inputs ? inputs_dir : "generated");
  doc.field("random_weights", "", "", run.output.random_weights, kJson);
  auto& table = doc.table("outputs", "");
  table.column({.key = "output"})
      .column({.key = "dtype"})
      .column({.key = "shape"})
      .column(statistic("min"))
      .column(statistic("max"))
      .column(statistic("mean"))
      .column({.key = "first_values", .title = "first values"});
  for (const auto& t : run.output.outputs) {
    std::string shape;
    for (size_t i = 0; i < t.dims.size(); ++i) {
      if (i) shape += 'x';
      shape += std::to_string(t.dims[i]);
    }
    auto d = describe(t);
    table.add({t.name, std::string(graph::dtype_name(t.dtype)), shape.empty() ? "scalar" : shape, d.min, d.max, d.mean,
               d.first});
  }
  doc.notes = run.output.notes;
  if (!request.save_outputs.empty())
    doc.field("saved", "outputs written to", request.save_outputs + "/output_N.pb", request.save_outputs).at_end = true;
  return doc;
}

}  // namespace ridge::report
