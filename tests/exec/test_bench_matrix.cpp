// A point that fails while running keeps the points measured before and after it.
#include <gtest/gtest.h>

#include "exec/bench_matrix.h"
#include "util/error.h"

namespace ridge::test {
namespace {

// An engine whose bench fails for the model it is told to, and otherwise returns the point's index
// (passed as its thread count) as the batch, so each result names its point.
class FakeEngine : public exec::Engine {
 public:
  explicit FakeEngine(const graph::Model* failing) : failing_(failing) {}
  std::vector<std::string> op_types() const override { return {}; }
  exec::Environment environment(const exec::ExecOptions&) const override { return {}; }
  exec::RunOutput run(const graph::Model&, const std::vector<exec::HostTensor>&, const exec::ExecOptions&) override {
    return {};
  }
  exec::BenchResult bench(const graph::Model& model, const std::vector<exec::HostTensor>&,
                          const exec::BenchOptions& options) override {
    if (&model == failing_) throw Error("tensor too large for this machine");
    exec::BenchResult r;
    r.batch = options.exec.threads;  // names the point
    return r;
  }

 private:
  const graph::Model* failing_;
};

TEST(BenchMatrix, AFailedPointIsReportedAndTheOthersAreKeptInOrder) {
  graph::Model small, huge;
  std::vector<exec::HostTensor> none;
  std::vector<exec::BenchPoint> points;
  for (const auto* model : {&small, &huge, &small}) {
    exec::BenchPoint p{model == &huge ? "batch 1000000" : "batch 1", model, &none, {}};
    p.options.exec.threads = static_cast<int>(points.size());
    points.push_back(p);
  }
  FakeEngine engine(&huge);
  std::vector<size_t> seen, finished, failed;
  auto out = exec::run_bench_matrix(
      engine, points, [&](size_t i, exec::BenchResult& r) { finished.push_back(i), r.model = "finished"; },
      [&](size_t i, const exec::BenchResult& r) {
        EXPECT_EQ(r.model, "finished");  // finished before it is handed on
        seen.push_back(i);
      },
      [&](size_t i, const std::string& why) {
        failed.push_back(i);
        EXPECT_EQ(why, "tensor too large for this machine");
      });
  ASSERT_EQ(out.runs.size(), 2u);
  EXPECT_EQ(out.runs[0].batch, 0);
  EXPECT_EQ(out.runs[1].batch, 2);
  EXPECT_EQ(seen, (std::vector<size_t>{0, 2}));
  EXPECT_EQ(finished, (std::vector<size_t>{0, 2}));
  EXPECT_EQ(failed, (std::vector<size_t>{1}));
  ASSERT_EQ(out.failures.size(), 1u);
  EXPECT_EQ(out.failures[0], "batch 1000000: tensor too large for this machine");
}

}  // namespace
}  // namespace ridge::test
