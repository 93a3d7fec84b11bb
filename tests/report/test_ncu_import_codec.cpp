// The Nsight Compute import codec (report/ncu_import_codec) on the real H200 exports, in process: what `ridge import
// ncu -f json` prints (report/ncu_import_command) with a model and a device decodes into the import and encodes again
// to the same text; the hierarchical roofline's points from the decoded import equal those from the printed kernels[];
// the store keeps the import typed, `ridge plot roofline --result` and `ridge report` draw it; bad files get one line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/request_builder.h"
#include "report/figure/roofline_request.h"
#include "report/figure/sources.h"
#include "report/ncu_import_codec.h"
#include "report/ncu_import_command.h"
#include "report/plot_report.h"
#include "report/study_output.h"
#include "report/study_request.h"
#include "support/error_text.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/stored_results.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using nlohmann::json;

std::string h200(const std::string& file) { return source_path("tests/data/ncu/h200/" + file); }

// What `ridge import ncu [-m MODEL] [-d DEVICE] EXPORT -f json` prints, kept in the store at `store` ("": --no-store).
std::string import_json(const std::string& model, const std::string& device, const std::string& file,
                        const std::string& store = "") {
  report::NcuImportCommand command;
  command.request.files = {file};
  command.request.model = model;
  command.request.device = device;
  command.format = "json";
  command.store = store.empty() ? report::StoreOptions{.disabled = true} : report::StoreOptions{.path = store};
  std::ostringstream out;
  EXPECT_EQ(report::import_ncu_exports(command, out), 0);
  return out.str();
}

TEST(NcuImportCodec, RealExportsRoundTripUnchanged) {
  struct Case {
    std::string model, device, file;
    size_t kernels;
  };
  // ResNet-50 at batch 1 with NVTX ranges against the model, on the H200's ceilings; ridge's own executor by op
  // order; the per-kernel summary; the tensor-core GEMMs without a model.
  for (const auto& c : {Case{model_path("resnet50"), "h200", h200("details-resnet50-b1-fp32-nvtx.csv"), 174},
                        Case{model_path("resnet50"), "", h200("details-ridge-cuda-executor-resnet50-b1-fp32.csv"), 175},
                        Case{"", "h200", h200("summary-per-kernel-resnet50-b1-fp32.csv"), 0},
                        Case{"", "", h200("details-gemm-4096-fp16-bf16-tf32-tensor-counters.csv"), 9}}) {
    SCOPED_TRACE(c.file);
    auto text = import_json(c.model, c.device, c.file);
    ASSERT_TRUE(json::accept(text)) << text.substr(0, 200);
    auto printed = json::parse(text);
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
  auto dir = fresh_dir("ncu-import-codec-store");
  auto store = dir + "/ncu.db";
  import_json(model_path("resnet50"), "h200", h200("details-resnet50-b1-fp32-nvtx.csv"), store);
  auto list = stored_results(store);
  ASSERT_EQ(list["results"].size(), 1u);
  // The headline from the typed import: 174 kernels and their summed time.
  EXPECT_NE(list["results"][0]["result"].get<std::string>().find("174 kernels, "), std::string::npos)
      << list["results"][0].dump();
  // `ridge plot roofline --store STORE --result 1 -o h.vg.json`.
  auto plot = report::figure::roofline_plot({.store_path = store, .results = {1}});
  std::ostringstream plotted;
  report::write_plot(plot.figure, dir + "/h.vg.json", 0, "json", plot.series, plot.source, plotted);
  EXPECT_TRUE(std::filesystem::exists(dir + "/h.vg.json")) << plotted.str();
  // `ridge report --store STORE -o ncu.html`.
  report::StudyRequest study;
  study.store_path = store;
  study.store_required = true;
  auto written =
      report::write_study(report::gather_study(study), {.html = dir + "/ncu.html"}, [](const std::string&) {});
  EXPECT_TRUE(written.errors.empty()) << written.errors.front();
  EXPECT_NE(slurp(dir + "/ncu.html").find("Hierarchical roofline: result 1 (import ncu on h200)"), std::string::npos);
  // The same import written elsewhere comes in through `results import` as the same typed value, added once.
  auto file = dir + "/ncu-import.json";
  std::ofstream(file) << import_json(model_path("resnet50"), "h200", h200("details-resnet50-b1-fp32-nvtx.csv"));
  auto other = dir + "/ncu-other.db";
  auto first = import_into(file, other);
  EXPECT_NE(first.find("1 result, 1 added, 0 already in"), std::string::npos) << first;
  EXPECT_NE(import_into(file, other).find("1 result, 0 added, 1 already in"), std::string::npos);
  auto imported = stored_results(other);
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
