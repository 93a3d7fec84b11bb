// The results store: only the filesystem is checked (the file writable, or its directory when it does
// not exist yet), so the check holds whatever the store's format.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "doctor/checks.h"

namespace ridge::doctor {

namespace fs = std::filesystem;

StorePath resolve_store_path(const std::string& flag) {
  if (!flag.empty()) return {flag, "--store"};
  if (const char* env = std::getenv("RIDGE_STORE"); env && *env) return {env, "RIDGE_STORE"};
  return {"ridge-results.db", "default"};
}

Check store_check(const StorePath& store) {
  const std::string name = "results store";
  const std::string other = "or choose another file with --store PATH or RIDGE_STORE";
  std::string from = store.source == "default" ? "the default, in the working directory" : "from " + store.source;
  std::error_code ec;
  auto status = fs::status(store.path, ec);
  if (fs::exists(status)) {
    if (fs::is_directory(status))
      return missing("store", name, fmt::format("{} ({}) is a directory", store.path, from),
                     "give the store's file, not a directory: --store DIR/ridge-results.db");
    if (::access(store.path.c_str(), R_OK | W_OK) != 0)
      return missing("store", name, fmt::format("{} ({}) is not writable", store.path, from),
                     fmt::format("chmod u+rw {} (as its owner), {}", store.path, other));
    return ok("store", name, fmt::format("{} ({}) exists and is writable", store.path, from));
  }
  auto dir = fs::path(store.path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec))
    return missing("store", name, fmt::format("{} ({}): directory {} does not exist", store.path, from, dir.string()),
                   fmt::format("mkdir -p {}, {}", dir.string(), other));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return missing("store", name, fmt::format("{} ({}): directory {} is not writable", store.path, from, dir.string()),
                   fmt::format("run where you can write, {}", other));
  return ok("store", name, fmt::format("{} ({}) will be created: its directory is writable", store.path, from));
}

}  // namespace ridge::doctor
