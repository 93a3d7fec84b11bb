// `ridge import torch` printed and kept (report/torch_import_command), in process: the traces as their codec prints
// them, in order, and one stored result about the model.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/torch_import_codec.h"
#include "report/torch_import_command.h"
#include "store/store.h"
#include "support/paths.h"
#include "support/torch_trace_fixtures.h"

namespace ridge::test {
namespace {

using namespace torch_trace_fixtures;  // NOLINT(google-build-using-namespace)

TEST(TorchImportCommand, ImportedTracesArePrintedAsTheirCodecAndKeptAsOneResult) {
  auto dir = std::filesystem::path(temp_dir()) / "torch-trace-report-kept";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto path = (dir / "ridge.db").string();
  std::ostringstream out;
  report::import_torch_traces({.files = {data("cuda_by_hand.json"), data(kResnet18Trace)}}, "json", {.path = path},
                              out);
  auto printed = nlohmann::json::parse(out.str());
  ASSERT_TRUE(report::is_torch_import(printed)) << out.str().substr(0, 200);
  auto imports = report::decode_torch_imports(printed, "out");
  ASSERT_EQ(imports.imports.size(), 2u);
  EXPECT_EQ(imports.imports[0].trace.source, data("cuda_by_hand.json"));
  auto records = store::Store(path, true).query({});
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].command, "import torch");
  EXPECT_EQ(records[0].params.model, "");
}

}  // namespace
}  // namespace ridge::test
