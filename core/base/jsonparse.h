#pragma once
// The one way the program turns JSON text into a document (scenarios, calibration
// files, measured records, autosaves, overlays): nesting is counted while the
// text is read, and a document deeper than a small limit is refused before any
// recursive code (a dump, a copy, a walker) could overflow the stack on it.
#include "core/base/errors.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace gp {

/// The files the program reads are shallow (a scenario nests 4 levels, a
/// config.json about 6, a records file 5); 64 leaves room and keeps a
/// 100,000-level file away from every recursive function.
constexpr int kMaxJsonDepth = 64;

enum class DuplicateKeys {
    Keep,   // JSON leaves it undefined; nlohmann keeps the last value
    Warn,   // kept (last value), and a warning names the key path
    Refuse, // an error naming the key path (files whose values must be unambiguous)
};

struct JsonParseOptions {
    int maxDepth = kMaxJsonDepth;
    DuplicateKeys duplicates = DuplicateKeys::Keep;
};

/// Parses `text`, read from `origin` (a file name, used as the diagnostic's path).
/// Throws InputError(origin, ...) for: nesting deeper than maxDepth ("nested
/// deeper than 64 levels (depth 65 at records[0].config.a.a...); refused"), a
/// NUL byte, a syntax error (with its byte offset), a number that overflows a
/// double (1e400), and with DuplicateKeys::Refuse a key given twice in one
/// object. With Warn each duplicate goes to *warnings (path "origin: key.path").
nlohmann::json parseJson(std::string_view text, const std::string& origin, const JsonParseOptions& options = {},
                         std::vector<Diagnostic>* warnings = nullptr);

/// How many containers nest in a parsed document (0 for a scalar, 1 for {} or
/// [1, 2], 2 for {"a": []}), counted without recursion.
int jsonDepth(const nlohmann::json& doc);

} // namespace gp
