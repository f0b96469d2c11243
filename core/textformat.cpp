#include "textformat.h"

#include <cmath>

namespace gp {

double round4(double v)
{
    if (!std::isfinite(v) || v == 0)
        return 0;
    const double mag = std::pow(10.0, 3 - std::floor(std::log10(std::fabs(v))));
    return std::round(v * mag) / mag;
}

} // namespace gp
