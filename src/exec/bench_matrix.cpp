#include "exec/bench_matrix.h"

#include <fmt/format.h>

#include <new>

namespace ridge::exec {

BenchMatrixResult run_bench_matrix(Engine& engine, const std::vector<BenchPoint>& points,
                                   const std::function<void(size_t, BenchResult&)>& finish,
                                   const std::function<void(size_t, const BenchResult&)>& on_result,
                                   const std::function<void(size_t, const std::string&)>& on_failure) {
  BenchMatrixResult out;
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    BenchResult result;
    try {
      result = engine.bench(*p.model, *p.inputs, p.options);
      if (finish) finish(i, result);
    } catch (const std::bad_alloc&) {
      out.failures.push_back(fmt::format("{}: out of memory", p.label));
      if (on_failure) on_failure(i, "out of memory");
      continue;
    } catch (const std::exception& e) {
      out.failures.push_back(fmt::format("{}: {}", p.label, e.what()));
      if (on_failure) on_failure(i, e.what());
      continue;
    }
    if (on_result) on_result(i, result);
    out.runs.push_back(std::move(result));
  }
  return out;
}

}  // namespace ridge::exec
