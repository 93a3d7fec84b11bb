// Legend entries (report/figure/legends.h): long series names shortened from the middle, keeping the start and
// the end that tells them apart, against hand-cut strings.
#include <gtest/gtest.h>

#include "report/figure/legends.h"

namespace ridge::report::figure {
namespace {

TEST(Legends, LongNamesLoseTheirMiddle) {
  // 34 characters to 20: the first (20 - 1) / 2 = 9, an ellipsis, the last 10.
  EXPECT_EQ(middle_truncate("jetson-agx-orin-64gb MAXN training", 20), "jetson-ag\u2026N training");
  EXPECT_EQ(middle_truncate("h100-sxm default", 20), "h100-sxm default");  // fits: as it is
  EXPECT_EQ(middle_truncate("12345678901234567890", 20), "12345678901234567890");
  EXPECT_EQ(middle_truncate("123456789012345678901", 20), "123456789\u20262345678901");
  // Characters, not bytes: an umlaut is one.
  EXPECT_EQ(middle_truncate("\u00e4\u00e4\u00e4\u00e4\u00e4bbbbbcc", 7), "\u00e4\u00e4\u00e4\u2026bcc");
}

TEST(Legends, LabelsStayApartWhereTheEndsAlone) {
  // One name: cut to 26 characters, the first 12 and the last 13; names that fit stay whole.
  EXPECT_EQ(legend_labels({"jetson-agx-orin-64gb MAXN training", "jetson-agx-orin-64gb MAXN", "gpu-measured measured"}),
            (std::vector<std::string>{"jetson-agx-o\u2026MAXN training", "jetson-agx-orin-64gb MAXN",
                                      "gpu-measured measured"}));
  // Four modes of one device, inference and training: the last 13 characters keep the mode.
  std::vector<std::string> series{"jetson-agx-orin-64gb MAXN inference", "jetson-agx-orin-64gb 50W inference",
                                  "jetson-agx-orin-64gb 30W inference", "jetson-agx-orin-64gb 15W inference",
                                  "jetson-agx-orin-64gb 15W training"};
  EXPECT_EQ(legend_labels(series),
            (std::vector<std::string>{"jetson-agx-o\u2026AXN inference", "jetson-agx-o\u202650W inference",
                                      "jetson-agx-o\u202630W inference", "jetson-agx-o\u202615W inference",
                                      "jetson-agx-o\u2026 15W training"}));
  // Names that differ only in what would be cut ("... 50W inference measured" and "... 30W ..." both end in
  // "ence measured" at 26 characters) grow until they differ: here, back to whole.
  std::vector<std::string> alike{"jetson-agx-orin-64gb 50W inference measured",
                                 "jetson-agx-orin-64gb 30W inference measured"};
  EXPECT_EQ(legend_labels(alike), alike);
}

TEST(Legends, ShortenedEntriesShowTheirFullNameOnHover) {
  auto legend = category_legend("stroke", "series_color", "device / mode",
                                {"h100-sxm default", "jetson-agx-orin-64gb MAXN training"}, "stroke");
  EXPECT_EQ(legend["stroke"], "series_color");
  const auto& labels = legend["encode"]["labels"];
  EXPECT_TRUE(labels["interactive"].get<bool>());
  EXPECT_EQ(labels["update"]["tooltip"]["signal"], "datum.value");
  // Only the long name is looked up; the short one keeps Vega's own label.
  EXPECT_EQ(labels["update"]["text"]["signal"],
            "({'jetson-agx-orin-64gb MAXN training': 'jetson-agx-o\u2026MAXN training'})[datum.value] || datum.label");
}

}  // namespace
}  // namespace ridge::report::figure
