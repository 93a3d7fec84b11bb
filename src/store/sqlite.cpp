#include "store/sqlite.h"

#include <fmt/format.h>

#include "util/error.h"

namespace ridge::store {

Connection::Connection(const std::string& path, bool create, bool read_only) : path_(path) {
  int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(fmt::format("results store {}: cannot open: {}", path, message));
  }
  sqlite3_extended_result_codes(db_, 1);
}

Connection::~Connection() { sqlite3_close_v2(db_); }

void Connection::fail(const std::string& what) const {
  throw Error(fmt::format("results store {}: {}: {}", path_, what, sqlite3_errmsg(db_)));
}

void Connection::execute(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    throw Error(fmt::format("results store {}: {}", path_, text));
  }
}

int64_t Connection::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }
int Connection::changes() const { return sqlite3_changes(db_); }

Statement::Statement(Connection& db, const std::string& sql) : db_(db) {
  if (sqlite3_prepare_v2(db.handle(), sql.c_str(), static_cast<int>(sql.size()), &statement_, nullptr) != SQLITE_OK)
    db.fail("cannot prepare a query");
}

Statement::~Statement() { sqlite3_finalize(statement_); }

Statement& Statement::bind(int index, const std::string& text) {
  if (sqlite3_bind_text(statement_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT) != SQLITE_OK)
    db_.fail("cannot bind a value");
  return *this;
}
Statement& Statement::bind(int index, int64_t value) {
  if (sqlite3_bind_int64(statement_, index, value) != SQLITE_OK) db_.fail("cannot bind a value");
  return *this;
}
Statement& Statement::bind(int index, double value) {
  if (sqlite3_bind_double(statement_, index, value) != SQLITE_OK) db_.fail("cannot bind a value");
  return *this;
}
Statement& Statement::bind_null(int index) {
  if (sqlite3_bind_null(statement_, index) != SQLITE_OK) db_.fail("cannot bind a value");
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(statement_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail("query failed");
}

void Statement::reset() {
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
}

bool Statement::is_null(int column) const { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }
std::string Statement::text(int column) const {
  const auto* bytes = sqlite3_column_text(statement_, column);
  return bytes ? std::string(reinterpret_cast<const char*>(bytes),
                             static_cast<size_t>(sqlite3_column_bytes(statement_, column)))
               : std::string();
}
int64_t Statement::integer(int column) const { return sqlite3_column_int64(statement_, column); }
double Statement::real(int column) const { return sqlite3_column_double(statement_, column); }

Transaction::Transaction(Connection& db) : db_(db) { db_.execute("BEGIN IMMEDIATE"); }
Transaction::~Transaction() {
  if (done_) return;
  try {
    db_.execute("ROLLBACK");
  } catch (...) {  // a destructor must not throw; the connection is closed next anyway
  }
}
void Transaction::commit() {
  db_.execute("COMMIT");
  done_ = true;
}

}  // namespace ridge::store
