// The PyTorch profiler import codec (report/torch_import_codec) on real traces (a Kineto CUDA trace of ResNet-18
// made on an H200, CPU traces of a small CNN with and without module ranges, against its ONNX export), in process:
// what `ridge import torch -f json` prints (report/torch_import_command) decodes into the imports and encodes again to
// the same JSON, every figure and note included; the store keeps the import typed; bad files get one line.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/result_codec.h"
#include "report/torch_import_codec.h"
#include "report/torch_import_command.h"
#include "support/error_text.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/stored_results.h"

namespace ridge::test {
namespace {

using nlohmann::json;

std::string trace(const std::string& file) { return source_path("tests/data/torch_trace/" + file); }

// What `ridge import torch [-m MODEL] FILES... -f json` prints, kept in the store at `store` ("": --no-store).
std::string import_json(const std::vector<std::string>& files, const std::string& model = "",
                        const std::string& store = "") {
  std::ostringstream out;
  report::import_torch_traces(
      {.files = files, .model = model}, "json",
      store.empty() ? report::StoreOptions{.disabled = true} : report::StoreOptions{.path = store}, out);
  return out.str();
}

TEST(TorchImportCodec, RealTracesRoundTripUnchanged) {
  struct Case {
    std::vector<std::string> files;
    std::string model;
  };
  for (const auto& c :
       {Case{{trace("kineto-cuda-resnet18-b8.json")}, ""}, Case{{trace("tiny_cnn_cpu.json")}, trace("tiny_cnn.onnx")},
        Case{{trace("tiny_cnn_modules_cpu.json"), trace("cuda_by_hand.json")}, ""}}) {
    SCOPED_TRACE(c.files.front());
    auto text = import_json(c.files, c.model);
    ASSERT_TRUE(json::accept(text)) << text.substr(0, 200);
    auto printed = json::parse(text);
    auto decoded = report::decode_torch_imports(printed, "t.json");
    ASSERT_FALSE(decoded.imports.empty());
    EXPECT_GT(decoded.imports[0].ops_read + decoded.imports[0].kernels_read, 0);
    // Nothing lost or added: the decoded imports print the same JSON.
    EXPECT_TRUE(json::parse(report::encode_torch_imports(decoded).dump()) == printed);
  }
  // The CUDA trace's figures as the summary holds them: 2 passes by the repeated op sequence, 16 kernel rows.
  auto printed = json::parse(import_json({trace("kineto-cuda-resnet18-b8.json")}));
  auto i = report::decode_torch_imports(printed, "t.json").imports.at(0);
  EXPECT_EQ(i.summary.passes, 2);
  EXPECT_EQ(i.summary.passes_from, profile::TorchPasses::From::kOpSequence);
  EXPECT_EQ(i.summary.kernels.size(), 16u);
  EXPECT_EQ(i.kernels_read, 238);
  EXPECT_TRUE(i.trace.ops.empty());  // the events are not kept
}

TEST(TorchImportCodec, StoredImportsAreTyped) {
  auto dir = fresh_dir("torch-import-codec-store");
  auto store = dir + "/torch.db";
  import_json({trace("kineto-cuda-resnet18-b8.json")}, "", store);
  auto list = stored_results(store);
  ASSERT_EQ(list["results"].size(), 1u);
  EXPECT_EQ(list["results"][0]["result"], "16 kernels");
  // The same import written elsewhere comes in through `results import`: the same value, added once.
  auto file = dir + "/torch-import.json";
  std::ofstream(file) << import_json({trace("kineto-cuda-resnet18-b8.json")});
  auto other = dir + "/torch-other.db";
  auto first = import_into(file, other);
  EXPECT_NE(first.find("1 result, 1 added, 0 already in"), std::string::npos) << first;
  EXPECT_NE(first.find("an import records no time"), std::string::npos) << first;
  EXPECT_NE(import_into(file, other).find("1 result, 0 added, 1 already in"), std::string::npos);
  auto imported = stored_results(other);
  ASSERT_EQ(imported["results"].size(), 1u);
  EXPECT_EQ(imported["results"][0]["command"], "import torch");
  EXPECT_EQ(imported["results"][0]["result"], "16 kernels");
}

TEST(TorchImportCodec, BadFilesGetOneLine) {
  auto message = [](const std::string& text) {
    return error_text([&] { report::decode_torch_imports(json::parse(text), "'t.json'"); });
  };
  EXPECT_NE(message(R"({"runs": []})").find("'t.json' is no `ridge import torch -f json` output"), std::string::npos);
  EXPECT_NE(message(R"({"traces": [], "import": {"traces": [{"summary": {"passes_from": "luck"}}]}})")
                .find("passes_from 'luck'"),
            std::string::npos);
  EXPECT_NE(message(R"({"traces": [], "import": {"traces": [{}]}})").find("traces[0].summary is missing"),
            std::string::npos);
  EXPECT_NE(message(R"({"traces": [], "import": {"traces": [{"summary": {"ops": [{"calls": 1.5}]}}]}})")
                .find("summary.ops[0].calls 1.5 is not a whole number"),
            std::string::npos);
}

}  // namespace
}  // namespace ridge::test
