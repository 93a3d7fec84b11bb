// Bench runs as calibration evidence, end to end: what the ridge binary's `bench` writes reads back into
// one sample per measured node (the in-process cases are in tests/calib/test_bench_evidence.cpp).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "calib/bench_evidence.h"
#include "calib/shape_prediction.h"
#include "report/bench_report.h"
#include "report/printer.h"
#include "support/bench_evidence_fixtures.h"
#include "support/model_builder.h"
#include "support/paths.h"
#include "util/error.h"

namespace ridge::test {
namespace {

using namespace bench_evidence_fixtures;  // NOLINT(google-build-using-namespace)

namespace fs = std::filesystem;

// The real thing: `ridge bench --csv` in both modes, read back with one sample per executed node.
// The notes other than the anchoring one (bench_evidence.cpp), which timing alone decides.
std::vector<std::string> unexpected_notes(const std::vector<std::string>& notes) {
  std::vector<std::string> out;
  for (const auto& n : notes)
    if (n.find("node times scaled to the run's median") == std::string::npos) out.push_back(n);
  return out;
}

TEST(BenchEvidence, ReadsWhatRidgeBenchWrites) {
  auto w = make_workspace("e2e");
  auto r = run_ridge("bench " + w.model_file + " --csv " + w.bench() +
                     " --batch 1 --mode both --iters 3 --warmup 0 --threads 1 -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto e = calib::read_bench_evidence({w.bench()});
  // Nothing is left out. Whether a run's nodes summed to more than its median (then anchored to it, and noted)
  // depends on the timings of the moment, so that note may come or not.
  EXPECT_TRUE(unexpected_notes(e.notes).empty()) << joined(e.notes);
  EXPECT_EQ(e.runs, 2);
  EXPECT_EQ(e.models, std::vector<std::string>{w.model_file});
  std::set<std::string> eager, optimized;
  for (const auto& s : e.samples) {
    (s.mode == "eager" ? eager : optimized).insert(s.label);
    EXPECT_GT(s.measured_s, 0) << s.label;
    EXPECT_LT(s.measured_s, 1) << s.label;
    EXPECT_EQ(s.features.threads, 1);
    EXPECT_EQ(s.features.batch, 1);
  }
  EXPECT_EQ(eager, (std::set<std::string>{"conv", "bn", "relu", "residual", "pool", "flatten", "fc", "fc_bias"}));
  EXPECT_EQ(optimized, (std::set<std::string>{"conv", "pool", "flatten", "fc"}));
  EXPECT_EQ(e.samples.size(), 12u);
  EXPECT_EQ(sample(e, "conv", "optimized").features.fused_ops, 3);
  ASSERT_EQ(e.overheads.size(), 2u);
  for (const auto& o : e.overheads) {
    EXPECT_EQ(o.nodes, o.mode == "eager" ? 8 : 4);
    EXPECT_GT(o.node_sum_s, 0);
    EXPECT_GT(o.run_s, 0);
    EXPECT_EQ(o.threads, 1);
  }
  // Its JSON output reads the same.
  auto json_file = (w.root / "bench.json").string();
  std::ofstream(json_file) << r.out;
  auto j = calib::read_bench_evidence({json_file});
  EXPECT_TRUE(unexpected_notes(j.notes).empty()) << joined(j.notes);
  ASSERT_EQ(j.samples.size(), e.samples.size());
  for (size_t i = 0; i < j.samples.size(); ++i) {
    EXPECT_EQ(j.samples[i].label, e.samples[i].label);
    EXPECT_EQ(j.samples[i].features.flops, e.samples[i].features.flops);
    EXPECT_NEAR(j.samples[i].measured_s, e.samples[i].measured_s, 1e-9 + 1e-6 * e.samples[i].measured_s);
  }
}

}  // namespace
}  // namespace ridge::test
