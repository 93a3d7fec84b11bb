#pragma once
// An environment variable set for one scope, then put back (or unset) as it was: what an in-process test uses where
// the code under test reads the environment when it is called (PATH, RIDGE_STORE), not when the process starts.
#include <cstdlib>
#include <string>
#include <utility>

namespace ridge::test {

class ScopedEnvironment {
 public:
  ScopedEnvironment(std::string name, const std::string& value) : name_(std::move(name)) {
    const char* current = std::getenv(name_.c_str());
    had_ = current != nullptr;
    if (had_) previous_ = current;
    ::setenv(name_.c_str(), value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    if (had_)
      ::setenv(name_.c_str(), previous_.c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  std::string name_;
  bool had_ = false;
  std::string previous_;
};

}  // namespace ridge::test
