#pragma once
// When a measurement was taken, as every result records it.
#include <string>

namespace ridge {

// The current time, UTC, ISO 8601 to the second ("2026-11-24T09:30:00Z").
std::string utc_now();

}  // namespace ridge
