#pragma once
// The values of the execution options as a document (`ridge bench --list-algorithms`).
#include <vector>

#include "exec/options.h"
#include "report/document.h"

namespace ridge::report {

// One row per value: option, name, description, applies_to.
Document choices_document(const std::vector<exec::Choice>& choices);

}  // namespace ridge::report
