#include "analysis/analysis_codec.h"

#include <fmt/format.h>

#include "graph/dtype.h"
#include "util/build_info.h"
#include "util/error.h"
#include "util/json_reader.h"

namespace ridge::analysis {
namespace {

using ordered = nlohmann::ordered_json;
using json = nlohmann::json;

double ratio(int64_t a, int64_t b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }

std::string dtype_choice(const std::optional<graph::DType>& t) {
  return t ? std::string(graph::dtype_name(*t)) : std::string("as stored");
}

cost::NodeStatus parse_status(const std::string& text, const std::string& where) {
  for (auto s : {cost::NodeStatus::kCosted, cost::NodeStatus::kEstimate, cost::NodeStatus::kFolded,
                 cost::NodeStatus::kUnknownOp, cost::NodeStatus::kUnresolved})
    if (text == cost::status_name(s)) return s;
  throw Error(fmt::format("{}.status '{}' is none of ok, estimate, folded, unknown-op, unresolved", where, text));
}

ordered op_counts(const std::map<std::string, int>& ops) {
  ordered j = ordered::object();
  for (const auto& [op, n] : ops) j[op] = n;
  return j;
}

std::map<std::string, int> read_op_counts(const JsonReader& r, const char* key) {
  std::map<std::string, int> out;
  if (!r.has(key)) return out;
  auto counts = r.child(key);
  for (const auto& [op, n] : r.at(key).items()) out[op] = static_cast<int>(counts.count(op.c_str(), 0));
  return out;
}

ordered encode_totals(const cost::Totals& t) {
  return {{"flops", t.flops},
          {"macs", t.macs},
          {"params", t.params},
          {"bytes", t.bytes},
          {"activation_bytes_read", t.activation_bytes_read},
          {"weight_bytes_read", t.weight_bytes_read},
          {"bytes_written", t.bytes_written},
          {"bytes_fused", t.bytes_fused},
          {"bytes_min", t.bytes_min},
          {"weight_bytes", t.weight_bytes},
          {"peak_activation_bytes", t.peak_activation_bytes},
          {"intensity", t.intensity()},
          {"intensity_fused", ratio(t.flops, t.bytes_fused)}};
}

cost::Totals decode_totals(const JsonReader& r) {
  cost::Totals t;
  t.flops = r.count("flops", 0), t.macs = r.count("macs", 0), t.params = r.count("params", 0);
  t.bytes = r.count("bytes", 0);
  t.activation_bytes_read = r.count("activation_bytes_read", 0);
  t.weight_bytes_read = r.count("weight_bytes_read", 0);
  t.bytes_written = r.count("bytes_written", 0);
  t.bytes_fused = r.count("bytes_fused", 0);
  t.bytes_min = r.count("bytes_min", 0);
  t.weight_bytes = r.count("weight_bytes", 0);
  t.peak_activation_bytes = r.count("peak_activation_bytes", 0);
  return t;
}

ordered encode_training(const cost::TrainingTotals& tr) {
  return {{"flops", tr.flops()},
          {"forward_flops", tr.forward_flops},
          {"backward_flops", tr.backward_flops},
          {"optimizer_flops", tr.optimizer_flops},
          {"bytes", tr.bytes()},
          {"forward_bytes", tr.forward_bytes},
          {"backward_bytes", tr.backward_bytes},
          {"optimizer_bytes", tr.optimizer_bytes},
          {"saved_activation_bytes", tr.saved_activation_bytes},
          {"gradient_bytes", tr.gradient_bytes},
          {"optimizer_state_bytes", tr.optimizer_state_bytes}};
}

cost::TrainingTotals decode_training(const JsonReader& r) {
  cost::TrainingTotals tr;
  tr.forward_flops = r.count("forward_flops", 0);
  tr.backward_flops = r.count("backward_flops", 0);
  tr.optimizer_flops = r.count("optimizer_flops", 0);
  tr.forward_bytes = r.count("forward_bytes", 0);
  tr.backward_bytes = r.count("backward_bytes", 0);
  tr.optimizer_bytes = r.count("optimizer_bytes", 0);
  tr.saved_activation_bytes = r.count("saved_activation_bytes", 0);
  tr.gradient_bytes = r.count("gradient_bytes", 0);
  tr.optimizer_state_bytes = r.count("optimizer_state_bytes", 0);
  return tr;
}

ordered encode_node(const cost::NodeCost& n, bool training) {
  ordered node{{"name", n.name},
               {"op", n.op_type},
               {"family", n.family},
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
  if (training) {
    node["backward_flops"] = n.backward_flops;
    node["backward_bytes"] = n.backward_bytes;
  }
  if (!n.note.empty()) node["note"] = n.note;
  return node;
}

cost::NodeCost decode_node(const JsonReader& r) {
  cost::NodeCost n;
  n.name = r.text("name", "");
  n.op_type = r.text("op", "");
  n.family = r.text("family", "");
  n.output_shape = r.text("output_shape", "");
  n.status = parse_status(r.text("status", "ok"), r.where());
  n.note = r.text("note", "");
  n.flops = r.count("flops", 0), n.macs = r.count("macs", 0), n.params = r.count("params", 0);
  n.activation_bytes_read = r.count("activation_bytes_read", 0);
  n.weight_bytes_read = r.count("weight_bytes_read", 0);
  n.bytes_written = r.count("bytes_written", 0);
  n.bytes_fused = r.count("bytes_fused", 0);
  n.backward_flops = r.count("backward_flops", 0);
  n.backward_bytes = r.count("backward_bytes", 0);
  return n;
}

ordered ridge_version() { return {{"version", kVersion}, {"revision", kRevision}}; }

}  // namespace

Analysis make_analysis(const Request& request, const Result& result, bool with_nodes) {
  Analysis a;
  a.model = request.model_path;
  a.opset = result.model.default_opset();
  a.ir_version = result.model.ir_version;
  a.producer = result.model.producer;
  a.graph_nodes = static_cast<int64_t>(result.model.graph.nodes.size());
  a.inputs = result.inputs;
  a.activation_dtype = dtype_choice(request.options.activation_dtype);
  a.weight_dtype = dtype_choice(request.options.weight_dtype);
  a.training = request.options.training;
  a.optimizer = std::string(cost::name(request.options.optimizer));
  a.with_nodes = with_nodes;
  a.cost = result.cost;
  a.op_types = result.cost.by_op_type();
  if (!with_nodes) a.cost.nodes.clear();
  a.notes = result.notes;
  return a;
}

ordered encode_analysis(const Analysis& a) {
  ordered out;
  out["ridge"] = ridge_version();
  out["model"] = {{"path", a.model},
                  {"opset", a.opset},
                  {"ir_version", a.ir_version},
                  {"producer", a.producer},
                  {"nodes", a.graph_nodes}};
  out["inputs"] = ordered::object();
  for (const auto& [name, shape] : a.inputs) out["inputs"][name] = shape;
  out["options"] = {{"activation_dtype", a.activation_dtype},
                    {"weight_dtype", a.weight_dtype},
                    {"training", a.training},
                    {"optimizer", a.optimizer}};
  const auto& c = a.cost;
  out["unknown_ops"] = op_counts(c.unknown_ops);
  out["unresolved_ops"] = op_counts(c.unresolved_ops);
  out["estimated_nodes"] = c.estimated_nodes;
  if (a.with_nodes) {
    out["nodes"] = ordered::array();
    for (const auto& n : c.nodes) out["nodes"].push_back(encode_node(n, a.training));
  }
  out["op_types"] = ordered::array();
  for (const auto& s : a.op_types)
    out["op_types"].push_back({{"op", s.op_type},
                               {"count", s.count},
                               {"flops", s.flops},
                               {"macs", s.macs},
                               {"bytes", s.bytes},
                               {"params", s.params}});
  out["totals"] = encode_totals(c.totals);
  if (c.training) out["training"] = encode_training(*c.training);
  if (!a.notes.empty()) out["notes"] = a.notes;
  return out;
}

ordered encode_analysis_sweep(const std::string& model, const std::string& key, const std::vector<Analysis>& points) {
  ordered out;
  out["ridge"] = ridge_version();
  out["model"] = {{"path", model}};
  out["sweep"] = key;
  out["points"] = ordered::array();
  for (const auto& p : points) {
    ordered point{{"value", p.sweep_value}, {"unknown_ops", op_counts(p.cost.unknown_ops)}};
    point["totals"] = encode_totals(p.cost.totals);
    if (p.cost.training) point["training"] = encode_training(*p.cost.training);
    out["points"].push_back(std::move(point));
  }
  return out;
}

bool is_analysis(const json& doc) {
  return doc.is_object() && doc.contains("model") && doc["model"].is_object() &&
         (doc.contains("op_types") || (doc.contains("sweep") && doc.contains("points")));
}

std::vector<Analysis> decode_analyses(const json& doc, const std::string& where) {
  JsonReader r(doc, where);
  if (!is_analysis(doc))
    throw Error(
        fmt::format("{} is no `ridge analyze -f json` output (it has no model with op_types or points)", where));
  auto model = r.child("model");
  std::vector<Analysis> out;
  if (r.has("sweep")) {
    const auto& points = r.list("points");
    for (size_t i = 0; i < points.size(); ++i) {
      JsonReader p(points[i], fmt::format("{}: points[{}]", where, i));
      Analysis a;
      a.model = model.text("path", "");
      a.with_nodes = false;
      const auto& value = p.at("value");
      a.sweep_value = value.is_string() ? value.get<std::string>() : value.dump();
      a.cost.unknown_ops = read_op_counts(p, "unknown_ops");
      a.cost.totals = decode_totals(p.child("totals"));
      if (p.has("training")) a.cost.training = decode_training(p.child("training"));
      a.training = a.cost.training.has_value();
      out.push_back(std::move(a));
    }
    return out;
  }
  Analysis a;
  a.model = model.text("path", "");
  a.opset = model.count("opset", 0);
  a.ir_version = model.count("ir_version", 0);
  a.producer = model.text("producer", "");
  a.graph_nodes = model.count("nodes", 0);
  if (r.has("inputs")) {
    auto inputs = r.child("inputs");
    for (const auto& [name, shape] : r.at("inputs").items()) a.inputs.emplace_back(name, inputs.text(name.c_str(), ""));
  }
  if (r.has("options")) {
    auto o = r.child("options");
    a.activation_dtype = o.text("activation_dtype", "as stored");
    a.weight_dtype = o.text("weight_dtype", "as stored");
    a.training = o.flag("training", false);
    a.optimizer = o.text("optimizer", "sgd");
  }
  a.cost.unknown_ops = read_op_counts(r, "unknown_ops");
  a.cost.unresolved_ops = read_op_counts(r, "unresolved_ops");
  a.cost.estimated_nodes = static_cast<int>(r.count("estimated_nodes", 0));
  a.with_nodes = r.has("nodes");
  const auto& nodes = r.list("nodes");
  for (size_t i = 0; i < nodes.size(); ++i)
    a.cost.nodes.push_back(decode_node(JsonReader(nodes[i], fmt::format("{}.nodes[{}]", where, i))));
  const auto& op_types = r.list("op_types");
  for (size_t i = 0; i < op_types.size(); ++i) {
    JsonReader o(op_types[i], fmt::format("{}.op_types[{}]", where, i));
    a.op_types.push_back({.op_type = o.text("op", ""),
                          .count = static_cast<int>(o.count("count", 0)),
                          .flops = o.count("flops", 0),
                          .macs = o.count("macs", 0),
                          .bytes = o.count("bytes", 0),
                          .params = o.count("params", 0)});
  }
  a.cost.totals = decode_totals(r.child("totals"));
  if (r.has("training")) a.cost.training = decode_training(r.child("training"));
  for (const auto& note : r.list("notes"))
    if (note.is_string()) a.notes.push_back(note.get<std::string>());
  out.push_back(std::move(a));
  return out;
}

}  // namespace ridge::analysis
