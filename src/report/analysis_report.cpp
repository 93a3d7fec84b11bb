#include "report/analysis_report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "graph/dtype.h"
#include "report/format.h"
#include "report/text_table.h"
#include "util/build_info.h"
#include "util/error.h"

namespace ridge::report {
namespace {

using nlohmann::json;

std::string dtype_choice(const std::optional<graph::DType>& t) {
  return t ? std::string(graph::dtype_name(*t)) : std::string("as stored");
}

json totals_json(const cost::Totals& t) {
  return {
      {"flops", t.flops},
      {"macs", t.macs},
      {"params", t.params},
      {"bytes", t.bytes},
      {"bytes_fused", t.bytes_fused},
      {"bytes_min", t.bytes_min},
      {"activation_bytes_read", t.activation_bytes_read},
      {"weight_bytes_read", t.weight_bytes_read},
      {"bytes_written", t.bytes_written},
      {"weight_bytes", t.weight_bytes},
      {"peak_activation_bytes", t.peak_activation_bytes},
      {"intensity", t.intensity()},
      {"intensity_fused", t.bytes_fused > 0 ? static_cast<double>(t.flops) / static_cast<double>(t.bytes_fused) : 0.0}};
}

json training_json(const cost::TrainingTotals& t) {
  return {{"flops", t.flops()},
          {"bytes", t.bytes()},
          {"forward_flops", t.forward_flops},
          {"backward_flops", t.backward_flops},
          {"optimizer_flops", t.optimizer_flops},
          {"forward_bytes", t.forward_bytes},
          {"backward_bytes", t.backward_bytes},
          {"optimizer_bytes", t.optimizer_bytes},
          {"saved_activation_bytes", t.saved_activation_bytes},
          {"gradient_bytes", t.gradient_bytes},
          {"optimizer_state_bytes", t.optimizer_state_bytes}};
}

std::string short_name(const std::string& name, size_t width) {
  if (name.size() <= width) return name;
  return "..." + name.substr(name.size() - (width - 3));
}

std::string status_cell(const cost::NodeCost& n) {
  return n.status == cost::NodeStatus::kCosted ? "" : cost::status_name(n.status);
}

void write_header(std::ostream& out, const analysis::Request& request, const analysis::Result& result) {
  fmt::print(out, "model: {}  (opset {}, {} nodes)\n", request.model_path, result.model.default_opset(),
             result.model.graph.nodes.size());
  std::string inputs;
  for (const auto& [name, shape] : result.inputs)
    inputs += fmt::format("{}{}={}", inputs.empty() ? "" : ", ", name, shape);
  fmt::print(out, "inputs: {}\n", inputs);
  fmt::print(out, "dtypes: activations {}, weights {}{}\n", dtype_choice(request.options.activation_dtype),
             dtype_choice(request.options.weight_dtype),
             request.options.training
                 ? fmt::format("; training step, optimizer {}", cost::name(request.options.optimizer))
                 : "");
  for (const auto& note : result.notes) fmt::print(out, "note: {}\n", note);
}

void write_table(std::ostream& out, const analysis::Request& request, const analysis::Result& result,
                 const ReportOptions& options) {
  const auto& c = result.cost;
  const auto& t = c.totals;
  write_header(out, request, result);
  bool training = request.options.training;
  if (options.show_nodes) {
    TextTable table({"node", "op", "output", "FLOPs", "MACs", "params", "read", "written", "FLOP/B"});
    if (training) {
      table.add_column("bwd FLOPs");
      table.add_column("bwd bytes");
    }
    table.add_column("status");
    for (const auto& n : c.nodes) {
      std::vector<std::string> row{short_name(n.name, 40),
                                   n.op_type,
                                   n.output_shape,
                                   si(static_cast<double>(n.flops)),
                                   si(static_cast<double>(n.macs)),
                                   si(static_cast<double>(n.params)),
                                   si_bytes(static_cast<double>(n.activation_bytes_read + n.weight_bytes_read)),
                                   si_bytes(static_cast<double>(n.bytes_written)),
                                   fixed(n.intensity(), 1)};
      if (training) {
        row.push_back(si(static_cast<double>(n.backward_flops)));
        row.push_back(si_bytes(static_cast<double>(n.backward_bytes)));
      }
      row.push_back(status_cell(n));
      table.add_row(std::move(row));
    }
    fmt::print(out, "\n");
    table.print(out);
  }
  fmt::print(out, "\nper op type:\n");
  TextTable types({"op", "count", "FLOPs", "% FLOPs", "MACs", "bytes", "params"});
  for (const auto& s : c.by_op_type())
    types.add_row({s.op_type, std::to_string(s.count), si(static_cast<double>(s.flops)),
                   fixed(t.flops ? 100.0 * static_cast<double>(s.flops) / static_cast<double>(t.flops) : 0.0, 1),
                   si(static_cast<double>(s.macs)), si_bytes(static_cast<double>(s.bytes)),
                   si(static_cast<double>(s.params))});
  types.print(out);
  fmt::print(out, "\ntotals:\n");
  TextTable totals({"quantity", "value", "exact"});
  auto row = [&](const std::string& name, const std::string& value, int64_t raw) {
    totals.add_row({name, value, std::to_string(raw)});
  };
  row("FLOPs", si(static_cast<double>(t.flops)), t.flops);
  row("MACs", si(static_cast<double>(t.macs)), t.macs);
  row("parameters", si(static_cast<double>(t.params)), t.params);
  row("bytes, unfused", si_bytes(static_cast<double>(t.bytes)), t.bytes);
  row("  activations read", si_bytes(static_cast<double>(t.activation_bytes_read)), t.activation_bytes_read);
  row("  weights read", si_bytes(static_cast<double>(t.weight_bytes_read)), t.weight_bytes_read);
  row("  written", si_bytes(static_cast<double>(t.bytes_written)), t.bytes_written);
  row("bytes, fused", si_bytes(static_cast<double>(t.bytes_fused)), t.bytes_fused);
  row("bytes, lower bound", si_bytes(static_cast<double>(t.bytes_min)), t.bytes_min);
  row("weight memory", si_bytes(static_cast<double>(t.weight_bytes)), t.weight_bytes);
  row("peak activation memory", si_bytes(static_cast<double>(t.peak_activation_bytes)), t.peak_activation_bytes);
  totals.add_row({"intensity, unfused", fixed(t.intensity(), 2) + " FLOP/B", ""});
  totals.add_row(
      {"intensity, fused",
       fixed(t.bytes_fused ? static_cast<double>(t.flops) / static_cast<double>(t.bytes_fused) : 0, 2) + " FLOP/B",
       ""});
  if (c.training) {
    const auto& tr = *c.training;
    row("training FLOPs", si(static_cast<double>(tr.flops())), tr.flops());
    row("  forward", si(static_cast<double>(tr.forward_flops)), tr.forward_flops);
    row("  backward", si(static_cast<double>(tr.backward_flops)), tr.backward_flops);
    row("  optimizer", si(static_cast<double>(tr.optimizer_flops)), tr.optimizer_flops);
    row("training bytes", si_bytes(static_cast<double>(tr.bytes())), tr.bytes());
    row("  backward", si_bytes(static_cast<double>(tr.backward_bytes)), tr.backward_bytes);
    row("  optimizer", si_bytes(static_cast<double>(tr.optimizer_bytes)), tr.optimizer_bytes);
    row("activations kept for backward", si_bytes(static_cast<double>(tr.saved_activation_bytes)),
        tr.saved_activation_bytes);
    row("gradients", si_bytes(static_cast<double>(tr.gradient_bytes)), tr.gradient_bytes);
    row("optimizer state", si_bytes(static_cast<double>(tr.optimizer_state_bytes)), tr.optimizer_state_bytes);
  }
  totals.print(out);
  fmt::print(out, "\nops without a cost rule: {}\n", op_counts(c.unknown_ops));
  if (!c.unresolved_ops.empty())
    fmt::print(out, "nodes with unresolved shapes (not costed): {}\n", op_counts(c.unresolved_ops));
  if (c.estimated_nodes) fmt::print(out, "estimated nodes (control flow decided at run time): {}\n", c.estimated_nodes);
}

void write_csv(std::ostream& out, const analysis::Result& result, bool training) {
  fmt::print(out,
             "name,op,output_shape,status,flops,macs,params,activation_bytes_read,weight_bytes_read,bytes_written,"
             "bytes,bytes_fused,intensity{}\n",
             training ? ",backward_flops,backward_bytes" : "");
  for (const auto& n : result.cost.nodes) {
    fmt::print(out, "{},{},{},{},{},{},{},{},{},{},{},{},{:.4f}", csv_field(n.name), csv_field(n.op_type),
               n.output_shape, cost::status_name(n.status), n.flops, n.macs, n.params, n.activation_bytes_read,
               n.weight_bytes_read, n.bytes_written, n.bytes(), n.bytes_fused, n.intensity());
    if (training) fmt::print(out, ",{},{}", n.backward_flops, n.backward_bytes);
    fmt::print(out, "\n");
  }
}

void write_markdown(std::ostream& out, const analysis::Request& request, const analysis::Result& result,
                    const ReportOptions& options) {
  const auto& c = result.cost;
  const auto& t = c.totals;
  fmt::print(out, "# ridge analyze: `{}`\n\n", request.model_path);
  for (const auto& [name, shape] : result.inputs) fmt::print(out, "- input `{}`: {}\n", name, shape);
  for (const auto& note : result.notes) fmt::print(out, "- note: {}\n", note);
  fmt::print(out, "\n## Totals\n\n| quantity | value | exact |\n|---|---:|---:|\n");
  auto row = [&](const char* name, const std::string& v, int64_t raw) {
    fmt::print(out, "| {} | {} | {} |\n", name, v, raw);
  };
  row("FLOPs", si(static_cast<double>(t.flops)), t.flops);
  row("MACs", si(static_cast<double>(t.macs)), t.macs);
  row("parameters", si(static_cast<double>(t.params)), t.params);
  row("bytes (unfused)", si_bytes(static_cast<double>(t.bytes)), t.bytes);
  row("bytes (fused)", si_bytes(static_cast<double>(t.bytes_fused)), t.bytes_fused);
  row("bytes (lower bound)", si_bytes(static_cast<double>(t.bytes_min)), t.bytes_min);
  row("peak activation memory", si_bytes(static_cast<double>(t.peak_activation_bytes)), t.peak_activation_bytes);
  if (c.training) row("training FLOPs", si(static_cast<double>(c.training->flops())), c.training->flops());
  fmt::print(out, "\nOps without a cost rule: {}\n", op_counts(c.unknown_ops));
  if (!c.unresolved_ops.empty()) fmt::print(out, "\nNodes with unresolved shapes: {}\n", op_counts(c.unresolved_ops));
  fmt::print(out,
             "\n## Per op type\n\n| op | count | FLOPs | MACs | bytes | params |\n|---|---:|---:|---:|---:|---:|\n");
  for (const auto& s : c.by_op_type())
    fmt::print(out, "| {} | {} | {} | {} | {} | {} |\n", s.op_type, s.count, si(static_cast<double>(s.flops)),
               si(static_cast<double>(s.macs)), si_bytes(static_cast<double>(s.bytes)),
               si(static_cast<double>(s.params)));
  if (!options.show_nodes) return;
  fmt::print(out,
             "\n## Per node\n\n| node | op | output | FLOPs | MACs | params | bytes | FLOP/B | status |\n"
             "|---|---|---|---:|---:|---:|---:|---:|---|\n");
  for (const auto& n : c.nodes)
    fmt::print(out, "| `{}` | {} | {} | {} | {} | {} | {} | {:.1f} | {} |\n", n.name, n.op_type, n.output_shape,
               si(static_cast<double>(n.flops)), si(static_cast<double>(n.macs)), si(static_cast<double>(n.params)),
               si_bytes(static_cast<double>(n.bytes())), n.intensity(), status_cell(n));
}

}  // namespace

Format parse_format(const std::string& text) {
  if (text == "table") return Format::kTable;
  if (text == "csv") return Format::kCsv;
  if (text == "json") return Format::kJson;
  if (text == "md" || text == "markdown") return Format::kMarkdown;
  throw Error("unknown format '" + text + "' (expected table, csv, json or md)");
}

json analysis_json(const analysis::Request& request, const analysis::Result& result, bool with_nodes) {
  const auto& c = result.cost;
  json doc;
  doc["ridge"] = {{"version", kVersion}, {"revision", kRevision}};
  doc["model"] = {{"path", request.model_path},
                  {"opset", result.model.default_opset()},
                  {"ir_version", result.model.ir_version},
                  {"producer", result.model.producer},
                  {"nodes", result.model.graph.nodes.size()}};
  json inputs = json::object();
  for (const auto& [name, shape] : result.inputs) inputs[name] = shape;
  doc["inputs"] = inputs;
  doc["notes"] = result.notes;
  doc["options"] = {{"activation_dtype", dtype_choice(request.options.activation_dtype)},
                    {"weight_dtype", dtype_choice(request.options.weight_dtype)},
                    {"training", request.options.training},
                    {"optimizer", std::string(cost::name(request.options.optimizer))}};
  doc["totals"] = totals_json(c.totals);
  if (c.training) doc["training"] = training_json(*c.training);
  doc["unknown_ops"] = c.unknown_ops;
  doc["unresolved_ops"] = c.unresolved_ops;
  doc["estimated_nodes"] = c.estimated_nodes;
  json types = json::array();
  for (const auto& s : c.by_op_type())
    types.push_back({{"op", s.op_type},
                     {"count", s.count},
                     {"flops", s.flops},
                     {"macs", s.macs},
                     {"bytes", s.bytes},
                     {"params", s.params}});
  doc["op_types"] = types;
  if (with_nodes) {
    json nodes = json::array();
    for (const auto& n : c.nodes) {
      json node = {{"name", n.name},
                   {"op", n.op_type},
                   {"output_shape", n.output_shape},
                   {"status", cost::status_name(n.status)},
                   {"flops", n.flops},
                   {"macs", n.macs},
                   {"params", n.params},
                   {"activation_bytes_read", n.activation_bytes_read},
                   {"weight_bytes_read", n.weight_bytes_read},
                   {"bytes_written", n.bytes_written},
                   {"bytes", n.bytes()},
                   {"bytes_fused", n.bytes_fused},
                   {"intensity", n.intensity()}};
      if (c.training) {
        node["backward_flops"] = n.backward_flops;
        node["backward_bytes"] = n.backward_bytes;
      }
      if (!n.note.empty()) node["note"] = n.note;
      nodes.push_back(std::move(node));
    }
    doc["nodes"] = nodes;
  }
  return doc;
}

void write_analysis(std::ostream& out, const analysis::Request& request, const analysis::Result& result, Format format,
                    const ReportOptions& options) {
  switch (format) {
    case Format::kTable:
      return write_table(out, request, result, options);
    case Format::kCsv:
      return write_csv(out, result, request.options.training);
    case Format::kJson:
      out << analysis_json(request, result, options.show_nodes).dump(2) << "\n";
      return;
    case Format::kMarkdown:
      return write_markdown(out, request, result, options);
  }
}

void write_sweep(std::ostream& out, const analysis::Request& request, const std::string& key,
                 const std::vector<SweepPoint>& points, Format format) {
  bool training = request.options.training;
  if (format == Format::kJson) {
    json doc;
    doc["ridge"] = {{"version", kVersion}, {"revision", kRevision}};
    doc["model"] = {{"path", request.model_path}};
    doc["sweep"] = key;
    json rows = json::array();
    for (const auto& p : points) {
      json row = analysis_json(request, p.result, false);
      row.erase("ridge");
      row.erase("model");
      row.erase("op_types");
      row["value"] = p.value;
      rows.push_back(std::move(row));
    }
    doc["points"] = rows;
    out << doc.dump(2) << "\n";
    return;
  }
  std::vector<std::string> header{
      key, "FLOPs", "MACs", "params", "bytes", "bytes_fused", "bytes_min", "peak_activation_bytes", "intensity"};
  if (training) header.insert(header.end(), {"training_flops", "training_bytes", "saved_activation_bytes"});
  header.push_back("unknown_ops");
  if (format == Format::kCsv) {
    std::string line;
    for (const auto& h : header) line += (line.empty() ? "" : ",") + h;
    fmt::print(out, "{}\n", line);
    for (const auto& p : points) {
      const auto& t = p.result.cost.totals;
      fmt::print(out, "{},{},{},{},{},{},{},{},{:.4f}", p.value, t.flops, t.macs, t.params, t.bytes, t.bytes_fused,
                 t.bytes_min, t.peak_activation_bytes, t.intensity());
      if (training) {
        const auto& tr = *p.result.cost.training;
        fmt::print(out, ",{},{},{}", tr.flops(), tr.bytes(), tr.saved_activation_bytes);
      }
      fmt::print(out, ",{}\n", csv_field(op_counts(p.result.cost.unknown_ops)));
    }
    return;
  }
  TextTable table(header);
  for (const auto& p : points) {
    const auto& t = p.result.cost.totals;
    std::vector<std::string> row{p.value,
                                 si(static_cast<double>(t.flops)),
                                 si(static_cast<double>(t.macs)),
                                 si(static_cast<double>(t.params)),
                                 si_bytes(static_cast<double>(t.bytes)),
                                 si_bytes(static_cast<double>(t.bytes_fused)),
                                 si_bytes(static_cast<double>(t.bytes_min)),
                                 si_bytes(static_cast<double>(t.peak_activation_bytes)),
                                 fixed(t.intensity(), 2)};
    if (training) {
      const auto& tr = *p.result.cost.training;
      row.push_back(si(static_cast<double>(tr.flops())));
      row.push_back(si_bytes(static_cast<double>(tr.bytes())));
      row.push_back(si_bytes(static_cast<double>(tr.saved_activation_bytes)));
    }
    row.push_back(op_counts(p.result.cost.unknown_ops));
    table.add_row(std::move(row));
  }
  if (format == Format::kMarkdown) {
    fmt::print(out, "# ridge analyze sweep over {}: `{}`\n\n", key, request.model_path);
    table.print_markdown(out);
  } else {
    fmt::print(out, "model: {}  sweep over {}\n\n", request.model_path, key);
    table.print(out);
  }
}

}  // namespace ridge::report
