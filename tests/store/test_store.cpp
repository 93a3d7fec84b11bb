// The results store and the document codec it keeps documents with: a stored document prints exactly
// as the command printed it, every field of a record comes back, filters select what they say,
// merges add each result once, old stores are migrated and newer ones refused, and several
// processes can write one store at once.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "report/document.h"
#include "report/document_codec.h"
#include "report/printer.h"
#include "store/schema.h"
#include "store/sqlite.h"
#include "store/store.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using json = nlohmann::ordered_json;
using report::Column;
using report::Document;
using report::Style;
using report::Table;
using report::Value;

constexpr int64_t kAbove53 = (int64_t{1} << 53) + 1;  // a double cannot hold it

Value nested(Table t) { return std::shared_ptr<const Table>(std::make_shared<Table>(std::move(t))); }

// A document with every kind of cell, every column attribute, every layout and every document
// attribute the codec keeps.
Document full_document() {
  Document doc;
  doc.command = "bench";
  doc.subject = "models/\"quoted\" m\xc3\xbcnchen \xe2\x9c\x93.onnx";
  doc.field("model", "model", "m.onnx (2 nodes)", {{"path", "m.onnx"}, {"nodes", 2}, {"ratio", 0.5}});
  doc.field("big", "big", "2^53 + 1", kAbove53, report::kJson);
  doc.field("people", "for people", "only \"you\" see this", nullptr, report::kHuman);
  doc.field("kept", "kept", "store only", "secret", report::kStoreOnly);
  doc.field("unknown_ops", "unknown ops", "Foo x2, Bar x1", json::array({"Foo", "Bar"})).at_end = true;

  auto& t = doc.table("rows", "per row:");
  t.column({.key = "name", .title = "node name", .max_width = 12})
      .column({.key = "flops", .title = "FLOP/s", .style = Style::kSi, .unit = "FLOP/s"})
      .column({.key = "bytes", .style = Style::kBytes})
      .column({.key = "share", .style = Style::kFixed, .unit = "%", .decimals = 1})
      .column({.key = "ratio", .style = Style::kGeneral, .decimals = 4, .json_path = "stats.ratio"})
      .column({.key = "time_s", .title = "time", .style = Style::kDuration})
      .column({.key = "exact"})
      .column({.key = "real", .decimals = 2, .json_path = "stats.real"})
      .column({.key = "flag", .audience = report::kHuman})
      .column({.key = "json_only", .audience = report::kJson})
      .column({.key = "csv_only", .audience = report::kCsv})
      .column({.key = "kept", .audience = report::kStoreOnly})
      .column({.key = "detail", .audience = report::kJson});
  Table inner;
  inner.key = "detail";
  inner.layout = Table::Layout::kRows;
  inner.column({.key = "x"}).column({.key = "deeper"});
  Table deepest;
  deepest.key = "deeper";
  deepest.layout = Table::Layout::kList;
  deepest.column({.key = "v"});
  deepest.add({int64_t{-7}}).add({1e-300});
  inner.add({int64_t{7}, nested(deepest)}).add({Value{}, Value{}});
  t.add({std::string("a \"quoted\", comma\nnewline m\xc3\xbcnchen \xe2\x9c\x93 and a long tail"), kAbove53,
         int64_t{102400000}, 12.345, -2.1911e-09, 0.004567, std::numeric_limits<int64_t>::max(), 1.0, true,
         std::numeric_limits<int64_t>::min(), std::string("json"), std::string("kept"), nested(inner)});
  t.add({Value{}, 1.0, 1e-300, Value{}, 1e300, int64_t{3}, int64_t{0}, 0.1, false, Value{}, Value{}, Value{}, Value{}});
  t.footer = {"footer line one", "footer \"two\""};

  auto& record = doc.table("totals", "totals:", Table::Layout::kRecord);
  record.column({.key = "time_s", .style = Style::kDuration})
      .column({.key = "flops", .style = Style::kSi, .unit = "FLOP"})
      .column({.key = "count"});
  record.add({0.0123, 1.5e12, int64_t{42}});

  auto& list = doc.table("names", "", Table::Layout::kList, report::kJson);
  list.column({.key = "names"});
  list.add({std::string("first")}).add({std::string("second")});

  auto& csv = doc.table("csv_rows", "", Table::Layout::kRows, report::kCsv);
  csv.column({.key = "label"}).column({.key = "value"});
  csv.add({std::string("x,y"), 2.5}).add({std::string("z"), int64_t{-1}});

  auto& hidden = doc.table("layers", "", Table::Layout::kRows, report::kStoreOnly);
  hidden.column({.key = "layer"});
  hidden.add({std::string("conv1")});

  doc.notes = {"note \"one\"", "note two: m\xc3\xbcnchen"};
  doc.csv_table = "csv_rows";
  doc.notes_at_top = true;
  return doc;
}

std::string printed(const Document& doc, report::Format format) {
  std::ostringstream out;
  report::print(out, doc, format);
  return out.str();
}

// Encodes, writes as text (as the store does), reads back and decodes.
Document round_trip(const Document& doc) {
  return report::decode_document(json::parse(report::encode_document(doc).dump()));
}

