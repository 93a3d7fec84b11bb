#include "report/figure/legends.h"

#include <map>
#include <set>

namespace ridge::report::figure {
namespace {

// Where each character of UTF-8 `text` starts.
std::vector<size_t> char_starts(const std::string& text) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
  return starts;
}

}  // namespace

std::string middle_truncate(const std::string& text, size_t max_chars) {
  auto starts = char_starts(text);
  if (starts.size() <= max_chars || max_chars < 3) return text;
  size_t head = (max_chars - 1) / 2, tail = max_chars - 1 - head;
  return text.substr(0, starts[head]) + "\u2026" + text.substr(starts[starts.size() - tail]);
}

std::vector<std::string> legend_labels(const std::vector<std::string>& values) {
  size_t longest = 0;
  for (const auto& v : values) longest = std::max(longest, char_starts(v).size());
  for (size_t limit = kLegendLabelChars;; ++limit) {
    std::vector<std::string> labels;
    std::set<std::string> seen;
    bool distinct = true;
    for (const auto& v : values) {
      labels.push_back(middle_truncate(v, limit));
      distinct = seen.insert(labels.back()).second && distinct;
    }
    if (distinct || limit >= longest) return labels;
  }
}

Json legend(const std::string& channel, const std::string& scale, const std::string& title,
            const std::string& symbol_type) {
  Json out{{channel, scale}, {"title", title}};
  if (!symbol_type.empty()) out["symbolType"] = symbol_type;
  out["orient"] = "right";
  return out;
}

Json category_legend(const std::string& channel, const std::string& scale, const std::string& title,
                     const std::vector<std::string>& values, const std::string& symbol_type) {
  Json out = legend(channel, scale, title, symbol_type);
  auto labels = legend_labels(values);
  std::map<std::string, std::string> shortened;
  for (size_t i = 0; i < values.size(); ++i)
    if (labels[i] != values[i]) shortened[values[i]] = labels[i];
  Json update{{"tooltip", {{"signal", "datum.value"}}}};
  if (!shortened.empty()) update["text"] = {{"signal", lookup_expr(shortened, "datum.value", "datum.label")}};
  out["encode"] = {{"labels", {{"interactive", true}, {"update", std::move(update)}}}};
  return out;
}

}  // namespace ridge::report::figure
