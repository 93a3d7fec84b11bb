#pragma once
// The version and git revision of this build, recorded in every output.

namespace ridge {

extern const char* const kVersion;
extern const char* const kRevision;

}  // namespace ridge
