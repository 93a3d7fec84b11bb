#include "util/module.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "util/error.h"

namespace ridge {

std::filesystem::path executable_dir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

void* module_symbol(const std::string& file_name, const char* env_var, const std::string& built_path,
                    const char* symbol) {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv(env_var)) candidates.emplace_back(env);
  if (auto dir = executable_dir(); !dir.empty()) {
    candidates.push_back((dir / file_name).string());
    candidates.push_back((dir / kInstalledModuleDir / file_name).lexically_normal().string());
    candidates.push_back((dir.parent_path() / file_name).string());
  }
  candidates.push_back(built_path);
  std::string tried;
  for (const auto& path : candidates) {
    if (void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      if (void* found = ::dlsym(handle, symbol)) return found;
      throw Error("module '" + path + "' has no symbol " + symbol);
    }
    if (std::filesystem::exists(path)) throw Error("cannot load module '" + path + "': " + ::dlerror());
    tried += (tried.empty() ? "" : ", ") + path;
  }
  throw Error("cannot find " + file_name + " (tried " + tried + ")");
}

}  // namespace ridge
