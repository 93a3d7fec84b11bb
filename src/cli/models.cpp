#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "analysis/run.h"
#include "cli/command.h"
#include "cli/output_options.h"
#include "onnx/model_reader.h"
#include "report/format.h"
#include "util/build_tree.h"
#include "util/error.h"

namespace ridge::cli {
namespace {

namespace fs = std::filesystem;

// Where the bundled models are: $RIDGE_MODEL_DIR, the installed share/ridge/models beside the binary,
// or the source tree ridge was built from.
std::string bundled_model_dir() {
  if (const char* env = std::getenv("RIDGE_MODEL_DIR")) return env;
  std::error_code ec;
  auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto installed = exe.parent_path().parent_path() / "share" / "ridge" / "models";
    if (fs::is_directory(installed, ec)) return installed.string();
  }
  return build_tree::model_dir();
}

report::Document models_document(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(fmt::format("'{}' is not a directory of models", dir));
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".onnx") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  report::Document doc;
  doc.command = "models";
  doc.subject = dir;
  doc.field("directory", "models in", dir, dir);
  auto& t = doc.table("models", "");
  t.column({.key = "model"})
      .column({.key = "path", .audience = report::kMachine})
      .column({.key = "opset"})
      .column({.key = "nodes"})
      .column({.key = "inputs"})
      .column({.key = "symbolic_dims", .title = "bind"})
      .column({.key = "defaults", .title = "defaults in the file"})
      .column({.key = "params", .style = report::Style::kSi})
      .column({.key = "macs", .title = "MACs", .style = report::Style::kSi});
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
    // Costed with every open dim that has no default bound to 1 (batch 1; seq 1 for sequence models).
    analysis::Request request;
    request.model_path = file.string();
    for (const auto& s : symbols) request.bindings.dims[s] = 1;
    std::string after = defaults;
    for (size_t pos = 0; !after.empty();) {
      auto comma = after.find(',', pos);
      auto item = after.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      request.bindings.dims.erase(item.substr(0, item.find('=')));
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    report::Value params, macs;
    try {
      auto result = analysis::rerun(model, request);
      params = result.cost.totals.params;
      macs = result.cost.totals.macs;
    } catch (const Error&) {
      // Named as not costed (empty), never 0.
    }
    t.add({file.filename().string(), file.string(), model.default_opset(),
           static_cast<int64_t>(model.graph.nodes.size()), inputs, bind, defaults, params, macs});
  }
  if (files.empty()) throw Error(fmt::format("no .onnx files in '{}'", dir));
  doc.notes.push_back(
      "params and MACs at batch 1 with the defaults the file stores; other open dims (seq) bound to 1; empty where a "
      "model cannot be costed so");
  return doc;
}

}  // namespace

Command add_models_command(CLI::App& parent) {
  struct Options {
    std::string dir, format = "table";
  };
  auto o = std::make_shared<Options>();
  auto* app = parent.add_subcommand("models", "list the bundled models (or a directory's) with their inputs and dims");
  app->add_option("dir", o->dir, "directory of .onnx files (default: ridge's bundled models)");
  add_format_option(*app, o->format);
  app->footer(
      "Each model's inputs with their symbolic dims (bind them with --batch, --dim NAME=V or --input), the\n"
      "defaults the file stores, and its parameters and MACs at batch 1 (other open dims 1).\n"
      "Examples:\n"
      "  ridge models\n"
      "  ridge models ~/onnx-zoo -f csv");
  return {app, [o] {
            emit(models_document(o->dir.empty() ? bundled_model_dir() : o->dir), o->format);
            return 0;
          }};
}

}  // namespace ridge::cli
