#pragma once
// The text formatting helpers (util/format.h) under report::, where most of their callers live.
#include "util/format.h"

namespace ridge::report {

using ridge::csv_field;
using ridge::cut_list;
using ridge::duration;
using ridge::fixed;
using ridge::op_counts;
using ridge::si;
using ridge::si_bytes;

}  // namespace ridge::report
