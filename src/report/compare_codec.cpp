#include "report/compare_codec.h"

#include <fmt/format.h>

#include "exec/bench_codec.h"
#include "report/format.h"
#include "report/printer.h"
#include "roofline/prediction_codec.h"
#include "util/error.h"
#include "util/json_reader.h"

namespace ridge::report {
namespace {

using json = nlohmann::json;

Match parse_match(const std::string& text, const std::string& where) {
  for (auto m : {Match::kCompared, Match::kNotMeasured, Match::kNotPredicted, Match::kFused, Match::kRemoved})
    if (name(m) == text) return m;
  throw Error(
      fmt::format("{}.status '{}' is none of compared, not measured, not predicted, fused, removed", where, text));
}

}  // namespace

nlohmann::ordered_json encode_comparison(const Comparison& c) {
  auto out = to_json(compare_document(c, 0));
  out["comparison"] = {{"prediction", roofline::encode_prediction(c.prediction)},
                       {"measured", exec::encode_bench({c.measured})}};
  return out;
}

bool is_comparison(const json& doc) {
  return doc.is_object() && doc.contains("comparison") && doc.contains("measured") && doc.contains("nodes");
}

Comparison decode_comparison(const json& doc, const std::string& where) {
  if (!is_comparison(doc))
    throw Error(
        fmt::format("{} is no `ridge compare -f json` output (it has no comparison, measured and nodes)", where));
  JsonReader top(doc, where);
  auto inner = top.child("comparison");
  Comparison c;
  auto predictions = roofline::decode_predictions(inner.at("prediction"), where + ": comparison.prediction");
  if (predictions.size() != 1)
    throw Error(fmt::format("{}: comparison.prediction holds {} predictions, not one", where, predictions.size()));
  c.prediction = std::move(predictions.front());
  auto measured = exec::decode_bench(inner.at("measured"), where + ": comparison.measured");
  if (measured.runs.size() != 1)
    throw Error(fmt::format("{}: comparison.measured holds {} runs, not one", where, measured.runs.size()));
  c.measured = std::move(measured.runs.front());
  c.model = top.text("model", "");
  c.measured_source = top.child("measured").text("source", "");
  if (top.has("inputs")) {
    const auto& inputs = top.at("inputs");
    if (!inputs.is_object()) throw Error(fmt::format("{}: inputs is not an object", where));
    for (const auto& [name, shape] : inputs.items()) {
      if (!shape.is_string()) throw Error(fmt::format("{}: inputs.{} is not text", where, name));
      c.inputs.emplace_back(name, shape.get<std::string>());
    }
  }
  auto totals = top.child("totals");
  c.predicted_s = totals.non_negative("predicted_s");
  c.measured_s = totals.non_negative("measured_s");
  c.error = totals.optional_number("error");
  c.predicted_nodes_s = totals.non_negative("predicted_nodes_s");
  c.measured_nodes_s = totals.non_negative("measured_nodes_s");
  c.abs_difference_s = totals.non_negative("abs_difference_s");
  c.not_measured_s = totals.non_negative("not_measured_s");
  c.not_predicted_s = totals.non_negative("not_predicted_s");
  c.compared = totals.small_count("compared_nodes");
  c.not_measured = totals.small_count("not_measured_nodes");
  c.not_predicted = totals.small_count("not_predicted_nodes");
  c.fused = totals.small_count("fused_nodes");
  const auto& nodes = top.list("nodes");
  for (size_t i = 0; i < nodes.size(); ++i) {
    JsonReader n(nodes[i], fmt::format("{}: nodes[{}]", where, i));
    NodeComparison r;
    r.name = n.text("name", "");
    r.op = n.text("op", "");
    r.match = parse_match(n.text("status", ""), n.where());
    r.bound = n.text("bound", "");
    r.fused_into = n.text("fused_into", "");
    r.note = n.text("note", "");
    r.predicted_s = n.optional_number("predicted_s");
    r.measured_s = n.optional_number("measured_s");
    r.difference_s = n.optional_number("difference_s");
    r.error = n.optional_number("error");
    r.share = n.optional_number("share");
    r.roofline_s = n.optional_number("roofline_s");
    r.ceiling_fraction = n.optional_number("ceiling_fraction");
    c.nodes.push_back(std::move(r));
  }
  // The counts are the nodes' (the document lists the compared nodes first): a file where they disagree is damaged.
  int counted[5] = {0, 0, 0, 0, 0};
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    auto m = c.nodes[i].match;
    if (m == Match::kCompared && static_cast<int>(i) != counted[0])
      throw Error(
          fmt::format("{}: nodes[{}] is compared after nodes that are not: the nodes are out of order", where, i));
    ++counted[static_cast<int>(m)];
  }
  if (counted[0] != c.compared || counted[1] != c.not_measured || counted[2] != c.not_predicted ||
      counted[3] + counted[4] != c.fused)
    throw Error(fmt::format(
        "{}: totals count {} compared, {} not measured, {} not predicted and {} fused nodes; nodes[] holds {}, {}, {} "
        "and {}",
        where, c.compared, c.not_measured, c.not_predicted, c.fused, counted[0], counted[1], counted[2],
        counted[3] + counted[4]));
  c.notes = top.texts("notes");
  return c;
}

std::string comparison_headline(const Comparison& c) {
  return fmt::format("{} vs {} measured{}", duration(c.predicted_s), duration(c.measured_s),
                     c.error ? fmt::format(" ({:+.1f}%)", *c.error * 100) : std::string());
}

}  // namespace ridge::report
