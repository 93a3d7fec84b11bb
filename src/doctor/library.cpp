#include "doctor/library.h"

#include <dlfcn.h>
#include <link.h>

#include <filesystem>

namespace ridge::doctor {

namespace {

std::string path_of(void* handle) {
  link_map* map = nullptr;
  if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr || map->l_name == nullptr) return "";
  std::error_code ec;
  auto canonical = std::filesystem::canonical(map->l_name, ec);
  return ec ? std::string(map->l_name) : canonical.string();
}

}  // namespace

void* Library::find(const char* name) const { return handle ? ::dlsym(handle, name) : nullptr; }

Library open_library(const std::vector<std::string>& names) {
  Library library;
  for (const auto& name : names) {
    if (void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      library.handle = handle;
      library.path = path_of(handle);
      library.error.clear();
      return library;
    }
    const char* why = ::dlerror();
    if (library.error.empty()) library.error = why ? why : name + ": cannot be loaded";
  }
  return library;
}

Library loaded_library(const std::string& prefix) {
  std::string found;
  std::pair<const std::string*, std::string*> search{&prefix, &found};
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto& [prefix, found] = *static_cast<std::pair<const std::string*, std::string*>*>(data);
        if (info->dlpi_name == nullptr) return 0;
        std::string name = info->dlpi_name;
        if (std::filesystem::path(name).filename().string().rfind(*prefix, 0) != 0) return 0;
        *found = name;
        return 1;
      },
      &search);
  Library library;
  if (found.empty()) {
    library.error = prefix + " is not loaded";
    return library;
  }
  library.handle = ::dlopen(found.c_str(), RTLD_NOW | RTLD_NOLOAD);
  library.path = library.handle ? path_of(library.handle) : found;
  return library;
}

}  // namespace ridge::doctor
