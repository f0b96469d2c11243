#pragma once
// Internal helper (core only): reads JSON objects while recording problems with
// their key paths, so a bad file yields every error at once.
#include "core/base/errors.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gp::detail {

/// How a diagnostic quotes the offending value.
enum class ValueStyle {
    /// JSON with non-ASCII escaped, objects and arrays named ("an object"),
    /// cut to 60 characters (scenarios, model descriptions).
    Short,
    /// The JSON as written (non-ASCII kept, objects and arrays dumped), its
    /// first 48 bytes plus "..." when longer (the GPU catalog and overlays).
    Verbatim,
};

/// The value for a message, never recursive beyond one dump.
std::string describe(const nlohmann::json& v, ValueStyle style = ValueStyle::Short);

/// Byte offset where the bracket nesting (counted on the raw text, outside
/// strings) first exceeds maxDepth, or npos: refuses absurd input before any
/// recursive code sees it.
std::size_t findTooDeep(std::string_view text, int maxDepth);

/// nlohmann's message without its "[json.exception.parse_error.101] " tag.
std::string stripExceptionTag(const std::string& what);
/// `parent.key` (just `key` under the root). A key longer than maxKeyLength
/// is cut there and gets "...": keys come from user files, and a megabyte-long
/// key must not become a megabyte-long message.
std::string joinPath(const std::string& parent, std::string_view key,
                     std::size_t maxKeyLength = std::numeric_limits<std::size_t>::max());

/// One value checked against a rule: the value, or the problem with it
/// ("must be ..., got X") for the caller to record at the value's key path.
template <class T>
struct Checked {
    std::optional<T> value;
    std::string problem;
};

/// The value checks every reader shares (JsonReader's key getters,
/// ObjectReader, the catalog), so one kind of value gets one wording.
Checked<bool> checkBool(const nlohmann::json& v, ValueStyle style);
Checked<std::string> checkString(const nlohmann::json& v, bool nonEmpty, ValueStyle style);
/// A string that must be one of `choices`; the value is its index.
Checked<std::size_t> checkChoice(const nlohmann::json& v, std::span<const std::string_view> choices,
                                 ValueStyle style);

class JsonReader;

/// json::parse, plus a warning on `r` for each key that appears twice in one
/// object (JSON leaves that undefined; the last value is used), naming its key
/// path, and an error for a NUL byte. Throws what json::parse throws.
nlohmann::json parseCheckingDuplicates(std::string_view text, JsonReader& r);

class JsonReader {
public:
    JsonReader() = default;
    /// Quotes values in `style` and keeps at most `maxErrors` errors; the rest
    /// are counted, and takeErrors() ends with "N more problems not shown" at
    /// `overflowPath`. A broken 16 MB file could otherwise yield millions.
    JsonReader(ValueStyle style, std::size_t maxErrors, std::string overflowPath);

    std::vector<Diagnostic> errors;   // the first maxErrors errors
    std::vector<Diagnostic> warnings;

    void error(const std::string& path, std::string msg);
    void warn(const std::string& path, std::string msg) { warnings.push_back({path, std::move(msg)}); }
    /// Every error recorded, kept or not.
    std::size_t errorCount() const { return m_errorCount; }
    /// The kept errors plus the overflow line when some were dropped; clears them.
    std::vector<Diagnostic> takeErrors();
    /// Throws InputError with takeErrors() when there is any error.
    void throwIfErrors();

    std::string describe(const nlohmann::json& v) const { return detail::describe(v, m_style); }

    /// The shared checks on a value at `path`; a problem is recorded there.
    std::optional<bool> booleanAt(const nlohmann::json& v, const std::string& path);
    std::optional<std::string> stringAt(const nlohmann::json& v, const std::string& path, bool nonEmpty = false);
    std::optional<std::size_t> choiceAt(const nlohmann::json& v, const std::string& path,
                                        std::span<const std::string_view> choices);

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
                                      std::span<const std::string_view> choices);
    std::optional<std::size_t> choice(const nlohmann::json& obj, const std::string& parent, std::string_view key,
                                      std::initializer_list<std::string_view> choices)
    {
        return choice(obj, parent, key, std::span<const std::string_view>(choices.begin(), choices.size()));
    }
    /// An object member; records an error if present but not an object.
    const nlohmann::json* object(const nlohmann::json& obj, const std::string& parent, std::string_view key,
                                 bool required);

private:
    ValueStyle m_style = ValueStyle::Short;
    std::size_t m_maxErrors = std::numeric_limits<std::size_t>::max();
    std::size_t m_errorCount = 0;
    std::string m_overflowPath;
};

/// The integer value of a JSON number, or nullopt if it is not an integer.
/// Integral floats (4096.0) are accepted because some tools write them.
std::optional<std::int64_t> integerValue(const nlohmann::json& v);

/// Reads the keys of one object (a model description) whose absent keys take
/// defaults: null counts as absent. Problems are collected with their key
/// paths so one error lists every bad key, not just the first.
class ObjectReader {
public:
    ObjectReader(const nlohmann::json& obj, std::string path);

    const std::string& path() const { return m_path; }
    std::string keyPath(std::string_view key) const { return joinPath(m_path, key); }

    /// Present and not null.
    bool has(const std::string& key) const { return m_obj.contains(key) && !m_obj.at(key).is_null(); }
    const nlohmann::json& at(const std::string& key) const { return m_obj.at(key); }

    void fail(const std::string& key, std::string message) { m_problems.push_back({keyPath(key), std::move(message)}); }
    /// Takes over the problems of a reader for a nested object.
    void absorb(ObjectReader& nested);

    /// A required integer in [min, max]; on a problem records it and returns `min`
    /// so the caller can keep reading (the collected problems are thrown later).
    std::int64_t integer(const std::string& key, std::int64_t min, std::int64_t max);
    std::int64_t integerOr(const std::string& key, std::int64_t fallback, std::int64_t min, std::int64_t max);
    bool booleanOr(const std::string& key, bool fallback);
    /// An optional string that must be one of `allowed`; returns its index.
    std::size_t choiceOr(const std::string& key, std::initializer_list<std::string_view> allowed,
                         std::size_t fallback);

    std::vector<Diagnostic> takeProblems() { return std::move(m_problems); }
    bool ok() const { return m_problems.empty(); }

private:
    std::int64_t check(const std::string& key, std::int64_t min, std::int64_t max);

    const nlohmann::json& m_obj;
    std::string m_path;
    std::vector<Diagnostic> m_problems;
};

} // namespace gp::detail
