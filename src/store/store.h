#pragma once
// The results database: every result a command produces, with its environment, in one SQLite file.
// WAL journaling and a busy timeout let several local processes write one store at once (a sweep
// and a bench in another terminal); a shared network filesystem is not safe for that, which is why
// SLURM shards write stores of their own that are merged afterwards.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "store/record.h"
#include "store/sqlite.h"

namespace ridge::store {

// Which results a query selects; empty / none matches everything.
struct Filter {
  std::vector<int64_t> ids;
  std::string command, model, device, mode, precision, status, sweep, stage, since;
  std::optional<int64_t> batch;
  int64_t last = 0;  // only the N newest (0: all)
};

class Store {
 public:
  // Opens or creates the store at `path` and brings its schema up to date. `must_exist` refuses a
  // path that is not a store yet (reading commands must not leave empty files behind).
  explicit Store(const std::string& path, bool must_exist = false);

  const std::string& path() const { return db_.path(); }

  // Saves `record` (a uid is drawn when it has none); returns its id.
  int64_t save(Record& record);
  // Saves `record` unless the store holds its uid already (an import of the same result); returns whether it did.
  bool save_new(Record& record);
  std::vector<Record> query(const Filter& filter, bool with_documents = true);
  // The status of every cell of `sweep` stored so far ("ok" wins over "failed": a retried cell).
  std::map<std::string, std::string> cell_status(const std::string& sweep);
  // Copies the results of the store at `other` that this one lacks (by uid); returns how many.
  int64_t merge_from(const std::string& other);
  int64_t count();

 private:
  Connection db_;
};

// The store at `path`, opened once per process and kept open: a sweep saves every cell through it, so opening the
// file and checkpointing its WAL when the connection closes are paid once, not per result.
Store& shared_store(const std::string& path);

// The store a command writes to: --store, else $RIDGE_STORE, else ridge-results.db here.
std::string default_store_path();
// 32 hexadecimal digits from the OS's random source.
std::string new_uid();

}  // namespace ridge::store
