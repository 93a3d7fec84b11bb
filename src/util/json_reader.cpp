#include "util/json_reader.h"

#include <fmt/format.h>

#include <cmath>

#include "util/error.h"

namespace ridge {

JsonReader::JsonReader(const json& object, std::string where) : object_(object), where_(std::move(where)) {
  if (!object_.is_object()) throw Error(fmt::format("{}: not an object", where_));
}

bool JsonReader::has(const char* key) const { return object_.contains(key) && !object_.at(key).is_null(); }

const JsonReader::json& JsonReader::at(const char* key) const {
  if (!has(key)) throw Error(fmt::format("{}.{} is missing", where_, key));
  return object_.at(key);
}

double JsonReader::number(const char* key) const {
  const auto& v = at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>())) throw Error(fmt::format("{}.{} is not a number", where_, key));
  return v.get<double>();
}

double JsonReader::number(const char* key, double fallback) const { return has(key) ? number(key) : fallback; }

double JsonReader::non_negative(const char* key, std::optional<double> fallback) const {
  double v = fallback && !has(key) ? *fallback : number(key);
  if (v < 0) throw Error(fmt::format("{}.{} {} is negative", where_, key, v));
  return v;
}

int64_t JsonReader::count(const char* key, int64_t fallback) const {
  if (!has(key)) return fallback;
  double v = number(key);
  if (v != std::floor(v) || std::abs(v) > 9e15)
    throw Error(fmt::format("{}.{} {} is not a whole number", where_, key, v));
  return static_cast<int64_t>(v);
}

std::string JsonReader::text(const char* key, const std::string& fallback) const {
  if (!has(key)) return fallback;
  const auto& v = at(key);
  if (!v.is_string()) throw Error(fmt::format("{}.{} is not a string", where_, key));
  return v.get<std::string>();
}

bool JsonReader::flag(const char* key, bool fallback) const {
  if (!has(key)) return fallback;
  const auto& v = at(key);
  if (!v.is_boolean()) throw Error(fmt::format("{}.{} is not true or false", where_, key));
  return v.get<bool>();
}

const JsonReader::json& JsonReader::list(const char* key) const {
  static const json empty = json::array();
  if (!has(key)) return empty;
  const auto& v = at(key);
  if (!v.is_array()) throw Error(fmt::format("{}.{} is not a list", where_, key));
  return v;
}

std::vector<std::string> JsonReader::texts(const char* key) const {
  std::vector<std::string> out;
  const auto& items = list(key);
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i].is_string()) throw Error(fmt::format("{}.{}[{}] is not a string", where_, key, i));
    out.push_back(items[i].get<std::string>());
  }
  return out;
}

int JsonReader::small_count(const char* key) const {
  auto v = count(key, 0);
  if (v < 0 || v > (int64_t{1} << 30)) throw Error(fmt::format("{}.{} {} is out of range", where_, key, v));
  return static_cast<int>(v);
}

std::optional<double> JsonReader::optional_number(const char* key) const {
  return has(key) ? std::optional<double>(number(key)) : std::nullopt;
}

JsonReader JsonReader::child(const char* key) const { return JsonReader(at(key), where_ + "." + key); }

}  // namespace ridge
