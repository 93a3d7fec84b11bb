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

// "" when `call` throws ridge::Error in one line that contains `words`; else what it did instead.
template <class Call>
std::string one_line_refusal(Call&& call, const std::string& words) {
  auto text = error_text(call);
  if (text == "accepted") return "accepted; expected an error with: " + words;
  if (text.find(words) == std::string::npos) return text + " (expected: " + words + ")";
  if (text.find('\n') != std::string::npos) return "more than one line: " + text;
  return "";
}

}  // namespace ridge::test
