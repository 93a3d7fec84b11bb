#pragma once
// Writers of `ridge ert` results: table, JSON, CSV of the raw points.
#include <nlohmann/json.hpp>
#include <ostream>

#include "hw/ert/ert.h"

namespace ridge::report {

nlohmann::json ert_json(const hw::ert::ErtResult& r);
void write_ert_table(std::ostream& out, const hw::ert::ErtResult& r);
void write_ert_points_csv(std::ostream& out, const hw::ert::ErtResult& r);

}  // namespace ridge::report
