#pragma once
// The CSV side of bench results, and the one loader of bench runs from files. `ridge bench --csv DIR`
// appends every run to DIR/overall.csv (one row per run) and DIR/nodes.csv (one row per node of each run),
// each row starting with the run columns below (report/bench_report.cpp writes them from this list); this
// module reads such a directory back into the same exec::BenchResult the executor produced, filled as far as
// the CSV holds it (no environment but threads and revision, no per-node descriptors). `read_bench_runs`
// reads either layout or a `ridge bench -f json` file (exec/bench_codec), so calibration, energy fits and
// compare take one typed run whatever file it came in.
#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "exec/measurement.h"

namespace ridge::exec {

// The columns that say which run a CSV row belongs to, first in every bench CSV, in this order; the
// timestamp (with ridge_revision) ends each row.
inline constexpr std::array<const char*, 10> kBenchRunColumns = {"model",    "algorithm", "input_size",    "batch",
                                                                 "mode",     "precision", "memory_format", "threads",
                                                                 "training", "optimizer"};

// One run read from a file, with where it came from.
struct LoadedRun {
  BenchResult run;
  std::string path;   // the path given (names the run's file in notes)
  std::string where;  // "FILE line N" (its overall.csv row, else its first nodes.csv row) or "FILE: runs[i]"
  // Where a model path the run recorded relative to where bench ran may lie, besides the working directory.
  std::vector<std::filesystem::path> model_dirs;
  // Who ran it: "" for ridge's own executors; "pytorch" for PyTorch's whole-model timings of the same network
  // (calib/torch_timings.h: no per-node profile).
  std::string framework;
};

// A directory written by `ridge bench --csv` (`path` names it in messages). overall.csv must exist; nodes.csv
// is read when present. Runs are told apart by their run columns and timestamp; the node rows of one run are
// appended together (a node named again starts the next run). Threads may be 0 (a GPU run). Throws
// ridge::Error with one line naming the file and line on malformed input, or when runs sharing every run
// column and timestamp cannot be paired with their node rows.
std::vector<LoadedRun> read_bench_csv(const std::filesystem::path& directory, const std::string& path);

// `path`: a bench --csv directory, one of its files (overall.csv, nodes.csv or layers.csv stands for its
// directory), or a `ridge bench -f json` file (`also` as parse_bench takes it: what else the caller reads).
// Throws ridge::Error (one line) when it is none of them or is malformed.
std::vector<LoadedRun> read_bench_runs(const std::string& path, const std::string& also);

// A path as a directory, absolute and without a trailing separator (so parent_path is the parent).
std::filesystem::path as_directory(const std::filesystem::path& path);

}  // namespace ridge::exec
