#include "core/base/jsonread.h"

#include "core/base/jsonparse.h"

#include <algorithm>
#include <functional>

#include <cstdio>
#include <set>
#include <limits>

namespace gp::detail {

std::string describe(const nlohmann::json& v, ValueStyle style)
{
    if (style == ValueStyle::Verbatim) {
        std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        constexpr std::size_t kMax = 48;
        if (s.size() > kMax)
            s = s.substr(0, kMax) + "...";
        return s;
    }
    std::string s;
    if (v.is_object()) {
        s = "an object";
    } else if (v.is_array()) {
        s = "an array";
    } else if (v.is_null()) {
        s = "null";
    } else {
        s = v.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
    }
    if (s.size() > 60)
        s = s.substr(0, 57) + "...";
    return s;
}

std::size_t findTooDeep(std::string_view text, int maxDepth)
{
    int depth = 0;
    bool inString = false;
    bool escaped = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > maxDepth)
                return i;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return std::string_view::npos;
}

std::string stripExceptionTag(const std::string& what)
{
    if (!what.empty() && what.front() == '[') {
        const auto close = what.find("] ");
        if (close != std::string::npos)
            return what.substr(close + 2);
    }
    return what;
}

std::string joinPath(const std::string& parent, std::string_view key, std::size_t maxKeyLength)
{
    std::string k(key.substr(0, maxKeyLength));
    if (key.size() > maxKeyLength)
        k += "...";
    if (parent.empty())
        return k;
    return parent + "." + k;
}

Checked<bool> checkBool(const nlohmann::json& v, ValueStyle style)
{
    if (!v.is_boolean())
        return {std::nullopt, "must be true or false, got " + describe(v, style)};
    return {v.get<bool>(), {}};
}

Checked<std::string> checkString(const nlohmann::json& v, bool nonEmpty, ValueStyle style)
{
    if (!v.is_string() || (nonEmpty && v.get_ref<const std::string&>().empty()))
        return {std::nullopt, std::string(nonEmpty ? "must be a non-empty string" : "must be a string") + ", got "
                                  + describe(v, style)};
    return {v.get<std::string>(), {}};
}

Checked<std::size_t> checkChoice(const nlohmann::json& v, std::span<const std::string_view> choices,
                                 ValueStyle style)
{
    if (v.is_string()) {
        const auto& s = v.get_ref<const std::string&>();
        for (std::size_t i = 0; i < choices.size(); ++i) {
            if (choices[i] == s)
                return {i, {}};
        }
    }
    std::string list;
    for (auto c : choices)
        list += (list.empty() ? "\"" : ", \"") + std::string(c) + "\"";
    return {std::nullopt, "must be one of " + list + ", got " + describe(v, style)};
}

