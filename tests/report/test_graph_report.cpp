// `ridge graph` as one call (report::write_graph), in process: the model's nodes with shapes, as text or Graphviz dot.
#include <gtest/gtest.h>

#include <sstream>

#include "report/graph_report.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

TEST(GraphReport, TextAndDot) {
  analysis::Request request;
  request.model_path = model_path("alexnet");
  std::ostringstream text, dot;
  report::write_graph(text, request, false);
  EXPECT_NE(text.str().find("= Conv("), std::string::npos);
  EXPECT_NE(text.str().find("1x64x55x55"), std::string::npos);
  report::write_graph(dot, request, true);
  EXPECT_EQ(dot.str().rfind("digraph model {", 0), 0u);
  EXPECT_NE(dot.str().find("->"), std::string::npos);
}

}  // namespace
}  // namespace ridge::test
