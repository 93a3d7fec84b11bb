#include "exec/engine.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "util/error.h"

namespace ridge::exec {

namespace {

using Factory = Engine* (*)();

}  // namespace

Engine& load_engine() {
  static Engine* engine = [] {
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("RIDGE_EXEC_MODULE")) candidates.emplace_back(env);
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
      candidates.push_back((exe.parent_path() / "libridge_exec.so").string());
      candidates.push_back((exe.parent_path().parent_path() / "libridge_exec.so").string());
    }
    candidates.emplace_back(RIDGE_EXEC_MODULE_PATH);
    std::string tried;
    for (const auto& path : candidates) {
      if (void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
        if (void* symbol = ::dlsym(handle, "ridge_exec_engine")) return reinterpret_cast<Factory>(symbol)();
      } else if (std::filesystem::exists(path)) {
        throw Error(fmt::format("cannot load the executor module '{}': {}", path, ::dlerror()));
      }
      tried += (tried.empty() ? "" : ", ") + path;
    }
    throw Error("cannot find the executor module libridge_exec.so (tried " + tried + ")");
    return static_cast<Engine*>(nullptr);
  }();
  return *engine;
}

namespace {

void count_ops(const graph::Graph& g, const std::set<std::string>& known, std::map<std::string, int>& missing) {
  for (const auto& node : g.nodes) {
    std::string key = node.is_default_domain() ? node.op_type : node.domain + "." + node.op_type;
    if (!node.is_default_domain() || !known.count(node.op_type)) ++missing[key];
    for (const auto* sub : node.subgraphs()) count_ops(*sub, known, missing);
  }
}

}  // namespace

std::vector<std::pair<std::string, int>> missing_ops(const graph::Model& model, const std::vector<std::string>& ops) {
  std::set<std::string> known(ops.begin(), ops.end());
  std::map<std::string, int> missing;
  count_ops(model.graph, known, missing);
  return {missing.begin(), missing.end()};
}

}  // namespace ridge::exec
