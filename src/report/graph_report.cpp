#include "report/graph_report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "report/format.h"

namespace ridge::report {
namespace {

std::string describe(const graph::Value& v) {
  std::string shape = graph::shape_text(v);
  return fmt::format("{}:{}[{}]", v.name, graph::dtype_name(v.dtype), shape);
}

std::string dot_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

void write_graph_text(std::ostream& out, const analysis::Result& result) {
  const auto& g = result.model.graph;
  for (auto id : g.inputs) fmt::print(out, "input  {}\n", describe(g.value(id)));
  size_t weights = 0;
  for (const auto& v : g.values) weights += v.initializer ? 1 : 0;
  fmt::print(out, "weights: {} initializers\n\n", weights);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const auto& node = g.nodes[n];
    const auto& c = result.cost.nodes[n];
    std::string ins, outs;
    for (auto in : node.inputs)
      if (in != graph::kNoValue) ins += (ins.empty() ? "" : ", ") + describe(g.value(in));
    for (auto o : node.outputs)
      if (o != graph::kNoValue) outs += (outs.empty() ? "" : ", ") + describe(g.value(o));
    fmt::print(out, "{} = {}({})\n    # {}: {} FLOPs, {} MACs, {} moved{}\n", outs, node.op_type, ins, node.name,
               si(static_cast<double>(c.flops)), si(static_cast<double>(c.macs)),
               si_bytes(static_cast<double>(c.bytes())),
               c.status == cost::NodeStatus::kCosted
                   ? ""
                   : fmt::format(" [{}{}{}]", cost::status_name(c.status), c.note.empty() ? "" : ": ", c.note));
  }
  for (auto id : g.outputs) fmt::print(out, "output {}\n", describe(g.value(id)));
}

void write_graph_dot(std::ostream& out, const analysis::Result& result) {
  const auto& g = result.model.graph;
  fmt::print(out, "digraph model {{\n  rankdir=TB;\n  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n");
  for (auto id : g.inputs)
    fmt::print(out, "  v{} [shape=ellipse, label=\"{}\\n{}\"];\n", id, dot_escape(g.value(id).name),
               graph::shape_text(g.value(id)));
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const auto& node = g.nodes[n];
    const auto& c = result.cost.nodes[n];
    const char* color = c.status == cost::NodeStatus::kCosted   ? "black"
                        : c.status == cost::NodeStatus::kFolded ? "gray"
                                                                : "red";
    fmt::print(out, "  n{} [color={}, label=\"{}\\n{}\\n{} FLOPs, {}\"];\n", n, color, dot_escape(node.op_type),
               dot_escape(node.name), si(static_cast<double>(c.flops)), si_bytes(static_cast<double>(c.bytes())));
  }
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    for (auto in : g.nodes[n].inputs) {
      if (in == graph::kNoValue) continue;
      const auto& v = g.value(in);
      if (v.initializer) continue;
      std::string from = v.producer >= 0 ? fmt::format("n{}", v.producer) : fmt::format("v{}", in);
      if (v.producer < 0 && !v.is_graph_input) continue;  // outer-scope values
      fmt::print(out, "  {} -> n{} [label=\"{}\", fontsize=8];\n", from, n, graph::shape_text(v));
    }
  }
  for (auto id : g.outputs) {
    const auto& v = g.value(id);
    fmt::print(out, "  o{} [shape=ellipse, label=\"{}\\n{}\"];\n", id, dot_escape(v.name), graph::shape_text(v));
    if (v.producer >= 0) fmt::print(out, "  n{} -> o{};\n", v.producer, id);
  }
  fmt::print(out, "}}\n");
}

void write_graph(std::ostream& out, const analysis::Request& request, bool dot) {
  auto result = analysis::run(request);
  if (dot)
    write_graph_dot(out, result);
  else
    write_graph_text(out, result);
}

}  // namespace ridge::report
