#pragma once
// `ridge graph` writers: the graph with shapes and costs per node, as text or Graphviz dot.
#include <ostream>

#include "analysis/run.h"

namespace ridge::report {

void write_graph_text(std::ostream& out, const analysis::Result& result);
void write_graph_dot(std::ostream& out, const analysis::Result& result);
// `ridge graph`: analyses the model `request` binds, then writes it as text, or with `dot` as Graphviz dot.
void write_graph(std::ostream& out, const analysis::Request& request, bool dot);

}  // namespace ridge::report