void expect_same_columns(const Table& a, const Table& b) {
  ASSERT_EQ(a.columns.size(), b.columns.size()) << a.key;
  for (size_t c = 0; c < a.columns.size(); ++c) {
    const auto& x = a.columns[c];
    const auto& y = b.columns[c];
    EXPECT_EQ(x.key, y.key);
    EXPECT_EQ(x.title, y.title) << x.key;
    EXPECT_EQ(x.style, y.style) << x.key;
    EXPECT_EQ(x.unit, y.unit) << x.key;
    EXPECT_EQ(x.decimals, y.decimals) << x.key;
    EXPECT_EQ(x.audience, y.audience) << x.key;
    EXPECT_EQ(x.json_path, y.json_path) << x.key;
    EXPECT_EQ(x.max_width, y.max_width) << x.key;
  }
}

TEST(DocumentCodec, RoundTripPrintsByteIdenticalInEveryFormat) {
  auto original = full_document();
  auto decoded = round_trip(original);
  for (auto format : {report::Format::kTable, report::Format::kCsv, report::Format::kJson, report::Format::kMarkdown}) {
    auto expected = printed(original, format);
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(printed(decoded, format), expected) << "format " << static_cast<int>(format);
  }
  // The printers see the values that a lossy codec would change.
  auto json_text = printed(decoded, report::Format::kJson);
  EXPECT_NE(json_text.find("9007199254740993"), std::string::npos) << json_text;
  EXPECT_NE(json_text.find("9223372036854775807"), std::string::npos) << json_text;
  EXPECT_NE(json_text.find("-9223372036854775808"), std::string::npos) << json_text;
  EXPECT_NE(json_text.find("1e-300"), std::string::npos) << json_text;
  auto csv_text = printed(decoded, report::Format::kCsv);
  EXPECT_EQ(csv_text.rfind("label,value\n", 0), 0u) << csv_text;
  // Encoding the decoded document gives the same JSON again.
  EXPECT_EQ(report::encode_document(decoded).dump(), report::encode_document(original).dump());
}

TEST(DocumentCodec, KeepsEveryAttribute) {
  auto original = full_document();
  auto decoded = round_trip(original);
  EXPECT_EQ(decoded.command, "bench");
  EXPECT_EQ(decoded.subject, original.subject);
  EXPECT_EQ(decoded.notes, original.notes);
  EXPECT_EQ(decoded.csv_table, "csv_rows");
  EXPECT_TRUE(decoded.notes_at_top);
  ASSERT_EQ(decoded.fields.size(), original.fields.size());
  for (size_t i = 0; i < original.fields.size(); ++i) {
    const auto& a = original.fields[i];
    const auto& b = decoded.fields[i];
    EXPECT_EQ(b.key, a.key);
    EXPECT_EQ(b.label, a.label) << a.key;
    EXPECT_EQ(b.text, a.text) << a.key;
    EXPECT_EQ(b.json.dump(), a.json.dump()) << a.key;
    EXPECT_EQ(b.audience, a.audience) << a.key;
    EXPECT_EQ(b.at_end, a.at_end) << a.key;
  }
  EXPECT_TRUE(decoded.fields.back().at_end);
  EXPECT_EQ(decoded.fields[3].audience, static_cast<unsigned>(report::kStoreOnly));
  EXPECT_EQ(decoded.fields[1].json.get<int64_t>(), kAbove53);

  ASSERT_EQ(decoded.tables.size(), original.tables.size());
  for (size_t i = 0; i < original.tables.size(); ++i) {
    const auto& a = original.tables[i];
    const auto& b = decoded.tables[i];
    EXPECT_EQ(b.key, a.key);
    EXPECT_EQ(b.title, a.title) << a.key;
    EXPECT_EQ(b.layout, a.layout) << a.key;
    EXPECT_EQ(b.audience, a.audience) << a.key;
    EXPECT_EQ(b.footer, a.footer) << a.key;
    EXPECT_EQ(b.rows.size(), a.rows.size()) << a.key;
    expect_same_columns(a, b);
  }
  const auto& rows = decoded.tables[0];
  EXPECT_EQ(rows.columns[0].max_width, 12u);
  EXPECT_EQ(rows.columns[1].style, Style::kSi);
  EXPECT_EQ(rows.columns[1].unit, "FLOP/s");
  EXPECT_EQ(rows.columns[3].decimals, 1);
  EXPECT_EQ(rows.columns[4].json_path, "stats.ratio");
  EXPECT_EQ(rows.columns[11].audience, static_cast<unsigned>(report::kStoreOnly));
  EXPECT_EQ(decoded.tables[4].audience, static_cast<unsigned>(report::kStoreOnly));
  EXPECT_EQ(decoded.tables[1].layout, Table::Layout::kRecord);
  EXPECT_EQ(decoded.tables[2].layout, Table::Layout::kList);
}

