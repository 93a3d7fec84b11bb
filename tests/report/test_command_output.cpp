// What a command hands on (report/command_output), in process: the command line it records, the store a result goes
// to, printing in a format (nothing for a sweep's cell), and a result kept with the invocation's command line and cell.
// Also every format of what analyze, predict and devices print.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hw/device_db.h"
#include "hw/roofline.h"
#include "report/analysis_report.h"
#include "report/command_output.h"
#include "report/device_report.h"
#include "report/predict_request.h"
#include "store/store.h"
#include "support/error_text.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/saved_invocation.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

report::Document small_document() {
  report::Document doc;
  doc.command = "analyze";
  doc.subject = "m.onnx";
  doc.field("flops", "FLOPs", "12", int64_t{12});
  return doc;
}

TEST(CommandOutput, TheCommandLineIsShellQuoted) {
  const char* argv[] = {"ridge", "analyze", "my model.onnx", "--dim", "seq=128", "it's"};
  EXPECT_EQ(report::command_line(6, argv), "ridge analyze 'my model.onnx' --dim seq=128 'it'\\''s'");
  EXPECT_EQ(report::command_line(0, argv), "");
}

TEST(CommandOutput, StorePathIsTheOptionThenTheSweepsThenTheDefault) {
  SavedInvocation keep;
  report::invocation().store_path.clear();
  EXPECT_EQ(report::store_path({.path = "given.db"}), "given.db");
  EXPECT_EQ(report::store_path({}), store::default_store_path());
  report::invocation().store_path = "sweep.db";
  EXPECT_EQ(report::store_path({}), "sweep.db");
  EXPECT_EQ(report::store_path({.path = "given.db"}), "given.db");
}

TEST(CommandOutput, EmitPrintsTheFormatOrTheCodecAndNothingWhenQuiet) {
  SavedInvocation keep;
  report::invocation().quiet = false;
  auto doc = small_document();
  std::ostringstream json, codec, quiet;
  report::emit(doc, "json", json);
  EXPECT_EQ(nlohmann::json::parse(json.str()).at("flops"), 12);
  report::emit(
      doc, "json",
      [] {
        return nlohmann::ordered_json{{"kind", "codec"}};
      },
      codec);
  EXPECT_EQ(codec.str(), "{\n  \"kind\": \"codec\"\n}\n");
  std::ostringstream md;
  report::emit(
      doc, "md",
      [] {
        return nlohmann::ordered_json{{"kind", "codec"}};
      },
      md);
  EXPECT_EQ(md.str().find("codec"), std::string::npos) << "the codec is for JSON only: " << md.str();
  EXPECT_NE(md.str().find("12"), std::string::npos) << md.str();
  report::invocation().quiet = true;
  report::emit(doc, "table", quiet);
  report::emit(
      doc, "json",
      [] {
        return nlohmann::ordered_json{{"kind", "codec"}};
      },
      quiet);
  EXPECT_EQ(quiet.str(), "");
}

TEST(CommandOutput, KeepResultSavesWithTheInvocationsLineAndCell) {
  SavedInvocation keep;
  auto path = fresh_dir("command-output-keep") + "/ridge.db";
  auto& inv = report::invocation();
  inv.command_line = "ridge analyze m.onnx";
  inv.cell = {.sweep = "study", .key = "m/b1", .stage = "quick", .shard = ""};
  inv.quiet = true;
  inv.stored_ids.clear();
  report::TypedResult value{.kind = "analyze"};
  report::keep_result({.path = path, .disabled = true}, small_document(), {.model = "m.onnx"}, value);
  EXPECT_FALSE(fs::exists(path)) << "--no-store opens no store";
  EXPECT_TRUE(inv.stored_ids.empty());

  report::keep_result({.path = path}, small_document(), {.model = "m.onnx"}, value);
  report::keep_result({.path = path}, small_document(), {.model = "m.onnx"}, value);
  auto records = store::Store(path, true).query({});
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(inv.stored_ids, (std::vector<int64_t>{records[0].id, records[1].id}));
  for (const auto& r : records) {
    EXPECT_EQ(r.command, "analyze");
    EXPECT_EQ(r.params.model, "m.onnx");
    EXPECT_EQ(r.environment.command_line, "ridge analyze m.onnx");
    EXPECT_EQ(r.cell.sweep, "study");
    EXPECT_EQ(r.cell.key, "m/b1");
  }
}

