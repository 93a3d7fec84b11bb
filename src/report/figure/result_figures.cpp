#include "report/figure/result_figures.h"

namespace ridge::report::figure {

std::vector<Figure> result_figures(const std::vector<Json>&) { return {}; }

}  // namespace ridge::report::figure
