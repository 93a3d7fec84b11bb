#include "store/schema.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "util/error.h"

namespace ridge::store {
namespace {

// Never edit a migration that has shipped: append one. Version N is the state after migration N.
const std::vector<std::string>& migrations() {
  static const std::vector<std::string> list{
      // 1: results, with the parameters people filter on as columns and the document as JSON.
      R"(CREATE TABLE results (
           id INTEGER PRIMARY KEY,
           uid TEXT NOT NULL UNIQUE,
           command TEXT NOT NULL,
           subject TEXT NOT NULL DEFAULT '',
           status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
           error TEXT NOT NULL DEFAULT '',
           summary TEXT NOT NULL DEFAULT '',
           model TEXT NOT NULL DEFAULT '',
           device TEXT NOT NULL DEFAULT '',
           batch INTEGER,
           input_size TEXT NOT NULL DEFAULT '',
           mode TEXT NOT NULL DEFAULT '',
           precision TEXT NOT NULL DEFAULT '',
           memory_format TEXT NOT NULL DEFAULT '',
           conv_algo TEXT NOT NULL DEFAULT '',
           threads INTEGER,
           training INTEGER,
           optimizer TEXT NOT NULL DEFAULT '',
           host TEXT NOT NULL DEFAULT '',
           cpu TEXT NOT NULL DEFAULT '',
           gpu TEXT NOT NULL DEFAULT '',
           versions TEXT NOT NULL DEFAULT '{}',
           revision TEXT NOT NULL DEFAULT '',
           command_line TEXT NOT NULL DEFAULT '',
           created_at TEXT NOT NULL,
           random_weights INTEGER,
           calibration TEXT NOT NULL DEFAULT '',
           sweep TEXT NOT NULL DEFAULT '',
           cell TEXT NOT NULL DEFAULT '',
           stage TEXT NOT NULL DEFAULT '',
           shard TEXT NOT NULL DEFAULT '',
           document TEXT
         );)",
      // 2: a sweep asks "which cells are done" at every start; filters by command and model.
      R"(CREATE INDEX results_by_cell ON results (sweep, cell, status);
         CREATE INDEX results_by_command ON results (command, model);)",
      // 3: the result itself, typed, as its kind's codec writes it ({"kind": ..., "result": ...}): what figures,
      // calibration, compare and report read (the document is what the command printed, for `results --show`).
      R"(ALTER TABLE results ADD COLUMN result TEXT;)",
  };
  return list;
}

}  // namespace

int schema_version() { return static_cast<int>(migrations().size()); }

void migrate(Connection& db, int up_to) {
  int target = up_to < 0 ? schema_version() : up_to;
  int current = [&] {
    Statement version(db, "PRAGMA user_version");
    version.step();
    return static_cast<int>(version.integer(0));
  }();
  if (current > schema_version())
    throw Error(
        fmt::format("results store {} has schema version {}, newer than this ridge knows ({}): use a newer "
                    "ridge, or another --store",
                    db.path(), current, schema_version()));
  for (int next = current + 1; next <= target; ++next) {
    Transaction transaction(db);
    // Another writer may have migrated while this one waited for the lock.
    Statement again(db, "PRAGMA user_version");
    again.step();
    bool done = again.integer(0) >= next;
    again.reset();
    if (done) continue;
    if (next == 1) {
      // Tables but no ridge schema version: someone else's database, never given ours.
      Statement tables(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'");
      tables.step();
      if (tables.integer(0) > 0)
        throw Error(
            fmt::format("{} is an SQLite database but not a ridge results store: give another --store", db.path()));
    }
    db.execute(migrations()[static_cast<size_t>(next - 1)]);
    db.execute(fmt::format("PRAGMA user_version = {}", next));
    transaction.commit();
  }
}

}  // namespace ridge::store
