// The Nsight Compute import codec (report/ncu_import_codec) on the real H200 exports: `ridge import ncu -f json`
// with a model and a device decodes into the import and encodes again to the same text; the hierarchical
// roofline's points from the decoded import equal those from the printed kernels[]; the store keeps the import
// typed and `ridge report` draws it; bad files get one line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/figure/sources.h"
#include "report/ncu_import_codec.h"
#include "support/error_text.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using nlohmann::json;

std::string h200(const std::string& file) { return source_path("tests/data/ncu/h200/" + file); }

TEST(NcuImportCodec, RealExportsRoundTripUnchanged) {
  struct Case {
    std::string args;
    size_t kernels;
  };
  // ResNet-50 at batch 1 with NVTX ranges against the model, on the H200's ceilings; ridge's own executor by op
  // order; the per-kernel summary; the tensor-core GEMMs without a model.
  for (const auto& c :
       {Case{"-m " + model_path("resnet50") + " -d h200 " + h200("details-resnet50-b1-fp32-nvtx.csv"), 174},
        Case{"-m " + model_path("resnet50") + " " + h200("details-ridge-cuda-executor-resnet50-b1-fp32.csv"), 175},
        Case{"-d h200 " + h200("summary-per-kernel-resnet50-b1-fp32.csv"), 0},
        Case{h200("details-gemm-4096-fp16-bf16-tf32-tensor-counters.csv"), 9}}) {
    SCOPED_TRACE(c.args);
    auto r = run_ridge("import ncu --no-store -f json " + c.args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto printed = json::parse(r.out);
    auto decoded = report::decode_ncu_import(printed, "import.json");
    EXPECT_TRUE(decoded.missing_device.empty()) << decoded.missing_device;
    ASSERT_EQ(decoded.import.runs.size(), 1u);
    const auto& run = decoded.import.runs[0];
    if (c.kernels > 0) {
      EXPECT_EQ(run.kernels.size(), c.kernels);
    }
    EXPECT_EQ(run.layers.of_kernel.size(), run.kernels.size());
    // Nothing lost or added: the decoded import prints the same JSON, figures, layers and notes included.
    EXPECT_TRUE(json::parse(report::encode_ncu_import(decoded.import).dump()) == printed);
    // The hierarchical roofline reads the same points from the typed import as from the printed kernels.
    auto typed = report::figure::kernel_points(decoded.import, "s");
    auto from_json = report::figure::kernel_points(printed, "s");
    ASSERT_EQ(typed.size(), from_json.size());
    for (size_t i = 0; i < typed.size(); ++i) {
      EXPECT_EQ(typed[i].name, from_json[i].name);
      EXPECT_EQ(typed[i].level, from_json[i].level);
      EXPECT_DOUBLE_EQ(typed[i].bytes, from_json[i].bytes);
      EXPECT_DOUBLE_EQ(typed[i].flops, from_json[i].flops);
      EXPECT_DOUBLE_EQ(typed[i].time_s, from_json[i].time_s);
    }
  }
}

TEST(NcuImportCodec, StoredImportsAreTypedAndDrawnByTheReport) {
  auto dir = temp_dir();
  auto store = dir + "/ncu.db";
  auto r = run_ridge("import ncu -m " + model_path("resnet50") + " -d h200 --store " + store + " " +
                     h200("details-resnet50-b1-fp32-nvtx.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto list = json::parse(run_ridge("results --store " + store + " -f json").out);
  ASSERT_EQ(list["results"].size(), 1u);
  // The headline from the typed import: 174 kernels and their summed time.
  EXPECT_NE(list["results"][0]["result"].get<std::string>().find("174 kernels, "), std::string::npos)
      << list["results"][0].dump();
  auto plot = run_ridge("plot roofline --store " + store + " --result 1 -o " + dir + "/h.vg.json");
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  auto report = run_ridge("report --store " + store + " -o " + dir + "/ncu.html");
  ASSERT_EQ(report.exit_code, 0) << report.err;
  std::ifstream in(dir + "/ncu.html");
  std::stringstream html;
  html << in.rdbuf();
  EXPECT_NE(html.str().find("Hierarchical roofline: result 1 (import ncu on h200)"), std::string::npos);
  // The same import written elsewhere comes in through `results import` as the same typed value, added once.
  auto file = dir + "/ncu-import.json";
  std::ofstream(file) << run_ridge("import ncu -m " + model_path("resnet50") + " -d h200 --no-store -f json " +
                                   h200("details-resnet50-b1-fp32-nvtx.csv"))
                             .out;
  auto other = dir + "/ncu-other.db";
  auto first = run_ridge("results import " + file + " --store " + other);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("1 result, 1 added, 0 already in"), std::string::npos) << first.out;
  EXPECT_NE(run_ridge("results import " + file + " --store " + other).out.find("1 result, 0 added, 1 already in"),
            std::string::npos);
  auto imported = json::parse(run_ridge("results --store " + other + " -f json").out);
  ASSERT_EQ(imported["results"].size(), 1u);
  EXPECT_EQ(imported["results"][0]["command"], "import ncu");
  EXPECT_EQ(imported["results"][0]["device"], "h200");
  EXPECT_EQ(imported["results"][0]["result"], list["results"][0]["result"]);
}

TEST(NcuImportCodec, BadFilesGetOneLineAndAMissingDeviceIsNamed) {
  auto message = [](const std::string& text) {
    return error_text([&] { report::decode_ncu_import(json::parse(text), "'n.json'"); });
  };
  EXPECT_NE(message(R"({"kernels": []})").find("'n.json' is no `ridge import ncu -f json` output"), std::string::npos);
  EXPECT_NE(message(R"({"source": "ncu", "import": {"runs": [{"layout": "pages"}]}})").find("layout 'pages'"),
            std::string::npos);
  EXPECT_NE(message(R"({"source": "ncu", "import": {"runs": [{"kernels": [{"time_s": "fast"}]}]}})")
                .find("runs[0].kernels[0].time_s is not a number"),
            std::string::npos);
  auto gone = report::decode_ncu_import(
      json::parse(R"({"source": "ncu", "import": {"device": {"id": "no-such-gpu", "mode": ""}, "runs": []}})"), "n");
  EXPECT_FALSE(gone.import.roofline);
  EXPECT_NE(gone.missing_device.find("no-such-gpu"), std::string::npos);
}

}  // namespace
}  // namespace ridge::test
