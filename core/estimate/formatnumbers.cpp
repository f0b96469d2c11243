// The numbers in the terms' formulas and the notes: printf's text, byte for
// byte (tst_perfmodel compares), without printf on the estimate's hot path.
#include "core/estimate/sizing.h"

#include "core/base/units.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>

namespace gp::detail {

// std::to_chars with a precision prints as printf("%.*g") does in the C locale
// ([charconv.to.chars]), without printf's format parsing.
std::string fmt(double v, int precision)
{
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf - 1, v, std::chars_format::general, precision);
    if (r.ec != std::errc()) {
        std::snprintf(buf, sizeof buf, "%.*g", precision, v);
        return buf;
    }
    return std::string(buf, r.ptr);
}

namespace {

/// printf("%.2f", v) written backwards from `end`; nullptr where it does not
/// apply (not finite, beyond 1e16, no 64-bit long double). printf rounds the
/// exact binary value to two decimals, ties to even; v x 100 is exact in an
/// x87 / quad long double (53 + 5 significant bits), so rounding it to an
/// integer, half to even, rounds as printf does (in the default rounding mode).
char* fixed2Backwards(double v, char* end)
{
    if constexpr (std::numeric_limits<long double>::digits >= 64) {
        if (!std::isfinite(v))
            return nullptr;
        const long double scaled = std::fabs(static_cast<long double>(v) * 100); // exact
        if (!(scaled < 1e18L))
            return nullptr;
        // Round half to even by hand (nearbyintl is a slow library call): the
        // integer part and the fraction are both exact.
        auto n = static_cast<std::uint64_t>(scaled);
        const long double fraction = scaled - static_cast<long double>(n);
        if (fraction > 0.5L || (fraction == 0.5L && (n & 1) != 0))
            ++n;
        char* q = end;
        std::uint64_t whole = n / 100;
        const unsigned cents = unsigned(n % 100);
        *--q = char('0' + cents % 10);
        *--q = char('0' + cents / 10);
        *--q = '.';
        do {
            *--q = char('0' + whole % 10);
            whole /= 10;
        } while (whole > 0);
        if (std::signbit(v))
            *--q = '-';
        return q;
    }
    return nullptr;
}

} // namespace

// The estimate's hot path: a target miss names the memory in GiB.
std::string fmtGiB(double bytes)
{
    const double v = units::bytesToGiB(bytes);
    char buf[64];
    char* end = buf + 32;
    if (char* q = fixed2Backwards(v, end)) {
        std::memcpy(end, " GiB", 4);
        return std::string(q, end + 4);
    }
    std::snprintf(buf, sizeof buf, "%.2f GiB", v);
    return buf;
}

std::string fmtReadable(double v)
{
    if (!std::isfinite(v) || std::fabs(v) < 1000 || std::fabs(v) >= 1e15)
        return fmt(v);
    const long long n = std::llround(std::fabs(v));
    std::string digits = std::to_string(n);
    std::string out;
    out.reserve(digits.size() + digits.size() / 3 + 1);
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return v < 0 ? "-" + out : out;
}

std::string fixed2(double v)
{
    char buf[64];
    if (char* q = fixed2Backwards(v, buf + 32))
        return std::string(q, buf + 32);
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

} // namespace gp::detail
