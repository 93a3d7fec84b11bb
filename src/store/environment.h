#pragma once
// The environment every stored result carries: this machine, the libraries, ridge's revision.
#include <string>

#include "store/record.h"

namespace ridge::store {

// Host name, CPU model, GPUs (from the NVIDIA driver's /proc entries, empty without one), ridge's
// version and revision, SQLite's version, the time now and `command_line`.
Environment collect_environment(const std::string& command_line);

}  // namespace ridge::store
