#include "sweep/cost.h"

#include <map>
#include <numeric>
#include <tuple>

#include "analysis/run.h"
#include "onnx/model_reader.h"
#include "util/error.h"

namespace ridge::sweep {
namespace {

std::string value_of(const Cell& c, const std::string& name) {
  for (const auto& [k, v] : c.settings)
    if (k == name) return v;
  return "";
}

}  // namespace

std::vector<double> cell_costs(const std::vector<Cell>& cells) {
  std::map<std::string, graph::Model> models;
  std::map<std::tuple<std::string, std::string, std::string, std::string>, double> known;
  std::vector<double> flops(cells.size(), -1);
  for (size_t i = 0; i < cells.size(); ++i) {
    const auto& c = cells[i];
    auto batch = value_of(c, "batch"), input = value_of(c, "input"), training = value_of(c, "training");
    auto key = std::make_tuple(c.model, batch, input, training);
    if (auto it = known.find(key); it != known.end()) {
      flops[i] = it->second;
      continue;
    }
    try {
      auto m = models.find(c.model);
      if (m == models.end()) m = models.emplace(c.model, onnx::load_model(c.model)).first;
      analysis::Request request;
      request.model_path = c.model;
      if (!batch.empty()) request.bindings.batch = std::stoll(batch);
      if (!input.empty()) shape::bind_input_size(m->second, request.bindings, std::stoll(input));
      request.options.training = training == "true";
      flops[i] = static_cast<double>(analysis::rerun(m->second, request).cost.totals.flops);
    } catch (const std::exception&) {  // a cell that cannot be analysed fails when it runs, and says why
      flops[i] = -1;
    }
    known[key] = flops[i];
  }
  double sum = 0;
  int counted = 0;
  for (double f : flops)
    if (f >= 0) sum += f, ++counted;
  double mean = counted ? sum / counted : 1;
  for (auto& f : flops) f = (f >= 0 ? f : mean) + mean;
  return flops;
}

}  // namespace ridge::sweep
