#include <iostream>

#include "cli/command.h"
#include "cli/common.h"
#include "report/graph_report.h"

namespace ridge::cli {
namespace {

struct GraphOptions {
  ModelOptions model;
  bool dot = false;
};

}  // namespace

Command add_graph_command(CLI::App& parent) {
  auto options = std::make_shared<GraphOptions>();
  auto* app = parent.add_subcommand("graph", "print the graph with shapes and costs per node (text or Graphviz dot)");
  app->footer(
      "Examples:\n  ridge graph models/alexnet.onnx\n  ridge graph models/resnet50.onnx --dot | dot -Tsvg > "
      "resnet50.svg");
  add_model_options(*app, options->model, false);
  app->add_flag("--dot", options->dot, "write Graphviz dot instead of text");
  return {app, [options] {
            report::write_graph(std::cout, make_request(options->model), options->dot);
            return 0;
          }};
}

}  // namespace ridge::cli
