#pragma once
// One exception type for every user-facing failure: its message is the one line printed.
#include <stdexcept>
#include <string>

namespace ridge {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace ridge
