#pragma once
// The one line a reader's ridge::Error gives for a bad input, so a test can check what it names: "accepted" when the
// call threw nothing.
#include <string>

#include "util/error.h"

namespace ridge::test {

template <class Call>
std::string error_text(Call&& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace ridge::test