TEST(DocumentCodec, CellsKeepTheirKinds) {
  auto decoded = round_trip(full_document());
  const auto& row = decoded.tables[0].rows[0];
  ASSERT_TRUE(std::holds_alternative<std::string>(row[0]));
  EXPECT_EQ(std::get<std::string>(row[0]), "a \"quoted\", comma\nnewline m\xc3\xbcnchen \xe2\x9c\x93 and a long tail");
  ASSERT_TRUE(std::holds_alternative<int64_t>(row[1]));
  EXPECT_EQ(std::get<int64_t>(row[1]), 9007199254740993);
  ASSERT_TRUE(std::holds_alternative<int64_t>(row[6]));
  EXPECT_EQ(std::get<int64_t>(row[6]), std::numeric_limits<int64_t>::max());
  ASSERT_TRUE(std::holds_alternative<int64_t>(row[9]));
  EXPECT_EQ(std::get<int64_t>(row[9]), std::numeric_limits<int64_t>::min());
  ASSERT_TRUE(std::holds_alternative<double>(row[7]));  // 1.0 stays a real
  EXPECT_EQ(std::get<double>(row[7]), 1.0);
  ASSERT_TRUE(std::holds_alternative<double>(row[4]));
  EXPECT_EQ(std::get<double>(row[4]), -2.1911e-09);
  ASSERT_TRUE(std::holds_alternative<bool>(row[8]));
  EXPECT_TRUE(std::get<bool>(row[8]));
  const auto& second = decoded.tables[0].rows[1];
  EXPECT_TRUE(std::holds_alternative<std::monostate>(second[0]));
  ASSERT_TRUE(std::holds_alternative<double>(second[1]));
  EXPECT_EQ(std::get<double>(second[1]), 1.0);
  ASSERT_TRUE(std::holds_alternative<double>(second[2]));
  EXPECT_EQ(std::get<double>(second[2]), 1e-300);
  ASSERT_TRUE(std::holds_alternative<bool>(second[8]));
  EXPECT_FALSE(std::get<bool>(second[8]));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(second[12]));  // no nested table

  // Nested tables, two levels deep.
  using TablePtr = std::shared_ptr<const Table>;
  ASSERT_TRUE(std::holds_alternative<TablePtr>(row[12]));
  const auto& inner = *std::get<TablePtr>(row[12]);
  EXPECT_EQ(inner.key, "detail");
  ASSERT_EQ(inner.rows.size(), 2u);
  ASSERT_TRUE(std::holds_alternative<int64_t>(inner.rows[0][0]));
  EXPECT_EQ(std::get<int64_t>(inner.rows[0][0]), 7);
  ASSERT_TRUE(std::holds_alternative<TablePtr>(inner.rows[0][1]));
  const auto& deepest = *std::get<TablePtr>(inner.rows[0][1]);
  EXPECT_EQ(deepest.layout, Table::Layout::kList);
  ASSERT_EQ(deepest.rows.size(), 2u);
  EXPECT_EQ(std::get<int64_t>(deepest.rows[0][0]), -7);
  EXPECT_EQ(std::get<double>(deepest.rows[1][0]), 1e-300);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(inner.rows[1][1]));
}

// A minimal valid encoded document with one table of two columns, to break in one place at a time.
json valid_encoding() {
  return json::parse(R"({"command": "analyze", "subject": "m", "fields": [],
    "tables": [{"key": "t", "columns": [{"key": "a"}, {"key": "b"}], "rows": [[1, "x"]]}]})");
}

TEST(DocumentCodec, MinimalEncodingDecodes) {
  auto doc = report::decode_document(valid_encoding());
  ASSERT_EQ(doc.tables.size(), 1u);
  EXPECT_EQ(doc.tables[0].columns[1].key, "b");
  EXPECT_EQ(doc.tables[0].columns[1].decimals, 3);  // defaults for what is left out
  EXPECT_EQ(doc.tables[0].columns[1].audience, static_cast<unsigned>(report::kEveryone));
  ASSERT_EQ(doc.tables[0].rows.size(), 1u);
  EXPECT_EQ(std::get<int64_t>(doc.tables[0].rows[0][0]), 1);
}

TEST(DocumentCodec, MalformedEncodingsThrowRidgeErrors) {
  std::vector<std::pair<std::string, json>> cases;
  auto add = [&](std::string what, auto edit) {
    auto j = valid_encoding();
    edit(j);
    cases.emplace_back(std::move(what), std::move(j));
  };
  add("missing columns", [](json& j) { j["tables"][0].erase("columns"); });
  add("missing rows", [](json& j) { j["tables"][0].erase("rows"); });
  add("row too short", [](json& j) { j["tables"][0]["rows"][0] = json::array({1}); });
  add("row too long", [](json& j) { j["tables"][0]["rows"][0] = json::array({1, 2, 3}); });
  add("object cell without table", [](json& j) { j["tables"][0]["rows"][0][1] = json{{"x", 1}}; });
  add("array cell", [](json& j) { j["tables"][0]["rows"][0][1] = json::array({1, 2}); });
  add("nested table not an object", [](json& j) { j["tables"][0]["rows"][0][1] = json{{"table", 5}}; });
  add("nested table without columns", [](json& j) { j["tables"][0]["rows"][0][1] = json{{"table", json::object()}}; });
  add("missing tables", [](json& j) { j.erase("tables"); });
  add("missing fields", [](json& j) { j.erase("fields"); });
  add("table not an object", [](json& j) { j["tables"][0] = "t"; });
  add("style not a number", [](json& j) { j["tables"][0]["columns"][0]["style"] = "si"; });
  add("key not a string", [](json& j) { j["tables"][0]["columns"][0]["key"] = 3; });
  add("notes not strings", [](json& j) { j["notes"] = json::array({1, 2}); });
  add("command not a string", [](json& j) { j["command"] = json::array(); });
  add("at_end not a bool", [](json& j) { j["fields"] = json::array({json{{"key", "k"}, {"at_end", "yes"}}}); });
  // Numbers a printer would misuse, or that do not fit their member (a float-to-int conversion out of
  // range is undefined behaviour).
  add("decimals huge", [](json& j) { j["tables"][0]["columns"][0]["decimals"] = 1e300; });
  add("decimals too many", [](json& j) { j["tables"][0]["columns"][0]["decimals"] = 1000000000; });
  add("decimals negative", [](json& j) { j["tables"][0]["columns"][0]["decimals"] = -1; });
  add("decimals a fraction", [](json& j) { j["tables"][0]["columns"][0]["decimals"] = 2.5; });
  add("cell beyond int64", [](json& j) { j["tables"][0]["rows"][0][0] = uint64_t{1} << 63; });
  add("unknown style", [](json& j) { j["tables"][0]["columns"][0]["style"] = 99; });
  add("negative style", [](json& j) { j["tables"][0]["columns"][0]["style"] = -1; });
  add("unknown layout", [](json& j) { j["tables"][0]["layout"] = 3; });
  add("layout a real", [](json& j) { j["tables"][0]["layout"] = 1e20; });
  add("negative max_width", [](json& j) { j["tables"][0]["columns"][0]["max_width"] = -3; });
  add("audience beyond unsigned", [](json& j) { j["tables"][0]["columns"][0]["audience"] = 4294967296; });
  add("negative audience", [](json& j) { j["tables"][0]["audience"] = -1; });
  add("field audience a string", [](json& j) { j["fields"] = json::array({json{{"key", "k"}, {"audience", "all"}}}); });
  cases.emplace_back("not an object", json::array({1, 2}));
  cases.emplace_back("null", json());
  cases.emplace_back("a string", json("document"));
  for (const auto& [what, j] : cases) {
    try {
      report::decode_document(j);
      ADD_FAILURE() << what << ": decoded without an error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("stored document"), std::string::npos) << what << ": " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << what << ": not a ridge::Error: " << e.what();
    }
  }
}

