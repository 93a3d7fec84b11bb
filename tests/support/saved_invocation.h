#pragma once
// The invocation (report::invocation(): command line, quiet, store, sweep cell) put back as it was when a test ends,
// whatever the test did to it: the in-process tests share one process, and the invocation is global.
#include "report/command_output.h"

namespace ridge::test {

struct SavedInvocation {
  report::Invocation saved = report::invocation();
  ~SavedInvocation() { report::invocation() = saved; }
};

}  // namespace ridge::test