TEST(CommandOutput, AResultThatCannotBeSavedIsOneLineNamingNoStore) {
  SavedInvocation keep;
  report::invocation().quiet = true;
  auto dir = fresh_dir("command-output-unwritable");
  report::TypedResult value{.kind = "analyze"};
  auto error =
      error_text([&] { report::keep_result({.path = dir + "/no/such/dir/ridge.db"}, small_document(), {}, value); });
  EXPECT_EQ(error.rfind("the result above was not saved: ", 0), 0u) << error;
  EXPECT_NE(error.find("(--no-store skips the store)"), std::string::npos) << error;
}

// What `ridge analyze MODEL [--summary] [--sweep SWEEP] --no-store -f FORMAT` prints.
std::string analyzed(const std::string& model, bool summary, const std::string& sweep, const std::string& format) {
  report::AnalyzeCommand c{.sweep = sweep, .summary = summary, .format = format, .store = {.disabled = true}};
  c.model.model = model;
  std::ostringstream out;
  report::analyze_and_keep(c, out);
  return out.str();
}

// What `ridge devices show ID[:MODE] -f FORMAT` prints.
std::string device_shown(const std::string& id, const std::string& mode, const std::string& format) {
  auto device = hw::find_device(id);
  std::ostringstream out;
  report::emit(report::roofline_document(device, hw::roofline_for(device, hw::resolve_mode(device, mode))), format,
               out);
  return out.str();
}

TEST(CommandOutput, EveryCommandPrintsEveryFormat) {
  SavedInvocation keep;
  report::invocation().quiet = false;
  const std::string model = model_path("alexnet");
  auto predicted = [&](const std::string& sweep, const std::string& format) {
    analysis::ModelOptions options{.model = model};
    std::ostringstream out;
    report::predict_and_keep({.model = analysis::make_request(options), .device = "t4"}, sweep, options, format,
                             {.disabled = true}, out);
    return out.str();
  };
  const std::vector<std::pair<std::string, std::function<std::string(const std::string&)>>> commands{
      {"analyze --summary", [&](const std::string& f) { return analyzed(model, true, "", f); }},
      {"analyze --sweep batch=1,2", [&](const std::string& f) { return analyzed(model, false, "batch=1,2", f); }},
      {"predict --device t4", [&](const std::string& f) { return predicted("", f); }},
      {"predict --device t4 --sweep batch=1,2", [&](const std::string& f) { return predicted("batch=1,2", f); }},
      {"devices",
       [](const std::string& f) {
         std::ostringstream out;
         report::emit(report::device_list_document(hw::list_devices()), f, out);
         return out.str();
       }},
      {"devices show jetson-agx-orin-64gb:30W",
       [](const std::string& f) { return device_shown("jetson-agx-orin-64gb", "30W", f); }}};
  for (const auto& [command, print] : commands) {
    for (const std::string format : {"table", "csv", "json", "md"}) {
      auto out = print(format);
      ASSERT_FALSE(out.empty()) << command << " -f " << format;
      if (format == "json") {
        EXPECT_TRUE(nlohmann::json::accept(out)) << command;
      } else if (format == "md") {
        EXPECT_EQ(out.rfind("# ridge ", 0), 0u) << command;
      } else if (format == "csv") {
        auto header = out.substr(0, out.find('\n'));
        EXPECT_EQ(header.find(' '), std::string::npos) << command << ": " << header;
      }
    }
  }
}

TEST(CommandOutput, SummaryCsvIsThePerOpTypeTable) {
  auto out = analyzed(model_path("alexnet"), true, "", "csv");
  EXPECT_EQ(out.rfind("op,count,flops,macs,bytes,params\n", 0), 0u) << out;
  EXPECT_NE(out.find("\nConv,5,"), std::string::npos) << out;
}

TEST(CommandOutput, DeviceCsvAndJsonCarryRawCeilings) {
  auto csv = device_shown("t4", "", "csv");
  EXPECT_EQ(csv.rfind("ceiling,value,unit,ridge_point_flop_per_byte,label,source\n", 0), 0u) << csv;
  auto json = nlohmann::json::parse(device_shown("t4", "", "json"));
  EXPECT_GT(json["peak_flops"]["fp32"].get<double>(), 1e12);
  EXPECT_GT(json["bandwidth"]["dram"].get<double>(), 1e11);
}

}  // namespace
}  // namespace ridge::test
