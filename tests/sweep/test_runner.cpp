// A sweep's cells as sweep/runner builds and judges them, in process: the measurement options a bench cell gets, and
// what a cell's command did (done only when it stored a result; its headline read back from the store).
#include <gtest/gtest.h>

#include <filesystem>

#include "store/store.h"
#include "support/paths.h"
#include "sweep/runner.h"

namespace ridge::test {
namespace {

TEST(SweepRunner, MeasurementOptionsAreBenchsAndOnlyThoseGiven) {
  EXPECT_TRUE(sweep::measurement_args({}).empty());
  sweep::Measurement m;
  m.max_time = 2.5;
  m.warmup = 0;
  m.target_rse = 0.02;
  m.min_runs = 3;
  m.no_per_node = true;
  std::vector<std::string> want{"--max-time", "2.5", "--warmup",     "0", "--target-rse", "0.02",
                                "--min-runs", "3",   "--no-per-node"};
  EXPECT_EQ(sweep::measurement_args(m), want);
}

TEST(SweepRunner, ACellIsDoneOnlyWhenItStoredAResult) {
  auto dir = std::filesystem::path(temp_dir()) / "sweep-runner";
  std::filesystem::create_directories(dir);
  auto path = (dir / "cells.db").string();
  std::filesystem::remove(path);
  store::Store store(path);
  // The line the command failed with, else its exit code; exit 0 with nothing stored failed too.
  auto failed = sweep::cell_outcome(1, "no such model", {}, store);
  EXPECT_FALSE(failed.ok);
  EXPECT_EQ(failed.error, "no such model");
  EXPECT_EQ(sweep::cell_outcome(2, "", {}, store).error, "exit code 2");
  EXPECT_EQ(sweep::cell_outcome(0, "", {}, store).error, "the command stored no result");
  // Done: the summary is the stored results' headlines, in order.
  std::vector<int64_t> ids;
  for (const auto* summary : {"mean 1.5 ms", "mean 2.5 ms"}) {
    store::Record r;
    r.command = "bench";
    r.status = "ok";
    r.summary = summary;
    ids.push_back(store.save(r));
  }
  auto done = sweep::cell_outcome(0, "", ids, store);
  EXPECT_TRUE(done.ok);
  EXPECT_TRUE(done.error.empty());
  EXPECT_EQ(done.summary, "mean 1.5 ms; mean 2.5 ms");
}

}  // namespace
}  // namespace ridge::test