// Decodable, but its JSON keys collide ("a" is a value, "a.b" needs it to be an object): a damaged
// store, which the JSON printer refuses with one line instead of failing inside nlohmann::json.
TEST(DocumentCodec, CollidingJsonKeysAreARidgeErrorWhenPrinted) {
  auto fields = report::decode_document(json::parse(R"({"fields": [{"key": "a", "json": "text"},
    {"key": "a.b", "json": 1}], "tables": []})"));
  std::ostringstream out;
  try {
    report::print(out, fields, report::Format::kJson);
    ADD_FAILURE() << "printed " << out.str();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'a.b'"), std::string::npos) << e.what();
  }
  auto columns = report::decode_document(json::parse(R"({"fields": [], "tables": [{"key": "t",
    "columns": [{"key": "x"}, {"key": "y", "json_path": "x.y"}], "rows": [[1, 2]]}]})"));
  EXPECT_THROW(report::print(out, columns, report::Format::kJson), Error);
  // The other printers do not nest keys: they print it.
  for (auto format : {report::Format::kTable, report::Format::kCsv, report::Format::kMarkdown})
    EXPECT_FALSE(printed(columns, format).empty());
  // Not colliding: "x.y" then "x.z" share their object.
  auto sharing = report::decode_document(json::parse(R"({"fields": [], "tables": [{"key": "t",
    "columns": [{"key": "y", "json_path": "x.y"}, {"key": "z", "json_path": "x.z"}], "rows": [[1, 2]]}]})"));
  EXPECT_EQ(json::parse(printed(sharing, report::Format::kJson)), json::parse(R"({"t": [{"x": {"y": 1, "z": 2}}]})"));
}

// ---- the store

// A path for a new store, unique in this test process.
std::string new_store_path(const std::string& stem) {
  static int counter = 0;
  auto dir = std::filesystem::path(temp_dir()) / ("store-" + std::to_string(++counter));
  std::filesystem::create_directories(dir);
  return (dir / (stem + ".db")).string();
}

store::Record full_record() {
  store::Record r;
  r.command = "bench";
  r.subject = "models/alexnet.onnx";
  r.status = "ok";
  r.summary = "mean 12.345 ms";
  auto& p = r.params;
  p.model = "models/alexnet.onnx";
  p.device = "cpu";
  p.batch = 8;
  p.threads = 4;
  p.input_size = "8x3x224x224";
  p.mode = "optimized";
  p.precision = "bf16";
  p.memory_format = "nhwc";
  p.conv_algo = "winograd";
  p.training = true;
  p.optimizer = "adam";
  auto& e = r.environment;
  e.host = "node-17";
  e.cpu = "AMD EPYC 9654";
  e.gpu = "NVIDIA H100, NVIDIA H100";
  e.versions = {{"ridge", "0.1.0"}, {"sqlite", "3.40.1"}, {"torch", "1.13.0"}};
  e.revision = "0123abc";
  e.command_line = "ridge bench 'models/alexnet.onnx' --batch 8";
  e.created_at = "2026-03-04T05:06:07Z";
  e.random_weights = false;
  e.calibration = "devices/cal.yaml";
  r.cell = {"study", "batch=8", "quick", "3"};
  r.document = report::encode_document(full_document());
  r.result = {{"kind", "bench"},
              {"result", {{"model", "models/alexnet.onnx"}, {"runs", nlohmann::ordered_json::array()}}}};
  return r;
}

