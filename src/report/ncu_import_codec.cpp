#include "report/ncu_import_codec.h"

#include <fmt/format.h>

#include "hw/device_db.h"
#include "report/printer.h"
#include "util/error.h"
#include "util/json_reader.h"

namespace ridge::report {
namespace {

using ordered = nlohmann::ordered_json;
using json = nlohmann::json;

ordered optional(const std::optional<double>& v) { return v ? ordered(*v) : ordered(); }

ordered encode_kernel(const profile::KernelFigures& k, const profile::LayerAssignment& where) {
  ordered out{{"name", k.name},
              {"id", k.id},
              {"process_id", k.process_id},
              {"device", k.device},
              {"cc", k.cc},
              {"block", k.block},
              {"grid", k.grid},
              {"nvtx", k.nvtx},
              {"nvtx_ranges", k.nvtx_ranges},
              {"invocations", k.invocations},
              {"failed", k.failed},
              {"time_s", optional(k.time_s)},
              {"time_source", k.time_source},
              {"sm_clock_hz", optional(k.sm_clock_hz)},
              {"flops_by_precision", ordered::object()},
              {"not_counted", k.not_counted},
              {"notes", k.notes},
              {"bad_values", k.bad_values},
              {"l1_bytes", optional(k.l1_bytes)},
              {"l2_bytes", optional(k.l2_bytes)},
              {"dram_bytes", optional(k.dram_bytes)},
              {"line", k.line},
              {"layer", where.layer},
              {"mapped_by", where.method}};
  for (const auto& [key, flops] : k.flops_by_precision) out["flops_by_precision"][key] = flops;
  return out;
}

std::pair<profile::KernelFigures, profile::LayerAssignment> decode_kernel(const JsonReader& r) {
  profile::KernelFigures k;
  k.name = r.text("name", "");
  k.id = r.count("id", -1);
  k.process_id = r.text("process_id", "");
  k.device = r.text("device", "");
  k.cc = r.text("cc", "");
  k.block = r.text("block", "");
  k.grid = r.text("grid", "");
  k.nvtx = r.text("nvtx", "");
  k.nvtx_ranges = r.texts("nvtx_ranges");
  k.invocations = r.count("invocations", 1);
  k.failed = r.flag("failed", false);
  k.time_s = r.optional_number("time_s");
  k.time_source = r.text("time_source", "");
  k.sm_clock_hz = r.optional_number("sm_clock_hz");
  if (r.has("flops_by_precision")) {
    auto by = r.child("flops_by_precision");
    for (const auto& [key, value] : r.at("flops_by_precision").items())
      k.flops_by_precision[key] = by.number(key.c_str());
  }
  k.not_counted = r.texts("not_counted");
  k.notes = r.texts("notes");
  k.bad_values = r.texts("bad_values");
  k.l1_bytes = r.optional_number("l1_bytes");
  k.l2_bytes = r.optional_number("l2_bytes");
  k.dram_bytes = r.optional_number("dram_bytes");
  k.line = r.text("line", "");
  return {k, {r.text("layer", ""), r.text("mapped_by", "")}};
}

profile::NcuLayout parse_layout(const std::string& text, const std::string& where) {
  for (auto layout : {profile::NcuLayout::kDetails, profile::NcuLayout::kRaw, profile::NcuLayout::kSummary})
    if (text == profile::layout_name(layout)) return layout;
  throw Error(fmt::format("{}.layout '{}' is none of the three ncu layouts", where, text));
}

ordered encode_import(const profile::NcuImport& import) {
  ordered out;
  out["device"] =
      import.roofline ? ordered{{"id", import.roofline->device_id}, {"mode", import.roofline->mode}} : ordered();
  out["model"] = ordered::array();
  for (const auto& [batch, m] : import.model) {
    ordered model{{"batch_key", batch}, {"path", m.path}, {"batch", m.batch}, {"flops", m.flops}, {"bytes", m.bytes}};
    model["layers"] = ordered::array();
    for (const auto& l : m.layers)
      model["layers"].push_back(
          {{"name", l.name}, {"op_type", l.op_type}, {"family", l.family}, {"flops", l.flops}, {"bytes", l.bytes}});
    out["model"].push_back(std::move(model));
  }
  out["runs"] = ordered::array();
  for (const auto& run : import.runs) {
    ordered r{{"label", run.label},
              {"path", run.path},
              {"batch", run.batch},
              {"layout", profile::layout_name(run.layout)},
              {"messages", run.messages},
              {"skipped_rows", run.skipped_rows},
              {"first_skipped_line", run.first_skipped_line},
              {"passes", run.passes},
              {"passes_from", run.passes_from},
              {"layer_map",
               {{"notes", run.layers.notes},
                {"passes", run.layers.passes},
                {"passes_from", run.layers.passes_from},
                {"misfit", run.layers.misfit}}}};
    r["kernels"] = ordered::array();
    for (size_t i = 0; i < run.kernels.size(); ++i)
      r["kernels"].push_back(encode_kernel(
          run.kernels[i], i < run.layers.of_kernel.size() ? run.layers.of_kernel[i] : profile::LayerAssignment{}));
    out["runs"].push_back(std::move(r));
  }
  return out;
}

}  // namespace

ordered encode_ncu_import(const profile::NcuImport& import) {
  auto out = to_json(ncu_import_document(import));
  out["import"] = encode_import(import);
  return out;
}

bool is_ncu_import(const json& doc) {
  return doc.is_object() && doc.contains("source") && doc["source"] == "ncu" && doc.contains("import");
}

DecodedNcuImport decode_ncu_import(const json& doc, const std::string& where) {
  JsonReader top(doc, where);
  if (!is_ncu_import(doc))
    throw Error(
        fmt::format("{} is no `ridge import ncu -f json` output (it has no source \"ncu\" with the import)", where));
  auto r = top.child("import");
  DecodedNcuImport out;
  auto& import = out.import;
  if (r.has("device")) {
    auto d = r.child("device");
    auto id = d.text("id", ""), mode = d.text("mode", "");
    try {
      auto device = hw::find_device(id);
      import.roofline = hw::roofline_for(device, hw::resolve_mode(device, mode));
    } catch (const Error& e) {
      out.missing_device = fmt::format("device '{}' (mode {}) of the import: {}", id, mode, e.what());
    }
  }
  const auto& models = r.list("model");
  for (size_t i = 0; i < models.size(); ++i) {
    JsonReader m(models[i], fmt::format("{}.model[{}]", r.where(), i));
    profile::AnalyticModel model{.path = m.text("path", ""),
                                 .batch = m.count("batch", 0),
                                 .flops = m.number("flops", 0.0),
                                 .bytes = m.number("bytes", 0.0)};
    const auto& layers = m.list("layers");
    for (size_t j = 0; j < layers.size(); ++j) {
      JsonReader l(layers[j], fmt::format("{}.layers[{}]", m.where(), j));
      model.layers.push_back({l.text("name", ""), l.text("op_type", ""), l.text("family", ""), l.number("flops", 0.0),
                              l.number("bytes", 0.0)});
    }
    import.model[m.count("batch_key", 0)] = std::move(model);
  }
  const auto& runs = r.list("runs");
  for (size_t i = 0; i < runs.size(); ++i) {
    JsonReader j(runs[i], fmt::format("{}.runs[{}]", r.where(), i));
    profile::NcuRun run;
    run.label = j.text("label", "");
    run.path = j.text("path", "");
    run.batch = j.count("batch", 0);
    run.layout = parse_layout(j.text("layout", "details"), j.where());
    run.messages = j.texts("messages");
    run.skipped_rows = static_cast<size_t>(j.count("skipped_rows", 0));
    run.first_skipped_line = static_cast<size_t>(j.count("first_skipped_line", 0));
    run.passes = j.count("passes", 1);
    run.passes_from = j.text("passes_from", "");
    if (j.has("layer_map")) {
      auto m = j.child("layer_map");
      run.layers.notes = m.texts("notes");
      run.layers.passes = m.count("passes", 0);
      run.layers.passes_from = m.text("passes_from", "");
      run.layers.misfit = m.text("misfit", "");
    }
    const auto& kernels = j.list("kernels");
    for (size_t k = 0; k < kernels.size(); ++k) {
      auto [figures, assignment] = decode_kernel(JsonReader(kernels[k], fmt::format("{}.kernels[{}]", j.where(), k)));
      run.kernels.push_back(std::move(figures));
      run.layers.of_kernel.push_back(std::move(assignment));
    }
    import.runs.push_back(std::move(run));
  }
  return out;
}

}  // namespace ridge::report
