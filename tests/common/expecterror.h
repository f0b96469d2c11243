#pragma once
// The InputError a call throws, for the tests that check what it names (the
// catalog and scenario tests).
#include "core/base/errors.h"

#include <utility>

namespace gp::test {

/// Runs f, expecting an InputError; returns it, or one saying none was thrown.
template <typename F>
gp::InputError expectInputError(F&& f)
{
    try {
        std::forward<F>(f)();
    } catch (const gp::InputError& e) {
        return e;
    }
    return gp::InputError("<none>", "<no exception thrown>");
}

} // namespace gp::test