void expect_same_record(const store::Record& a, const store::Record& b) {
  EXPECT_EQ(a.uid, b.uid);
  EXPECT_EQ(a.command, b.command);
  EXPECT_EQ(a.subject, b.subject);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.error, b.error);
  EXPECT_EQ(a.summary, b.summary);
  const auto &p = a.params, &q = b.params;
  EXPECT_EQ(p.model, q.model);
  EXPECT_EQ(p.device, q.device);
  EXPECT_EQ(p.batch, q.batch);
  EXPECT_EQ(p.threads, q.threads);
  EXPECT_EQ(p.input_size, q.input_size);
  EXPECT_EQ(p.mode, q.mode);
  EXPECT_EQ(p.precision, q.precision);
  EXPECT_EQ(p.memory_format, q.memory_format);
  EXPECT_EQ(p.conv_algo, q.conv_algo);
  EXPECT_EQ(p.training, q.training);
  EXPECT_EQ(p.optimizer, q.optimizer);
  const auto &e = a.environment, &f = b.environment;
  EXPECT_EQ(e.host, f.host);
  EXPECT_EQ(e.cpu, f.cpu);
  EXPECT_EQ(e.gpu, f.gpu);
  EXPECT_EQ(e.versions.dump(), f.versions.dump());
  EXPECT_EQ(e.revision, f.revision);
  EXPECT_EQ(e.command_line, f.command_line);
  EXPECT_EQ(e.created_at, f.created_at);
  EXPECT_EQ(e.random_weights, f.random_weights);
  EXPECT_EQ(e.calibration, f.calibration);
  EXPECT_EQ(a.cell.sweep, b.cell.sweep);
  EXPECT_EQ(a.cell.key, b.cell.key);
  EXPECT_EQ(a.cell.stage, b.cell.stage);
  EXPECT_EQ(a.cell.shard, b.cell.shard);
  EXPECT_EQ(a.document.dump(), b.document.dump());
  EXPECT_EQ(a.result.dump(), b.result.dump());
}

TEST(Store, SaveThenQueryReturnsEveryField) {
  auto path = new_store_path("fields");
  store::Store store(path);
  EXPECT_EQ(store.path(), path);
  auto record = full_record();
  auto id = store.save(record);
  EXPECT_EQ(id, 1);
  EXPECT_EQ(record.id, 1);
  ASSERT_EQ(record.uid.size(), 32u);

  // A failed result with nothing optional set.
  store::Record failed;
  failed.command = "predict";
  failed.status = "failed";
  failed.error = "no such device: x100";
  failed.environment.created_at = "2026-03-04T05:06:08Z";
  failed.uid = "given-uid";
  EXPECT_EQ(store.save(failed), 2);
  EXPECT_EQ(failed.uid, "given-uid");  // a given uid is kept

  auto all = store.query({});
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id, 1);
  expect_same_record(all[0], record);
  EXPECT_EQ(all[0].document, record.document);
  EXPECT_EQ(all[0].params.batch, std::optional<int64_t>(8));
  EXPECT_EQ(all[0].params.training, std::optional<bool>(true));
  EXPECT_EQ(all[0].environment.random_weights, std::optional<bool>(false));
  // The stored document prints as the original.
  auto doc = report::decode_document(all[0].document);
  EXPECT_EQ(printed(doc, report::Format::kTable), printed(full_document(), report::Format::kTable));

  EXPECT_EQ(all[1].id, 2);
  expect_same_record(all[1], failed);
  EXPECT_FALSE(all[1].params.batch);
  EXPECT_FALSE(all[1].params.threads);
  EXPECT_FALSE(all[1].params.training);
  EXPECT_FALSE(all[1].environment.random_weights);
  EXPECT_TRUE(all[1].document.is_null());
  EXPECT_EQ(all[1].environment.versions, json::object());

  // Listings read no documents.
  auto listing = store.query({}, false);
  ASSERT_EQ(listing.size(), 2u);
  EXPECT_TRUE(listing[0].document.is_null());
  EXPECT_EQ(listing[0].summary, "mean 12.345 ms");

  // Another connection (another process, later) sees the same.
  store::Store again(path, true);
  EXPECT_EQ(again.count(), 2);
  expect_same_record(again.query({})[0], record);
}

TEST(Store, UidsAreDrawnUniqueAndEnforced) {
  store::Store store(new_store_path("uids"));
  std::set<std::string> uids;
  for (int i = 0; i < 100; ++i) {
    auto r = full_record();
    store.save(r);
    EXPECT_EQ(r.uid.size(), 32u);
    EXPECT_EQ(r.uid.find_first_not_of("0123456789abcdef"), std::string::npos) << r.uid;
    uids.insert(r.uid);
  }
  EXPECT_EQ(uids.size(), 100u);
  EXPECT_EQ(store::new_uid().size(), 32u);
  EXPECT_NE(store::new_uid(), store::new_uid());
  // A uid is the result's identity: the same one twice is refused.
  auto copy = full_record();
  copy.uid = *uids.begin();
  EXPECT_THROW(store.save(copy), Error);
  EXPECT_EQ(store.count(), 100);
}

// The results the filter tests select from:
//   1 analyze  models/alexnet.onnx     batch 1               2026-01-01
//   2 predict  models/alexnet.onnx     batch 2  device t4    2026-02-01
//   3 bench    models/resnet50.onnx    batch 1  sweep s1 a   2026-03-01  failed
//   4 bench    models/resnet50.onnx    batch 2  sweep s1 b   2026-04-01
//   5 bench    /data/alexnet_v2.onnx   batch 2  sweep s2 a   2026-05-01
std::string filter_store() {
  auto path = new_store_path("filters");
  store::Store store(path);
  struct Row {
    const char *command, *model, *device;
    int64_t batch;
    const char *sweep, *cell, *status, *created_at;
  };
  for (const auto& row : std::vector<Row>{
           {"analyze", "models/alexnet.onnx", "", 1, "", "", "ok", "2026-01-01T10:00:00Z"},
           {"predict", "models/alexnet.onnx", "t4", 2, "", "", "ok", "2026-02-01T10:00:00Z"},
           {"bench", "models/resnet50.onnx", "cpu", 1, "s1", "a", "failed", "2026-03-01T10:00:00Z"},
           {"bench", "models/resnet50.onnx", "cpu", 2, "s1", "b", "ok", "2026-04-01T10:00:00Z"},
           {"bench", "/data/alexnet_v2.onnx", "cpu", 2, "s2", "a", "ok", "2026-05-01T10:00:00Z"},
       }) {
    store::Record r;
    r.command = row.command;
    r.subject = row.model;
    r.params.model = row.model;
    r.params.device = row.device;
    r.params.batch = row.batch;
    r.cell.sweep = row.sweep;
    r.cell.key = row.cell;
    r.status = row.status;
    if (r.status == "failed") r.error = "out of memory";
    r.environment.created_at = row.created_at;
    store.save(r);
  }
  return path;
}

