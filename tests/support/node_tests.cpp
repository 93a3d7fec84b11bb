#include "support/node_tests.h"

#include <algorithm>

#include "support/paths.h"

namespace ridge::test {

namespace fs = std::filesystem;

std::optional<Expected> NodeTest::expected(size_t output) const {
  return read_expected((data / ("output_" + std::to_string(output) + ".pb")).string());
}

bool node_testdata_installed() { return fs::exists(fs::path(onnx_testdata()) / "node"); }

std::vector<NodeTest> node_tests(const std::vector<std::string>& prefixes, bool expanded) {
  std::vector<NodeTest> tests;
  if (!node_testdata_installed()) return tests;
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(fs::path(onnx_testdata()) / "node")) dirs.push_back(entry.path());
  std::sort(dirs.begin(), dirs.end());
  for (const auto& dir : dirs) {
    auto name = dir.filename().string();
    bool wanted = false;
    for (const auto& prefix : prefixes) wanted = wanted || name.rfind(prefix, 0) == 0;
    if (!wanted || (!expanded && name.find("_expanded") != std::string::npos)) continue;
    analysis::Request request;
    request.model_path = (dir / "model.onnx").string();
    NodeTest t;
    t.name = name;
    t.data = dir / "test_data_set_0";
    t.prepared = exec::prepare(request, t.data.string());
    tests.push_back(std::move(t));
  }
  return tests;
}

}  // namespace ridge::test
