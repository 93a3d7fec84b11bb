#pragma once
// Reading ridge's own JSON back into typed results: every field access names where it is ("runs[2].latency_ms.mean
// is not a number"), so a codec refuses a damaged or foreign file in one line instead of throwing nlohmann's
// type_error. Shared by the result codecs (exec/bench_codec, roofline/prediction_codec).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ridge {

class JsonReader {
 public:
  using json = nlohmann::json;
  // Throws ridge::Error when `object` is not a JSON object.
  JsonReader(const json& object, std::string where);
  const std::string& where() const { return where_; }
  // Present and not null.
  bool has(const char* key) const;
  const json& at(const char* key) const;  // throws when missing
  double number(const char* key) const;   // a finite number
  double number(const char* key, double fallback) const;
  // Required where `fallback` is none.
  double non_negative(const char* key, std::optional<double> fallback = std::nullopt) const;
  int64_t count(const char* key, int64_t fallback) const;  // a whole number
  // A count in [0, 2^30] (0 when absent): node and run counts that fit an int.
  int small_count(const char* key) const;
  // A finite number, or none when absent or null.
  std::optional<double> optional_number(const char* key) const;
  std::string text(const char* key, const std::string& fallback) const;
  bool flag(const char* key, bool fallback) const;
  // An array member (empty when absent).
  const json& list(const char* key) const;
  // A list of strings (empty when absent).
  std::vector<std::string> texts(const char* key) const;
  JsonReader child(const char* key) const;

 private:
  const json& object_;
  std::string where_;
};

}  // namespace ridge
