#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>

#include "cli/command.h"
#include "cli/common.h"
#include "cli/exec_options.h"
#include "cli/output_options.h"
#include "exec/prepare.h"
#include "exec/test_data.h"
#include "onnx/tensor_decode.h"
#include "util/error.h"

namespace ridge::cli {
namespace {

struct RunOptions {
  ModelOptions model;
  ExecCliOptions exec;
  std::string save_outputs, format = "table";
};

// min / max / mean and the first values of an output.
struct Description {
  report::Value min, max, mean;
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

report::Column statistic(const char* key) { return {.key = key, .style = report::Style::kGeneral, .decimals = 5}; }

int run_model(const RunOptions& o) {
  auto request = make_request(o.model);
  if (!o.exec.inputs_dir.empty() &&
      (request.bindings.batch || !request.bindings.dims.empty() || !request.bindings.inputs.empty()))
    throw Error("--inputs fixes the input shapes: --batch, --dim and --input cannot change them");
  auto options = to_exec_options(o.exec);
  auto prepared = exec::prepare(request, o.exec.inputs_dir);
  if (options.device == exec::Device::kCpu) {
    // Checked before libtorch is loaded.
    exec::check_runnable(prepared.analysis.model);
    exec::check_memory(prepared.analysis.cost, false);
  }
  auto& engine = exec::load_engine(options.device);
  auto result = engine.run(prepared.analysis.model, prepared.inputs, options);
  report::Document doc;
  doc.command = "run";
  doc.subject = o.model.model;
  doc.field("model", "model", o.model.model, o.model.model);
  nlohmann::ordered_json inputs = nlohmann::ordered_json::object();
  for (const auto& [name, shape] : prepared.analysis.inputs) {
    doc.field("", "input " + name, shape, {}, report::kHuman);
    inputs[name] = shape;
  }
  doc.field("inputs", "", "", inputs, report::kJson);
  doc.field("inputs_from", "inputs", prepared.inputs.empty() ? "generated (seeded)" : o.exec.inputs_dir,
            prepared.inputs.empty() ? "generated" : o.exec.inputs_dir);
  doc.field("random_weights", "", "", result.random_weights, report::kJson);
  auto& table = doc.table("outputs", "");
  table.column({.key = "output"})
      .column({.key = "dtype"})
      .column({.key = "shape"})
      .column(statistic("min"))
      .column(statistic("max"))
      .column(statistic("mean"))
      .column({.key = "first_values", .title = "first values"});
  for (const auto& t : result.outputs) {
    std::string shape;
    for (size_t i = 0; i < t.dims.size(); ++i) shape += (i ? "x" : "") + std::to_string(t.dims[i]);
    auto d = describe(t);
    table.add({t.name, std::string(graph::dtype_name(t.dtype)), shape.empty() ? "scalar" : shape, d.min, d.max, d.mean,
               d.first});
  }
  doc.notes = result.notes;
  if (!o.save_outputs.empty()) {
    exec::write_tensor_dir(o.save_outputs, "output", result.outputs);
    doc.field("saved", "outputs written to", o.save_outputs + "/output_N.pb", o.save_outputs).at_end = true;
  }
  emit(doc, o.format);
  return 0;
}

}  // namespace

Command add_run_command(CLI::App& parent) {
  auto o = std::make_shared<RunOptions>();
  auto* app = parent.add_subcommand(
      "run", "run a model once on the executor (ATen on the CPU, or the GPU) and show or save its outputs");
  add_model_options(*app, o->model, false, true);
  add_exec_options(*app, o->exec, exec::mode_names(), exec::all_conv_algo_names());
  app->add_option("--save-outputs", o->save_outputs,
                  "write the outputs as output_0.pb, output_1.pb, ... (TensorProto, ONNX test-data layout) here");
  add_format_option(*app, o->format);
  app->footer(
      "Examples:\n"
      "  ridge run models/resnet50.onnx --batch 2\n"
      "  ridge run model.onnx --inputs test_data_set_0 --save-outputs out/\n"
      "Models without weight values (ridge's bundled models) run with random weights, and say so.");
  return {app, [o] { return run_model(*o); }};
}

}  // namespace ridge::cli
