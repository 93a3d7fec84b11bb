#include "report/models_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <vector>

#include "analysis/run.h"
#include "onnx/model_reader.h"
#include "util/build_tree.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/module.h"

namespace ridge::report {

namespace fs = std::filesystem;

std::string bundled_model_dir() {
  if (const char* env = std::getenv("RIDGE_MODEL_DIR")) return env;
  if (auto exe_dir = executable_dir(); !exe_dir.empty()) {
    auto installed = exe_dir.parent_path() / "share" / "ridge" / "models";
    std::error_code ec;
    if (fs::is_directory(installed, ec)) return installed.string();
  }
  return build_tree::model_dir();
}

namespace {

// The names in `defaults` ("height=224,width=224"): the file binds them itself.
std::set<std::string> defaulted_names(const std::string& defaults) {
  std::set<std::string> names;
  if (defaults.empty()) return names;
  for (const auto& item : split_csv_line(defaults)) names.insert(item.substr(0, item.find('=')));
  return names;
}

}  // namespace

Document models_document(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(fmt::format("'{}' is not a directory of models", dir));
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".onnx") files.push_back(entry.path());
  if (files.empty()) throw Error(fmt::format("no .onnx files in '{}'", dir));
  std::sort(files.begin(), files.end());
  Document doc;
  doc.command = "models";
  doc.subject = dir;
  doc.field("directory", "models in", dir, dir);
  auto& t = doc.table("models", "");
  t.column({.key = "model"})
      .column({.key = "path", .audience = kMachine})
      .column({.key = "opset"})
      .column({.key = "nodes"})
      .column({.key = "inputs"})
      .column({.key = "symbolic_dims", .title = "bind"})
      .column({.key = "defaults", .title = "defaults in the file"})
      .column({.key = "params", .style = Style::kSi})
      .column({.key = "macs", .title = "MACs", .style = Style::kSi});
  for (const auto& file : files) {
    auto model = onnx::load_model(file.string());
    std::string inputs;
    std::set<std::string> symbols;
    for (auto id : model.graph.inputs) {
      const auto& v = model.graph.value(id);
      inputs += fmt::format("{}{}={}", inputs.empty() ? "" : ", ", v.name, graph::to_string(v.shape));
      for (const auto& d : v.shape)
        if (!d.is_known() && !d.symbol.empty()) symbols.insert(d.symbol);
    }
    std::string bind;
    for (const auto& s : symbols) bind += (bind.empty() ? "" : ", ") + s;
    auto defaults = model.metadata.count("ridge.default_dims") ? model.metadata.at("ridge.default_dims") : "";
    // Batch 1 and every other open dim 1, except those the file's defaults bind.
    analysis::Request request;
    request.model_path = file.string();
    auto defaulted = defaulted_names(defaults);
    for (const auto& s : symbols)
      if (!defaulted.count(s)) request.bindings.dims[s] = 1;
    Value params, macs;
    try {
      auto result = analysis::rerun(model, request);
      params = result.cost.totals.params;
      macs = result.cost.totals.macs;
    } catch (const Error&) {
      // Left empty: the note says why a row may have no figures.
    }
    t.add({file.filename().string(), file.string(), model.default_opset(),
           static_cast<int64_t>(model.graph.nodes.size()), inputs, bind, defaults, params, macs});
  }
  doc.notes.push_back(
      "params and MACs at batch 1 with the defaults the file stores; other open dims (seq) bound to 1; empty where a "
      "model cannot be costed so");
  return doc;
}

}  // namespace ridge::report
