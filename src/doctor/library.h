#pragma once
// Loading a shared library at run time to ask it its version (CUDA, cuDNN, NVML, ...), so that
// ridge has no build dependency on them; and the libraries already loaded in this process.
#include <string>
#include <vector>

namespace ridge::doctor {

struct Library {
  void* handle = nullptr;  // kept open for the life of the process
  std::string path;        // the file the loader found
  std::string error;       // the loader's message for the first name, when none loaded

  explicit operator bool() const { return handle != nullptr; }
  // The function `name`, or nullptr.
  template <class Function>
  Function function(const char* name) const {
    return reinterpret_cast<Function>(find(name));
  }
  void* find(const char* name) const;
};

// The first of `names` (sonames or paths) that loads.
Library open_library(const std::vector<std::string>& names);
// A library this process has already loaded whose file name starts with `prefix` ("libdnnl.so").
Library loaded_library(const std::string& prefix);

}  // namespace ridge::doctor
