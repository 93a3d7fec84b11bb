// The PyTorch profiler import codec (report/torch_import_codec) on real traces (a Kineto CUDA trace of ResNet-18
// made on an H200, CPU traces of a small CNN with and without module ranges, against its ONNX export): `ridge import
// torch -f json` decodes into the imports and encodes again to the same JSON, every figure and note included; the
// store keeps the import typed; bad files get one line.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "report/result_codec.h"
#include "report/torch_import_codec.h"
#include "support/error_text.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

using nlohmann::json;

std::string trace(const std::string& file) { return source_path("tests/data/torch_trace/" + file); }

TEST(TorchImportCodec, RealTracesRoundTripUnchanged) {
  for (const auto& args :
       {trace("kineto-cuda-resnet18-b8.json"), "-m " + trace("tiny_cnn.onnx") + " " + trace("tiny_cnn_cpu.json"),
        trace("tiny_cnn_modules_cpu.json") + " " + trace("cuda_by_hand.json")}) {
    SCOPED_TRACE(args);
    auto r = run_ridge("import torch --no-store -f json " + args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto printed = json::parse(r.out);
    auto decoded = report::decode_torch_imports(printed, "t.json");
    ASSERT_FALSE(decoded.imports.empty());
    EXPECT_GT(decoded.imports[0].ops_read + decoded.imports[0].kernels_read, 0);
    // Nothing lost or added: the decoded imports print the same JSON.
    EXPECT_TRUE(json::parse(report::encode_torch_imports(decoded).dump()) == printed);
  }
  // The CUDA trace's figures as the summary holds them: 2 passes by the repeated op sequence, 16 kernel rows.
  auto printed = json::parse(run_ridge("import torch --no-store -f json " + trace("kineto-cuda-resnet18-b8.json")).out);
  auto i = report::decode_torch_imports(printed, "t.json").imports.at(0);
  EXPECT_EQ(i.summary.passes, 2);
  EXPECT_EQ(i.summary.passes_from, profile::TorchPasses::From::kOpSequence);
  EXPECT_EQ(i.summary.kernels.size(), 16u);
  EXPECT_EQ(i.kernels_read, 238);
  EXPECT_TRUE(i.trace.ops.empty());  // the events are not kept
}

TEST(TorchImportCodec, StoredImportsAreTyped) {
  auto store = temp_dir() + "/torch.db";
  auto r = run_ridge("import torch --store " + store + " " + trace("kineto-cuda-resnet18-b8.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto list = json::parse(run_ridge("results --store " + store + " -f json").out);
  ASSERT_EQ(list["results"].size(), 1u);
  EXPECT_EQ(list["results"][0]["result"], "16 kernels");
  // The same import written elsewhere comes in through `results import`: the same value, added once.
  auto file = temp_dir() + "/torch-import.json";
  std::ofstream(file) << run_ridge("import torch --no-store -f json " + trace("kineto-cuda-resnet18-b8.json")).out;
  auto other = temp_dir() + "/torch-other.db";
  auto first = run_ridge("results import " + file + " --store " + other);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("1 result, 1 added, 0 already in"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("an import records no time"), std::string::npos) << first.out;
  EXPECT_NE(run_ridge("results import " + file + " --store " + other).out.find("1 result, 0 added, 1 already in"),
            std::string::npos);
  auto imported = json::parse(run_ridge("results --store " + other + " -f json").out);
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