namespace {

/// A key path for a message: at most ~200 characters (the first and last
/// segments kept), so a path 64 levels deep of 64-character keys stays readable.
std::string elidePath(std::string p)
{
    constexpr std::size_t kMax = 200;
    if (p.size() <= kMax)
        return p;
    return p.substr(0, 96) + "..." + p.substr(p.size() - 96);
}

/// json::parse with a callback that tracks the key path, counts nesting (and
/// throws InputError(origin, ...) before a container deeper than maxDepth is
/// built) and reports duplicate keys through onDuplicate. Syntax errors throw
/// what json::parse throws.
nlohmann::json parseTracked(std::string_view text, const std::string& origin, int maxDepth, bool trackDuplicates,
                            const std::function<void(const std::string& path)>& onDuplicate)
{
    using nlohmann::json;
    struct Frame {
        bool array = false;
        std::size_t index = 0;     // arrays: the element being read
        std::string key;           // objects: the member being read
        std::set<std::string> seen;
    };
    std::vector<Frame> stack;
    auto pathOf = [&](std::size_t depth) {
        std::string p;
        for (std::size_t i = 0; i < depth; ++i)
            p = stack[i].array ? p + "[" + std::to_string(stack[i].index) + "]" : joinPath(p, stack[i].key, 64);
        return p;
    };
    auto elementDone = [&] {
        if (!stack.empty() && stack.back().array)
            ++stack.back().index;
    };
    const json::parser_callback_t cb = [&](int, json::parse_event_t event, json& parsed) {
        switch (event) {
        case json::parse_event_t::object_start:
        case json::parse_event_t::array_start:
            if (stack.size() >= static_cast<std::size_t>(maxDepth)) {
                const std::string at = pathOf(stack.size());
                throw InputError(origin, "nested deeper than " + std::to_string(maxDepth) + " levels (depth "
                                             + std::to_string(stack.size() + 1) + " at "
                                             + (at.empty() ? std::string("the top") : elidePath(at))
                                             + "); refused");
            }
            stack.push_back(Frame{event == json::parse_event_t::array_start, 0, {}, {}});
            break;
        case json::parse_event_t::key: {
            Frame& f = stack.back();
            f.key = parsed.get<std::string>();
            if (trackDuplicates && !f.seen.insert(f.key).second)
                onDuplicate(elidePath(pathOf(stack.size())));
            break;
        }
        case json::parse_event_t::object_end:
        case json::parse_event_t::array_end:
            stack.pop_back();
            elementDone();
            break;
        case json::parse_event_t::value:
            elementDone();
            break;
        }
        return true;
    };
    return json::parse(text, cb);
}

} // namespace

nlohmann::json parseCheckingDuplicates(std::string_view text, JsonReader& r)
{
    return parseTracked(text, "", kMaxJsonDepth, true, [&](const std::string& path) {
        r.warn(path, "duplicate key; only its last value is used");
    });
}

JsonReader::JsonReader(ValueStyle style, std::size_t maxErrors, std::string overflowPath)
    : m_style(style)
    , m_maxErrors(maxErrors)
    , m_overflowPath(std::move(overflowPath))
{
}

void JsonReader::error(const std::string& path, std::string msg)
{
    ++m_errorCount;
    if (errors.size() < m_maxErrors)
        errors.push_back({path, std::move(msg)});
}

std::vector<Diagnostic> JsonReader::takeErrors()
{
    std::vector<Diagnostic> list = std::move(errors);
    errors.clear();
    if (m_errorCount > list.size())
        list.push_back({m_overflowPath, std::to_string(m_errorCount - list.size()) + " more problems not shown"});
    m_errorCount = 0;
    return list;
}

void JsonReader::throwIfErrors()
{
    if (m_errorCount > 0 || !errors.empty())
        throw InputError(takeErrors());
}

std::optional<bool> JsonReader::booleanAt(const nlohmann::json& v, const std::string& path)
{
    auto c = checkBool(v, m_style);
    if (!c.value)
        error(path, std::move(c.problem));
    return c.value;
}

std::optional<std::string> JsonReader::stringAt(const nlohmann::json& v, const std::string& path, bool nonEmpty)
{
    auto c = checkString(v, nonEmpty, m_style);
    if (!c.value)
        error(path, std::move(c.problem));
    return std::move(c.value);
}

std::optional<std::size_t> JsonReader::choiceAt(const nlohmann::json& v, const std::string& path,
                                                std::span<const std::string_view> choices)
{
    auto c = checkChoice(v, choices, m_style);
    if (!c.value)
        error(path, std::move(c.problem));
    return c.value;
}

void JsonReader::checkKeys(const nlohmann::json& obj, const std::string& path,
                           std::initializer_list<std::string_view> known)
{
    if (!obj.is_object())
        return;
    for (const auto& [key, value] : obj.items()) {
        bool found = false;
        for (auto k : known)
            found = found || k == key;
        if (!found)
            warn(joinPath(path, key), "unknown key, ignored");
    }
}

