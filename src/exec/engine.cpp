#include "exec/engine.h"

#include <map>
#include <set>

#include "exec/backends.h"

namespace ridge::exec {

Engine& load_engine(Backend device) { return *backend_row(device).load(); }

namespace {

void count_ops(const graph::Graph& g, const std::set<std::string>& known, std::map<std::string, int>& missing) {
  for (const auto& node : g.nodes) {
    std::string key = node.is_default_domain() ? node.op_type : node.domain + "." + node.op_type;
    if (!node.is_default_domain() || !known.count(node.op_type)) ++missing[key];
    for (const auto* sub : node.subgraphs()) count_ops(*sub, known, missing);
  }
}

}  // namespace

std::vector<std::pair<std::string, int>> missing_ops(const graph::Model& model, const std::vector<std::string>& ops) {
  std::set<std::string> known(ops.begin(), ops.end());
  std::map<std::string, int> missing;
  count_ops(model.graph, known, missing);
  return {missing.begin(), missing.end()};
}

}  // namespace ridge::exec
