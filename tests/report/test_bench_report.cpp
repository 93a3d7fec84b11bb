// What people read of a bench run with power measured (report/bench_report): the energy per run is per inference,
// or per training step for a training run, in the power line and the table's column title alike; the JSON keeps
// one key for both (energy_per_inference_j: one run each).
#include <gtest/gtest.h>

#include <sstream>

#include "exec/measurement.h"
#include "report/bench_report.h"
#include "report/printer.h"

namespace ridge::test {
namespace {

std::string people(const exec::BenchResult& run) {
  std::ostringstream out;
  report::print_table(out, report::bench_document({run}, 10));
  return out.str();
}

TEST(BenchReport, ATrainingRunsEnergyIsPerTrainingStep) {
  exec::BenchResult run;
  run.mode = "eager";
  run.latency_ms.samples = 10;
  run.latency_ms.median = 40;
  run.power.source = "nvml";
  run.power.measured = true;
  run.power.idle_w = 80;
  run.power.mean_w = 500;
  run.power.energy_per_inference_j = 20;
  auto inference = people(run);
  EXPECT_NE(inference.find("energy per inference = energy of the timed runs / their count, one run"), std::string::npos)
      << inference;
  EXPECT_NE(inference.find("J/inference"), std::string::npos) << inference;
  EXPECT_EQ(inference.find("training step"), std::string::npos) << inference;

  run.training = true;
  run.optimizer = "sgd";
  auto training = people(run);
  EXPECT_NE(training.find("energy per training step = energy of the timed runs / their count, one training step"),
            std::string::npos)
      << training;
  EXPECT_NE(training.find("J/step"), std::string::npos) << training;
  EXPECT_EQ(training.find("J/inference"), std::string::npos) << training;
}

// A GPU's eager run says what issuing it cost the host per node beside its profile; a run without the figure says
// nothing of it.
TEST(BenchReport, AnEagerGpuRunShowsItsHostEnqueueTimePerNode) {
  exec::BenchResult run;
  run.mode = "eager";
  run.latency_ms.samples = 10;
  run.executed_nodes = 1;
  exec::NodeTiming node;
  node.name = "conv";
  node.op_type = "Conv";
  node.mean_ms = 0.1;
  run.nodes.push_back(node);
  run.op_types.push_back({"Conv", 1, 0.1, 100});
  run.host_enqueue_per_node_us = 23.456;
  EXPECT_NE(people(run).find("; host enqueue 23.46 us/node"), std::string::npos) << people(run);
  run.host_enqueue_per_node_us = -1;
  EXPECT_EQ(people(run).find("host enqueue"), std::string::npos) << people(run);
}

}  // namespace
}  // namespace ridge::test
