#pragma once
// A thin RAII layer over SQLite's C API: a connection and prepared statements with typed binds and
// columns. Every failure is a ridge::Error carrying SQLite's message and the database path.
#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>

namespace ridge::store {

class Connection;

class Statement {
 public:
  Statement(Connection& db, const std::string& sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters are numbered from 1, as in SQL's ?1.
  Statement& bind(int index, const std::string& text);
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, double value);
  Statement& bind_null(int index);
  // Binds an optional: none is SQL NULL.
  template <typename T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind_null(index);
  }
  // Advances to the next row; false when done (statements without rows: run once).
  bool step();
  void reset();

  bool is_null(int column) const;
  std::string text(int column) const;
  int64_t integer(int column) const;
  double real(int column) const;

 private:
  Connection& db_;
  sqlite3_stmt* statement_ = nullptr;
};

class Connection {
 public:
  // Opens (creating when `create`) the database at `path`; throws ridge::Error naming it.
  Connection(const std::string& path, bool create, bool read_only = false);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void execute(const std::string& sql);
  int64_t last_insert_id() const;
  int changes() const;
  sqlite3* handle() { return db_; }
  const std::string& path() const { return path_; }
  // Throws ridge::Error: "PATH: WHAT: SQLite's message".
  [[noreturn]] void fail(const std::string& what) const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

// BEGIN IMMEDIATE ... COMMIT, rolled back when destroyed without commit().
class Transaction {
 public:
  explicit Transaction(Connection& db);
  ~Transaction();
  void commit();

 private:
  Connection& db_;
  bool done_ = false;
};

}  // namespace ridge::store