std::optional<double> JsonReader::number(const nlohmann::json& obj, const std::string& parent, std::string_view key,
                                         double min, double max, bool minExclusive)
{
    auto it = obj.find(std::string(key));
    if (it == obj.end())
        return std::nullopt;
    const auto path = joinPath(parent, key);
    if (!it->is_number() || it->is_boolean()) {
        error(path, "must be a number, got " + describe(*it));
        return std::nullopt;
    }
    const double v = it->get<double>();
    if (!std::isfinite(v)) {
        error(path, "must be a finite number");
        return std::nullopt;
    }
    char range[160];
    std::snprintf(range, sizeof range, "must be %s %g and at most %g, got %s",
                  minExclusive ? "greater than" : "at least", min, max, describe(*it).c_str());
    if ((minExclusive ? v <= min : v < min) || v > max) {
        error(path, range);
        return std::nullopt;
    }
    return v;
}

std::optional<int> JsonReader::integer(const nlohmann::json& obj, const std::string& parent, std::string_view key,
                                       long long min, long long max)
{
    auto it = obj.find(std::string(key));
    if (it == obj.end())
        return std::nullopt;
    const auto path = joinPath(parent, key);
    const std::string kind = min > 0 ? "a positive integer" : "an integer";
    if (!it->is_number() || it->is_boolean()) {
        error(path, "must be " + kind + ", got " + describe(*it));
        return std::nullopt;
    }
    const double v = it->get<double>();
    if (!std::isfinite(v) || std::floor(v) != v) {
        error(path, "must be " + kind + ", got " + describe(*it));
        return std::nullopt;
    }
    if (v < static_cast<double>(min) || v > static_cast<double>(max)) {
        char msg[160];
        std::snprintf(msg, sizeof msg, "must be %s between %lld and %lld, got %s", kind.c_str(), min, max,
                      describe(*it).c_str());
        error(path, msg);
        return std::nullopt;
    }
    return static_cast<int>(v);
}

std::optional<bool> JsonReader::boolean(const nlohmann::json& obj, const std::string& parent, std::string_view key)
{
    auto it = obj.find(std::string(key));
    if (it == obj.end())
        return std::nullopt;
    return booleanAt(*it, joinPath(parent, key));
}

std::optional<std::string> JsonReader::string(const nlohmann::json& obj, const std::string& parent,
                                              std::string_view key)
{
    auto it = obj.find(std::string(key));
    if (it == obj.end())
        return std::nullopt;
    return stringAt(*it, joinPath(parent, key));
}

std::optional<std::size_t> JsonReader::choice(const nlohmann::json& obj, const std::string& parent,
                                              std::string_view key, std::span<const std::string_view> choices)
{
    auto it = obj.find(std::string(key));
    if (it == obj.end())
        return std::nullopt;
    return choiceAt(*it, joinPath(parent, key), choices);
}

const nlohmann::json* JsonReader::object(const nlohmann::json& obj, const std::string& parent, std::string_view key,
                                         bool required)
{
    auto it = obj.find(std::string(key));
    if (it == obj.end()) {
        if (required)
            error(joinPath(parent, key), "missing (required)");
        return nullptr;
    }
    if (!it->is_object()) {
        error(joinPath(parent, key), "must be an object, got " + describe(*it));
        return nullptr;
    }
    return &*it;
}

std::optional<std::int64_t> integerValue(const nlohmann::json& v)
{
    if (v.is_number_unsigned()) {
        const auto u = v.get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return std::numeric_limits<std::int64_t>::max();
        return static_cast<std::int64_t>(u);
    }
    if (v.is_number_integer())
        return v.get<std::int64_t>();
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::isfinite(d) && std::floor(d) == d && std::abs(d) < 9e18)
            return static_cast<std::int64_t>(d);
    }
    return std::nullopt;
}

ObjectReader::ObjectReader(const nlohmann::json& obj, std::string path)
    : m_obj(obj)
    , m_path(std::move(path))
{
}

void ObjectReader::absorb(ObjectReader& nested)
{
    for (auto& d : nested.m_problems)
        m_problems.push_back(std::move(d));
    nested.m_problems.clear();
}