std::vector<int64_t> ids_of(store::Store& store, const store::Filter& filter) {
  std::vector<int64_t> ids;
  for (const auto& r : store.query(filter, false)) ids.push_back(r.id);
  return ids;
}

TEST(Store, FiltersSelectWhatTheySay) {
  store::Store store(filter_store());
  using Ids = std::vector<int64_t>;
  EXPECT_EQ(ids_of(store, {}), (Ids{1, 2, 3, 4, 5}));
  EXPECT_EQ(ids_of(store, {.command = "bench"}), (Ids{3, 4, 5}));
  EXPECT_EQ(ids_of(store, {.command = "analyze"}), (Ids{1}));
  EXPECT_EQ(ids_of(store, {.command = "ert"}), (Ids{}));
  // A model by its exact path, or by part of it.
  EXPECT_EQ(ids_of(store, {.model = "models/alexnet.onnx"}), (Ids{1, 2}));
  EXPECT_EQ(ids_of(store, {.model = "alexnet"}), (Ids{1, 2, 5}));
  EXPECT_EQ(ids_of(store, {.model = "resnet50"}), (Ids{3, 4}));
  EXPECT_EQ(ids_of(store, {.model = "vgg"}), (Ids{}));
  // '_' and '%' are characters of a path, not wildcards.
  EXPECT_EQ(ids_of(store, {.model = "alex_et"}), (Ids{}));
  EXPECT_EQ(ids_of(store, {.model = "res%50"}), (Ids{}));
  EXPECT_EQ(ids_of(store, {.device = "t4"}), (Ids{2}));
  EXPECT_EQ(ids_of(store, {.batch = 2}), (Ids{2, 4, 5}));
  EXPECT_EQ(ids_of(store, {.batch = 1}), (Ids{1, 3}));
  EXPECT_EQ(ids_of(store, {.batch = 16}), (Ids{}));
  EXPECT_EQ(ids_of(store, {.status = "failed"}), (Ids{3}));
  EXPECT_EQ(ids_of(store, {.status = "ok"}), (Ids{1, 2, 4, 5}));
  EXPECT_EQ(ids_of(store, {.sweep = "s1"}), (Ids{3, 4}));
  EXPECT_EQ(ids_of(store, {.sweep = "s2"}), (Ids{5}));
  EXPECT_EQ(ids_of(store, {.since = "2026-03-01"}), (Ids{3, 4, 5}));
  EXPECT_EQ(ids_of(store, {.since = "2026-03-01T10:00:01Z"}), (Ids{4, 5}));
  EXPECT_EQ(ids_of(store, {.since = "2027"}), (Ids{}));
  EXPECT_EQ(ids_of(store, {.ids = {4, 2}}), (Ids{2, 4}));  // in id order
  EXPECT_EQ(ids_of(store, {.ids = {9}}), (Ids{}));
  // The newest N, in id order.
  EXPECT_EQ(ids_of(store, {.last = 2}), (Ids{4, 5}));
  EXPECT_EQ(ids_of(store, {.last = 1}), (Ids{5}));
  EXPECT_EQ(ids_of(store, {.last = 50}), (Ids{1, 2, 3, 4, 5}));
  // Filters combine.
  EXPECT_EQ(ids_of(store, {.command = "bench", .batch = 2}), (Ids{4, 5}));
  EXPECT_EQ(ids_of(store, {.command = "bench", .last = 2}), (Ids{4, 5}));
  EXPECT_EQ(ids_of(store, {.model = "alexnet", .last = 2}), (Ids{2, 5}));
  EXPECT_EQ(ids_of(store, {.command = "bench", .model = "alexnet"}), (Ids{5}));
  EXPECT_EQ(ids_of(store, {.ids = {1, 3, 5}, .command = "bench", .status = "ok"}), (Ids{5}));
  // Documents come with a full query.
  auto with = store.query({.ids = {1}});
  ASSERT_EQ(with.size(), 1u);
  EXPECT_EQ(with[0].error, "");
  EXPECT_EQ(store.query({.ids = {3}})[0].error, "out of memory");
}

TEST(Store, CellStatusOkWinsOverFailed) {
  store::Store store(new_store_path("cells"));
  auto save = [&](const std::string& sweep, const std::string& cell, const std::string& status) {
    store::Record r;
    r.command = "bench";
    r.status = status;
    r.cell.sweep = sweep;
    r.cell.key = cell;
    r.environment.created_at = "2026-01-01T00:00:00Z";
    store.save(r);
  };
  save("study", "retried", "failed");
  save("study", "retried", "ok");
  save("study", "ok-then-failed", "ok");
  save("study", "ok-then-failed", "failed");
  save("study", "broken", "failed");
  save("study", "broken", "failed");
  save("study", "fine", "ok");
  save("other", "elsewhere", "ok");
  save("", "", "ok");  // a plain command's result
  std::map<std::string, std::string> expected{
      {"retried", "ok"}, {"ok-then-failed", "ok"}, {"broken", "failed"}, {"fine", "ok"}};
  EXPECT_EQ(store.cell_status("study"), expected);
  EXPECT_EQ(store.cell_status("other"), (std::map<std::string, std::string>{{"elsewhere", "ok"}}));
  EXPECT_TRUE(store.cell_status("none").empty());
}

