// What a command hands on (report/command_output), in process: the command line it records, the store a result goes
// to, printing in a format (nothing for a sweep's cell), and a result kept with the invocation's command line and cell.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/command_output.h"
#include "store/store.h"
#include "support/error_text.h"
#include "support/paths.h"

namespace ridge::test {
namespace {

namespace fs = std::filesystem;

// Puts the invocation back as it was, whatever a test did to it.
struct SavedInvocation {
  report::Invocation saved = report::invocation();
  ~SavedInvocation() { report::invocation() = saved; }
};

std::string fresh_dir(const std::string& name) {
  auto dir = fs::path(temp_dir()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

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

}  // namespace
}  // namespace ridge::test
