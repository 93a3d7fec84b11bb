#include "report/figure/result_figures.h"

#include <functional>
#include <set>

#include "report/figure/accuracy_figure.h"
#include "report/figure/algorithm_figure.h"
#include "report/figure/breakdown_figure.h"
#include "report/figure/modes_figure.h"
#include "report/figure/result_sources.h"
#include "report/figure/sweep_figure.h"
#include "util/error.h"

namespace ridge::report::figure {

std::vector<Figure> result_figures(const std::vector<Json>& documents) {
  ResultSet results;
  for (size_t i = 0; i < documents.size(); ++i) {
    try {
      add_document(results, documents[i], "document " + std::to_string(i + 1));
    } catch (const Error&) {
      // Analyses, comparisons and the like have figures of their own elsewhere.
    }
  }
  return result_figures(results);
}

std::vector<Figure> result_figures(const ResultSet& results) {
  std::vector<Figure> figures;
  auto add = [&](const std::function<Figure()>& build) {
    try {
      figures.push_back(build());
    } catch (const Error&) {
      // These results do not support this figure.
    }
  };
  // A sweep when results span several batch sizes (or input sizes).
  std::set<int64_t> batches;
  std::set<double> inputs;
  for (const auto& m : results.measured) batches.insert(m.run.batch), inputs.insert(input_extent(m.run.input_size));
  for (const auto& p : results.predicted) batches.insert(p.prediction.batch);
  if (batches.size() > 1) {
    add([&] { return sweep_figure(results, {.x = "batch", .y = "latency"}); });
    add([&] { return sweep_figure(results, {.x = "batch", .y = "throughput"}); });
    add([&] { return sweep_figure(results, {.x = "batch", .y = "flops"}); });
  } else if (inputs.size() > 1) {
    add([&] { return sweep_figure(results, {.x = "input", .y = "latency"}); });
    add([&] { return sweep_figure(results, {.x = "input", .y = "flops"}); });
  }
  add([&] { return modes_figure(results); });
  add([&] { return breakdown_figure(results, {.by = "layer"}); });
  add([&] { return breakdown_figure(results, {.by = "op"}); });
  add([&] { return accuracy_figure(results); });
  add([&] { return algorithm_figure(results); });
  return figures;
}

}  // namespace ridge::report::figure
