#pragma once
// The ONNX project's node tests (Debian's libonnx-testdata) a host-side test holds a kernel's plan and arithmetic to:
// each test directory whose name starts with one of the given prefixes, its model prepared with its first data set.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "exec/prepare.h"
#include "support/tensor_compare.h"

namespace ridge::test {

struct NodeTest {
  std::string name;  // the directory's: test_...
  exec::Prepared prepared;
  std::filesystem::path data;  // test_data_set_0
  const graph::Node& node() const { return prepared.analysis.model.graph.nodes.front(); }
  const std::vector<exec::HostTensor>& inputs() const { return prepared.inputs; }
  // output_N.pb, or none where read_expected does not read it.
  std::optional<Expected> expected(size_t output = 0) const;
};

// In name order; `expanded` keeps the function bodies (`_expanded`) too. Empty where the test data is not installed
// (callers GTEST_SKIP on node_testdata_installed()).
std::vector<NodeTest> node_tests(const std::vector<std::string>& prefixes, bool expanded = false);
bool node_testdata_installed();

}  // namespace ridge::test