std::int64_t ObjectReader::integer(const std::string& key, std::int64_t min, std::int64_t max)
{
    if (!m_obj.contains(key)) {
        fail(key, "missing");
        return min;
    }
    return check(key, min, max);
}

std::int64_t ObjectReader::integerOr(const std::string& key, std::int64_t fallback, std::int64_t min,
                                     std::int64_t max)
{
    return has(key) ? check(key, min, max) : fallback;
}

bool ObjectReader::booleanOr(const std::string& key, bool fallback)
{
    if (!has(key))
        return fallback;
    auto c = checkBool(m_obj.at(key), ValueStyle::Short);
    if (!c.value) {
        fail(key, std::move(c.problem));
        return fallback;
    }
    return *c.value;
}

std::size_t ObjectReader::choiceOr(const std::string& key, std::initializer_list<std::string_view> allowed,
                                   std::size_t fallback)
{
    if (!has(key))
        return fallback;
    auto c = checkChoice(m_obj.at(key), std::span<const std::string_view>(allowed.begin(), allowed.size()),
                         ValueStyle::Short);
    if (!c.value) {
        fail(key, std::move(c.problem));
        return fallback;
    }
    return *c.value;
}

std::int64_t ObjectReader::check(const std::string& key, std::int64_t min, std::int64_t max)
{
    const nlohmann::json& v = m_obj.at(key);
    const auto i = integerValue(v);
    const char* what = min > 0 ? "must be a positive integer" : "must be a non-negative integer";
    if (!i || *i < min) {
        fail(key, std::string(what) + ", got " + describe(v));
        return min;
    }
    if (*i > max) {
        fail(key, "must be at most " + std::to_string(max) + ", got " + describe(v));
        return min;
    }
    return *i;
}

} // namespace gp::detail

namespace gp {

nlohmann::json parseJson(std::string_view text, const std::string& origin, const JsonParseOptions& options,
                         std::vector<Diagnostic>* warnings)
{
    using nlohmann::json;
    if (const auto nul = text.find('\0'); nul != std::string_view::npos)
        throw InputError(origin, "contains a NUL byte at offset " + std::to_string(nul) + "; not a text file");
    std::vector<Diagnostic> duplicates;
    json doc;
    try {
        doc = detail::parseTracked(text, origin, std::max(1, options.maxDepth),
                                   options.duplicates != DuplicateKeys::Keep, [&](const std::string& path) {
                                       if (duplicates.size() < 100)
                                           duplicates.push_back({origin.empty() ? path : origin + ": " + path,
                                                                 options.duplicates == DuplicateKeys::Refuse
                                                                     ? "key given twice in one object; refused "
                                                                       "(which value is meant?)"
                                                                     : "duplicate key; only its last value is used"});
                                   });
    } catch (const json::parse_error& e) {
        throw InputError(origin, "invalid JSON at byte " + std::to_string(e.byte) + ": "
                                     + detail::stripExceptionTag(e.what()));
    } catch (const json::exception& e) {
        // out_of_range 406: a number literal such as 1e400 overflows a double.
        throw InputError(origin, "invalid JSON: " + detail::stripExceptionTag(e.what()));
    }
    if (!duplicates.empty()) {
        if (options.duplicates == DuplicateKeys::Refuse)
            throw InputError(std::move(duplicates));
        if (warnings)
            warnings->insert(warnings->end(), duplicates.begin(), duplicates.end());
    }
    return doc;
}

int jsonDepth(const nlohmann::json& doc)
{
    int deepest = 0;
    std::vector<std::pair<const nlohmann::json*, int>> todo;
    if (doc.is_structured())
        todo.push_back({&doc, 1});
    while (!todo.empty()) {
        const auto [v, d] = todo.back();
        todo.pop_back();
        deepest = std::max(deepest, d);
        for (const auto& child : *v)
            if (child.is_structured())
                todo.push_back({&child, d + 1});
    }
    return deepest;
}

} // namespace gp
