#include "roofline/prediction_codec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "util/build_info.h"
#include "util/error.h"
#include "util/json_reader.h"

namespace ridge::roofline {
namespace {

using ordered = nlohmann::ordered_json;
using json = nlohmann::json;

// Energy exists only where add_energy charged it (a predicted node that does work, on a roofline with energy
// ceilings): elsewhere it is left out, never written as a 0 someone could sum.
bool charged(const Prediction& p, const NodePrediction& n) {
  return p.energy_predicted && n.predicted && n.bound != Bound::kNone;
}

ordered encode_node(const Prediction& p, const NodePrediction& n) {
  ordered node{{"name", n.name},
               {"op", n.op},
               {"family", n.family},
               {"predicted", n.predicted},
               {"flops", n.flops},
               {"bytes", n.bytes},
               {"ceiling", n.peak_key},
               {"peak_flops", n.peak_flops},
               {"attainable_flops", n.attainable_flops},
               {"compute_s", n.compute_s},
               {"memory_s", n.memory_s},
               {"overhead_s", n.overhead_s},
               {"bound", std::string(name(n.bound))},
               {"time_s", n.time_s}};
  if (charged(p, n)) {
    node["energy_j"] = n.energy_j;
    node["power_w"] = n.power_w;
    if (n.power_limited) node["power_limited"] = true;
  }
  node.update(ordered{
      {"efficiency", n.efficiency}, {"roofline_s", n.roofline_s}, {"estimated", n.estimated}, {"kernels", n.kernels}});
  if (!n.fused_into.empty()) node["fused_into"] = n.fused_into;
  if (!n.note.empty()) node["note"] = n.note;
  return node;
}

NodePrediction decode_node(const JsonReader& r) {
  NodePrediction n;
  n.name = r.text("name", "");
  n.op = r.text("op", "");
  n.family = r.text("family", "");
  n.predicted = r.flag("predicted", true);
  n.flops = r.non_negative("flops", 0.0);
  n.bytes = r.non_negative("bytes", 0.0);
  n.peak_key = r.text("ceiling", "");
  n.peak_flops = r.non_negative("peak_flops", 0.0);
  n.attainable_flops = r.non_negative("attainable_flops", 0.0);
  n.compute_s = r.non_negative("compute_s", 0.0);
  n.memory_s = r.non_negative("memory_s", 0.0);
  n.overhead_s = r.non_negative("overhead_s", 0.0);
  try {
    n.bound = parse_bound(r.text("bound", "none"));
  } catch (const Error& e) {
    throw Error(fmt::format("{}.bound: {}", r.where(), e.what()));
  }
  n.time_s = r.non_negative("time_s", 0.0);
  n.energy_j = r.non_negative("energy_j", 0.0);
  n.power_w = r.non_negative("power_w", 0.0);
  n.power_limited = r.flag("power_limited", false);
  n.efficiency = r.number("efficiency", 1.0);
  n.roofline_s = r.non_negative("roofline_s", 0.0);
  n.estimated = r.flag("estimated", false);
  n.kernels = static_cast<int>(r.count("kernels", 0));
  n.fused_into = r.text("fused_into", "");
  n.note = r.text("note", "");
  return n;
}

// What a sweep's points share (device, precision, calibration), written once at its head.
void encode_head(ordered& out, const Prediction& p) {
  out["device"] = {{"id", p.device_id}, {"name", p.device_name}};
  if (!p.device_kind.empty()) out["device"]["kind"] = p.device_kind;
  out["precision"] = p.precision;
}

ordered encode_body(const Prediction& p) {
  ordered out;
  out["mode"] = p.mode;
  out["batch"] = p.batch;
  if (p.training) out["training"] = true;  // what time and energy count: a training step, not an inference
  out["calibrated"] = p.calibrated;
  out["estimate"] = p.calibrated;  // time_s is an estimate (a calibration) or a bound (the roofline alone)
  if (!p.calibration_source.empty()) out["calibration_source"] = p.calibration_source;
  if (!p.calibration_model.empty()) {
    ordered calibration{{"model", p.calibration_model}, {"exec_mode", p.exec_mode}, {"threads", p.threads}};
    if (!p.predicts.empty()) calibration["predicts"] = p.predicts;
    if (p.validation)
      calibration["validation"] = {{"points", p.validation->points},
                                   {"median_abs_error", p.validation->median_abs},
                                   {"p90_abs_error", p.validation->p90_abs},
                                   {"within_10", p.validation->within_10},
                                   {"unit", p.validation->unit}};
    out["calibration"] = calibration;
  }
  ordered energy{{"predicted", p.energy_predicted}};
  if (!p.energy_label.empty()) energy["label"] = p.energy_label;
  if (!p.energy_source.empty()) energy["source"] = p.energy_source;
  if (!p.energy_missing.empty()) energy["missing"] = p.energy_missing;
  if (p.power_limit_w) {
    energy["power_limit_w"] = *p.power_limit_w;
    energy["power_limit_from"] = p.power_limit_from;
    energy["power_demand_w"] = p.power_demand_w;
    energy["power_limited_nodes"] = p.power_limited_nodes;
    energy["power_limited_s"] = p.power_limited_s;
  }
  out["energy"] = energy;
  out["ceilings"] = ordered::object();
  for (const auto& [key, label] : p.ceilings_used) out["ceilings"][key] = label;
  out["unpredicted_ops"] = ordered::object();
  for (const auto& [op, n] : p.unpredicted_ops) out["unpredicted_ops"][op] = n;
  out["nodes"] = ordered::array();
  for (const auto& n : p.nodes) out["nodes"].push_back(encode_node(p, n));
  out["totals"] = {{"time_s", p.time_s},
                   {"throughput", p.throughput},
                   {"compute_bound_s", p.compute_bound_s},
                   {"memory_bound_s", p.memory_bound_s},
                   {"overhead_bound_s", p.overhead_bound_s},
                   {"framework_overhead_s", p.framework_overhead_s},
                   {"overhead_excluded_s", p.overhead_excluded_s}};
  // Energy only where the roofline had energy ceilings: elsewhere left out, never 0.
  if (p.energy_predicted) {
    out["totals"]["energy_per_inference_j"] = p.energy_j;
    out["totals"]["power_mean_w"] = p.power_w;
  }
  out["notes"] = p.notes;
  return out;
}

std::map<std::string, std::string> text_map(const JsonReader& r, const char* key) {
  std::map<std::string, std::string> out;
  if (!r.has(key)) return out;
  const auto& object = r.at(key);
  if (!object.is_object()) throw Error(fmt::format("{}.{} is not an object", r.where(), key));
  for (const auto& [k, v] : object.items()) {
    if (!v.is_string()) throw Error(fmt::format("{}.{}.{} is not a string", r.where(), key, k));
    out[k] = v.get<std::string>();
  }
  return out;
}

// One prediction from its body `r`, with the head `head` (the same object for a single prediction).
Prediction decode_body(const JsonReader& head, const JsonReader& r) {
  Prediction p;
  p.model = head.text("model", "");
  if (head.has("device")) {
    auto device = head.child("device");
    p.device_id = device.text("id", "");
    p.device_name = device.text("name", "");
    p.device_kind = device.text("kind", "");
  }
  p.precision = head.text("precision", "");
  p.mode = r.text("mode", "");
  p.batch = r.count("batch", 0);
  p.training = r.flag("training", false);
  p.calibrated = r.flag("calibrated", false);
  p.calibration_source = r.text("calibration_source", "");
  if (r.has("calibration")) {
    auto c = r.child("calibration");
    p.calibration_model = c.text("model", "");
    p.exec_mode = c.text("exec_mode", "");
    p.predicts = c.text("predicts", "");
    p.threads = static_cast<int>(c.count("threads", 0));
    if (c.has("validation")) {
      auto v = c.child("validation");
      p.validation = ValidationError{.points = static_cast<int>(v.count("points", 0)),
                                     .median_abs = v.non_negative("median_abs_error"),
                                     .p90_abs = v.non_negative("p90_abs_error"),
                                     .within_10 = v.non_negative("within_10"),
                                     .unit = v.text("unit", "layers")};
    }
  }
  if (r.has("energy")) {
    auto e = r.child("energy");
    p.energy_predicted = e.flag("predicted", false);
    p.energy_label = e.text("label", "");
    p.energy_source = e.text("source", "");
    p.energy_missing = e.text("missing", "");
    if (e.has("power_limit_w")) {
      p.power_limit_w = e.non_negative("power_limit_w");
      p.power_limit_from = e.text("power_limit_from", "");
      p.power_demand_w = e.non_negative("power_demand_w", 0.0);
      p.power_limited_nodes = static_cast<int>(e.count("power_limited_nodes", 0));
      p.power_limited_s = e.non_negative("power_limited_s", 0.0);
    }
  }
  p.ceilings_used = text_map(r, "ceilings");
  if (r.has("unpredicted_ops")) {
    const auto& ops = r.at("unpredicted_ops");
    if (!ops.is_object()) throw Error(fmt::format("{}.unpredicted_ops is not an object", r.where()));
    auto counts = JsonReader(ops, r.where() + ".unpredicted_ops");
    for (const auto& [op, n] : ops.items()) p.unpredicted_ops[op] = static_cast<int>(counts.count(op.c_str(), 0));
  }
  const auto& nodes = r.list("nodes");
  for (size_t i = 0; i < nodes.size(); ++i)
    p.nodes.push_back(decode_node(JsonReader(nodes[i], fmt::format("{}.nodes[{}]", r.where(), i))));
  auto totals = r.child("totals");
  p.time_s = totals.non_negative("time_s");
  p.throughput = totals.non_negative("throughput", 0.0);
  p.compute_bound_s = totals.non_negative("compute_bound_s", 0.0);
  p.memory_bound_s = totals.non_negative("memory_bound_s", 0.0);
  p.overhead_bound_s = totals.non_negative("overhead_bound_s", 0.0);
  p.framework_overhead_s = totals.non_negative("framework_overhead_s", 0.0);
  p.overhead_excluded_s = totals.non_negative("overhead_excluded_s", 0.0);
  p.energy_j = totals.non_negative("energy_per_inference_j", 0.0);
  p.power_w = totals.non_negative("power_mean_w", 0.0);
  for (const auto& note : r.list("notes"))
    if (note.is_string()) p.notes.push_back(note.get<std::string>());
  // Files written before predictions named their batch: the throughput counts it.
  if (p.batch == 0)
    p.batch = p.throughput > 0 && p.time_s > 0 ? std::max<int64_t>(1, std::llround(p.throughput * p.time_s)) : 1;
  return p;
}

}  // namespace

ordered encode_prediction(const Prediction& p) {
  ordered out{{"ridge", {{"version", kVersion}, {"revision", kRevision}}}, {"model", p.model}};
  encode_head(out, p);
  out.update(encode_body(p));
  return out;
}

ordered encode_predictions(const std::vector<Prediction>& predictions) {
  if (predictions.size() == 1) return encode_prediction(predictions.front());
  ordered out{{"ridge", {{"version", kVersion}, {"revision", kRevision}}}};
  out["model"] = predictions.empty() ? std::string() : predictions.front().model;
  if (!predictions.empty()) encode_head(out, predictions.front());
  out["points"] = ordered::array();
  for (const auto& p : predictions) out["points"].push_back(encode_body(p));
  return out;
}

bool is_prediction(const json& doc) {
  return doc.is_object() && doc.contains("device") && doc["device"].is_object() &&
         (doc.contains("totals") || doc.contains("points"));
}

std::vector<Prediction> decode_predictions(const json& doc, const std::string& where) {
  JsonReader head(doc, where);
  if (!is_prediction(doc))
    throw Error(fmt::format("{} is no `ridge predict -f json` output (it has no device with totals or points)", where));
  std::vector<Prediction> out;
  if (!head.has("points")) {
    out.push_back(decode_body(head, head));
    return out;
  }
  const auto& points = head.list("points");
  for (size_t i = 0; i < points.size(); ++i)
    out.push_back(decode_body(head, JsonReader(points[i], fmt::format("{}: points[{}]", where, i))));
  return out;
}

}  // namespace ridge::roofline
