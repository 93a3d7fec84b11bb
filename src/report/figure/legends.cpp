#include "report/figure/legends.h"

namespace ridge::report::figure {

Json legend(const std::string& channel, const std::string& scale, const std::string& title,
            const std::string& symbol_type) {
  Json out{{channel, scale}, {"title", title}};
  if (!symbol_type.empty()) out["symbolType"] = symbol_type;
  out["orient"] = "right";
  return out;
}

}  // namespace ridge::report::figure
