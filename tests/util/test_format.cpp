// Text for people (util/format): the suggestion for a mistyped name, and the line naming it.
#include <gtest/gtest.h>

#include "util/format.h"

namespace ridge::test {
namespace {

TEST(Format, ClosestNameWithinTwoEdits) {
  std::vector<std::string> names{"analyze", "bench", "predict", "plot", "power"};
  EXPECT_EQ(closest_name("analyse", names), "analyze");  // a substitution
  EXPECT_EQ(closest_name("bnch", names), "bench");       // an insertion
  EXPECT_EQ(closest_name("plott", names), "plot");       // a deletion
  EXPECT_EQ(closest_name("pot", names), "plot");         // power is three edits away
  EXPECT_EQ(closest_name("calibrate", names), "");       // farther than two edits: no suggestion
  EXPECT_EQ(closest_name("x", {}), "");
}

TEST(Format, UnknownNameSuggestsTheClosestAndListsEvery) {
  std::vector<std::string> names{"analyze", "bench", "plot"};
  EXPECT_EQ(unknown_name("command", "analyse", names),
            "unknown command 'analyse'; did you mean 'analyze'? (commands: analyze, bench, plot)");
  EXPECT_EQ(unknown_name("command", "calibrate", names),
            "unknown command 'calibrate' (commands: analyze, bench, plot)");
  EXPECT_EQ(unknown_name("kind", "x", {"alpha"}), "unknown kind 'x' (kinds: alpha)");
}

}  // namespace
}  // namespace ridge::test
