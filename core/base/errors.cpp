#include "core/base/errors.h"

#ifndef GP_VERSION
#define GP_VERSION "0.0.0"
#endif

namespace gp {

const char* version() { return GP_VERSION; }

namespace {

const char* const kHex = "0123456789abcdef";

/// Unicode format characters (general category Cf: bidirectional embeddings,
/// overrides and isolates, marks, zero-width characters, invisible operators,
/// tags) and the line/paragraph separators: invisible, or they reorder or
/// break what a terminal shows (the "Trojan Source" trick).
bool isFormatCharacter(char32_t cp)
{
    struct Range {
        char32_t lo, hi;
    };
    static constexpr Range kRanges[] = {
        {0x00AD, 0x00AD},   {0x0600, 0x0605},   {0x061C, 0x061C},   {0x06DD, 0x06DD},   {0x070F, 0x070F},
        {0x0890, 0x0891},   {0x08E2, 0x08E2},   {0x180E, 0x180E},   {0x200B, 0x200F},   {0x2028, 0x202E},
        {0x2060, 0x2064},   {0x2066, 0x206F},   {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},   {0x110BD, 0x110BD},
        {0x110CD, 0x110CD}, {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0001, 0xE0001},
        {0xE0020, 0xE007F},
    };
    for (const Range& r : kRanges)
        if (cp >= r.lo && cp <= r.hi)
            return true;
    return false;
}

/// The code point of the well-formed UTF-8 sequence at text[i] and its length; 0 when not one.
std::size_t decodeUtf8(std::string_view text, std::size_t i, char32_t& cp)
{
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
    const unsigned char c = b(0);
    std::size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (c >= 0xF5)
        n = 0;
    if (n == 0 || i + n > text.size())
        return 0;
    cp = n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    for (std::size_t k = 1; k < n; ++k) {
        if ((b(k) & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (b(k) & 0x3F);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return n;
}

void appendU16(std::string& out, unsigned v)
{
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4)
        out += kHex[(v >> shift) & 15];
}

} // namespace

std::string printable(std::string_view text, bool keepNewlines)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        char32_t cp = 0;
        std::size_t n = 0;
        if (c == '\n' && keepNewlines) {
            out += '\n';
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7f) {
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 15];
        } else if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                   static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
            const auto c1 = static_cast<unsigned char>(text[++i]);
            out += "\\u00";
            out += kHex[c1 >> 4];
            out += kHex[c1 & 15];
        } else if (c >= 0xc2 && (n = decodeUtf8(text, i, cp)) != 0 && isFormatCharacter(cp)) {
            // \u202e; beyond the BMP (tags) \U000e0041
            if (cp > 0xFFFF) {
                out += "\\U000";
                for (int shift = 16; shift >= 0; shift -= 4)
                    out += kHex[(cp >> shift) & 15];
            } else {
                appendU16(out, unsigned(cp));
            }
            i += n - 1;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

std::string escapeFormatCharactersInJson(std::string_view json)
{
    std::string out;
    out.reserve(json.size());
    for (std::size_t i = 0; i < json.size(); ++i) {
        const auto c = static_cast<unsigned char>(json[i]);
        char32_t cp = 0;
        std::size_t n = 0;
        if (c >= 0xc2 && (n = decodeUtf8(json, i, cp)) != 0 && isFormatCharacter(cp)) {
            if (cp > 0xFFFF) { // a UTF-16 surrogate pair, as JSON spells it
                const char32_t v = cp - 0x10000;
                appendU16(out, unsigned(0xD800 + (v >> 10)));
                appendU16(out, unsigned(0xDC00 + (v & 0x3FF)));
            } else {
                appendU16(out, unsigned(cp));
            }
            i += n - 1;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

namespace {
std::string joinProblems(const std::vector<Diagnostic>& problems)
{
    std::string out;
    for (const auto& p : problems) {
        if (!out.empty())
            out += '\n';
        out += p.text();
    }
    return out;
}
} // namespace

InputError::InputError(std::vector<Diagnostic> problems)
    : std::runtime_error(joinProblems(problems))
    , m_problems(std::move(problems))
{
}

InputError::InputError(std::string path, std::string message)
    : InputError(std::vector<Diagnostic>{{std::move(path), std::move(message)}})
{
}

} // namespace gp
