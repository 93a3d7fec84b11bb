#pragma once
// Results written elsewhere brought into the results store (`ridge results import`): `ridge predict -f json` files,
// read through the prediction codec, one record per file (a sweep is one result, as `ridge predict` stores it),
// `ridge import ncu -f json` (one record per run), `ridge import torch -f json`, `ridge calibrate -f json`,
// `ridge compare -f json` and `ridge ert -f json` files (one record each) through theirs, and `ridge bench -f json`
// files, read through the bench codec, one record per run, each with the environment that measured it (the GPU, CPU,
// libraries and ridge revision the file records; the host is not recorded in the file, so it stays empty) and a uid
// drawn from its content, so importing a file again, or into a store that merged it, adds nothing.
#include <functional>
#include <string>
#include <vector>

#include "exec/measurement.h"
#include "store/record.h"

namespace ridge::report {

// What a bench run is about, as `ridge bench` stores it.
store::Params bench_params(const exec::BenchResult& run);

struct ImportedFile {
  std::vector<store::Record> records;
  // Runs the file gives no time for (written before bench recorded it): stored with the time of the import.
  size_t untimed = 0;
};
// The records of the file at `path`. Throws ridge::Error (one line) on a file that is no result ridge can import.
ImportedFile import_records(const std::string& path);

// `ridge results import`: how many results a file held and how many of them the store did not hold yet.
struct FileImport {
  std::string path;
  std::string command;  // of its records ("bench", "predict", ...)
  size_t results = 0, untimed = 0;
  int64_t added = 0;
};
struct StoreImport {
  std::vector<FileImport> files;
  int64_t held = 0;  // results in the store afterwards
};
// Reads every file first (one that is no result saves nothing and creates no store), then saves each record the
// store at `store_path` does not hold.
StoreImport import_files(const std::vector<std::string>& paths, const std::string& store_path);
// "FILE: N results, A added, K already in STORE", and why a result carries the import's time where it does.
std::string import_line(const FileImport& file, const std::string& store_path);
// `ridge results import` as one call: import_files, then a line per file (import_line) and the store's total
// (holds_line: the results the files added) handed on.
void import_into_store(const std::vector<std::string>& paths, const std::string& store_path,
                       const std::function<void(const std::string&)>& line);

}  // namespace ridge::report