store::Record record_with_uid(const std::string& uid, int64_t batch) {
  auto r = full_record();
  r.uid = uid;
  r.params.batch = batch;
  return r;
}

std::vector<std::string> uids_in(store::Store& store) {
  std::vector<std::string> uids;
  for (const auto& r : store.query({}, false)) uids.push_back(r.uid);
  std::sort(uids.begin(), uids.end());
  return uids;
}

TEST(Store, MergeAddsEachResultOnce) {
  auto a_path = new_store_path("a");
  auto b_path = new_store_path("b");
  auto c_path = new_store_path("c");
  {
    store::Store a(a_path);
    for (const auto& [uid, batch] : std::vector<std::pair<std::string, int64_t>>{{"u1", 1}, {"u2", 2}}) {
      auto r = record_with_uid(uid, batch);
      a.save(r);
    }
    store::Store b(b_path);
    for (const auto& [uid, batch] : std::vector<std::pair<std::string, int64_t>>{{"u2", 2}, {"u3", 3}, {"u4", 4}}) {
      auto r = record_with_uid(uid, batch);
      b.save(r);
    }
  }
  store::Store c(c_path);
  EXPECT_EQ(c.merge_from(a_path), 2);
  EXPECT_EQ(c.merge_from(b_path), 2);  // u2 is there already
  EXPECT_EQ(c.count(), 4);
  EXPECT_EQ(uids_in(c), (std::vector<std::string>{"u1", "u2", "u3", "u4"}));
  // Twice: nothing new.
  EXPECT_EQ(c.merge_from(a_path), 0);
  EXPECT_EQ(c.merge_from(b_path), 0);
  EXPECT_EQ(c.count(), 4);
  // Merged results keep every field; ids are the target's own.
  auto merged = c.query({});
  ASSERT_EQ(merged.size(), 4u);
  for (size_t i = 0; i < merged.size(); ++i) {
    EXPECT_EQ(merged[i].id, static_cast<int64_t>(i + 1));
    auto expected = record_with_uid(merged[i].uid, merged[i].params.batch.value_or(-1));
    expect_same_record(merged[i], expected);
  }
  EXPECT_EQ(merged[2].params.batch, std::optional<int64_t>(3));
  // The sources are untouched.
  store::Store a(a_path, true);
  EXPECT_EQ(a.count(), 2);
  // Into itself, by the same or another spelling of its path: refused.
  EXPECT_THROW(c.merge_from(c_path), Error);
  auto other_spelling = (std::filesystem::path(c_path).parent_path() / "." / "c.db").string();
  try {
    c.merge_from(other_spelling);
    ADD_FAILURE() << "merged a store into itself";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("itself"), std::string::npos) << e.what();
  }
  EXPECT_EQ(c.count(), 4);
}

