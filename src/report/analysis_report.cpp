#include "report/analysis_report.h"

#include <fmt/format.h>

#include "analysis/request_builder.h"
#include "graph/dtype.h"
#include "onnx/model_reader.h"
#include "report/format.h"
#include "report/result_codec.h"
#include "report/result_record.h"
#include "util/error.h"

namespace ridge::report {
namespace {

using json = nlohmann::ordered_json;

double ratio(int64_t a, int64_t b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }

Column count(std::string key, std::string title) {
  return {.key = std::move(key), .title = std::move(title), .style = Style::kSi};
}
Column bytes(std::string key, std::string title) {
  return {.key = std::move(key), .title = std::move(title), .style = Style::kBytes};
}
Column intensity(std::string key, std::string title, int decimals, std::string unit = "") {
  return {.key = std::move(key),
          .title = std::move(title),
          .style = Style::kFixed,
          .unit = std::move(unit),
          .decimals = decimals};
}
Column only(Column c, unsigned audience) {
  c.audience = audience;
  return c;
}

json op_count_json(const std::map<std::string, int>& ops) {
  json j = json::object();
  for (const auto& [op, n] : ops) j[op] = n;
  return j;
}

void add_header(Document& doc, const analysis::Analysis& a) {
  add_ridge_version(doc);
  doc.field("model", "model", fmt::format("{}  (opset {}, {} nodes)", a.model, a.opset, a.graph_nodes),
            {{"path", a.model},
             {"opset", a.opset},
             {"ir_version", a.ir_version},
             {"producer", a.producer},
             {"nodes", a.graph_nodes}});
  std::string inputs;
  json inputs_json = json::object();
  for (const auto& [name, shape] : a.inputs) {
    inputs += fmt::format("{}{}={}", inputs.empty() ? "" : ", ", name, shape);
    inputs_json[name] = shape;
  }
  doc.field("inputs", "inputs", inputs, inputs_json);
  doc.field("options", "dtypes",
            fmt::format("activations {}, weights {}{}", a.activation_dtype, a.weight_dtype,
                        a.training ? fmt::format("; training step, optimizer {}", a.optimizer) : ""),
            {{"activation_dtype", a.activation_dtype},
             {"weight_dtype", a.weight_dtype},
             {"training", a.training},
             {"optimizer", a.optimizer}});
  doc.notes = a.notes;
  doc.notes_at_top = true;
}

void add_nodes(Document& doc, const cost::ModelCost& c, bool training) {
  auto& t = doc.table("nodes", "");
  t.column({.key = "name", .title = "node", .max_width = 40})
      .column({.key = "op"})
      .column({.key = "family", .audience = kJson})
      .column({.key = "output_shape", .title = "output"})
      .column({.key = "status", .audience = kMachine})
      .column(count("flops", "FLOPs"))
      .column(count("macs", "MACs"))
      .column(count("params", "params"))
      .column(only(bytes("activation_bytes_read", ""), kMachine))
      .column({.key = "weight_bytes_read", .audience = kMachine})
      .column({.key = "bytes_read", .title = "read", .style = Style::kBytes, .audience = kHuman})
      .column(bytes("bytes_written", "written"))
      .column({.key = "bytes", .audience = kMachine})
      .column({.key = "bytes_fused", .audience = kMachine})
      .column(intensity("intensity", "FLOP/B", 1));
  if (training) t.column(count("backward_flops", "bwd FLOPs")).column(bytes("backward_bytes", "bwd bytes"));
  t.column({.key = "status_shown", .title = "status", .audience = kHuman}).column({.key = "note", .audience = kJson});
  for (const auto& n : c.nodes) {
    std::vector<Value> row{n.name,
                           n.op_type,
                           n.family,
                           n.output_shape,
                           std::string(cost::status_name(n.status)),
                           n.flops,
                           n.macs,
                           n.params,
                           n.activation_bytes_read,
                           n.weight_bytes_read,
                           n.activation_bytes_read + n.weight_bytes_read,
                           n.bytes_written,
                           n.bytes(),
                           n.bytes_fused,
                           n.intensity()};
    if (training) {
      row.emplace_back(n.backward_flops);
      row.emplace_back(n.backward_bytes);
    }
    row.emplace_back(n.status == cost::NodeStatus::kCosted ? std::string() : std::string(cost::status_name(n.status)));
    row.emplace_back(n.note.empty() ? Value{} : Value{n.note});
    t.add(std::move(row));
  }
}

void add_op_types(Document& doc, const analysis::Analysis& a) {
  const auto& c = a.cost;
  auto& t = doc.table("op_types", "per op type:");
  t.column({.key = "op"})
      .column({.key = "count"})
      .column(count("flops", "FLOPs"))
      .column(only(intensity("flops_percent", "% FLOPs", 1), kHuman))
      .column(count("macs", "MACs"))
      .column(bytes("bytes", "bytes"))
      .column(count("params", "params"));
  for (const auto& s : a.op_types)
    t.add({s.op_type, static_cast<int64_t>(s.count), s.flops, 100.0 * ratio(s.flops, c.totals.flops), s.macs, s.bytes,
           s.params});
}

Table totals_table(const cost::Totals& t) {
  Table totals;
  totals.key = "totals";
  totals.title = "totals:";
  totals.layout = Table::Layout::kRecord;
  totals.column(count("flops", "FLOPs"))
      .column(count("macs", "MACs"))
      .column(count("params", "parameters"))
      .column(bytes("bytes", "bytes, unfused"))
      .column(bytes("activation_bytes_read", "  activations read"))
      .column(bytes("weight_bytes_read", "  weights read"))
      .column(bytes("bytes_written", "  written"))
      .column(bytes("bytes_fused", "bytes, fused"))
      .column(bytes("bytes_min", "bytes, lower bound"))
      .column(bytes("weight_bytes", "weight memory"))
      .column(bytes("peak_activation_bytes", "peak activation memory"))
      .column(intensity("intensity", "intensity, unfused", 2, "FLOP/B"))
      .column(intensity("intensity_fused", "intensity, fused", 2, "FLOP/B"));
  totals.add({t.flops, t.macs, t.params, t.bytes, t.activation_bytes_read, t.weight_bytes_read, t.bytes_written,
              t.bytes_fused, t.bytes_min, t.weight_bytes, t.peak_activation_bytes, t.intensity(),
              ratio(t.flops, t.bytes_fused)});
  return totals;
}

Table training_table(const cost::TrainingTotals& tr) {
  Table training;
  training.key = "training";
  training.title = "training step:";
  training.layout = Table::Layout::kRecord;
  training.column(count("flops", "training FLOPs"))
      .column(count("forward_flops", "  forward"))
      .column(count("backward_flops", "  backward"))
      .column(count("optimizer_flops", "  optimizer"))
      .column(bytes("bytes", "training bytes"))
      .column(only(bytes("forward_bytes", ""), kMachine))
      .column(bytes("backward_bytes", "  backward"))
      .column(bytes("optimizer_bytes", "  optimizer"))
      .column(bytes("saved_activation_bytes", "activations kept for backward"))
      .column(bytes("gradient_bytes", "gradients"))
      .column(bytes("optimizer_state_bytes", "optimizer state"));
  training.add({tr.flops(), tr.forward_flops, tr.backward_flops, tr.optimizer_flops, tr.bytes(), tr.forward_bytes,
                tr.backward_bytes, tr.optimizer_bytes, tr.saved_activation_bytes, tr.gradient_bytes,
                tr.optimizer_state_bytes});
  return training;
}

// A table only JSON sees, nested in a sweep point.
Value nested_json(Table t) {
  t.audience = kJson;
  return std::shared_ptr<const Table>(std::make_shared<Table>(std::move(t)));
}

Table op_count_table(const std::string& key, const std::map<std::string, int>& ops) {
  Table t;
  t.key = key;
  t.layout = Table::Layout::kRecord;
  std::vector<Value> counts;
  for (const auto& [op, n] : ops) {
    t.columns.push_back({.key = op});
    counts.emplace_back(static_cast<int64_t>(n));
  }
  t.add(std::move(counts));
  return t;
}

void add_uncosted(Document& doc, const cost::ModelCost& c) {
  doc.field("unknown_ops", "ops without a cost rule", op_counts(c.unknown_ops), op_count_json(c.unknown_ops)).at_end =
      true;
  auto& unresolved = doc.field("unresolved_ops", "nodes with unresolved shapes (not costed)",
                               op_counts(c.unresolved_ops), op_count_json(c.unresolved_ops));
  unresolved.at_end = true;
  if (c.unresolved_ops.empty()) unresolved.audience = kJson;
  auto& estimated = doc.field("estimated_nodes", "estimated nodes (each note says why)",
                              std::to_string(c.estimated_nodes), c.estimated_nodes);
  estimated.at_end = true;
  if (!c.estimated_nodes) estimated.audience = kJson;
}

}  // namespace

Document analysis_document(const analysis::Analysis& a) {
  Document doc;
  doc.command = "analyze";
  doc.subject = a.model;
  add_header(doc, a);
  if (a.with_nodes) add_nodes(doc, a.cost, a.training);
  add_op_types(doc, a);
  doc.tables.push_back(totals_table(a.cost.totals));
  if (a.cost.training) doc.tables.push_back(training_table(*a.cost.training));
  add_uncosted(doc, a.cost);
  return doc;
}

Document analysis_document(const analysis::Request& request, const analysis::Result& result, bool with_nodes) {
  return analysis_document(analysis::make_analysis(request, result, with_nodes));
}

std::vector<analysis::Analysis> sweep_analyses(const analysis::Request& request,
                                               const std::vector<SweepPoint>& points) {
  std::vector<analysis::Analysis> out;
  for (const auto& p : points) {
    out.push_back(analysis::make_analysis(request, p.result, false));
    out.back().sweep_value = p.value;
  }
  return out;
}

Document analysis_sweep_document(const analysis::Request& request, const std::string& key,
                                 const std::vector<SweepPoint>& points) {
  return analysis_sweep_document(request.model_path, key, sweep_analyses(request, points));
}

Document analysis_sweep_document(const std::string& model, const std::string& key,
                                 const std::vector<analysis::Analysis>& points) {
  Document doc;
  doc.command = "analyze";
  doc.subject = model;
  add_ridge_version(doc);
  doc.field("model", "model", fmt::format("{}  sweep over {}", model, key), {{"path", model}});
  doc.field("sweep", "", "", key, kJson);
  bool training = !points.empty() && points.front().training;
  auto& t = doc.table("points", "");
  t.column({.key = key, .json_path = "value"})
      .column(count("flops", "FLOPs"))
      .column(count("macs", "MACs"))
      .column(count("params", "params"))
      .column(bytes("bytes", "bytes"))
      .column(bytes("bytes_fused", "bytes_fused"))
      .column(bytes("bytes_min", "bytes_min"))
      .column(bytes("peak_activation_bytes", "peak_activation_bytes"))
      .column(intensity("intensity", "intensity", 2));
  if (training)
    t.column(count("training_flops", "training_flops"))
        .column(bytes("training_bytes", "training_bytes"))
        .column(bytes("saved_activation_bytes", "saved_activation_bytes"));
  // JSON points keep the totals in objects (below), as a single analysis does.
  for (auto& column : t.columns)
    if (column.key != key) column.audience = kHuman | kCsv;
  t.column({.key = "unknown_ops", .audience = kHuman | kCsv});
  // JSON points keep the single analysis's layout: totals, training and unknown_ops objects.
  t.column({.key = "unknown_ops_json", .audience = kJson, .json_path = "unknown_ops"})
      .column({.key = "totals", .audience = kJson})
      .column({.key = "training", .audience = kJson});
  for (const auto& p : points) {
    const auto& c = p.cost;
    const auto& tot = c.totals;
    std::vector<Value> row{p.sweep_value,  tot.flops,       tot.macs,      tot.params,
                           tot.bytes,      tot.bytes_fused, tot.bytes_min, tot.peak_activation_bytes,
                           tot.intensity()};
    if (training) {
      row.emplace_back(c.training->flops());
      row.emplace_back(c.training->bytes());
      row.emplace_back(c.training->saved_activation_bytes);
    }
    row.emplace_back(op_counts(c.unknown_ops));
    row.emplace_back(nested_json(op_count_table("unknown_ops", c.unknown_ops)));
    row.emplace_back(nested_json(totals_table(c.totals)));
    row.emplace_back(c.training ? nested_json(training_table(*c.training)) : Value{});
    t.add(std::move(row));
  }
  return doc;
}

AnalysisSweep analyze_sweep(const analysis::Request& request, const std::string& sweep) {
  auto [key, values] = analysis::parse_sweep(sweep);
  analysis::check_sweep_conflicts(request, key);
  auto pristine = onnx::load_model(request.model_path);
  std::vector<SweepPoint> points;
  for (auto v : values) {
    auto point = request;
    if (key == "batch")
      point.bindings.batch = v;
    else
      point.bindings.dims[key] = v;
    points.push_back({std::to_string(v), analysis::rerun(pristine, point)});
  }
  return {key, sweep_analyses(request, points)};
}

void analyze_and_keep(const AnalyzeCommand& o, std::ostream& out) {
  auto request = analysis::make_request(o.model);
  if (o.sweep.empty()) {
    auto result = analysis::run(request);
    auto analyzed = analysis::make_analysis(request, result, !o.summary);
    auto doc = analysis_document(analyzed);
    emit(
        doc, o.format, [&] { return analysis::encode_analysis(analyzed); }, out);
    TypedResult value{.kind = "analyze", .analyses = {analyzed}};
    keep_result(o.store, doc, model_params(o.model, analysis::bound_batch(result.model)), value);
    return;
  }
  if (o.summary) throw Error("--summary applies to one analysis; a sweep prints one row of totals per point already");
  auto sweep = analyze_sweep(request, o.sweep);
  auto doc = analysis_sweep_document(request.model_path, sweep.key, sweep.analyses);
  emit(
      doc, o.format, [&] { return analysis::encode_analysis_sweep(request.model_path, sweep.key, sweep.analyses); },
      out);
  TypedResult value{.kind = "analyze", .analyses = std::move(sweep.analyses), .sweep = sweep.key};
  keep_result(o.store, doc, model_params(o.model), value);
}

}  // namespace ridge::report
