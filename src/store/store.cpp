#include "store/store.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <random>

#include "store/schema.h"
#include "util/error.h"

namespace ridge::store {
namespace {

using json = nlohmann::ordered_json;

// The columns of `results` besides id, in the order every INSERT and SELECT uses.
constexpr const char* kColumns =
    "uid, command, subject, status, error, summary, model, device, batch, input_size, mode, precision, memory_format, "
    "conv_algo, threads, training, optimizer, host, cpu, gpu, versions, revision, command_line, created_at, "
    "random_weights, calibration, sweep, cell, stage, shard, document, result";
constexpr int kColumnCount = 32;

std::optional<int64_t> optional_bool(const std::optional<bool>& b) {
  return b ? std::optional<int64_t>(*b ? 1 : 0) : std::nullopt;
}

void bind_record(Statement& s, const Record& r) {
  const auto& p = r.params;
  const auto& e = r.environment;
  int i = 0;
  // In kColumns' order.
  auto next = [&](const auto& value) { s.bind(++i, value); };
  for (const auto* text : {&r.uid, &r.command, &r.subject, &r.status, &r.error, &r.summary, &p.model, &p.device})
    next(*text);
  next(p.batch);
  for (const auto* text : {&p.input_size, &p.mode, &p.precision, &p.memory_format, &p.conv_algo}) next(*text);
  next(p.threads);
  next(optional_bool(p.training));
  for (const auto* text : {&p.optimizer, &e.host, &e.cpu, &e.gpu}) next(*text);
  next(e.versions.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  for (const auto* text : {&e.revision, &e.command_line, &e.created_at}) next(*text);
  next(optional_bool(e.random_weights));
  for (const auto* text : {&e.calibration, &r.cell.sweep, &r.cell.key, &r.cell.stage, &r.cell.shard}) next(*text);
  for (const auto* value : {&r.document, &r.result}) {
    if (value->is_null())
      s.bind_null(++i);
    else
      next(value->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
}

std::optional<int64_t> column_integer(const Statement& s, int c) {
  return s.is_null(c) ? std::nullopt : std::optional<int64_t>(s.integer(c));
}
std::optional<bool> column_bool(const Statement& s, int c) {
  return s.is_null(c) ? std::nullopt : std::optional<bool>(s.integer(c) != 0);
}

Record read_record(const Statement& s, bool with_document) {
  Record r;
  int c = 0;
  r.id = s.integer(c++);
  r.uid = s.text(c++), r.command = s.text(c++), r.subject = s.text(c++), r.status = s.text(c++);
  r.error = s.text(c++), r.summary = s.text(c++);
  auto& p = r.params;
  p.model = s.text(c++), p.device = s.text(c++), p.batch = column_integer(s, c++), p.input_size = s.text(c++);
  p.mode = s.text(c++), p.precision = s.text(c++), p.memory_format = s.text(c++), p.conv_algo = s.text(c++);
  p.threads = column_integer(s, c++), p.training = column_bool(s, c++), p.optimizer = s.text(c++);
  auto& e = r.environment;
  e.host = s.text(c++), e.cpu = s.text(c++), e.gpu = s.text(c++);
  e.versions = json::parse(s.text(c++), nullptr, false);
  if (e.versions.is_discarded()) e.versions = json::object();
  e.revision = s.text(c++), e.command_line = s.text(c++), e.created_at = s.text(c++);
  e.random_weights = column_bool(s, c++), e.calibration = s.text(c++);
  r.cell = {s.text(c++), s.text(c++), s.text(c++), s.text(c++)};
  if (with_document && !s.is_null(c)) {
    r.document = json::parse(s.text(c), nullptr, false);
    if (r.document.is_discarded()) throw Error(fmt::format("result {}: its stored document is not JSON", r.id));
  }
  ++c;
  if (with_document && !s.is_null(c)) {
    r.result = json::parse(s.text(c), nullptr, false);
    if (r.result.is_discarded()) throw Error(fmt::format("result {}: its stored typed result is not JSON", r.id));
  }
  return r;
}

}  // namespace

Store::Store(const std::string& path, bool must_exist)
    : db_([&] {
        if (must_exist && !std::filesystem::exists(path))
          throw Error(fmt::format("no results store at {} (run a command, or give --store)", path));
        return Connection(path, true);
      }()) {
  // WAL: readers never block the writer and concurrent writers queue on the busy timeout instead
  // of failing; NORMAL sync is durable across a crash of ridge (not of the OS) and keeps a save
  // well under a millisecond.
  db_.execute("PRAGMA busy_timeout = 30000");
  try {
    Statement check(db_, "PRAGMA schema_version");  // fails on a file that is not a database
    check.step();
  } catch (const Error&) {
    // Only SQLite's "not a database" means that; a lock held past the busy timeout or an I/O error
    // keeps SQLite's own message.
    if ((sqlite3_errcode(db_.handle()) & 0xff) != SQLITE_NOTADB) throw;
    throw Error(fmt::format("{} is not a ridge results store (not an SQLite database)", path));
  }
  // Migrations first (they refuse another application's database before anything is changed), then
  // the journal mode, which is stored in the file.
  migrate(db_);
  db_.execute("PRAGMA journal_mode = WAL");
  db_.execute("PRAGMA synchronous = NORMAL");
}

namespace {

// "INSERT [OR IGNORE] INTO results (columns) VALUES (?1, ..., ?N)".
std::string insert_sql(const char* verb) {
  std::string marks;
  for (int i = 1; i <= kColumnCount; ++i) marks += fmt::format("{}?{}", i > 1 ? ", " : "", i);
  return fmt::format("{} INTO results ({}) VALUES ({})", verb, kColumns, marks);
}

}  // namespace

bool Store::save_new(Record& record) {
  if (record.uid.empty()) record.uid = new_uid();
  Statement insert(db_, insert_sql("INSERT OR IGNORE"));
  bind_record(insert, record);
  insert.step();
  if (db_.changes() == 0) return false;
  record.id = db_.last_insert_id();
  return true;
}

int64_t Store::save(Record& record) {
  if (record.uid.empty()) record.uid = new_uid();
  Statement insert(db_, insert_sql("INSERT"));
  bind_record(insert, record);
  insert.step();
  record.id = db_.last_insert_id();
  return record.id;
}

std::vector<Record> Store::query(const Filter& f, bool with_documents) {
  std::string where;
  std::vector<std::string> texts;
  auto text_clause = [&](const std::string& column, const std::string& value, const char* op = "=") {
    if (value.empty()) return;
    texts.push_back(value);
    where += fmt::format(" AND {} {} ?{}", column, op, texts.size());
  };
  text_clause("command", f.command);
  // A model matches by path or by file name (resnet50 matches models/resnet50.onnx).
  if (!f.model.empty()) {
    // instr, not LIKE: '_' and '%' in a path are characters, not wildcards.
    texts.push_back(f.model);
    where += fmt::format(" AND instr(model, ?{}) > 0", texts.size());
  }
  text_clause("device", f.device);
  text_clause("mode", f.mode);
  text_clause("precision", f.precision);
  text_clause("status", f.status);
  text_clause("sweep", f.sweep);
  text_clause("stage", f.stage);
  text_clause("created_at", f.since, ">=");
  if (f.batch) where += fmt::format(" AND batch = {}", *f.batch);
  if (!f.ids.empty()) {
    std::string list;
    for (auto id : f.ids) list += fmt::format("{}{}", list.empty() ? "" : ",", id);
    where += " AND id IN (" + list + ")";
  }
  std::string columns = kColumns;
  // Listing reads no documents or typed results: they are most of a store's bytes.
  if (!with_documents) columns.replace(columns.rfind("document, result"), 16, "NULL, NULL");
  std::string sql = fmt::format("SELECT id, {} FROM results WHERE 1{} ORDER BY id", columns, where);
  if (f.last > 0) sql = fmt::format("SELECT * FROM ({} DESC LIMIT {}) ORDER BY id", sql, f.last);
  Statement s(db_, sql);
  for (size_t i = 0; i < texts.size(); ++i) s.bind(static_cast<int>(i + 1), texts[i]);
  std::vector<Record> records;
  while (s.step()) records.push_back(read_record(s, with_documents));
  return records;
}

std::map<std::string, std::string> Store::cell_status(const std::string& sweep) {
  Statement s(db_, "SELECT cell, status FROM results WHERE sweep = ?1 AND cell != ''");
  s.bind(1, sweep);
  std::map<std::string, std::string> status;
  while (s.step()) {
    auto& st = status[s.text(0)];
    if (st != "ok") st = s.text(1);
  }
  return status;
}

int64_t Store::merge_from(const std::string& other) {
  if (std::filesystem::equivalent(other, path())) throw Error(fmt::format("{}: merging a store into itself", other));
  { Store source(other, true); }  // brings the source's schema up to date, or refuses it
  Statement attach(db_, "ATTACH DATABASE ?1 AS source");
  attach.bind(1, other);
  attach.step();
  int64_t added = 0;
  try {
    Transaction transaction(db_);
    db_.execute(
        fmt::format("INSERT OR IGNORE INTO main.results ({0}) SELECT {0} FROM source.results ORDER BY id", kColumns));
    added = db_.changes();
    transaction.commit();
  } catch (...) {
    db_.execute("DETACH DATABASE source");
    throw;
  }
  db_.execute("DETACH DATABASE source");
  return added;
}

int64_t Store::count() {
  Statement s(db_, "SELECT count(*) FROM results");
  s.step();
  return s.integer(0);
}

Store& shared_store(const std::string& path) {
  static std::map<std::string, std::unique_ptr<Store>> open;
  auto& slot = open[path];
  if (!slot) slot = std::make_unique<Store>(path);
  return *slot;
}

std::string default_store_path() {
  const char* env = std::getenv("RIDGE_STORE");
  return env && *env ? env : "ridge-results.db";
}

std::string new_uid() {
  std::random_device random;
  std::string uid;
  for (int i = 0; i < 4; ++i) uid += fmt::format("{:08x}", random());
  return uid;
}

}  // namespace ridge::store
