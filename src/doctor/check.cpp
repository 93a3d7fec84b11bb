#include "doctor/check.h"

namespace ridge::doctor {

std::string_view name(Status status) {
  switch (status) {
    case Status::kOk:
      return "ok";
    case Status::kMissing:
      return "missing";
    case Status::kNotApplicable:
      return "not applicable";
  }
  return "?";
}

}  // namespace ridge::doctor