TEST(Store, MergeFromAMissingStoreIsARidgeError) {
  store::Store c(new_store_path("target"));
  auto missing = new_store_path("missing");
  try {
    c.merge_from(missing);
    ADD_FAILURE() << "merged a store that does not exist";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a ridge::Error: " << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(missing));
  EXPECT_EQ(c.count(), 0);
}

TEST(Store, MissingStoreIsNotCreatedWhenItMustExist) {
  auto path = new_store_path("absent");
  try {
    store::Store store(path, true);
    ADD_FAILURE() << "opened a store that does not exist";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(Store, AFileThatIsNotADatabaseIsRefused) {
  auto path = new_store_path("text");
  {
    std::ofstream out(path);
    for (int i = 0; i < 100; ++i) out << "model,batch,mean_ms\nalexnet,1,12.5\n";
  }
  auto before = std::filesystem::file_size(path);
  for (bool must_exist : {false, true}) {
    try {
      store::Store store(path, must_exist);
      ADD_FAILURE() << "opened a text file as a store";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("not a ridge results store"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(std::filesystem::file_size(path), before);
}

// Someone else's SQLite database is refused, never given a results table.
TEST(Store, AnotherApplicationsDatabaseIsRefused) {
  auto path = new_store_path("foreign");
  {
    store::Connection db(path, true);
    db.execute("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine')");
  }
  try {
    store::Store store(path);
    ADD_FAILURE() << "opened another application's database as a store";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a ridge results store"), std::string::npos) << e.what();
  }
  store::Connection db(path, false);
  store::Statement tables(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'");
  ASSERT_TRUE(tables.step());
  EXPECT_EQ(tables.integer(0), 1);
}

int64_t user_version(store::Connection& db) {
  store::Statement s(db, "PRAGMA user_version");
  EXPECT_TRUE(s.step());
  return s.integer(0);
}

bool has_index(store::Connection& db, const std::string& name) {
  store::Statement s(db, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?1");
  s.bind(1, name);
  EXPECT_TRUE(s.step());
  return s.integer(0) == 1;
}

TEST(Store, OldSchemaIsMigrated) {
  ASSERT_GE(store::schema_version(), 2);
  auto path = new_store_path("old");
  {
    store::Connection db(path, true);
    store::migrate(db, 1);
    EXPECT_EQ(user_version(db), 1);
    EXPECT_FALSE(has_index(db, "results_by_cell"));
    // A result written by the old ridge.
    db.execute(
        "INSERT INTO results (uid, command, status, created_at, model, batch) VALUES ('old-1', 'analyze', 'ok', "
        "'2025-12-31T00:00:00Z', 'models/alexnet.onnx', 4)");
  }
  {
    store::Store store(path, true);
    auto records = store.query({});
    ASSERT_EQ(records.size(), 1u);
    EXPECT_EQ(records[0].uid, "old-1");
    EXPECT_EQ(records[0].params.batch, std::optional<int64_t>(4));
    EXPECT_EQ(store.cell_status("").size(), 0u);
    auto r = full_record();
    store.save(r);
    EXPECT_EQ(store.count(), 2);
  }
  store::Connection db(path, false);
  EXPECT_EQ(user_version(db), store::schema_version());
  EXPECT_TRUE(has_index(db, "results_by_cell"));
  EXPECT_TRUE(has_index(db, "results_by_command"));
}

TEST(Store, NewerSchemaIsRefused) {
  auto path = new_store_path("newer");
  {
    store::Store store(path);
    auto r = full_record();
    store.save(r);
  }
  int newer = store::schema_version() + 1;
  {
    store::Connection db(path, false);
    db.execute("PRAGMA user_version = " + std::to_string(newer));
  }
  for (bool must_exist : {false, true}) {
    try {
      store::Store store(path, must_exist);
      ADD_FAILURE() << "opened a store of a newer schema";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
  // Merging from it is refused too, and adds nothing.
  store::Store target(new_store_path("merge-target"));
  EXPECT_THROW(target.merge_from(path), Error);
  EXPECT_EQ(target.count(), 0);
  store::Connection db(path, false);
  EXPECT_EQ(user_version(db), newer);  // left as it was
}

TEST(Store, DefaultPathIsTheEnvironmentsElseTheWorkingDirectorys) {
  const char* saved = std::getenv("RIDGE_STORE");
  std::string previous = saved ? saved : "";
  ::setenv("RIDGE_STORE", "/tmp/elsewhere.db", 1);
  EXPECT_EQ(store::default_store_path(), "/tmp/elsewhere.db");
  ::setenv("RIDGE_STORE", "", 1);
  EXPECT_EQ(store::default_store_path(), "ridge-results.db");
  ::unsetenv("RIDGE_STORE");
  EXPECT_EQ(store::default_store_path(), "ridge-results.db");
  if (saved) ::setenv("RIDGE_STORE", previous.c_str(), 1);
}

// Saves `count` results into the store at `path` from a child process; the exit code says whether
// every save worked (the error goes to stderr).
pid_t spawn_writer(const std::string& path, int count, const int start[2], const std::string& tag) {
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::alarm(120);  // a writer that hangs dies and fails the test instead of stalling it
  ::close(start[1]);
  char go;
  if (::read(start[0], &go, 1) < 0) ::_exit(3);  // blocks until the parent closes its end
  try {
    store::Store store(path);
    for (int i = 0; i < count; ++i) {
      auto r = full_record();
      r.summary = tag + " " + std::to_string(i);
      r.params.batch = i;
      store.save(r);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "writer %s: %s\n", tag.c_str(), e.what());
    ::_exit(1);
  }
  ::_exit(0);
}

TEST(Store, TwoProcessesWriteOneStoreAtOnce) {
  auto path = new_store_path("concurrent");  // not created yet: both writers race to create it
  int start[2];
  ASSERT_EQ(::pipe(start), 0);
  pid_t first = spawn_writer(path, 200, start, "first");
  pid_t second = spawn_writer(path, 200, start, "second");
  ::close(start[0]);
  ::close(start[1]);  // both start now
  for (pid_t pid : {first, second}) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "a writer failed (see its message above)";
  }
  store::Store store(path, true);
  EXPECT_EQ(store.count(), 400);
  auto records = store.query({}, false);
  std::set<std::string> uids, summaries;
  for (const auto& r : records) uids.insert(r.uid), summaries.insert(r.summary);
  EXPECT_EQ(uids.size(), 400u);
  EXPECT_EQ(summaries.size(), 400u);
  EXPECT_EQ(summaries.count("first 199"), 1u);
  EXPECT_EQ(summaries.count("second 0"), 1u);
}

TEST(Store, TwoThreadsWriteOneStoreAtOnce) {
  auto path = new_store_path("threads");
  std::vector<std::string> errors(2);
  std::vector<std::thread> writers;
  for (int t = 0; t < 2; ++t)
    writers.emplace_back([&, t] {
      try {
        store::Store store(path);
        for (int i = 0; i < 200; ++i) {
          auto r = full_record();
          store.save(r);
        }
      } catch (const std::exception& e) {
        errors[static_cast<size_t>(t)] = e.what();
      }
    });
  for (auto& w : writers) w.join();
  EXPECT_EQ(errors[0], "");
  EXPECT_EQ(errors[1], "");
  store::Store store(path, true);
  EXPECT_EQ(store.count(), 400);
}

// One connection per path for the whole process: the same store each time, another for another path.
TEST(Store, SharedStoreIsOpenedOncePerPath) {
  auto dir = std::filesystem::path(temp_dir()) / "store-shared";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto a = (dir / "a.db").string(), b = (dir / "b.db").string();
  auto& first = store::shared_store(a);
  EXPECT_EQ(&store::shared_store(a), &first);
  EXPECT_NE(&store::shared_store(b), &first);
  EXPECT_EQ(first.path(), a);
  store::Record r;
  r.command = "bench";
  first.save(r);
  EXPECT_EQ(store::shared_store(a).count(), 1);
  EXPECT_EQ(store::shared_store(b).count(), 0);
}

}  // namespace
}  // namespace ridge::test
