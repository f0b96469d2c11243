#pragma once
// Internal helper (core only): reads JSON objects while recording problems with
// their key paths, so a bad file yields every error at once.
#include "errors.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gp::detail {

std::string describe(const nlohmann::json& v);        // short rendering for messages (never recursive)

/// Byte offset where the bracket nesting (counted on the raw text, outside
/// strings) first exceeds maxDepth, or npos: refuses absurd input before any
/// recursive code sees it.
std::size_t findTooDeep(std::string_view text, int maxDepth);

/// nlohmann's message without its "[json.exception.parse_error.101] " tag.
std::string stripExceptionTag(const std::string& what);
std::string joinPath(const std::string& parent, std::string_view key);

class JsonReader;

/// json::parse, plus a warning on `r` for each key that appears twice in one
/// object (JSON leaves that undefined; the last value is used), naming its key
/// path, and an error for a NUL byte. Throws what json::parse throws.
nlohmann::json parseCheckingDuplicates(std::string_view text, JsonReader& r);

class JsonReader {
public:
    std::vector<Diagnostic> errors;
    std::vector<Diagnostic> warnings;

    void error(const std::string& path, std::string msg) { errors.push_back({path, std::move(msg)}); }
    void warn(const std::string& path, std::string msg) { warnings.push_back({path, std::move(msg)}); }

    /// Warns about keys of `obj` not in `known`.
    void checkKeys(const nlohmann::json& obj, const std::string& path, std::initializer_list<std::string_view> known);

    /// Each getter returns nullopt (and records an error) for a present-but-bad value,
    /// nullopt without error when absent.
    std::optional<double> number(const nlohmann::json& obj, const std::string& parent, std::string_view key,
                                 double min, double max, bool minExclusive = false);
    std::optional<int> integer(const nlohmann::json& obj, const std::string& parent, std::string_view key,
                               long long min, long long max);
    std::optional<bool> boolean(const nlohmann::json& obj, const std::string& parent, std::string_view key);
    std::optional<std::string> string(const nlohmann::json& obj, const std::string& parent, std::string_view key);
    /// A string that must be one of `choices`; returns its index.
    std::optional<std::size_t> choice(const nlohmann::json& obj, const std::string& parent, std::string_view key,
                                      std::initializer_list<std::string_view> choices);
    /// An object member; records an error if present but not an object.
    const nlohmann::json* object(const nlohmann::json& obj, const std::string& parent, std::string_view key,
                                 bool required);
};

} // namespace gp::detail
