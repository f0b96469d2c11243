#include "core/base/textformat.h"

#include <cctype>
#include <cmath>
#include <cstdio>

namespace gp {

double round4(double v)
{
    if (!std::isfinite(v) || v == 0)
        return 0;
    const double mag = std::pow(10.0, 3 - std::floor(std::log10(std::fabs(v))));
    return std::round(v * mag) / mag;
}

std::string formatDouble(const char* spec, double v)
{
    std::string format(spec);
    // From 1e15 on a fixed conversion would print 16 to 309 digits: the
    // conversion (with its width and precision) becomes %.3g.
    if (std::isfinite(v) && std::fabs(v) >= 1e15) {
        for (std::size_t i = 0; i < format.size(); ++i) {
            if (format[i] != '%')
                continue;
            if (i + 1 < format.size() && format[i + 1] == '%') {
                ++i;
                continue;
            }
            std::size_t end = i + 1;
            while (end < format.size() && !std::isalpha(static_cast<unsigned char>(format[end])))
                ++end;
            if (end < format.size())
                format.replace(i, end + 1 - i, "%.3g");
            break;
        }
    }
    const int n = std::snprintf(nullptr, 0, format.c_str(), v);
    if (n <= 0)
        return std::string();
    std::string out(static_cast<std::size_t>(n) + 1, '\0');
    std::snprintf(out.data(), out.size(), format.c_str(), v);
    out.resize(static_cast<std::size_t>(n));
    return out;
}

std::string formatFixed(double v, int decimals)
{
    const std::string spec = "%." + std::to_string(decimals < 0 ? 0 : decimals > 17 ? 17 : decimals) + "f";
    return formatDouble(spec.c_str(), v);
}

std::string formatPercent(double fraction) { return formatDouble("%.0f%%", fraction * 100); }

} // namespace gp
